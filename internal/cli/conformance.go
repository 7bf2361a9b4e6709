package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/atomicfile"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/jsonlines"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// newConformanceCommand returns `daemonsched conformance run|serve`. Run writes to run's
// buffer; serve answers each request as it comes, so it writes to e.live, the real stdout.
func newConformanceCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Run the conformance corpus through another implementation, or answer it",
		Long: `conformance run runs the conformance corpus through PROGRAM (one case in, one plan out, as
newline-delimited JSON on its stdin and stdout), prints a summary per profile and writes a YAML
report per profile (placement, diff, rolling, status, what-if); exit 0 when every profile run
conforms. conformance serve answers that protocol with this program's own plans.

Each case holds for the Kubernetes releases its file lists (releases); it was checked against
v1.36.3, and conformance run without --kubernetes-version runs every case at the release it
names. With --kubernetes-version RELEASE (1.MINOR or 1.MINOR.PATCH, ` + supportedRange() + `), it runs the
cases that hold at that release, at it, and counts and names the others (otherRelease in the
reports) without running them. serve answers each request at the release it names, and one
that names none at --kubernetes-version (v1.36.3 without it).

Each request carries an id that its answer repeats (conformance/testdata/protocol.schema.json);
an answer without one is paired by order. PROGRAM runs in a process group of its own, killed
when the run ends, or at once when the run gets SIGINT (Ctrl-C) or SIGTERM, which then writes
no report and exits 130 or 143; it must read each request and answer it within --timeout, in a line of at
most --max-line-bytes; its stderr is shown escaped, at most 1,000 lines.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown conformance subcommand %q: want run or serve%s", args[0], suggest(cmd, args[0]))
			}
			return usagef("conformance needs a subcommand: run or serve")
		},
	}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Answer the conformance protocol on stdin and stdout with this program's plans",
		Args:  noArgs,
	}
	serveLine := serve.Flags().Int("max-line-bytes", defaultLineBytes, "refuse a request line longer than `N` bytes")
	var serveVersion optionalVersionFlag
	serve.Flags().Var(&serveVersion, "kubernetes-version", "answer a request that names no release at Kubernetes `RELEASE` ("+supportedRange()+
		"; default v1.36.3, the protocol's meaning); a request naming another release is an error")
	refuseGates(serve)
	serve.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := gatesRefused(cmd); err != nil {
			return err
		}
		if *serveLine <= 0 {
			return usagef("--max-line-bytes must be positive, got %d", *serveLine)
		}
		return serveConformance(e.stdin, e.live, *serveLine, serveVersion.v)
	}
	cmd.AddCommand(newConformanceRunCommand(e), serve)
	return cmd
}

// refuseGates registers --feature-gates on a conformance command, hidden, so that gatesRefused
// refuses it with its reason rather than as an unknown flag: the commands that take
// --kubernetes-version take --feature-gates or say why not (VER-5).
func refuseGates(cmd *cobra.Command) {
	cmd.Flags().String("feature-gates", "", "refused: every case holds at its release's default gates")
	_ = cmd.Flags().MarkHidden("feature-gates") // the flag exists: MarkHidden cannot fail
}

// gatesRefused is the usage error of --feature-gates given to conformance run or serve.
func gatesRefused(cmd *cobra.Command) error {
	if !cmd.Flags().Changed("feature-gates") {
		return nil
	}
	return usagef("--feature-gates: conformance %s takes no feature gates: every conformance case holds at its release's default gates, and the protocol's requests carry none", cmd.Name())
}

// profileList is the repeatable --profile flag.
type profileList []string

func (p *profileList) String() string { return strings.Join(*p, ",") }
func (p *profileList) Type() string   { return "PROFILE" }

func (p *profileList) Set(s string) error {
	if !slices.Contains(conformance.Profiles(), s) {
		return fmt.Errorf("unknown profile %q: want one of %s", s, strings.Join(conformance.Profiles(), ", "))
	}
	*p = append(*p, s)
	return nil
}

// newConformanceRunCommand drives PROGRAM over the corpus: one request line in, one answer
// line out.
func newConformanceRunCommand(e *env) *cobra.Command {
	var profiles profileList
	cmd := &cobra.Command{
		Use:   "run [flags] -- PROGRAM [ARG]...",
		Short: "Run the conformance corpus through PROGRAM and report per profile",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() < 0 || len(args) == 0 {
				return usagef("conformance run needs -- PROGRAM [ARG]...")
			}
			if cmd.ArgsLenAtDash() > 0 {
				return usagef("unexpected argument %q before --", args[0])
			}
			return nil
		},
	}
	fs := cmd.Flags()
	corpus := fs.String("corpus", "", "read the cases from `DIR` instead of the built-in corpus")
	report := fs.String("report", "conformance-report", "write one YAML report per profile into `DIR` (empty: none)")
	name := fs.String("name", "", "the implementation's `NAME` in the reports (default: PROGRAM's base name)")
	timeout := fs.Duration("timeout", 30*time.Second, "how long PROGRAM may take to read one case and answer it")
	lineBytes := fs.Int("max-line-bytes", defaultLineBytes, "refuse an answer line longer than `N` bytes")
	fs.Var(&profiles, "profile", "run only the cases of `PROFILE` (repeatable): "+strings.Join(conformance.Profiles(), ", "))
	var version optionalVersionFlag
	fs.Var(&version, "kubernetes-version", "run only the cases that hold at Kubernetes `RELEASE` ("+supportedRange()+
		"), at that release (default: every case at the release it names, v1.36.3)")
	refuseGates(cmd)
	cmd.RunE = func(cmd *cobra.Command, program []string) error {
		if err := gatesRefused(cmd); err != nil {
			return err
		}
		if *timeout <= 0 {
			return usagef("--timeout must be positive, got %v", *timeout)
		}
		if *lineBytes <= 0 {
			return usagef("--max-line-bytes must be positive, got %d", *lineBytes)
		}
		lim := protocolLimits{timeout: *timeout, lineBytes: *lineBytes, stderrLines: defaultStderrLines, stderrLineBytes: defaultStderrLineBytes}
		return conformanceRun(program, profiles, version.v, *corpus, *report, *name, lim, e.out, e.stderr)
	}
	return cmd
}

// conformanceRun is conformance run once its flags are read; release is --kubernetes-version's,
// zero without it.
func conformanceRun(program []string, profiles profileList, release daemonset.Version, corpus, report, name string, lim protocolLimits, stdout, stderr io.Writer) error {
	if name == "" {
		name = filepath.Base(program[0])
	}
	cases, err := loadCorpus(corpus)
	if err != nil {
		return err
	}
	if len(profiles) > 0 {
		cases = slices.DeleteFunc(cases, func(c conformance.Case) bool { return !slices.Contains(profiles, c.Profile) })
	}
	var other []conformance.Outcome
	if !release.IsZero() {
		all := len(cases)
		if cases, other, err = conformance.SelectAt(cases, release); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Kubernetes %s: %d of %s hold at this release; not run, holding for other releases only: %d\n",
			release, len(cases), count(all, "case"), len(other))
	}
	outcomes, err := drive(program, cases, lim, stderr)
	if err != nil {
		return err
	}
	reports := conformance.Reports(name, append(outcomes, other...))
	if !release.IsZero() {
		for i := range reports {
			reports[i].Kubernetes = "v" + release.String()
		}
	}
	if report != "" {
		if err := writeReports(report, reports); err != nil {
			return err
		}
	}
	conforms := true
	for _, r := range reports {
		verdict := "conforms"
		if !r.Conforms {
			verdict, conforms = "does not conform", false
		}
		others := ""
		if r.OtherReleases > 0 {
			others = fmt.Sprintf(", %d for other releases", r.OtherReleases)
		}
		fmt.Fprintf(stdout, "%-9s %d passed, %d failed, %d skipped, %d errors%s: %s\n", r.Profile, r.Passed, r.Failed, r.Skipped, r.Errors, others, verdict)
		for _, o := range r.Cases {
			switch o.Result {
			case "pass", conformance.ResultOtherRelease:
			case "fail":
				listMismatches(stdout, "  "+printable.Quote(o.Case)+": ", o.Mismatches, o.MoreMismatches, false)
			default:
				fmt.Fprintf(stdout, "  %s: %s: %s\n", printable.Quote(o.Case), o.Result, cutLine(printable.Escape(o.Error)))
			}
		}
	}
	if !conforms {
		return errNonconforming
	}
	return nil
}

// corpusFileBytes bounds one case file of --corpus: the largest case of the built-in corpus
// is under 600 KB, and a case is sent to PROGRAM as one line. 8 MiB leaves that room
// thirteen times over, and is read and decoded in about 2 s on a loaded core, where the
// 64 MiB it was let a 60 MB case take 15 s before PROGRAM saw it (issue 25, audit33b).
const corpusFileBytes = 8 << 20

func loadCorpus(dir string) ([]conformance.Case, error) {
	if dir == "" {
		return conformance.Corpus()
	}
	// As -f names a path that is not a directory: a named pipe or a file said "no *.yaml case".
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, errors.Unwrap(err))
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	cases, err := conformance.LoadCases(manifest.DirFS(dir, corpusFileBytes))
	if err == nil && len(cases) == 0 {
		err = fmt.Errorf("%s: no *.yaml case", dir)
	}
	return cases, err
}

// writeReports writes one YAML report per profile into dir, each written whole to a new file
// and renamed over <profile>.yaml: a link of that name is replaced, never followed (F10), and
// a reader never sees half a report.
func writeReports(dir string, reports []conformance.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range reports {
		data, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		header := "# daemonsched conformance report (schema: conformance/testdata/result.schema.json)\n"
		if err := atomicfile.Write(filepath.Join(dir, r.Profile+".yaml"), append([]byte(header), data...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// serveConformance answers protocol requests with the project's own plans: the reference
// implementation of the protocol, for testing a runner. A request it cannot plan (not JSON, not
// a request, objects the snapshot refuses, a release other than --kubernetes-version) is answered
// with an error line and the next one is read; only a broken stream ends it with an error: a
// request line longer than lineBytes (having read no more of it), invalid reading, or a failed
// write. release (--kubernetes-version, zero without it) is the release of the requests that
// name none.
func serveConformance(stdin io.Reader, stdout io.Writer, lineBytes int, release daemonset.Version) error {
	r := jsonlines.NewReader(stdin, lineBytes)
	for n := 1; ; n++ {
		line, err := r.Next()
		var tooLong *jsonlines.TooLongError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &tooLong):
			return fmt.Errorf("stdin: request %d: a line longer than %d bytes (--max-line-bytes)", n, tooLong.Max)
		case err != nil:
			return fmt.Errorf("stdin: %w", err)
		}
		if _, err := stdout.Write(append(answer(line, n, release), '\n')); err != nil {
			return err
		}
	}
}

// answerDocument is serve's answer: plan -o json's document, with the id of the request.
type answerDocument struct {
	ID int64 `json:"id,omitempty"`
	planDocument
}

// errorAnswer is serve's answer to a request it cannot plan (the protocol's error), with the
// id of the request when the line is one.
type errorAnswer struct {
	ID    int64  `json:"id,omitempty"`
	Error string `json:"error"`
}

// answer is serve's answer line to the request line, the nth of its stdin, at the release the
// request names, else at release, else at the protocol's v1.36.3.
func answer(line []byte, n int, release daemonset.Version) []byte {
	var req conformance.Request
	out, err := plan(line, &req, release)
	if err == nil {
		return out
	}
	// An int and a string always marshal. A message quoting a huge value is cut, as every
	// error line of the program is (issue 25, F14).
	out, _ = json.Marshal(errorAnswer{ID: req.ID, Error: errlist.Cut(fmt.Sprintf("request %d: %v", n, err), errlist.LineBytes)})
	return out
}

// plan decodes the request line into req and answers it with plan -o json's document. On a
// line of the wrong shape, req keeps what was read: its id, when that was a number; a line
// with a key given twice or invalid UTF-8 is not read at all.
func plan(line []byte, req *conformance.Request, release daemonset.Version) ([]byte, error) {
	// encoding/json keeps the last of a key given twice ({"id":1,"id":2} read as request 2)
	// and replaces invalid UTF-8 silently: refused as manifests refuse them, before the line
	// is decoded, so that the answer carries no id the line does not give once.
	if err := manifest.CheckJSON(line); err != nil {
		return nil, fmt.Errorf("not a request: %w", err)
	}
	if err := json.Unmarshal(line, req); err != nil {
		return nil, fmt.Errorf("not a request: %w", err)
	}
	kubernetes := conformance.RecordedVersion
	if !release.IsZero() {
		kubernetes = "v" + release.String()
		if req.Kubernetes != "" {
			asked, err := daemonset.ParseVersion(req.Kubernetes)
			if err != nil {
				return nil, fmt.Errorf("request: kubernetes: %w", err)
			}
			if asked != release {
				return nil, fmt.Errorf("kubernetes: the case asks for Kubernetes %s, but serve answers at %s (--kubernetes-version)", asked, release)
			}
		}
	}
	c := conformance.Case{Name: req.Case, Now: req.Now, BurstLimit: req.BurstLimit, Objects: req.Objects, Kubernetes: cmp.Or(req.Kubernetes, kubernetes)}
	s, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	plans, err := s.Plan(daemonset.Options{Now: opts.Now, Version: opts.Version, BurstLimit: opts.BurstLimit})
	if err != nil {
		return nil, err
	}
	// The answer is plan -o json's document on one line, for the case's release.
	return json.Marshal(answerDocument{ID: req.ID, planDocument: newPlanDocument(plans, opts.Now, opts.Version)})
}

// defaultLineBytes bounds a line of the conformance protocol (--max-line-bytes): 64 MiB holds
// the plan of a 5,000-node DaemonSet, a daemon pod of a few KB per node, many times over.
const defaultLineBytes = 64 << 20

// listMismatches writes the first errlist.Shown of ms, one a line after prefix, each escaped
// and cut as a line of a list (and with diffs its go-cmp diff indented under it), then how many
// are left out: those of ms beyond them and the more that ms does not hold. verify lists a
// candidate's mismatches with it, conformance run a case's, and printError every error list.
func listMismatches(w io.Writer, prefix string, ms []conformance.Mismatch, more int, diffs bool) {
	errlist.Write(w, prefix, len(ms), more, func(i int) {
		fmt.Fprintf(w, "%s%s\n", prefix, cutLine(printable.Escape(ms[i].String())))
		if diffs && ms[i].Diff != "" {
			fmt.Fprint(w, indent(ms[i].Diff))
		}
	})
}

// cutLine cuts s to errlist.LineBytes, saying how much was left out: a line of a list of
// problems quoting a huge value.
func cutLine(s string) string { return errlist.Cut(s, errlist.LineBytes) }
