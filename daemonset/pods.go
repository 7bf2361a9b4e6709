package daemonset

import (
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// PodsOnNode returns the pods of pods that ds controls and that are meant for the node named
// nodeName, sorted by name, with whether each is Ready: what the controller counts as ds's pods
// on that node. A pod is controlled by ds when it is in ds's namespace and its first controller
// owner reference has kind DaemonSet, ds's name and ds's uid (OWN-1, OWN-7); the selector is not
// consulted, so a pod the sync would release is included. Its node is spec.nodeName or the
// node its required affinity binds it to (OWN-9). Ready is UPD-13: the first condition of type
// Ready has status True. Nil pods are passed over; pods is not modified.
func PodsOnNode(ds *appsv1.DaemonSet, nodeName string, pods []*v1.Pod) []NodePod {
	var out []NodePod
	for _, pod := range pods {
		if pod == nil || pod.Namespace != ds.Namespace {
			continue
		}
		ref := controllerOf(pod)
		if ref == nil || ref.Kind != "DaemonSet" || ref.Name != ds.Name || ref.UID != ds.UID {
			continue
		}
		if node, _ := affinity.TargetNodeName(pod); node != nodeName {
			continue
		}
		c := readyCondition(pod)
		out = append(out, NodePod{Pod: pod, Ready: c != nil && c.Status == v1.ConditionTrue})
	}
	slices.SortFunc(out, func(a, b NodePod) int { return strings.Compare(a.Pod.Name, b.Pod.Name) })
	return out
}

// NodePod is one pod of [PodsOnNode].
type NodePod struct {
	Pod   *v1.Pod
	Ready bool
}
