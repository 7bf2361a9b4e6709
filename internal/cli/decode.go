package cli

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/internal/readmemory"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// exampleName names the built-in example cluster in messages.
const exampleName = "example/cluster.yaml"

//go:embed example/cluster.yaml
var exampleCluster []byte

// inputs is where a command reads its snapshot: the -f files, or, with --example, the
// built-in example cluster.
type inputs struct {
	files     fileList
	apply     fileList // DaemonSet manifests laid over the files (D-14)
	namespace string   // -n: the namespace of the DaemonSets of apply without one, as kubectl apply -n
	recursive bool     // -R: the subdirectories of a directory too
	example   bool
	live      *Dump // what the kubectl plugin read from a live cluster, instead of -f
}

// manifestExtensions are the file names a directory of -f is read for, as kubectl reads them.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// expand replaces each directory of paths by its manifest files, sorted by name, and with
// recursive those of its subdirectories; a directory without any is an error. "-" and other
// paths stay as they are (a missing file is reported when it is read).
func expand(paths []string, recursive bool) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil || !st.IsDir() {
			out = append(out, p)
			continue
		}
		n := len(out)
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			root += string(filepath.Separator) // WalkDir does not follow a link it is given
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir():
				if path != root && !recursive {
					return filepath.SkipDir
				}
			case slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(path))):
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == n {
			hint := ""
			if !recursive {
				hint = " (-R reads its subdirectories too)"
			}
			return nil, fmt.Errorf("%s: a directory without .json, .yaml or .yml files%s", p, hint)
		}
	}
	return out, nil
}

// givenOnce refuses a file named twice by one flag (-f a.yaml -f ./a.yaml, or a directory and
// a file in it): read twice, every object of it would be a duplicate, and the error would name
// the first object rather than the command line. Paths that cannot be read are left to the
// reader's error; stdin is checked by load.
func givenOnce(flag string, paths []string) error {
	seen := make([]os.FileInfo, 0, len(paths))
	names := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "-" || p == "/dev/stdin" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		for i, prev := range seen {
			if os.SameFile(prev, st) {
				if names[i] == p {
					return usagef("%s %s: the file is given twice; each file is read once", flag, p)
				}
				return usagef("%s %s: the file is given twice (also as %s); each file is read once", flag, p, names[i])
			}
		}
		seen, names = append(seen, st), append(names, p)
	}
	return nil
}

// errNoInput is a command line that names no input while stdin is a terminal.
var errNoInput = errors.New("no input: give -f FILE, pipe a dump on stdin, or --example for the built-in example cluster")

// isTerminal says whether r is an interactive terminal, which is never read without -f -.
func isTerminal(r io.Reader) bool {
	if r == nil {
		return true
	}
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// load reads the inputs with the manifest package, which applies the hand-written-manifest
// rules of D-4 and D-5. Without -f it reads stdin when stdin is not a terminal, and the built-in
// example only with --example; either way it says on stderr which input it read, so that a
// plan of the example is never mistaken for one of the user's cluster. "-" and /dev/stdin are
// stdin.
func load(in inputs, stdin io.Reader, stderr io.Writer, opts manifest.Options) (*manifest.Result, error) {
	isStdin := func(f string) bool { return f == "-" || f == "/dev/stdin" }
	main, err := expand(in.files, in.recursive)
	if err != nil {
		return nil, err
	}
	applied, err := expand(in.apply, in.recursive)
	if err != nil {
		return nil, err
	}
	for _, list := range []struct {
		flag  string
		paths []string
	}{{"-f", main}, {"--apply", applied}} {
		if err := givenOnce(list.flag, list.paths); err != nil {
			return nil, err
		}
	}
	files := slices.Concat(main, applied)
	if i := slices.IndexFunc(files, isStdin); i >= 0 && slices.ContainsFunc(files[i+1:], isStdin) {
		return nil, errors.New("-f -: stdin can be read only once")
	}
	var ins []manifest.Input
	switch {
	case in.example && len(in.files) > 0:
		return nil, usagef("--example reads the built-in example cluster and cannot be combined with -f")
	case in.example:
		fmt.Fprintln(stderr, "daemonsched: input: the built-in example cluster (--example)")
		ins = append(ins, manifest.Input{Name: exampleName, Data: exampleCluster})
	case in.live != nil:
		fmt.Fprintf(stderr, "daemonsched: input: %s, Kubernetes %s\n", printable.Escape(in.live.Name), in.live.Version)
		ins = append(ins, manifest.Input{Name: in.live.Name, Data: in.live.Data})
	case len(in.files) == 0:
		if isTerminal(stdin) {
			return nil, usagef("%v", errNoInput)
		}
		fmt.Fprintln(stderr, "daemonsched: input: stdin (no -f given)")
		ins = append(ins, manifest.Input{Name: "stdin", Reader: stdin})
	}
	for i, f := range files {
		var input manifest.Input
		switch f {
		case "-":
			input = manifest.Input{Name: "stdin", Reader: stdin}
		case "/dev/stdin":
			// Read as a stream, like -: only regular files are read from a path.
			input = manifest.Input{Name: f, Reader: stdin}
		default:
			flag := "-f"
			if i >= len(main) {
				flag = "--apply"
			}
			if err := checkPathFlag(flag, f); err != nil {
				return nil, err
			}
			input = manifest.Input{Path: f}
		}
		if input.Apply = i >= len(main); input.Apply {
			input.Namespace = in.namespace
		}
		ins = append(ins, input)
	}
	defer readmemory.Set(inputBytes(ins), os.Getenv)()
	return limitFlagged(manifest.ReadInputs(ins, opts))
}

// inputBytes is the size of the inputs that can be known before reading them: data held and
// regular files (a stream counts 0), for the collector's limit while reading (readmemory).
func inputBytes(ins []manifest.Input) int64 {
	var n int64
	for _, in := range ins {
		switch {
		case in.Data != nil:
			n += int64(len(in.Data))
		case in.Path != "":
			if st, err := os.Stat(in.Path); err == nil && st.Mode().IsRegular() {
				n += st.Size()
			}
		}
	}
	return n
}

// readFlags are the flags of every subcommand that reads input: the limits of
// manifest.Limits, and how invalid hand-written nodes and pods are reported.
type readFlags struct {
	limits      manifest.Limits
	warnInvalid bool
}

// addReadFlags registers the reading flags on fs.
func addReadFlags(fs *pflag.FlagSet) *readFlags {
	r := &readFlags{}
	fs.Int64Var(&r.limits.InputBytes, "max-input-bytes", manifest.DefaultInputBytes, "refuse inputs larger than `N` bytes together")
	fs.IntVar(&r.limits.Objects, "max-objects", manifest.DefaultObjects, "refuse an input of more than `N` objects (documents and list items)")
	fs.IntVar(&r.limits.ObjectBytes, "max-object-bytes", manifest.DefaultObjectBytes, "refuse an object larger than `N` bytes (the API server's limit)")
	fs.IntVar(&r.limits.QuantityLength, "max-quantity-length", manifest.DefaultQuantityLength, "refuse a resource quantity longer than `N` characters")
	fs.IntVar(&r.limits.QuantityExponent, "max-quantity-exponent", manifest.DefaultQuantityExponent, "refuse a resource quantity with an exponent beyond ±`N`")
	fs.IntVar(&r.limits.Warnings, "max-warnings", manifest.DefaultWarnings, "print at most `N` distinct warnings, then their count")
	fs.BoolVar(&r.warnInvalid, "warn-invalid", false, "report what the API server would refuse in hand-written nodes and pods as warnings, not errors")
	return r
}

// check refuses limits that are not positive (zero would mean the default to the library).
func (r *readFlags) check() error {
	l := r.limits
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max-input-bytes", l.InputBytes}, {"max-objects", int64(l.Objects)}, {"max-object-bytes", int64(l.ObjectBytes)},
		{"max-quantity-length", int64(l.QuantityLength)}, {"max-quantity-exponent", int64(l.QuantityExponent)}, {"max-warnings", int64(l.Warnings)},
	} {
		if f.v <= 0 {
			return usagef("--%s must be positive, got %d", f.name, f.v)
		}
	}
	return nil
}

// strictness is how strictly a command reads: what the API server would refuse, and fields the
// linked API types (k8s.io/api v0.37) do not have, are errors in every object (--strict), only in hand-written ones
// (plan's default: manifests, as kubectl apply would answer, while a dump's stored objects are
// planned as stored), or nowhere (--lenient).
type strictness int

const (
	strictNone strictness = iota
	strictHandWritten
	strictAll
)

// options returns the manifest options of the flags, reading on workers goroutines.
func (r *readFlags) options(mode strictness, workers int) manifest.Options {
	return manifest.Options{StrictFields: mode == strictAll, StrictHandWritten: mode == strictHandWritten, Workers: workers, Limits: r.limits, WarnInvalidObjects: r.warnInvalid}
}

// lean returns o with manifest's lean reading (D-16): nodes and pods keep only what the plan
// command reads of them, for a fraction of the memory, and its output is the same. That is
// what the plan reads (its Planner: ownership, target node, readiness, deletion) and what the
// table's budget holders read through rollout.Progress (the scheduler's verdict on a pending
// daemon pod: the containers' requests, ports and restart rules, priorities, the nodes'
// allocatable and declared features; a container's waiting reason). plan (and demo) set it,
// but not for -o wide and --scheduler, whose verdicts (SCHED-7) were never checked against it;
// the other commands (explain, whatif, node-ready, verify, rollout) read every field, as their
// reads were not checked field by field. TestLeanCommandsPrintTheSame runs every command that
// reads lean both ways, and TestLeanReadersArePlanAndDemo fails when another starts to.
// With e.readEvery (tests) o is returned as it is; e.readLean records that o is lean.
func lean(e *env, o manifest.Options) manifest.Options {
	if e.readEvery {
		return o
	}
	e.readLean = true
	o.Lean = true
	return o
}

// validate returns, one error each, what API validation would reject in the DaemonSets of in
// that keep says to check, sorted (by file, document and item, then path and message), and,
// when strict, the nodes and pods read from the API server that it would now refuse (VAL-24).
// note, when not nil, gives what ends the line of a DaemonSet's problem (D-19).
func validate(in *manifest.Result, keep func(*appsv1.DaemonSet) bool, opts daemonset.Options, strict bool, note func(*appsv1.DaemonSet) string) problemList {
	type problem struct {
		src manifest.Source
		err error
	}
	var ps []problem
	for i, ds := range in.Snapshot.DaemonSets {
		if !keep(ds) {
			continue
		}
		var end string
		if note != nil {
			end = note(ds)
		}
		for _, e := range daemonset.Validate(ds, opts) {
			ps = append(ps, problem{in.Sources.DaemonSets[i], fmt.Errorf("%v: DaemonSet %s/%s: %w%s", in.Sources.DaemonSets[i],
				printable.Quote(errlist.Cut(ds.Namespace, nameBytes)), printable.Quote(errlist.Cut(ds.Name, nameBytes)), shortValue(e), end)})
		}
	}
	if strict {
		for _, w := range in.Warnings {
			if w.Reason == manifest.WarningInvalidObject {
				ps = append(ps, problem{w.Source, errors.New(w.String())})
			}
		}
	}
	slices.SortStableFunc(ps, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.src.File, b.src.File), cmp.Compare(a.src.Document, b.src.Document),
			cmp.Compare(a.src.Item, b.src.Item), errlist.CompareNatural(a.err.Error(), b.err.Error()))
	})
	problems := make(problemList, len(ps))
	for i, p := range ps {
		problems[i] = p.err
	}
	return problems
}

// nameBytes is where a name quoted in a message is cut: a name the API server accepts is at most
// 253 bytes (a DNS subdomain), so only a name it refuses is cut.
const nameBytes = 253

// shortValue is e with a string value longer than nameBytes cut, as a message quotes it
// (apimachinery's field.Error quotes the value whole: a 1.5 MB name was quoted whole). e is not
// modified.
func shortValue(e *field.Error) *field.Error {
	if v, ok := e.BadValue.(string); ok && len(v) > nameBytes {
		c := *e
		c.BadValue = errlist.Cut(v, nameBytes)
		return &c
	}
	return e
}

// warn writes what suggests the input is not what the user meant (suspicious: no nodes, pods
// on nodes the input lacks), then the reading warnings and the validation problems, one line
// each, at most limit of them, then how many were left out. Every command that reads a cluster
// calls it once, so they all warn alike.
func warn(w io.Writer, in *manifest.Result, problems problemList, limit int) {
	warnSuspicious(w, in)
	warnReading(w, in, problems, limit)
}

// warnReading writes the reading warnings and the validation problems, as warn does after the
// suspicious input.
func warnReading(w io.Writer, in *manifest.Result, problems problemList, limit int) {
	n, left := 0, in.WarningsLeftOut
	line := func(s string) {
		if n == limit {
			left++
			return
		}
		n++
		fmt.Fprintf(w, "daemonsched: warning: %s\n", cutLine(printable.Escape(s)))
	}
	for _, wa := range in.Warnings {
		line(wa.String())
	}
	for _, p := range problems {
		line(p.Error())
	}
	if left > 0 {
		fmt.Fprintf(w, "daemonsched: warning: and %d more warnings (--max-warnings)\n", left)
	}
}

// findNode returns the node of in named name, or an error naming the nodes it may be a typo
// of.
func findNode(in *manifest.Result, name string) (*v1.Node, error) {
	for _, n := range in.Snapshot.Nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("node %q not found in the input%s", name, didYouMean(name, nodeNames(in)))
}

// printError writes err on stderr, one line per error of a problemList (the first
// errlist.Shown, then how many more), every line escaped so that a name holding a newline or a
// terminal escape cannot forge or colour output, and cut to errlist.LineBytes: 20,000 invalid
// tolerations printed 20,000 lines, and a 1.5 MB name one line of 4.5 MB (issue 25, F14).
func printError(w io.Writer, err error) {
	var list problemList
	if errors.As(err, &list) {
		errlist.Write(w, "daemonsched: ", len(list), 0, func(i int) {
			fmt.Fprintf(w, "daemonsched: %s\n", cutLine(printable.Escape(list[i].Error())))
		})
		return
	}
	fmt.Fprintf(w, "daemonsched: %s\n", cutLine(printable.Escape(err.Error())))
}

// readSideFile reads a file given beside the input to flag (verify's --plan, whatif's
// --node-template): "-" is stdin. It passes the input's gate (manifest.ReadText): a regular
// file (a FIFO or /dev/zero would block or never end, checkPathFlag) or stdin, at most limit
// bytes, UTF-8 text. limit is the inputs' (--max-input-bytes), which limitFlagged names.
func readSideFile(flag, name string, stdin io.Reader, limit int64) ([]byte, error) {
	if name == "-" {
		return limitFlagged(manifest.ReadText(manifest.Input{Name: name, Reader: stdin}, limit))
	}
	if err := checkPathFlag(flag, name); err != nil {
		return nil, err
	}
	return limitFlagged(manifest.ReadText(manifest.Input{Path: name}, limit))
}
