package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/taints"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// Taint keys of control-plane nodes: the one kubeadm set until Kubernetes 1.24, and the one it
// sets since.
const (
	masterTaint       = "node-role.kubernetes.io/master"
	controlPlaneTaint = "node-role.kubernetes.io/control-plane"
)

// hints names known mistakes and surprises of the DaemonSets dss on the explained nodes, all
// the input's nodes being all: tolerating the master taint instead of the control-plane one
// (the Kubernetes documentation's own manifests did), a nodeSelector on a label no node has, and
// pods of an old revision, with what the update does with them; opts are the plan's.
func hints(dss []*appsv1.DaemonSet, explained []*v1.Node, s daemonset.Snapshot, plan *daemonset.ClusterResult, opts daemonset.Options) []string {
	out := []string{}
	all := s.Nodes
	for _, ds := range sortedDaemonSets(dss) {
		out = append(out, oldRevisionHints(ds, explained, s, plan, opts)...)
		spec := ds.Spec.Template.Spec
		if slices.ContainsFunc(spec.Tolerations, func(t v1.Toleration) bool { return t.Key == masterTaint }) {
			// The template's own tolerations, compiled once: the hint is about what the
			// manifest says, not the tolerations the controller adds to every daemon pod.
			tols := taints.Compile(spec.Tolerations, taints.Options{})
			blocked := 0
			for _, n := range explained {
				for _, t := range n.Spec.Taints {
					if t.Key == controlPlaneTaint && t.Effect != v1.TaintEffectPreferNoSchedule && !tols.Tolerates(&t) {
						blocked++
						break
					}
				}
			}
			if blocked > 0 {
				out = append(out, fmt.Sprintf("DaemonSet %s/%s tolerates %s, a taint no node carries since Kubernetes 1.24; "+
					"control-plane nodes carry %s, which it does not tolerate (%d node(s) here): tolerate %s too",
					q(ds.Namespace), q(ds.Name), masterTaint, controlPlaneTaint, blocked, controlPlaneTaint))
			}
		}
		if len(all) == 0 {
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(spec.NodeSelector)) {
			if !slices.ContainsFunc(all, func(n *v1.Node) bool { _, ok := n.Labels[key]; return ok }) {
				out = append(out, fmt.Sprintf("DaemonSet %s/%s selects nodes with %s=%s, but no node of the input has the label %s",
					q(ds.Namespace), q(ds.Name), q(key), q(spec.NodeSelector[key]), q(key)))
			}
		}
	}
	return out
}

// renderHints writes the hints after an explanation, if any.
func renderHints(w io.Writer, dss []*appsv1.DaemonSet, explained []*v1.Node, s daemonset.Snapshot, plan *daemonset.ClusterResult, opts daemonset.Options) {
	hs := hints(dss, explained, s, plan, opts)
	if len(hs) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, h := range hs {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}
