package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
)

// The command skeleton. Every command that reads a cluster runs the same steps, through the
// functions of this file and exit.go, and keeps its own questions in between:
//
//  1. check: its flags, before anything is read (clusterFlags.check, then its own); a
//     problem is a usage error (exit 2);
//  2. load: clusterFlags.read reads the input (decode.go's load) and takes the instant (--now,
//     else the latest time the input records); in the kubectl plugin, without -f, the input is
//     what the command's question (clusterFlags.question) needs from the live cluster, read
//     as a dump (live.go), and the instant is the clock, read once;
//  3. filter: daemonSetFilter picks the DaemonSets it answers for (-n, --daemonset), and
//     loaded.admit admits them as kubectl apply would (--strict, --lenient);
//  4. ask the library, and render the answer into e.out, run's buffer (render);
//  5. exit: loaded.done writes the warnings about the input on stderr and returns the exit
//     status (nil, or a finding of exit.go); run writes e.out once and exits with it.
//
// An error at any step is returned as it is: run prints it and writes nothing on stdout.

// clusterFlags are the flags of every command that reads a cluster: where it reads (-f,
// --apply, --example, -R), --now, --kubernetes-version, --strict and --lenient, and the
// reading limits.
type clusterFlags struct {
	src     inputs
	now     timeFlag
	version versionFlag
	gates   gatesFlag
	strict  *strictFlags
	reading *readFlags
	// question is what the command needs read from a live cluster (the kubectl plugin); the
	// command sets it before read.
	question Question
	// watched, when set, is the state rollout status --watch judges, which the plugin's watch
	// keeps, read instead of the cluster.
	watched *Dump
}

// versionFlag is --kubernetes-version: the release whose controller (and API server) a
// command models (VER-1), the newest supported one unless given.
type versionFlag struct{ v daemonset.Version }

func (f *versionFlag) String() string { return f.release().String() }
func (f *versionFlag) Type() string   { return "RELEASE" }

func (f *versionFlag) Set(s string) error {
	v, err := daemonset.ParseVersion(s)
	if err != nil {
		return err
	}
	f.v = v
	return nil
}

// release is the release given, or the newest supported one.
func (f *versionFlag) release() daemonset.Version { return f.v.OrNewest() }

// optionalVersionFlag is --kubernetes-version where none given is not the newest release
// (conformance run: every case at its own; serve: the protocol's v1.36.3): its usage says what
// the default is, and pflag prints no "(default 1.37.2)" after it.
type optionalVersionFlag struct{ versionFlag }

func (f *optionalVersionFlag) String() string {
	if f.v == (daemonset.Version{}) {
		return ""
	}
	return f.v.String()
}

// addVersionFlag registers --kubernetes-version on fs: every command that plans has it, those
// of the skeleton through addClusterFlags.
func addVersionFlag(fs *pflag.FlagSet, f *versionFlag) {
	fs.Var(f, "kubernetes-version", "the Kubernetes `RELEASE` whose DaemonSet controller is modelled: 1.MINOR or 1.MINOR.PATCH, "+
		supportedRange()+", the newest by default")
}

// supportedRange names the supported minors ("1.33 to 1.37").
func supportedRange() string {
	vs := daemonset.SupportedVersions()
	first, last := vs[0], vs[len(vs)-1]
	return fmt.Sprintf("%d.%d to %d.%d", first.Major(), first.Minor(), last.Major(), last.Minor())
}

// addClusterFlags registers the flags of c on fs; src is the input before the flags are read,
// and a command whose input is fixed (src.example: demo) has no input flags.
func addClusterFlags(fs *pflag.FlagSet, src inputs, nowUsage string) *clusterFlags {
	c := &clusterFlags{src: src}
	if !src.example {
		addInputFlags(fs, &c.src)
	}
	fs.Var(&c.now, "now", nowUsage)
	addVersionFlag(fs, &c.version)
	addGatesFlag(fs, &c.gates)
	c.strict = addStrictFlags(fs)
	c.reading = addReadFlags(fs)
	return c
}

// addJudgeFlags registers the flags of a command that judges its input rather than acting on
// it (verify): those of addClusterFlags but --strict and --lenient. It reads every object as
// --lenient does, for the question is another implementation's answer on the same objects,
// and what API validation would reject is only a warning.
func addJudgeFlags(fs *pflag.FlagSet, nowUsage string) *clusterFlags {
	c := &clusterFlags{}
	addInputFlags(fs, &c.src)
	fs.Var(&c.now, "now", nowUsage)
	addVersionFlag(fs, &c.version)
	addGatesFlag(fs, &c.gates)
	c.reading = addReadFlags(fs)
	return c
}

// check returns the usage error of the reading flags: a limit that is not positive,
// --strict with --lenient.
func (c *clusterFlags) check() error {
	if err := c.reading.check(); err != nil {
		return err
	}
	if !c.version.v.IsZero() {
		// Without --kubernetes-version the release may be a live cluster's: read checks it.
		if err := c.gates.check(c.version.v); err != nil {
			return err
		}
	}
	_, err := c.strict.mode()
	return err
}

// fields says which fields of nodes and pods a command reads.
type fields int

const (
	allFields  fields = iota // explain, whatif, node-ready, rollout status, forecast: every field
	planFields               // plan: only what it reads, in a fraction of the memory (D-16)
)

// loaded is the cluster a command read, the instant it answers at, the release it models and
// how strictly it reads.
type loaded struct {
	in       *manifest.Result
	at       time.Time
	version  daemonset.Version      // --kubernetes-version, else a live cluster's /version, else the newest
	gates    daemonset.FeatureGates // --feature-gates: over the release's defaults; nil for none
	mode     strictness
	problems problemList // validation problems, printed as warnings by done
	warnings int         // --max-warnings
	// specOnly is set by a command that reads manifests alone as they are meant to be read
	// (lint without a dump): an input without nodes and pods is then not suspicious.
	specOnly bool
	// clock says that at is the clock, read once when a live cluster was read, not --now.
	clock bool
}

// read reads the input on every core (a command has the machine to itself: every core shares
// the decoding), and takes the instant: --now, else the latest time the input records.
// namespace is -n's, given to the --apply manifests without one as kubectl apply -n does ("" for
// commands without that habit).
func (c *clusterFlags) read(e *env, f fields, namespace string) (*loaded, error) {
	c.src.namespace = namespace
	mode, err := c.strict.mode()
	if err != nil {
		return nil, err
	}
	opts := c.reading.options(mode, runtime.GOMAXPROCS(0))
	if f == planFields {
		opts = lean(e, opts)
	}
	live, err := c.readLive(e)
	if err != nil {
		return nil, err
	}
	version := c.version.release()
	if live != nil && c.version.v.IsZero() {
		version = live.Version // the cluster's own release, unless --kubernetes-version says otherwise
	}
	if err := c.gates.check(version); err != nil {
		return nil, err
	}
	// --apply's DaemonSets are admitted by the API server of the release modelled (VER-7),
	// with its gates.
	opts.Version, opts.FeatureGates = version, c.gates.gates
	in, err := load(c.src, e.stdin, e.stderr, opts)
	if err != nil {
		return nil, err
	}
	at := c.now.t
	if at.IsZero() {
		at = manifest.Latest(in.Snapshot)
		if live != nil {
			at = live.At // the clock, read once (a live cluster is judged as it is now)
		}
	}
	l := &loaded{in: in, at: at, version: version, gates: c.gates.gates, mode: mode, warnings: c.reading.limits.Warnings}
	if live != nil {
		l.clock = c.now.t.IsZero()
	}
	return l, nil
}

// readEvery reads every field of the input (read) and admits its DaemonSets of ns (admit): the
// load and filter steps of a command that answers for every DaemonSet on every core (whatif,
// node-ready), with the options it asks the library with. The snapshot keeps only the
// DaemonSets of ns (-n; all without it), as a live read of that namespace holds; a -n
// namespace without DaemonSets, when others have some, is an error (namespaceFlags.present).
func (c *clusterFlags) readEvery(e *env, ns namespaceFlags) (*loaded, daemonset.Options, error) {
	l, err := c.read(e, allFields, ns.namespace)
	if err != nil {
		return nil, daemonset.Options{}, err
	}
	shown := daemonSetFilter{ns: ns}
	kept, err := shown.pick(l.in.Snapshot.DaemonSets)
	if err != nil {
		return nil, daemonset.Options{}, err
	}
	opts := daemonset.Options{Now: l.at, Version: l.version, FeatureGates: l.gates, Workers: runtime.GOMAXPROCS(0)}
	if err := l.admit(shown.keep, opts); err != nil {
		return nil, daemonset.Options{}, err
	}
	l.in.Snapshot.DaemonSets = kept // pick's own slice: the input is not modified
	return l, opts, nil
}

// admit admits the DaemonSets of the input that keep selects as kubectl apply would answer
// (strictness.admit): an error refuses them; the problems left are printed by done.
func (l *loaded) admit(keep func(*appsv1.DaemonSet) bool, opts daemonset.Options) error {
	problems, err := l.mode.admit(l.in, keep, opts)
	if err != nil {
		return err
	}
	l.problems = append(l.problems, problems...)
	return nil
}

// warn writes the warnings about the input on stderr (decode.go's warn).
func (l *loaded) warn(e *env) {
	if l.specOnly && len(l.in.Snapshot.Nodes) == 0 && len(l.in.Snapshot.Pods) == 0 {
		warnReading(e.stderr, l.in, l.problems, l.warnings)
		return
	}
	warn(e.stderr, l.in, l.problems, l.warnings)
}

// done ends a command that answered: the warnings about the input, then its exit status, nil
// or a finding (exit.go).
func (l *loaded) done(e *env, status error) error {
	l.warn(e)
	return status
}

// daemonSetFilter is which DaemonSets a command answers for: the one key names
// (NAMESPACE/NAME), or without it those of the -n namespace (all without -n).
type daemonSetFilter struct {
	key string
	ns  namespaceFlags
}

// keep says whether ds is answered for.
func (f daemonSetFilter) keep(ds *appsv1.DaemonSet) bool {
	if f.key == "" {
		return f.ns.keep(ds.Namespace)
	}
	namespace, name, _ := strings.Cut(f.key, "/")
	return ds.Namespace == namespace && ds.Name == name
}

// pick returns the DaemonSets of dss that f keeps. A -n namespace without DaemonSets, when
// others have some, is an error (namespaceFlags.present), and so is a key that names none,
// with the DaemonSet it is a typo of.
func (f daemonSetFilter) pick(dss []*appsv1.DaemonSet) ([]*appsv1.DaemonSet, error) {
	if f.key == "" {
		if err := f.ns.present(dss); err != nil {
			return nil, err
		}
	}
	var out []*appsv1.DaemonSet
	for _, ds := range dss {
		if f.keep(ds) {
			out = append(out, ds)
		}
	}
	if f.key != "" && len(out) == 0 {
		names := make([]string, len(dss))
		for i, ds := range dss {
			names[i] = ds.Namespace + "/" + ds.Name
		}
		namespace, name, _ := strings.Cut(f.key, "/")
		return nil, fmt.Errorf("DaemonSet %s not found in the input%s", strconv.Quote(f.key), didYouMeanKey(namespace, name, names))
	}
	return out, nil
}

// render writes the answer into w (run's buffer): data() as -o json or yaml, else the
// command's table.
func render(w io.Writer, format outputFormat, data func() any, table func()) error {
	switch format {
	case formatJSON, formatYAML:
		return renderData(w, format, data())
	}
	table()
	return nil
}

// renderData writes v as indented JSON ending in a newline, or as YAML with the same keys in
// the same order.
func renderData(w io.Writer, format outputFormat, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if format == formatYAML {
		if data, err = orderedYAML(data); err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
