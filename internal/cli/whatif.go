package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/daemonsched/daemonsched/schedule"
	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runWhatIf answers which daemon pods a node, or a node template, would run as the API server
// would admit them, and what they request (WHATIF-1..WHATIF-3).
func newWhatIfCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "whatif",
		Short: "Say which daemon pods a node or node template would run, and what they request",
		Long: `whatif answers which daemon pods a node of the input (--node), or a node that does not exist
yet (--node-template FILE: name, labels, requirements, taints), would run, as the API server
would admit them (LimitRanges, RuntimeClass overhead), and what they request together.

` + inputHelp,
		Example: `  daemonsched whatif -f cluster.yaml --node-template gpu-node.yaml
  daemonsched whatif -f cluster.yaml --node worker-4 -o json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant the DaemonSets are compiled at")
	var ns namespaceFlags
	addNodeNamespaceFlags(fs, &ns)
	format := formatTable
	addOutputFlag(fs, &format, formatTable, formatJSON, formatYAML)
	tmplFile := fs.String("node-template", "", "the node template (`FILE`: name, labels, requirements, taints)")
	nodeName := fs.String("node", "", "a node of the input (`NAME`) instead of a template")
	cmd.RunE = func(*cobra.Command, []string) error {
		return runWhatIf(e, c, ns, format, *tmplFile, *nodeName)
	}
	return cmd
}

func runWhatIf(e *env, c *clusterFlags, ns namespaceFlags, format outputFormat, tmplFile, nodeName string) error {
	if err := cmp.Or(c.reading.check(), ns.check()); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if (tmplFile == "") == (nodeName == "") {
		return usagef("whatif needs exactly one of --node-template FILE and --node NAME")
	}
	var tmpl *fleet.Template
	if tmplFile != "" {
		var err error
		if tmpl, err = readTemplate(tmplFile, e.stdin, c.reading.limits.ObjectBytes); err != nil {
			return err
		}
	}
	// A live cluster: no pods, the DaemonSets of -n's namespace alone.
	c.question = Question{Namespace: ns.namespace, Node: nodeName, NoPods: true, Admission: true}
	l, opts, err := c.readEvery(e, ns)
	if err != nil {
		return err
	}
	in := l.in
	// The manifest reader refused duplicates; what is left to refuse is a quantity too large to
	// count (fleet.MaxQuantityDigits), and then there is no Set.
	set, errs := fleet.Compile(in.Snapshot.DaemonSets, opts)
	if set == nil {
		return errlist.Aggregate(errs)
	}
	adm, aerrs := fleet.CompileAdmission(in.Admission.LimitRanges, in.Admission.RuntimeClasses)
	if len(aerrs) > 0 {
		return errlist.Aggregate(aerrs)
	}
	w := set.WhatIf(fleet.Config{Admission: adm})
	report := whatIfReport{Kubernetes: kubernetesName(opts.Version), DaemonSets: []whatIfRow{}}
	verdicts := make([]fleet.Verdict, set.Len())
	if tmpl != nil {
		var d fleet.TemplateDecision
		w.DecideTemplate(tmpl, &d)
		copy(verdicts, d.Verdicts)
		report.Template = tmplFile
		report.Totals = whatIfTotals{Min: d.Requests.Min, Max: d.Requests.Max, Exact: d.Requests.Exact}
	} else {
		node, err := findNode(in, nodeName)
		if err != nil {
			return err
		}
		var d fleet.Decision
		w.DecideNode(node, &d)
		for i := range verdicts {
			verdicts[i] = d.Verdict(i)
		}
		report.Node = nodeName
		report.Totals = whatIfTotals{Min: d.Requests(nil), Max: d.Requests(nil), Exact: true}
		report.Pending = pendingOnNewNode(set, w, verdicts, node, in, opts)
	}
	for i, v := range verdicts {
		ds := set.Planner(i).DaemonSet()
		report.DaemonSets = append(report.DaemonSets, whatIfRow{Namespace: ds.Namespace, Name: ds.Name, Verdict: v, Requests: w.Pod(i).Requests})
	}
	if err := render(e.out, format, func() any { return report }, func() { renderWhatIf(e.out, report) }); err != nil {
		return err
	}
	return l.done(e, nil)
}

// readTemplate reads a node template file ("-" is stdin), YAML or JSON, strictly. A template
// is one object and is bounded as one (--max-object-bytes), not as the whole input: it is
// read no further than that, where a 300 MB template took gigabytes to decode.
func readTemplate(name string, stdin io.Reader, objectBytes int) (*fleet.Template, error) {
	data, err := readSideFile("--node-template", name, stdin, int64(objectBytes))
	if le := (*manifest.LimitError)(nil); errors.As(err, &le) {
		return nil, fmt.Errorf("%s: a node template larger than %s (limit ObjectBytes, --max-object-bytes; the API server's is 3 MiB)", name, planSize(int64(objectBytes)))
	}
	if err != nil {
		return nil, err
	}
	var t fleet.NodeTemplate
	empty, err := manifest.DecodeStrict(data, &t)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case empty:
		// As an empty manifest is refused: most likely the wrong file, not a node without labels.
		return nil, fmt.Errorf("%s: no node template (want name, labels, requirements and taints; {} is a node without labels)", name)
	}
	tmpl, errs := fleet.CompileTemplate(&t, nil)
	if len(errs) > 0 {
		problems := make(problemList, len(errs))
		for i, e := range errs {
			problems[i] = fmt.Errorf("%s: %w", name, e)
		}
		return nil, problems
	}
	return tmpl, nil
}

type whatIfReport struct {
	// Kubernetes is the release whose controller, admission and scheduler are modelled.
	Kubernetes string       `json:"kubernetes"`
	Node       string       `json:"node,omitempty"`
	Template   string       `json:"template,omitempty"`
	DaemonSets []whatIfRow  `json:"daemonSets"`
	Totals     whatIfTotals `json:"totals"`
	// Pending are the daemon pods the scheduler would leave Pending on an empty node like
	// --node's; absent when they all fit (and with a template, which has no allocatable).
	Pending []whatIfPending `json:"pending,omitempty"`
}

// whatIfPending is a daemon pod that runs on the node (the controller creates it) but that the
// scheduler would leave Pending on an empty node like it (SCHED-8).
type whatIfPending struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Scheduler string `json:"scheduler"`
}

// pendingOnNewNode binds the daemon pods that run on node to an empty node like it, as the
// scheduler of opts' release and gates would (schedule.FitAll, SCHED-5), and returns those it would leave
// Pending.
func pendingOnNewNode(set *fleet.Set, w *fleet.WhatIf, verdicts []fleet.Verdict, node *v1.Node, in *manifest.Result, opts daemonset.Options) []whatIfPending {
	if len(node.Status.Allocatable) == 0 {
		// A template, or a node that reports no allocatable, says nothing of what a new node
		// like it will allocate: the scheduler would refuse every pod of the node itself
		// (SCHED-1), but the question is about the node its kubelet will report (SCHED-8).
		return nil
	}
	var pods []*v1.Pod
	for i, v := range verdicts {
		if v.Answer != fleet.Runs {
			continue
		}
		ds := set.Planner(i).DaemonSet()
		pods = append(pods, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ds.Namespace, Name: ds.Name}, Spec: *w.Pod(i).Spec})
	}
	var out []whatIfPending
	for _, pl := range schedule.FitAll(pods, node, nil, schedule.Options{Version: opts.Version, FeatureGates: opts.FeatureGates, PriorityClasses: schedule.PriorityClassesOf(in.Snapshot.Pods)}) {
		pod := pods[pl.Index]
		out = append(out, whatIfPending{Namespace: pod.Namespace, Name: pod.Name, Scheduler: pl.Verdict.String()})
	}
	return out
}

type whatIfRow struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	fleet.Verdict
	// Requests are the admitted pod's, as the scheduler counts them.
	Requests v1.ResourceList `json:"requests"`
}

type whatIfTotals struct {
	Min   v1.ResourceList `json:"min"`
	Max   v1.ResourceList `json:"max"`
	Exact bool            `json:"exact"`
}

func renderWhatIf(w io.Writer, r whatIfReport) {
	if len(r.DaemonSets) == 0 {
		fmt.Fprintln(w, "No DaemonSets in the input.")
		return
	}
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tANSWER\tREASON\tREQUESTS")
	counts := map[fleet.Answer]int{}
	for _, row := range r.DaemonSets {
		counts[row.Answer]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q(row.Namespace), q(row.Name), row.Answer, printable.Escape(verdictReason(row.Verdict)), printable.Escape(resourceText(row.Requests)))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d run, %d depend, %d do not run.\n", counts[fleet.Runs], counts[fleet.Depends], counts[fleet.DoesNotRun])
	if r.Template == "" {
		fmt.Fprintf(w, "Requests: %s\n", printable.Escape(resourceText(r.Totals.Max)))
		for _, p := range r.Pending {
			fmt.Fprintf(w, "On an empty node like this one, %s/%s would stay Pending: %s\n", q(p.Namespace), q(p.Name), printable.Escape(p.Scheduler))
		}
		return
	}
	how := "exact"
	if !r.Totals.Exact {
		how = "bounds: too many combinations of open labels"
	}
	fmt.Fprintf(w, "Requests over the nodes the template can become (%s):\n", how)
	for _, name := range slices.Sorted(maps.Keys(r.Totals.Max)) {
		lo, hi := r.Totals.Min[name], r.Totals.Max[name]
		if lo.Cmp(hi) == 0 {
			fmt.Fprintf(w, "  %s: %s\n", q(string(name)), hi.String())
		} else {
			fmt.Fprintf(w, "  %s: %s to %s\n", q(string(name)), lo.String(), hi.String())
		}
	}
}

// verdictReason renders why a pod does not run, or on what it depends.
func verdictReason(v fleet.Verdict) string {
	s := string(v.Reason)
	switch {
	case v.Taint != nil:
		s += " " + v.Taint.ToString()
	case v.Rejection != nil:
		s += ": " + v.Rejection.String()
	}
	if len(v.DependsOn) > 0 {
		s += " (depends on " + strings.Join(v.DependsOn, ", ") + ")"
	}
	if s == "" {
		return "-"
	}
	return s
}

// resourceText renders a resource list as "cpu=100m, memory=64Mi", sorted; "-" when empty.
func resourceText(l v1.ResourceList) string {
	if len(l) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(l))
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q := l[name]
		parts = append(parts, string(name)+"="+q.String())
	}
	return strings.Join(parts, ", ")
}
