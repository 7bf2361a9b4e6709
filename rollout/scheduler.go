package rollout

import (
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/schedule"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// FilterScheduler returns a Scheduler that binds a created pod of ds when the scheduler's
// filters let it bind on its node beside the pods of s there that are not ds's own, or when
// the default preemption would make room (SCHED-9). The other workloads are taken as they are
// in s for the whole simulation (victims are not evicted), and ds's own pods, which the
// rollout replaces, are left out: those release v's controller owns (v.IsControlledBy: OWN-1,
// VER-4), v being the release the rollout plans at, the zero Version the newest as in
// Options.Version. The filters are release v's too, with gates over its defaults (SCHED-5, VER-5). s and ds are only read; the pods
// are indexed once.
func FilterScheduler(s daemonset.Snapshot, ds *appsv1.DaemonSet, v daemonset.Version, gates daemonset.FeatureGates) Scheduler {
	others := make([]*v1.Pod, 0, len(s.Pods))
	for _, p := range s.Pods {
		if p != nil && !v.IsControlledBy(p, ds) {
			others = append(others, p)
		}
	}
	byNode := schedule.PodsByNode(others)
	opts := schedule.Options{Version: v, FeatureGates: gates, PriorityClasses: schedule.PriorityClassesOf(s.Pods)}
	return func(pod *v1.Pod, target *v1.Node) bool {
		if target == nil {
			return false
		}
		v := schedule.Compile(pod, opts).Fit(target, byNode[target.Name])
		return v.Fits() || v.Preemption != nil && v.Preemption.Possible
	}
}
