package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/daemonsched/daemonsched/selector"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pickDaemonSets is f.pick for rollout status and forecast, which have nothing to judge in an
// input without DaemonSets.
func pickDaemonSets(in *manifest.Result, f daemonSetFilter) ([]*appsv1.DaemonSet, error) {
	dss, err := f.pick(in.Snapshot.DaemonSets)
	if err == nil && len(dss) == 0 {
		return nil, fmt.Errorf("no DaemonSet in the input")
	}
	return dss, err
}

// daemonSetKinds are the resource names kubectl reads for DaemonSets in TYPE/NAME.
var daemonSetKinds = []string{"daemonset", "daemonsets", "ds", "daemonset.apps", "daemonsets.apps"}

// daemonSetArg returns the DaemonSet rollout status and forecast are asked about, as
// NAMESPACE/NAME, or "" for every one (of the -n namespace): --daemonset NAME or
// NAMESPACE/NAME, or kubectl's argument daemonset/NAME (ds/NAME), a NAME alone being in the -n
// namespace or "default", as explain and kubectl read it.
func daemonSetArg(ns namespaceFlags, flag string, args []string) (string, error) {
	if err := ns.check(); err != nil {
		return "", err
	}
	switch {
	case len(args) > 1:
		return "", usagef("unexpected argument %q", args[1])
	case len(args) == 1 && flag != "":
		return "", usagef("name the DaemonSet once: --daemonset %s or %s", flag, args[0])
	case len(args) == 1:
		kind, name, ok := strings.Cut(args[0], "/")
		if !ok || !slices.Contains(daemonSetKinds, strings.ToLower(kind)) || name == "" || strings.Contains(name, "/") {
			return "", usagef("want daemonset/NAME or ds/NAME (kubectl's form; or --daemonset [NAMESPACE/]NAME), got %q", args[0])
		}
		flag = name
	}
	namespace, name, err := ns.daemonSetKey(flag)
	if err != nil || name == "" {
		return "", err
	}
	return namespace + "/" + name, nil
}

// newRolloutCommand returns `daemonsched rollout`, whose one subcommand is status.
func newRolloutCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Judge the rollouts of DaemonSets (rollout status)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown rollout subcommand %q: want status%s", args[0], suggest(cmd, args[0]))
			}
			return usagef("rollout wants the subcommand status")
		},
	}
	cmd.AddCommand(newRolloutStatusCommand(e))
	return cmd
}

func newRolloutStatusCommand(e *env) *cobra.Command {
	var (
		ns     namespaceFlags
		format = formatTable
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether each DaemonSet's rollout is complete, progressing or stuck",
		Long: `rollout status judges each DaemonSet from its nodes and pods (not its status counters) and
exits 0 when every rollout is complete, 3 when one is progressing and 4 when one is stuck (stuck
wins); the blocking nodes are listed.

` + inputHelp,
		Example: `  daemonsched rollout status -f cluster.yaml
  daemonsched rollout status -f cluster.yaml -n kube-system ds/fluentd    # kubectl's form
  daemonsched rollout status -f cluster.yaml --daemonset kube-system/fluentd`,
		Args: cobra.ArbitraryArgs, // daemonset/NAME, checked by daemonSetArg
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant availability is judged at (`RFC3339`)")
	addOutputFlag(fs, &format, formatTable, formatJSON, formatYAML)
	addNamespaceFlags(fs, &ns, e)
	dsName := fs.String("daemonset", "", "judge only this DaemonSet (`[NAMESPACE/]NAME`, or the argument daemonset/NAME)")
	var w watchFlags
	if e.plugin != nil {
		addWatchFlags(fs, &w)
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		stdout := e.out
		if err := cmp.Or(ns.check(), ns.resolve(e, c)); err != nil {
			return err
		}
		key, err := daemonSetArg(ns, *dsName, args)
		if err != nil {
			return err
		}
		if err := c.check(); err != nil {
			return err
		}
		if err := w.check(c, format); err != nil {
			return err
		}
		c.question = Question{Namespace: ns.namespace} // a live cluster: the DaemonSet's namespace
		if dsNs, _, ok := strings.Cut(key, "/"); ok {
			c.question.Namespace = dsNs
		}
		filter := daemonSetFilter{key: key, ns: ns}
		if w.watch {
			return watchRollouts(e, c, filter, w.timeout)
		}
		l, err := c.read(e, allFields, ns.namespace)
		if err != nil {
			return err
		}
		at := l.at
		reports, status, err := judgeRollouts(l, filter)
		if err != nil {
			return err
		}
		err = render(stdout, format, func() any {
			return map[string]any{"now": formatNow(at), "kubernetes": kubernetesName(l.version), "daemonSets": reports}
		}, func() {
			for _, r := range reports {
				fmt.Fprintf(stdout, "%s/%s: %s: %s\n", printable.Quote(r.Namespace), printable.Quote(r.Name), r.State, printable.Escape(r.Message))
				fmt.Fprintf(stdout, "  desired %d, up-to-date %d, available %d; generation %d, observed %d\n",
					r.Desired, r.UpToDate, r.Available, r.Generation, r.ObservedGeneration)
				writeBlockers(stdout, "blocked", r.Blocking)
				if r.State != rollout.StateComplete {
					writeBlockers(stdout, "waiting", r.Waiting)
					if r.WaitingForBudget > 0 {
						fmt.Fprintf(stdout, "  %s %s for the update budget\n", count(r.WaitingForBudget, "node"), agree(r.WaitingForBudget, "waits", "wait"))
					}
				}
			}
		})
		if err != nil {
			return err
		}
		return l.done(e, status)
	}
	return cmd
}

// judgeRollouts judges the rollout of each DaemonSet of l that filter picks (ROLL-8), and
// returns the reports and the exit status (ROLL-11): nil when every one is complete, else
// errStuck when one is stuck (stuck wins), else errProgressing.
func judgeRollouts(l *loaded, filter daemonSetFilter) ([]*rollout.Report, error, error) {
	in, at := l.in, l.at
	if err := l.admit(filter.keep, daemonset.Options{Now: at, Version: l.version, FeatureGates: l.gates}); err != nil {
		return nil, nil, err
	}
	dss, err := pickDaemonSets(in, filter)
	if err != nil {
		return nil, nil, err
	}
	reports := make([]*rollout.Report, 0, len(dss))
	var status error
	for _, ds := range dss {
		r, err := rollout.Progress(in.Snapshot, ds, rollout.ProgressOptions{Now: at, Workers: runtime.GOMAXPROCS(0), Version: l.version, FeatureGates: l.gates})
		if err != nil {
			return nil, nil, err
		}
		reports = append(reports, r)
		status = rolloutStatus(status, r.State)
	}
	return reports, status, nil
}

// rolloutStatus folds one more rollout's state into the exit status of the rollouts judged
// before it (nil when all are complete): errStuck when one is stuck (stuck wins), else
// errProgressing when one is progressing (ROLL-11). rollout status folds the states it judges,
// forecast the states its rollouts end in (ROLL-10).
func rolloutStatus(status error, state rollout.State) error {
	switch state {
	case rollout.StateStuck:
		return errStuck
	case rollout.StateProgressing:
		if status == nil {
			return errProgressing
		}
	}
	return status
}

// writeBlockers lists blockers, at most 20 then a count.
func writeBlockers(w io.Writer, label string, bs []rollout.Blocker) {
	for i, b := range bs {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more %s\n", len(bs)-20, label)
			return
		}
		line := fmt.Sprintf("  %s: node %s: %s", label, printable.Quote(b.Node), b.Reason)
		if b.Pod != "" {
			line += " (pod " + printable.Quote(b.Pod) + ")"
		}
		if b.Message != "" {
			line += ": " + b.Message
		}
		fmt.Fprintln(w, printable.Escape(line))
	}
}

// delayFlag is --startup and --termination: DURATION or MIN-MAX.
type delayFlag struct{ d rollout.Distribution }

func (f *delayFlag) String() string {
	if f.d.Min == f.d.Max {
		return f.d.Min.String()
	}
	return f.d.Min.String() + "-" + f.d.Max.String()
}

func (f *delayFlag) Type() string { return "DURATION" }

func (f *delayFlag) Set(s string) error {
	lo, hi, ranged := strings.Cut(s, "-")
	if lo == "" && ranged {
		return fmt.Errorf("a delay must not be negative: %q", s)
	}
	a, err := time.ParseDuration(lo)
	if err != nil {
		return fmt.Errorf("not a duration (like 20s) or a range (like 20s-40s): %q", s)
	}
	b := a
	if ranged {
		if b, err = time.ParseDuration(hi); err != nil {
			return fmt.Errorf("not a duration (like 20s) or a range (like 20s-40s): %q", s)
		}
	}
	if a < 0 || b < a {
		return fmt.Errorf("want 0 <= MIN <= MAX: %q", s)
	}
	f.d = rollout.Distribution{Min: a, Max: b}
	return nil
}

func newForecastCommand(e *env) *cobra.Command {
	var (
		ns      namespaceFlags
		format  = formatTable
		startup = delayFlag{d: rollout.Distribution{Min: 20 * time.Second, Max: 40 * time.Second}}
		// Deleted pods go at once unless told otherwise: the simulation cannot know how long
		// a daemon takes to stop, and the header says what was assumed.
		termination delayFlag
		template    string
	)
	cmd := &cobra.Command{
		Use:   "forecast",
		Short: "Simulate a rollout and print its syncs and duration",
		Long: `forecast simulates the rollout (of --template, or the one under way) and prints its syncs and
duration. A new pod becomes ready after --startup (default 20s-40s, drawn with --seed); a
deleted pod is gone after --termination (default 0s: at once), capped at its grace period.
The header of each DaemonSet says both.

` + inputHelp,
		Args: cobra.ArbitraryArgs, // daemonset/NAME, checked by daemonSetArg
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant the forecast starts (`RFC3339`)")
	addNamespaceFlags(fs, &ns, e)
	addOutputFlag(fs, &format, formatTable, formatJSON, formatYAML)
	fs.Var(&startup, "startup", "a new pod's start-up delay, `DURATION` or MIN-MAX")
	fs.Var(&termination, "termination", "a deleted pod's delay before it is gone, `DURATION` or MIN-MAX, at most its grace period; 0s is at once")
	fs.StringVar(&template, "template", "", "the DaemonSet after the change (`FILE`); without it, the rollout under way")
	dsName := fs.String("daemonset", "", "forecast only this DaemonSet (`[NAMESPACE/]NAME`, or the argument daemonset/NAME)")
	seed := fs.Uint64("seed", 1, "seed of the start-up delays (`N`)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		stdout := e.out
		if err := cmp.Or(ns.check(), ns.resolve(e, c)); err != nil {
			return err
		}
		key, err := daemonSetArg(ns, *dsName, args)
		if err != nil {
			return err
		}
		if err := c.check(); err != nil {
			return err
		}
		c.question = Question{Namespace: ns.namespace} // a live cluster: the DaemonSet's namespace
		if dsNs, _, ok := strings.Cut(key, "/"); ok {
			c.question.Namespace = dsNs
		}
		l, err := c.read(e, allFields, ns.namespace)
		if err != nil {
			return err
		}
		in, at := l.in, l.at
		filter := daemonSetFilter{key: key, ns: ns}
		if err := l.admit(filter.keep, daemonset.Options{Now: at, Version: l.version, FeatureGates: l.gates}); err != nil {
			return err
		}
		var dss []*appsv1.DaemonSet
		if template != "" {
			next, problems, err := loadTemplate(template, l, key, ns, c.reading)
			if err != nil {
				return err
			}
			l.problems = append(l.problems, problems...)
			dss = []*appsv1.DaemonSet{next}
		} else if dss, err = pickDaemonSets(in, filter); err != nil {
			return err
		}
		var (
			results []*rollout.ForecastResult
			status  error
		)
		for _, ds := range dss {
			if err := settles(ds); err != nil {
				l.warn(e)
				return err
			}
			r, err := rollout.Forecast(in.Snapshot, ds, rollout.ForecastOptions{Now: at, Seed: *seed,
				Kubelet: rollout.Kubelet{Startup: startup.d, Termination: termination.d}, Workers: runtime.GOMAXPROCS(0),
				Scheduler: rollout.FilterScheduler(in.Snapshot, ds, l.version, l.gates), Version: l.version, FeatureGates: l.gates})
			if err != nil {
				// The warnings first: an invalid DaemonSet planned as stored may be why.
				l.warn(e)
				return fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
			}
			results = append(results, r)
			status = rolloutStatus(status, r.Final.State)
		}
		data := func() any {
			return map[string]any{"now": formatNow(at), "kubernetes": kubernetesName(l.version), "startup": startup.String(), "termination": termination.String(), "daemonSets": results}
		}
		err = render(stdout, format, data, func() {
			for _, r := range results {
				fmt.Fprintf(stdout, "%s/%s to revision %s, start-up %s, termination %s:\n", printable.Quote(r.Namespace), printable.Quote(r.Name), r.RevisionHash,
					startup.String(), terminationText(termination))
				tw := newTabWriter(stdout)
				fmt.Fprintln(tw, "  AFTER\tCREATE\tDELETE\tREPLACED\tUP-TO-DATE\tAVAILABLE")
				for i, s := range r.Steps {
					if i == 40 {
						fmt.Fprintf(tw, "  ... and %d more syncs that act\n", len(r.Steps)-40)
						break
					}
					fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\n", s.After, s.Created, s.Deleted, s.Replaced, s.UpToDate, s.Available)
				}
				tw.Flush()
				if r.Complete {
					fmt.Fprintf(stdout, "  complete after %s, in %d syncs that act\n", r.Duration, len(r.Steps))
				} else {
					fmt.Fprintf(stdout, "  does not complete: %s: %s\n", r.Final.State, r.Final.Message)
					writeBlockers(stdout, "blocked", r.Final.Blocking)
				}
			}
		})
		if err != nil {
			return err
		}
		return l.done(e, status)
	}
	return cmd
}

// terminationText is --termination as the forecast's header says it: its value, and that
// deleted pods go at once when it is 0 (the default), so the assumption is never silent.
func terminationText(f delayFlag) string {
	if f.d.Max == 0 {
		return "0s (deleted pods go at once; --termination)"
	}
	return f.String()
}

// settles refuses to forecast a DaemonSet (one planned as stored, --lenient) whose valid
// selector does not match its template's labels: the controller would release every pod it
// creates and create another, never settling, and the simulation would only say so after
// thousands of syncs.
func settles(ds *appsv1.DaemonSet) error {
	sel, errs := selector.Compile(ds.Spec.Selector, nil)
	if len(errs) > 0 || sel.Matches(ds.Spec.Template.Labels) {
		return nil
	}
	return fmt.Errorf("DaemonSet %s/%s: cannot forecast: its selector does not match its template's labels, so every pod it creates "+
		"is released at once (OWN-3) and another created, without end", printable.Quote(ds.Namespace), printable.Quote(ds.Name))
}

// applyTemplate returns cur after `kubectl apply` of file, whose one DaemonSet is cur's (in
// namespace ns when it names none): package manifest reads file as an --apply input over cur,
// so that the merge is computed on the file's JSON and a spelt-out zero is sent as kubectl
// sends it (apiserver.ApplyJSON, D-14).
func applyTemplate(file string, cur *appsv1.DaemonSet, ns string, opts manifest.Options) (*appsv1.DaemonSet, error) {
	stored, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	res, err := limitFlagged(manifest.ReadInputs([]manifest.Input{{Name: "the input", Data: stored}, {Path: file, Apply: true, Namespace: ns}}, opts))
	if err != nil {
		return nil, err
	}
	for _, ds := range res.Snapshot.DaemonSets {
		if ds.Namespace == cur.Namespace && ds.Name == cur.Name {
			return ds, nil
		}
	}
	return nil, fmt.Errorf("%s: DaemonSet %s/%s is not in the input", file, cur.Namespace, cur.Name)
}

// loadTemplate reads the changed DaemonSet of file, exactly one, as written, and returns what
// the API server would store when `kubectl apply` sends it over the DaemonSet of its
// namespace/name in the input (apiserver.Apply, D-14): a change it would refuse is an error,
// whatever the strictness, as with --apply. A template without a namespace is in the -n
// namespace, as kubectl apply -n puts it. Reading warnings are returned to print.
func loadTemplate(file string, l *loaded, dsName string, ns namespaceFlags, reading *readFlags) (*appsv1.DaemonSet, problemList, error) {
	if file == "-" || file == "/dev/stdin" {
		// The template is read twice (as written, then applied over the input), and stdin can
		// be read once: "-" read nothing and said "stdin: no objects" (issue 25).
		return nil, nil, usagef("--template %s: give the template as a file; stdin is not read for it", file)
	}
	if err := checkPathFlag("--template", file); err != nil {
		return nil, nil, err
	}
	opts := reading.options(l.mode, 1)
	// As written: the defaults are the API server's to apply, after the merge.
	opts.SkipDefaults |= manifest.DefaultUID | manifest.DefaultDaemonSetFields | manifest.DefaultNamespace | manifest.DefaultPodTemplate
	t, err := load(inputs{files: fileList{file}}, nil, io.Discard, opts)
	if err != nil {
		return nil, nil, err
	}
	if n := len(t.Snapshot.DaemonSets); n != 1 {
		return nil, nil, fmt.Errorf("%s: --template wants exactly one DaemonSet, found %d", file, n)
	}
	next := t.Snapshot.DaemonSets[0]
	if next.Namespace == "" {
		next = next.DeepCopy()
		next.Namespace = cmp.Or(ns.namespace, metav1.NamespaceDefault)
	}
	if dsName != "" && next.Namespace+"/"+next.Name != dsName {
		return nil, nil, fmt.Errorf("%s: the template is DaemonSet %s/%s, not %s", file, next.Namespace, next.Name, dsName)
	}
	if dsName == "" && !ns.keep(next.Namespace) {
		flag := "-n"
		if ns.fromContext {
			flag = "the kubeconfig context's: give -n " + next.Namespace
		}
		return nil, nil, fmt.Errorf("%s: the template is DaemonSet %s/%s, not in namespace %s (%s)", file, next.Namespace, next.Name, ns.namespace, flag)
	}
	var problems problemList
	for _, w := range t.Warnings {
		problems = append(problems, errors.New(w.String()))
	}
	for _, cur := range l.in.Snapshot.DaemonSets {
		if cur.Namespace == next.Namespace && cur.Name == next.Name {
			// Applied by the API server of the release modelled, with its gates: its template
			// defaults differ by release (VER-10).
			opts := reading.options(l.mode, 1)
			opts.Version, opts.FeatureGates = l.version, l.gates
			applied, err := applyTemplate(file, cur, next.Namespace, opts)
			if err != nil {
				return nil, nil, err
			}
			return applied, problems, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: DaemonSet %s/%s is not in the input", file, next.Namespace, next.Name)
}
