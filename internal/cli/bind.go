package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/schedule"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// binder asks package schedule whether the scheduler would bind the daemon pods a plan creates,
// and those that exist unbound (SCHED-*), on one snapshot: the pods indexed by node and the
// priority classes they show are computed once.
type binder struct {
	byNode map[string][]*v1.Pod
	opts   schedule.Options
}

func newBinder(s daemonset.Snapshot, opts daemonset.Options) *binder {
	return &binder{byNode: schedule.PodsByNode(s.Pods),
		opts: schedule.Options{Version: opts.Version, PriorityClasses: schedule.PriorityClassesOf(s.Pods)}}
}

// lines says, one line each, why the scheduler would leave Pending on node the pod this sync
// creates there for ds, and each unbound pod of ds targeting node; none when they would bind.
func (b *binder) lines(p *daemonset.Planner, ds *appsv1.DaemonSet, node *v1.Node, plan *daemonset.ClusterResult, pods []*v1.Pod) []string {
	var out []string
	if createsOn(plan, ds, node.Name) {
		if v := schedule.Compile(p.NewPod(node.Name), b.opts).Fit(node, b.byNode[node.Name]); !v.Fits() {
			out = append(out, "created, but the scheduler would leave it Pending: "+printable.Escape(v.String()))
		}
	}
	for _, pod := range podsOnNode(p.Version(), ds, node.Name, pods) {
		if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil || (pod.Status.Phase != "" && pod.Status.Phase != v1.PodPending) {
			continue
		}
		if v := schedule.Compile(pod, b.opts).Fit(node, b.byNode[node.Name]); !v.Fits() {
			out = append(out, fmt.Sprintf("%s/%s is Pending, and the scheduler would leave it so: %s", q(pod.Namespace), q(pod.Name), printable.Escape(v.String())))
		}
	}
	return out
}

// createsOn reports whether the plan of ds creates a pod on nodeName.
func createsOn(plan *daemonset.ClusterResult, ds *appsv1.DaemonSet, nodeName string) bool {
	for _, r := range plan.DaemonSets {
		if r.Namespace != ds.Namespace || r.Name != ds.Name {
			continue
		}
		for _, c := range r.Create {
			if c.Node == nodeName {
				return true
			}
		}
	}
	return false
}

// renderUnbindable is plan -o wide's last section: the pods the plan creates that the scheduler
// would leave Pending, one line each with the filter and the numbers; nothing when all bind.
func renderUnbindable(w io.Writer, s daemonset.Snapshot, plan *daemonset.ClusterResult, opts daemonset.Options) {
	b := newBinder(s, opts)
	nodes := make(map[string]*v1.Node, len(s.Nodes))
	for _, n := range s.Nodes {
		if n != nil {
			nodes[n.Name] = n
		}
	}
	var lines []string
	for _, r := range plan.DaemonSets {
		if r == nil || len(r.Create) == 0 {
			continue
		}
		i := slices.IndexFunc(s.DaemonSets, func(ds *appsv1.DaemonSet) bool {
			return ds != nil && ds.Namespace == r.Namespace && ds.Name == r.Name
		})
		if i < 0 {
			continue
		}
		p, errs := daemonset.Compile(s.DaemonSets[i], opts)
		if len(errs) > 0 {
			continue
		}
		for _, c := range r.Create {
			node := nodes[c.Node]
			if node == nil {
				continue
			}
			if v := schedule.Compile(p.NewPod(node.Name), b.opts).Fit(node, b.byNode[node.Name]); !v.Fits() {
				lines = append(lines, fmt.Sprintf("  %s/%s on %s: %s", q(r.Namespace), q(r.Name), q(node.Name), printable.Escape(v.String())))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCreated, but the scheduler would leave %s Pending:\n", count(len(lines), "pod"))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
