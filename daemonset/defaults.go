package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// WithDefaults returns a copy of ds with the DaemonSet-level API defaults applied (DFLT-1,
// DFLT-2, D-4). ds is not modified.
//
// As k8s/pkg/apis/apps/v1 SetDefaults_DaemonSet: an empty updateStrategy.type becomes
// RollingUpdate; for RollingUpdate a nil rollingUpdate becomes {}, a nil maxUnavailable the
// integer 1 and a nil maxSurge the integer 0; a nil revisionHistoryLimit becomes 10. Values that
// are set, valid or not, are kept, and OnDelete keeps its rollingUpdate as it is. Pod-template
// defaults (DFLT-3) are not applied. A nil ds gives nil.
func WithDefaults(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	if ds == nil {
		return nil
	}
	out := ds.DeepCopy()
	strategy := &out.Spec.UpdateStrategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if strategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			one := intstr.FromInt32(1)
			strategy.RollingUpdate.MaxUnavailable = &one
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			zero := intstr.FromInt32(0)
			strategy.RollingUpdate.MaxSurge = &zero
		}
	}
	if out.Spec.RevisionHistoryLimit == nil {
		limit := int32(defaultRevisionHistoryLimit)
		out.Spec.RevisionHistoryLimit = &limit
	}
	return out
}
