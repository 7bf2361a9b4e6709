package daemonset

import (
	"github.com/daemonsched/daemonsched/affinity"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// controllerOf returns the first owner reference with controller: true (OWN-7), or nil.
func controllerOf(pod *v1.Pod) *metav1.OwnerReference {
	for i := range pod.OwnerReferences {
		if c := pod.OwnerReferences[i].Controller; c != nil && *c {
			return &pod.OwnerReferences[i]
		}
	}
	return nil
}

// claimKind is what claiming does with one pod of the snapshot (OWN-1..OWN-6).
type claimKind uint8

const (
	claimIgnore  claimKind = iota // invisible to this DaemonSet
	claimOwned                    // controlled and matching: claimed as is (OWN-2)
	claimAdopt                    // matching orphan: adopted and claimed (OWN-4)
	claimRelease                  // controlled, not matching: released, not claimed (OWN-3)
)

// classify applies OWN-1..OWN-6 to one pod. Candidates are the pods of the DaemonSet's
// namespace that it controls (first controller reference: kind DaemonSet, its name and uid;
// apiVersion not checked) or that have no controller at all. Adoption and release never happen
// while the DaemonSet is being deleted, but such a DaemonSet is never planned (SYNC-4).
func (p *Planner) classify(pod *v1.Pod) claimKind {
	if pod.Namespace != p.ds.Namespace {
		return claimIgnore
	}
	if ref := controllerOf(pod); ref != nil {
		if !controlledBy(ref, p.ds) {
			return claimIgnore
		}
		if p.sel.Matches(pod.Labels) {
			return claimOwned
		}
		return claimRelease
	}
	if pod.DeletionTimestamp != nil || !p.sel.Matches(pod.Labels) {
		return claimIgnore
	}
	return claimAdopt
}

// isTerminal reports phase Failed or Succeeded.
func isTerminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded
}

// groupable reports whether a claimed pod takes part in the diff, the rolling update and the
// status, and under which node name (OWN-9, OWN-10): terminal pods that are already being
// deleted are left out, and so are pods without a target node.
func groupable(pod *v1.Pod) (string, bool) {
	if isTerminal(pod) && pod.DeletionTimestamp != nil {
		return "", false
	}
	return affinity.TargetNodeName(pod)
}

// podRef names pod.
func podRef(pod *v1.Pod) PodRef {
	return PodRef{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
}

// IsControlledBy reports whether ds controls pod (OWN-1, OWN-7): pod is in ds's namespace and
// its first controller owner reference has kind DaemonSet, ds's name and ds's uid; the
// apiVersion and the selector are not consulted.
func IsControlledBy(pod *v1.Pod, ds *appsv1.DaemonSet) bool {
	if pod.Namespace != ds.Namespace {
		return false
	}
	ref := controllerOf(pod)
	return ref != nil && controlledBy(ref, ds)
}

// controlledBy reports whether ref, a pod's controller reference, names ds (OWN-1, OWN-7):
// kind DaemonSet, ds's name and ds's uid; the apiVersion is not compared.
func controlledBy(ref *metav1.OwnerReference, ds *appsv1.DaemonSet) bool {
	return ref.Kind == "DaemonSet" && ref.Name == ds.Name && ref.UID == ds.UID
}
