package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// PodUpdateRequeue returns the delay after which the pod update handler of release v's
// controller queues ds again when it sees a pod change from old to cur (SYNC-8; upstream's
// updatePod): spec.minReadySeconds plus one second when ds controls cur
// ([Version.IsControlledBy]), cur is not being deleted (the handler takes that update for a
// delete), old was not Ready and cur is ([IsPodReady]), and minReadySeconds is above 0, so that
// the pod is synced once it is available; 0 otherwise. The second allows for skew between the
// Ready condition's lastTransitionTime and the queue's timer. A nil old (an add, not an
// update) asks for nothing, and so does a nil ds or cur. The handler's immediate sync, which
// every update of a pod ds controls asks for, is the caller's.
func (v Version) PodUpdateRequeue(ds *appsv1.DaemonSet, old, cur *v1.Pod) time.Duration {
	if ds == nil || cur == nil {
		return 0
	}
	mrs := ds.Spec.MinReadySeconds
	if mrs <= 0 || old == nil || cur.DeletionTimestamp != nil || isReady(old) || !isReady(cur) || !v.IsControlledBy(cur, ds) {
		return 0
	}
	return time.Duration(mrs)*time.Second + time.Second
}
