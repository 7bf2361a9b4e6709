package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newExplainCommand returns explain: why DaemonSets do or do not run on nodes.
func newExplainCommand(e *env) *cobra.Command {
	var (
		ns       namespaceFlags
		format   = formatTable
		nodeName string
		dsName   string
		podName  string
	)
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Say why DaemonSets do or do not run on a node, or a DaemonSet on every node",
		Long: `explain says, for one node (--node), whether each DaemonSet runs there, whether a running pod
may stay, and why not, in plain words: the failing affinity term and requirement with the node's
actual label value, the untolerated taint, the template's nodeName. --pod explains a daemon
pod: its DaemonSet on its node, and what this sync does to it. With --daemonset and no
--node it answers for that DaemonSet over every node, one line each (NODE, RUNS, MAY-CONTINUE,
WHY, THIS SYNC). Hints name known mistakes: tolerating node-role.kubernetes.io/master, a taint
no node carries since Kubernetes 1.24, instead of node-role.kubernetes.io/control-plane; a
nodeSelector on a label no node of the input has. They name the pods of an old revision too
(their controller-revision-hash is not the current one) and what the update does with each:
deleted by this sync, a surge pod created beside it, waiting for the update budget or for the
base diff, kept by OnDelete, or stuck on budgets that do not resolve. Where the pod this sync
creates, or a Pending pod of the DaemonSet, would not bind, "scheduler:" says which of the
scheduler's filters refuses it (NodeResourcesFit, NodePorts, NodeDeclaredFeatures) with the
numbers, and whether preemption would make room (docs/rules/schedule.md). A name not found
gets a suggestion.

` + inputHelp,
		Example: `  daemonsched explain -f cluster.yaml --pod kube-system/fluentd-elasticsearch-h7x2k
  daemonsched explain -f cluster.yaml --node worker-4
  daemonsched explain -f cluster.yaml --node worker-4 --daemonset kube-system/fluentd
  daemonsched explain -f cluster.yaml -n kube-system --daemonset fluentd      # every node
  daemonsched explain -f cluster.yaml --daemonset kube-system/fluentd -o json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant readiness is judged at")
	fs.StringVar(&nodeName, "node", "", "the node to explain (without it, --daemonset over every node)")
	fs.StringVar(&dsName, "daemonset", "", "explain only this DaemonSet (NAME or NAMESPACE/NAME)")
	fs.StringVar(&podName, "pod", "", "explain the DaemonSet pod NAME or NAMESPACE/NAME on its node: why it stays or is deleted")
	addNamespaceFlags(fs, &ns, e)
	addOutputFlag(fs, &format, formatTable, formatJSON, formatYAML)
	cmd.RunE = func(*cobra.Command, []string) error {
		if err := cmp.Or(c.reading.check(), ns.check()); err != nil {
			return err
		}
		if err := ns.resolve(e, c); err != nil {
			return err
		}
		if err := c.check(); err != nil {
			return err
		}
		switch {
		case podName != "" && (nodeName != "" || dsName != ""):
			return usagef("--pod names its node and DaemonSet: it cannot be combined with --node or --daemonset")
		case podName == "" && nodeName == "" && dsName == "":
			return usagef("explain needs --node NAME, --daemonset NAME, both, or --pod NAME")
		}
		podNamespace, podShort, err := ns.daemonSetKey(podName) // read as NAME or NAMESPACE/NAME
		if err != nil {
			return usagef("--pod wants NAME or NAMESPACE/NAME, got %q", podName)
		}
		c.question = Question{Namespace: ns.namespace} // a live cluster: what the question needs
		if podName != "" {
			c.question.Namespace = podNamespace
		} else if dsNs, _, err := ns.daemonSetKey(dsName); err == nil && dsNs != "" {
			c.question.Namespace = dsNs
		}
		// Every field: the scheduler's verdict reads the pods' containers and priorities and the
		// nodes' allocatable and declared features, which lean reading drops (D-16).
		l, err := c.read(e, allFields, ns.namespace)
		if err != nil {
			return err
		}
		in := l.in
		if podName == "" && dsName == "" {
			if err := ns.present(in.Snapshot.DaemonSets); err != nil {
				return err
			}
		}
		if podName != "" {
			var header io.Writer = e.out
			if format != formatTable {
				header = io.Discard // -o json|yaml is one document
			}
			if nodeName, dsName, err = podTarget(header, in, podNamespace, podShort); err != nil {
				return err
			}
		}
		dsNamespace, dsShort, err := ns.daemonSetKey(dsName)
		if err != nil {
			return err
		}
		opts := daemonset.Options{Now: l.at, Version: l.version, FeatureGates: l.gates}
		var nodes []*v1.Node
		if nodeName != "" {
			node, err := findNode(in, nodeName)
			if err != nil {
				return err
			}
			nodes = []*v1.Node{node}
		} else {
			nodes = in.Snapshot.Nodes
		}
		filter := daemonSetFilter{ns: ns}
		if dsName != "" {
			filter.key = dsNamespace + "/" + dsShort
		}
		dss, err := filter.pick(in.Snapshot.DaemonSets)
		if err != nil {
			return err
		}
		if err := l.admit(filter.keep, opts); err != nil {
			return err
		}
		// The cluster-wide plan says what this sync does on the node (D-12).
		plan, err := in.Snapshot.Plan(opts)
		if err != nil {
			return fmt.Errorf("inconsistent snapshot: %w", err)
		}
		bind := newBinder(in.Snapshot, opts)
		data := func() any { return explainReport(in, nodes, dss, plan, opts, bind) }
		err = render(e.out, format, data, func() { // run's buffer, as for plan
			if nodeName != "" {
				renderExplain(e.out, nodes[0], dss, in.Snapshot.Pods, plan, opts, bind)
			} else {
				renderExplainNodes(e.out, dss[0], nodes, in.Snapshot.Pods, plan, opts, bind)
			}
			renderHints(e.out, dss, nodes, in.Snapshot, plan, opts)
		})
		if err != nil {
			return err
		}
		return l.done(e, nil)
	}
	return cmd
}

// podTarget finds the pod namespace/name, says on w which node and DaemonSet it is explained
// with, and returns them: the node it is bound to and the DaemonSet its controller reference
// names (by uid).
func podTarget(w io.Writer, in *manifest.Result, namespace, name string) (string, string, error) {
	var names []string
	for _, p := range in.Snapshot.Pods {
		if p.Namespace == namespace && p.Name == name {
			ref := metav1.GetControllerOfNoCopy(p)
			if ref == nil || ref.Kind != "DaemonSet" {
				return "", "", fmt.Errorf("pod %s/%s is not controlled by a DaemonSet", q(namespace), q(name))
			}
			if p.Spec.NodeName == "" {
				return "", "", fmt.Errorf("pod %s/%s is not bound to a node", q(namespace), q(name))
			}
			for _, ds := range in.Snapshot.DaemonSets {
				if ds.UID == ref.UID {
					fmt.Fprintf(w, "Pod %s/%s, of DaemonSet %s/%s, on node %s\n\n", q(namespace), q(name), q(ds.Namespace), q(ds.Name), q(p.Spec.NodeName))
					return p.Spec.NodeName, ds.Namespace + "/" + ds.Name, nil
				}
			}
			return "", "", fmt.Errorf("pod %s/%s: its DaemonSet %s (uid %s) is not in the input", q(namespace), q(name), q(ref.Name), ref.UID)
		}
		names = append(names, p.Namespace+"/"+p.Name)
	}
	return "", "", fmt.Errorf("pod %q not found in the input%s", namespace+"/"+name, didYouMeanKey(namespace, name, names))
}

// didYouMean returns "; did you mean X?" when name is a typo of one of names, or "".
func didYouMean(name string, names []string) string {
	if s := manifest.Suggest(name, names); s != "" {
		return fmt.Sprintf("; did you mean %s?", printable.Quote(s))
	}
	return ""
}

// didYouMeanKey returns "; did you mean NS/NAME?" for an object namespace/name not found among
// keys (each "NS/NAME"): the objects of that name in other namespaces first (a name given
// without its namespace is read in -n's or "default"), else the key it is a typo of; "".
func didYouMeanKey(namespace, name string, keys []string) string {
	var same []string
	for _, k := range keys {
		if ns, n, _ := strings.Cut(k, "/"); n == name && ns != namespace {
			same = append(same, printable.Quote(k))
		}
	}
	if len(same) > 0 {
		slices.Sort(same)
		return "; did you mean " + strings.Join(same, " or ") + "?"
	}
	return didYouMean(namespace+"/"+name, keys)
}

func nodeNames(in *manifest.Result) []string {
	names := make([]string, len(in.Snapshot.Nodes))
	for i, n := range in.Snapshot.Nodes {
		names[i] = n.Name
	}
	return names
}

// explainRow is one DaemonSet on one node, as explain -o json|yaml prints it.
type explainRow struct {
	Namespace             string   `json:"namespace"`
	Name                  string   `json:"name"`
	Node                  string   `json:"node"`
	ShouldRun             bool     `json:"shouldRun"`
	ShouldContinueRunning bool     `json:"shouldContinueRunning"`
	Reason                string   `json:"reason,omitempty"`
	Why                   []string `json:"why"`
	ThisSync              []string `json:"thisSync"`
	// Scheduler says why the scheduler would leave Pending the pod this sync creates, or a
	// Pending pod of the DaemonSet (SCHED-*); absent when they would bind.
	Scheduler []string `json:"scheduler,omitempty"`
}

// explainOutput is explain -o json|yaml: one row per DaemonSet and node, sorted, then the hints.
type explainOutput struct {
	Now string `json:"now"`
	// Kubernetes is the release whose controller is modelled, as plan -o json names it.
	Kubernetes string       `json:"kubernetes"`
	Rows       []explainRow `json:"explanations"`
	Hints      []string     `json:"hints"`
}

func explainReport(in *manifest.Result, nodes []*v1.Node, dss []*appsv1.DaemonSet, plan *daemonset.ClusterResult, opts daemonset.Options, bind *binder) explainOutput {
	out := explainOutput{Now: formatNow(opts.Now), Kubernetes: kubernetesName(opts.Version), Rows: []explainRow{}, Hints: hints(dss, nodes, in.Snapshot, plan, opts)}
	for _, ds := range sortedDaemonSets(dss) {
		p, _ := daemonset.Compile(ds, opts)
		for _, node := range sortedNodes(nodes) {
			ex := p.Explain(node)
			out.Rows = append(out.Rows, explainRow{
				Namespace: ds.Namespace, Name: ds.Name, Node: node.Name,
				ShouldRun: ex.ShouldRun, ShouldContinueRunning: ex.ShouldContinueRunning, Reason: string(ex.Reason),
				Why: strings.Split(strings.TrimSpace(ex.String()), "\n"), ThisSync: nodeActions(plan, ds, node.Name),
				Scheduler: bind.lines(p, ds, node, plan, in.Snapshot.Pods),
			})
		}
	}
	return out
}

func sortedDaemonSets(dss []*appsv1.DaemonSet) []*appsv1.DaemonSet {
	out := slices.Clone(dss)
	slices.SortFunc(out, func(a, b *appsv1.DaemonSet) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out
}

func sortedNodes(nodes []*v1.Node) []*v1.Node {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// renderExplainNodes is explain --daemonset without --node: one line per node.
func renderExplainNodes(w io.Writer, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, plan *daemonset.ClusterResult, opts daemonset.Options, bind *binder) {
	fmt.Fprintf(w, "DaemonSet %s/%s\n\n", q(ds.Namespace), q(ds.Name))
	if len(nodes) == 0 {
		fmt.Fprintln(w, "No nodes in the input.")
		return
	}
	p, _ := daemonset.Compile(ds, opts)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "NODE\tRUNS\tMAY-CONTINUE\tWHY\tTHIS SYNC")
	runs := 0
	for _, node := range sortedNodes(nodes) {
		ex := p.Explain(node)
		if ex.ShouldRun {
			runs++
		}
		why := strings.Split(strings.TrimSpace(ex.String()), "\n")[0]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q(node.Name), yesNo(ex.ShouldRun, "yes", "no"), yesNo(ex.ShouldContinueRunning, "yes", "no"),
			printable.Escape(why), strings.Join(append(nodeActions(plan, ds, node.Name), bind.lines(p, ds, node, plan, pods)...), "; "))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nShould run on %d of %d nodes.\n", runs, len(nodes))
}
