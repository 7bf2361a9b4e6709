package cli

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runNodeReady says whether a node's daemon pods are in place (WHATIF-5); the exit status
// tells a script.
func newNodeReadyCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node-ready",
		Short: "Say whether a node's daemon pods are in place; exit 3 when not",
		Long: `node-ready says whether every daemon pod a node should run is in place and ready (WHATIF-5),
and exits 3 when it is not, for a script that waits before sending workloads to the node.

` + inputHelp,
		Example: "  daemonsched node-ready -f cluster.yaml --node worker-4 --daemonsets critical=true",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant readiness is judged at")
	var ns namespaceFlags
	addNodeNamespaceFlags(fs, &ns)
	format := formatTable
	addOutputFlag(fs, &format, formatTable, formatJSON, formatYAML)
	nodeName := fs.String("node", "", "the node (`NAME`, required)")
	dsSelector := fs.String("daemonsets", "", "only the DaemonSets whose labels match this label `SELECTOR` (like critical=true; matching none is an error)")
	cmd.RunE = func(*cobra.Command, []string) error {
		return runNodeReady(e, c, ns, format, *nodeName, *dsSelector)
	}
	return cmd
}

func runNodeReady(e *env, c *clusterFlags, ns namespaceFlags, format outputFormat, nodeName, dsSelector string) error {
	if err := cmp.Or(c.reading.check(), ns.check()); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if nodeName == "" {
		return usagef("node-ready needs --node NAME")
	}
	var sel *metav1.LabelSelector
	if dsSelector != "" {
		var err error
		if sel, err = metav1.ParseToLabelSelector(dsSelector); err != nil {
			return usagef("--daemonsets: %v", err)
		}
	}
	c.question = Question{Namespace: ns.namespace} // a live cluster: -n's namespace alone
	l, opts, err := c.readEvery(e, ns)
	if err != nil {
		return err
	}
	in := l.in
	if _, err := findNode(in, nodeName); err != nil {
		return err
	}
	if len(in.Snapshot.DaemonSets) == 0 {
		// Ready against nothing is no answer: a dump of the nodes alone (kubectl get nodes)
		// would let workloads onto a node whatever its daemons do.
		return fmt.Errorf("the input holds no DaemonSets to check node %s against (add them, e.g. kubectl get daemonsets,pods -A -o yaml)", printable.Quote(nodeName))
	}
	r, err := fleet.NodeReadiness(in.Snapshot, nodeName, sel, opts)
	if err != nil {
		return err
	}
	if sel != nil && len(r.DaemonSets) == 0 {
		// Ready with nothing checked would answer a question nobody asked: a misspelled
		// selector must not let workloads onto a node whose daemons are not there.
		return fmt.Errorf("--daemonsets %s matches none of the input's %s%s", printable.Quote(dsSelector),
			count(len(in.Snapshot.DaemonSets), "DaemonSet"), daemonSetLabels(in))
	}
	if err := render(e.out, format, func() any { return readinessDocument{kubernetesName(opts.Version), r} }, func() { renderReadiness(e.out, r) }); err != nil {
		return err
	}
	if !r.Ready {
		return l.done(e, errNotReady)
	}
	return l.done(e, nil)
}

func renderReadiness(w io.Writer, r *fleet.Readiness) {
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tMUST-RUN\tPOD\tREADY\tCURRENT\tCREATING\tBLOCKING")
	blocking := 0
	for _, d := range r.DaemonSets {
		must := "yes"
		if !d.MustRun {
			must = "no (" + string(d.Reason) + ")"
		}
		pod := d.Pod
		if pod == "" {
			pod = "-"
		}
		if d.Blocking {
			blocking++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q(d.Namespace), q(d.Name), must, q(pod), yesNo(d.Ready, "yes", "no"), yesNo(d.Current, "yes", "no"), yesNo(d.Creating, "yes", "no"), yesNo(d.Blocking, "yes", "no"))
	}
	tw.Flush()
	if r.Ready {
		fmt.Fprintf(w, "\nnode %s is ready for workloads: %s checked.\n", q(r.Node), count(len(r.DaemonSets), "DaemonSet"))
	} else if r.NodeNotReady != "" {
		fmt.Fprintf(w, "\nnode %s is not ready for workloads: the node itself is not ready (%s); %d of %s blocking.\n", q(r.Node), q(r.NodeNotReady), blocking, count(len(r.DaemonSets), "DaemonSet"))
	} else {
		fmt.Fprintf(w, "\nnode %s is not ready for workloads: %d of %s blocking.\n", q(r.Node), blocking, count(len(r.DaemonSets), "DaemonSet"))
	}
}

// daemonSetLabels lists the labels the input's DaemonSets carry, for a selector that matches
// none of them: " (their labels: app=agent, critical=yes)", at most ten then how many more, or
// "" when they have none.
func daemonSetLabels(in *manifest.Result) string {
	seen := map[string]bool{}
	for _, ds := range in.Snapshot.DaemonSets {
		for k, v := range ds.Labels {
			seen[printable.Quote(k)+"="+printable.Quote(v)] = true
		}
	}
	if len(seen) == 0 {
		return ""
	}
	all := slices.Sorted(maps.Keys(seen))
	shown := strings.Join(all[:min(10, len(all))], ", ")
	if len(all) > 10 {
		shown += fmt.Sprintf(" and %d more", len(all)-10)
	}
	return " (their labels: " + shown + ")"
}

// readinessDocument is node-ready -o json|yaml: the release modelled, then fleet's Readiness.
type readinessDocument struct {
	Kubernetes string `json:"kubernetes"`
	*fleet.Readiness
}
