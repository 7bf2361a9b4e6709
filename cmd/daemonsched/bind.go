package main

import (
	"fmt"

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
	for _, np := range daemonset.PodsOnNode(ds, node.Name, pods) {
		pod := np.Pod
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
