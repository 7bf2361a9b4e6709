package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// isPodReady reports UPD-13.
func isPodReady(pod *v1.Pod) bool { panic("daemonset: not implemented yet") }

// isPodAvailable reports UPD-12 at now.
func isPodAvailable(pod *v1.Pod, minReadySeconds int32, now time.Time) bool {
	panic("daemonset: not implemented yet")
}

// isPodUpdated reports UPD-3.
func isPodUpdated(pod *v1.Pod, hash string, ds *appsv1.DaemonSet) bool {
	panic("daemonset: not implemented yet")
}

// allowsSurge reports DIFF-9.
func allowsSurge(ds *appsv1.DaemonSet) bool { panic("daemonset: not implemented yet") }
