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

// classify applies OWN-1..OWN-6 to one pod. Candidates are the pods the DaemonSet controls
// (controls: OWN-1, or the uid alone in the releases of VER-4) or that have no controller at
// all and are in its namespace. Adoption and release never happen while the DaemonSet is being
// deleted, but such a DaemonSet is never planned (SYNC-4).
func (p *Planner) classify(pod *v1.Pod) claimKind {
	if ref := controllerOf(pod); ref != nil {
		if !controls(p.opts.release(), p.ds, pod, ref) {
			return claimIgnore
		}
		if p.sel.Matches(pod.Labels) {
			return claimOwned
		}
		return claimRelease
	}
	if pod.Namespace != p.ds.Namespace || pod.DeletionTimestamp != nil || !p.sel.Matches(pod.Labels) {
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
func podRef(pod *v1.Pod) ObjectRef {
	return ObjectRef{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
}

// IsControlledBy reports whether ds controls pod in release v, the zero Version being the
// newest release as in [Options.Version] (OWN-1, OWN-7, VER-4): pod's first controller owner
// reference has ds's uid and, from 1.33.6, 1.34.2 and 1.35.0 on, pod is in ds's namespace and
// the reference has kind DaemonSet and ds's name; the apiVersion and the selector are not
// consulted. Code that judges ownership beside a plan asks the plan's release
// ([Planner.Version]).
func (v Version) IsControlledBy(pod *v1.Pod, ds *appsv1.DaemonSet) bool {
	ref := controllerOf(pod)
	return ref != nil && controls(Options{Version: v}.release(), ds, pod, ref)
}

// controls reports whether ref, the controller reference of pod, makes pod one ds controls in
// release v (OWN-1, OWN-7): ds's uid, and unless ownsByUIDAlone(v), pod in ds's namespace and
// ref of kind DaemonSet with ds's name; the apiVersion is never compared.
func controls(v Version, ds *appsv1.DaemonSet, pod *v1.Pod, ref *metav1.OwnerReference) bool {
	if ref.UID != ds.UID {
		return false
	}
	return ownsByUIDAlone(v) || pod.Namespace == ds.Namespace && ref.Kind == "DaemonSet" && ref.Name == ds.Name
}

// ownsByUIDAlone reports VER-4 for release v: whether the controller finds the pods it controls
// by the uid of their controller reference alone (pkg/controller: AddPodControllerUIDIndexer,
// 1.33.0 to 1.33.5 and 1.34.0 to 1.34.1), rather than by namespace, kind, name and uid
// (AddPodControllerIndexer and FilterPodsByOwner, from 1.33.6, 1.34.2 and 1.35.0).
func ownsByUIDAlone(v Version) bool {
	switch v.Minor() {
	case 33:
		return !v.AtLeast(1, 33, 6)
	case 34:
		return !v.AtLeast(1, 34, 2)
	}
	return false
}
