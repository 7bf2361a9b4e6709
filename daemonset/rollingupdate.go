package daemonset

import v1 "k8s.io/api/core/v1"

// nodeState is one entry of the rolling update's per-node map (UPD-4).
type nodeState struct {
	name string
	// node is nil when no node of that name is in the node list.
	node      *v1.Node
	shouldRun bool
	// pods are the grouped pods of the node (OWN-9, OWN-10 applied), in DIFF-7 order.
	pods []*v1.Pod
}

// rollingStep is what the rolling-update step decides (UPD-5..UPD-13).
type rollingStep struct {
	report  RollingUpdate
	creates []Creation // Pod left nil: the caller builds it
	deletes []Deletion
}

// rollingUpdate runs the step for a RollingUpdate DaemonSet whose base diff is empty. states
// holds one entry per node of the map of UPD-4 (every shouldRun node, plus nodes holding pods),
// sorted by name; desired is the number of shouldRun nodes.
func (p *Planner) rollingUpdate(states []nodeState, desired int, hash string) rollingStep {
	panic("daemonset: not implemented yet")
}
