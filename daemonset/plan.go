package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// Snapshot is what the controller's caches hold: every node, pod and ControllerRevision (and,
// for PlanCluster, every DaemonSet). Nil entries are not allowed.
type Snapshot struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*v1.Node
	Pods       []*v1.Pod
	Revisions  []*appsv1.ControllerRevision
}

// Plan compiles ds and plans one sync on nodes and pods. The error reports an inconsistent
// snapshot (nil entries, duplicate node or pod names), never a controller decision.
func Plan(ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, opts Options) (*Result, error) {
	panic("daemonset: not implemented yet")
}

// Plan plans one sync on s (s.DaemonSets is ignored).
func (p *Planner) Plan(s Snapshot) *Result { panic("daemonset: not implemented yet") }

// PlanCluster plans every DaemonSet of s, giving each orphan to at most one (D-2, D-12).
func PlanCluster(s Snapshot, opts Options) (*ClusterResult, error) {
	panic("daemonset: not implemented yet")
}
