// Command daemonsched prints what the Kubernetes v1.36 DaemonSet controller would do in one sync
// of every DaemonSet of a snapshot (plan), and why a DaemonSet does or does not run on a node
// (explain). It reads what `kubectl get -o yaml|json` prints, or hand-written manifests, and
// never contacts an API server.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	appsv1 "k8s.io/api/apps/v1"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// Exit codes.
const (
	exitOK       = 0
	exitBadInput = 1
	exitUsage    = 2
)

// errUsage marks a command line that cannot be run (unknown subcommand or flag, bad flag value);
// run prints the usage and exits 2. Every other error is bad input and exits 1.
var errUsage = errors.New("usage")

// usageMessage is a usage error with its message; run prints it on stderr and exits 2.
type usageMessage struct{ msg string }

func (u *usageMessage) Error() string        { return u.msg }
func (u *usageMessage) Is(target error) bool { return target == errUsage }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return &usageMessage{msg: fmt.Sprintf(format, args...)}
}

const usageText = `Usage:
  daemonsched demo    [plan flags]     (plan of the built-in example cluster)
  daemonsched plan    [-f FILE]... [--now RFC3339] [-o table|json|yaml] [--burst N] [--strict]
  daemonsched explain [-f FILE]... --node NAME [--daemonset NAMESPACE/NAME] [--now RFC3339]
  daemonsched verify  [-f FILE]... --plan CANDIDATE.json [--now RFC3339] [--burst N] [--reasons] [--diff]
  daemonsched conformance run [--corpus DIR] [--report DIR] [--profile NAME]... [--name NAME] [--timeout D] -- PROGRAM [ARG]...
  daemonsched conformance serve
  daemonsched rollout status [-f FILE]... [--daemonset NAMESPACE/NAME] [--now RFC3339] [-o table|json|yaml]
  daemonsched forecast [-f FILE]... [--template FILE] [--startup 20s|20s-40s] [--daemonset NAMESPACE/NAME] [--seed N] [-o ...]

daemonsched prints what the Kubernetes v1.36 DaemonSet controller would do in one sync of every
DaemonSet of a snapshot (plan), and why a DaemonSet does or does not run on a node (explain).
verify says whether a candidate plan (another implementation's, in the shape of plan -o json) is
one the controller could have produced, accepting each of its random choices; exit 0 when it
conforms, 1 with one line per mismatch (DaemonSet, action, object, rule: message) when not.
conformance run runs the conformance corpus through PROGRAM (one case in, one plan out, as
newline-delimited JSON on its stdin and stdout), prints a summary per profile and writes a YAML
report per profile (placement, diff, rolling, status, what-if); exit 0 when every profile run
conforms. conformance serve answers that protocol with this program's own plans.

Input (-f, repeatable; "-" reads stdin): YAML or JSON, several documents separated by "---",
and lists (kind: List, as "kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml"
prints, or NodeList, PodList, ... as the API server returns them). apps/v1 DaemonSet and
ControllerRevision and v1 Node and Pod are read; other kinds are skipped with a warning. Without
-f, stdin is read when it is not a terminal; --example (or daemonsched demo) reads the built-in
example cluster instead. Either way stderr says which input was read. UTF-8 (a byte order mark is ignored) or UTF-16 with a
byte order mark; Windows line endings, comments, "..." and empty documents are fine.

Objects are decoded into the v1.36 API types, as the v1.36 controller decodes them: a field
those types do not have (a typo, or a field of a newer Kubernetes) is dropped with a warning
naming where it was, and is an error with --strict; a value of the wrong type, a key given twice
and a syntax error are always errors. ControllerRevision data is re-encoded as the controller
stores it (compact JSON, sorted keys, <, > and & escaped), so a revision printed by kubectl as
YAML or indented JSON still matches its template byte for byte.

Hand-written manifests: every DaemonSet gets the API server's DaemonSet defaults (update
strategy, revisionHistoryLimit); objects without metadata.namespace are in "default"; a
DaemonSet without metadata.uid gets one derived from its namespace and name (with a warning).
Pods belong to a DaemonSet only through an ownerReference carrying its uid: an ownerReference
with the right name but no or another uid makes the pod invisible to that DaemonSet, as in a
real cluster.

--now is an RFC 3339 time, with or without fractional seconds, in UTC ("Z") or with an offset
("+02:00"). It defaults, for reproducible output, to the latest timestamp in the input
(metadata.creationTimestamp and managedFields[].time of every object, pod status.startTime,
pod, node and DaemonSet condition lastTransitionTime, node condition lastHeartbeatTime, taint
timeAdded), or 1970-01-01T00:00:00Z if the input has none; pass --now to judge readiness
(minReadySeconds) at another instant.

Output: table (default), json (the oracle contract: identical bytes for the same snapshot
whatever the order of documents and files, ending in a newline) or yaml (the same content).

Limits, against damaged and hostile input (each flag changes one): --max-input-bytes (all
inputs together, default 1 GiB), --max-objects (per input, documents and list items, default
250000), --max-object-bytes (per object, default 3 MiB as the API server), --max-quantity-length
(64) and --max-quantity-exponent (100; "1e-999999999" is refused before it is parsed, which
would take hours), --max-warnings (100 distinct, then their count). Only regular files and
stdin are read. Nodes and pods are checked as the API server checks the fields the plan reads
(names, labels, taints, quantities): a problem is an error in a hand-written object, and a
warning in one read from the API server (with metadata.resourceVersion; an error with
--strict); --warn-invalid makes hand-written ones warnings too.

Each error is one line on stderr, "daemonsched: FILE: document N: Kind namespace/name: path:
message" (with "items[I]" after the document inside lists), and nothing is written on stdout.
Names and values holding control or other non-graphic characters are printed quoted or escaped.
Exit status: 0 success, 1 bad input, 2 usage. rollout status judges each DaemonSet from its
nodes and pods (not its status counters) and exits 0 when every rollout is complete, 3 when one
is progressing and 4 when one is stuck (stuck wins); the blocking nodes are listed. forecast
simulates the rollout (of --template, or the one under way) and prints its syncs and duration.
`

// run is the whole command: it parses args, reads the input and writes the result. It writes
// nothing to stdout unless it succeeds.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	var (
		out bytes.Buffer
		err error
	)
	switch args[0] {
	case "plan":
		err = runPlan(args[1:], stdin, &out, stderr)
	case "demo":
		err = runPlan(append([]string{"--example"}, args[1:]...), stdin, &out, stderr)
	case "explain":
		err = runExplain(args[1:], stdin, &out, stderr)
	case "verify":
		err = runVerify(args[1:], stdin, &out, stderr)
	case "conformance":
		err = runConformance(args[1:], stdin, &out, stdout, stderr)
	case "rollout":
		err = runRollout(args[1:], stdin, &out, stderr)
	case "forecast":
		err = runForecast(args[1:], stdin, &out, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	default:
		fmt.Fprintf(stderr, "daemonsched: unknown command %q\n%s", args[0], usageText)
		return exitUsage
	}
	switch {
	case err == nil:
		if _, err := stdout.Write(out.Bytes()); err != nil {
			fmt.Fprintf(stderr, "daemonsched: %v\n", err)
			return exitBadInput
		}
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		var u *usageMessage
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "daemonsched: %s\n", u.msg)
		}
		return exitUsage
	case errors.Is(err, errNonconforming):
		stdout.Write(out.Bytes()) //nolint:errcheck // the exit status already says it failed
		return exitBadInput
	case errors.As(err, new(exitStatus)):
		if _, werr := stdout.Write(out.Bytes()); werr != nil {
			fmt.Fprintf(stderr, "daemonsched: %v\n", werr)
			return exitBadInput
		}
		var st exitStatus
		errors.As(err, &st)
		return int(st)
	default:
		printError(stderr, err)
		return exitBadInput
	}
}

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(s string) error {
	if s == "" {
		return errors.New("empty file name")
	}
	*f = append(*f, s)
	return nil
}

// outputFormat is the -o flag.
type outputFormat string

const (
	formatTable outputFormat = "table"
	formatJSON  outputFormat = "json"
	formatYAML  outputFormat = "yaml"
)

func (o *outputFormat) String() string { return string(*o) }

func (o *outputFormat) Set(s string) error {
	switch f := outputFormat(s); f {
	case formatTable, formatJSON, formatYAML:
		*o = f
		return nil
	}
	return fmt.Errorf("unsupported output format %q: want table, json or yaml", s)
}

// timeFlag is --now; zero when not given.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f *timeFlag) Set(s string) error {
	t, err := parseRFC3339(s)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time (like 2026-03-02T10:00:00Z): %q", s)
	}
	*f = timeFlag{t: t.UTC()}
	return nil
}

// parseRFC3339 parses an RFC 3339 time, which may have fractional seconds, lower-case "t" and
// "z" and, as RFC 3339 section 5.6 allows, a space between date and time.
func parseRFC3339(s string) (time.Time, error) {
	b := []byte(strings.TrimSpace(s))
	if len(b) > 10 && (b[10] == 't' || b[10] == ' ') {
		b[10] = 'T'
	}
	if n := len(b); n > 0 && b[n-1] == 'z' {
		b[n-1] = 'Z'
	}
	return time.Parse(time.RFC3339Nano, string(b))
}

// addInputFlags registers -f and --example on fs.
func addInputFlags(fs *flag.FlagSet, src *inputs) {
	fs.Var(&src.files, "f", "input `FILE` (repeatable; - reads stdin; without -f, stdin when it is not a terminal)")
	fs.Var(&src.apply, "apply", "DaemonSet manifest `FILE` laid over the input as kubectl diff would apply it (repeatable)")
	fs.BoolVar(&src.example, "example", false, "read the built-in example cluster instead of -f or stdin")
}

// newFlagSet returns the flag set of one subcommand; parse errors print the usage on stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("daemonsched "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\nFlags of daemonsched %s:\n", usageText, name)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and rejects positional arguments; every failure is errUsage.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "daemonsched: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}

func runPlan(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var (
		src    inputs
		format = formatTable
		now    timeFlag
	)
	fs := newFlagSet("plan", stderr)
	addInputFlags(fs, &src)
	fs.Var(&now, "now", "the instant readiness is judged at (`RFC3339`)")
	fs.Var(&format, "o", "output `format`: table, json or yaml")
	burst := fs.Int("burst", 0, "cap creates and deletes of each action list at `N` (0: no cap; the controller uses 250)")
	strict := fs.Bool("strict", false, "treat what API validation would reject, and fields the v1.36 API does not have, as errors")
	reading := addReadFlags(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := reading.check(); err != nil {
		return usageError(fs, stderr, err)
	}
	if *burst < 0 {
		fmt.Fprintf(stderr, "daemonsched: --burst must not be negative, got %d\n", *burst)
		fs.Usage()
		return errUsage
	}

	// A command has the machine to itself: every core shares the decoding, and each plan's
	// nodes and pods.
	in, err := load(src, stdin, stderr, reading.options(*strict, runtime.GOMAXPROCS(0)))
	if err != nil {
		return err
	}
	opts := daemonset.Options{Now: now.t, BurstLimit: *burst, Workers: runtime.GOMAXPROCS(0)}
	if opts.Now.IsZero() {
		opts.Now = manifest.Latest(in.Snapshot)
	}

	problems := validate(in, func(*appsv1.DaemonSet) bool { return true }, opts, *strict)
	if *strict && len(problems) > 0 {
		return problems
	}
	cluster, err := daemonset.PlanCluster(in.Snapshot, opts)
	if err != nil {
		return fmt.Errorf("inconsistent snapshot: %w", err)
	}
	// stdout is run's buffer, which an error discards.
	switch format {
	case formatJSON:
		err = renderJSON(stdout, cluster)
	case formatYAML:
		err = renderYAML(stdout, cluster)
	default:
		renderTable(stdout, cluster)
	}
	if err != nil {
		return err
	}
	warn(stderr, in, problems, reading.limits.Warnings)
	return nil
}

// usageError prints err and the usage of fs; the command exits 2.
func usageError(fs *flag.FlagSet, stderr io.Writer, err error) error {
	fmt.Fprintf(stderr, "daemonsched: %v\n", err)
	fs.Usage()
	return errUsage
}

// problemList is every validation problem, one line each (VAL-23), when --strict makes them
// errors.
type problemList []error

func (l problemList) Error() string {
	msgs := make([]string, len(l))
	for i, p := range l {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\ndaemonsched: ")
}

func (l problemList) Unwrap() []error { return l }

func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var (
		src inputs
		now timeFlag
	)
	fs := newFlagSet("explain", stderr)
	addInputFlags(fs, &src)
	fs.Var(&now, "now", "the instant readiness is judged at (`RFC3339`)")
	nodeName := fs.String("node", "", "the node to explain (`NAME`, required)")
	dsName := fs.String("daemonset", "", "explain only this DaemonSet (`NAMESPACE/NAME`)")
	reading := addReadFlags(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := reading.check(); err != nil {
		return usageError(fs, stderr, err)
	}
	if *nodeName == "" {
		fmt.Fprintln(stderr, "daemonsched: explain needs --node NAME")
		fs.Usage()
		return errUsage
	}
	if *dsName != "" && strings.Count(*dsName, "/") != 1 {
		fmt.Fprintf(stderr, "daemonsched: --daemonset wants NAMESPACE/NAME, got %q\n", *dsName)
		fs.Usage()
		return errUsage
	}

	in, err := load(src, stdin, stderr, reading.options(false, runtime.GOMAXPROCS(0)))
	if err != nil {
		return err
	}
	opts := daemonset.Options{Now: now.t}
	if opts.Now.IsZero() {
		opts.Now = manifest.Latest(in.Snapshot)
	}
	node := findNode(in, *nodeName)
	if node == nil {
		return fmt.Errorf("node %q not found in the input", *nodeName)
	}
	keep := func(*appsv1.DaemonSet) bool { return true }
	if *dsName != "" {
		ns, name, _ := strings.Cut(*dsName, "/")
		keep = func(ds *appsv1.DaemonSet) bool { return ds.Namespace == ns && ds.Name == name }
	}
	var dss []*appsv1.DaemonSet
	for _, ds := range in.Snapshot.DaemonSets {
		if keep(ds) {
			dss = append(dss, ds)
		}
	}
	if *dsName != "" && len(dss) == 0 {
		return fmt.Errorf("DaemonSet %s not found in the input", strconv.Quote(*dsName))
	}
	problems := validate(in, keep, opts, false)
	// The cluster-wide plan says what this sync does on the node (D-12).
	plan, err := daemonset.PlanCluster(in.Snapshot, opts)
	if err != nil {
		return fmt.Errorf("inconsistent snapshot: %w", err)
	}

	renderExplain(stdout, node, dss, in.Snapshot.Pods, plan, opts) // run's buffer, as for plan
	warn(stderr, in, problems, reading.limits.Warnings)
	return nil
}
