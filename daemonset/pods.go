package daemonset

import (
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// PodsOnNode returns the pods of pods that ds controls and that are meant for the node named
// nodeName, sorted by name, with whether each is Ready, whether or not the sync keeps them:
// terminal pods being deleted, which the sync no longer groups by node (OWN-10), are included,
// and so are pods it would release. A pod is controlled by ds when it is in ds's namespace and its first controller
// owner reference has kind DaemonSet, ds's name and ds's uid (OWN-1, OWN-7); the selector is not
// consulted, so a pod the sync would release is included. Its node is spec.nodeName or the
// node its required affinity binds it to (OWN-9). Ready is UPD-13: the first condition of type
// Ready has status True. Nil pods are passed over; pods is not modified.
func PodsOnNode(ds *appsv1.DaemonSet, nodeName string, pods []*v1.Pod) []NodePod {
	var out []NodePod
	for _, pod := range pods {
		if pod == nil || !IsControlledBy(pod, ds) {
			continue
		}
		if node, _ := affinity.TargetNodeName(pod); node != nodeName {
			continue
		}
		out = append(out, NodePod{Pod: pod, Ready: isReady(pod)})
	}
	slices.SortFunc(out, func(a, b NodePod) int { return strings.Compare(a.Pod.Name, b.Pod.Name) })
	return out
}

// NodePod is one pod of [PodsOnNode].
type NodePod struct {
	Pod   *v1.Pod
	Ready bool
}
