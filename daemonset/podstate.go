package daemonset

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// isPodReady reports UPD-13: the first condition of type Ready has status "True". Phase,
// container statuses and deletion state play no part, as in the v1.36 helper
// (pkg/api/v1/pod: IsPodReady).
func isPodReady(pod *v1.Pod) bool {
	c := readyCondition(pod)
	return c != nil && c.Status == v1.ConditionTrue
}

// readyCondition returns the first Ready condition of pod, or nil.
func readyCondition(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// isPodAvailable reports UPD-12 at now: the pod is Ready (UPD-13) and either minReadySeconds is
// 0, or the Ready condition has a non-zero lastTransitionTime and lastTransitionTime +
// minReadySeconds is not after now (the boundary instant is available). As in the v1.36 helper
// (pkg/api/v1/pod: IsPodAvailable), a Ready pod without a transition time is never available when
// minReadySeconds is not 0, and a negative minReadySeconds (invalid, VAL-9) does not take the
// == 0 shortcut: it needs a transition time and then allows lastTransitionTime up to |m| seconds
// after now (audit S11).
func isPodAvailable(pod *v1.Pod, minReadySeconds int32, now time.Time) bool {
	c := readyCondition(pod)
	if c == nil || c.Status != v1.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	if c.LastTransitionTime.IsZero() {
		return false
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds)*time.Second).Compare(now) <= 0
}

// podTemplateGenerationLabel is the pod label of the deprecated template-generation scheme
// (extensions/v1beta1 DaemonSetTemplateGenerationKey), compared by UPD-3.
const podTemplateGenerationLabel = "pod-template-generation"

// templateGeneration is the DaemonSet's deprecated.daemonset.template.generation annotation
// parsed as a base-10 int64 (UPD-3). ok is false when the annotation is absent or does not
// parse; upstream then ignores it (pkg/controller/daemon/util: GetTemplateGeneration).
func templateGeneration(ds *appsv1.DaemonSet) (gen int64, ok bool) {
	s, found := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !found {
		return 0, false
	}
	gen, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return gen, true
}

// isPodUpdated reports UPD-3: the pod's controller-revision-hash label equals the non-empty
// hash, or the DaemonSet's deprecated.daemonset.template.generation annotation parses to an
// integer whose canonical decimal form equals the pod's pod-template-generation label. Missing
// labels mean old.
func isPodUpdated(pod *v1.Pod, hash string, ds *appsv1.DaemonSet) bool {
	gen, ok := templateGeneration(ds)
	return podUpdated(pod, hash, gen, ok)
}

// podUpdated is isPodUpdated with the template generation already parsed, for loops over many
// pods. It allocates nothing: the canonical decimal is formatted into a stack buffer.
func podUpdated(pod *v1.Pod, hash string, gen int64, hasGen bool) bool {
	if hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
		return true
	}
	if !hasGen {
		return false
	}
	// A missing label reads as "", which no formatted integer equals (as upstream, whose map
	// lookup also yields "").
	var buf [24]byte
	return pod.Labels[podTemplateGenerationLabel] == string(strconv.AppendInt(buf[:0], gen, 10))
}

// allowsSurge reports DIFF-9: strategy RollingUpdate, rollingUpdate and maxSurge non-nil, and
// maxSurge resolved against one node (UPD-5) greater than 0. Unresolvable values do not allow
// surge (pkg/controller/daemon/util: AllowsSurge).
//
// The base diff uses this; the rolling step resolves maxSurge against desired instead
// (rollingBudgets), and the two disagree (audit S3): with desired 0 a positive percentage gives
// a surge base diff but a non-surge step; a negative integer gives a non-surge base diff but a
// surge step (any value but 0 selects UPD-11); maxSurge with a nil maxUnavailable gives a surge
// base diff and a failing step. Each layer keeps its own resolution, as upstream.
func allowsSurge(ds *appsv1.DaemonSet) bool {
	n, err := surgeCount(ds, 1)
	return err == nil && n > 0
}

// surgeCount resolves maxSurge against desired (UPD-5): 0 unless the strategy is RollingUpdate
// with a non-nil rollingUpdate and maxSurge; percentages round up.
func surgeCount(ds *appsv1.DaemonSet, desired int) (int, error) {
	s := ds.Spec.UpdateStrategy
	if s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil || s.RollingUpdate.MaxSurge == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(s.RollingUpdate.MaxSurge, desired, true)
}

// unavailableCount resolves maxUnavailable against desired (UPD-5): 0 unless the strategy is
// RollingUpdate with a non-nil rollingUpdate; a nil maxUnavailable there is an error, as is any
// string that is not "<int>%"; percentages round up.
func unavailableCount(ds *appsv1.DaemonSet, desired int) (int, error) {
	s := ds.Spec.UpdateStrategy
	if s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(s.RollingUpdate.MaxUnavailable, desired, true)
}

// rollingBudgets resolves both budgets of the rolling update against desired (UPD-5) and applies
// UPD-6 (both 0 with desired > 0 means maxUnavailable 1). The error text is upstream's
// (pkg/controller/daemon: rollingUpdate, updatedDesiredNodeCounts), so that an oracle user sees
// the message the controller logs.
func rollingBudgets(ds *appsv1.DaemonSet, desired int) (maxUnavailable, maxSurge int, err error) {
	maxUnavailable, err = unavailableCount(ds, desired)
	if err != nil {
		return 0, 0, fmt.Errorf("couldn't get unavailable numbers: invalid value for MaxUnavailable: %v", err)
	}
	maxSurge, err = surgeCount(ds, desired)
	if err != nil {
		return 0, 0, fmt.Errorf("couldn't get unavailable numbers: invalid value for MaxSurge: %v", err)
	}
	if desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	return maxUnavailable, maxSurge, nil
}
