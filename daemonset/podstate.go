package daemonset

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// readyCondition returns the first Ready condition of pod, or nil.
func readyCondition(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// isReadyCondition reports whether c, a pod's first Ready condition, says Ready (UPD-13).
func isReadyCondition(c *v1.PodCondition) bool { return c != nil && c.Status == v1.ConditionTrue }

// isReady reports whether pod is Ready: its first Ready condition has status True (UPD-13).
func isReady(pod *v1.Pod) bool { return isReadyCondition(readyCondition(pod)) }

// readyLongEnough is the minReadySeconds half of UPD-12 for a Ready condition whose status is
// True: minReadySeconds is 0, or the condition has a non-zero lastTransitionTime and
// lastTransitionTime + minReadySeconds is before now, or equal to it when atBoundary
// (availableAtBoundary: from 1.34, VER-3). As in the helper (pkg/api/v1/pod: IsPodAvailable), a
// Ready pod without a transition time is never available when minReadySeconds is not 0, and a
// negative minReadySeconds (invalid, VAL-9) does not take the == 0 shortcut: it needs a
// transition time and then allows lastTransitionTime up to |m| seconds after now (audit S11).
func readyLongEnough(c *v1.PodCondition, minReadySeconds int32, now time.Time, atBoundary bool) bool {
	if minReadySeconds == 0 {
		return true
	}
	if c.LastTransitionTime.IsZero() {
		return false
	}
	end := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second)
	if atBoundary {
		return end.Compare(now) <= 0
	}
	return end.Before(now)
}

// availableAtBoundary reports VER-3 for release v: whether a pod is available at the very
// instant lastTransitionTime + minReadySeconds. 1.33 says no (pkg/api/v1/pod: IsPodAvailable
// compares with Before); every release from 1.34.0 says yes (Compare <= 0).
func availableAtBoundary(v Version) bool { return v.AtLeast(1, 34, 0) }

// podFacts is everything the base diff (DIFF-*), the status (STAT-*) and the rolling update
// (UPD-*) read of one grouped pod besides its name. The plan computes it while claiming the pod,
// when the pod is in the CPU cache, so that the later walks over 100,000 pods read two bytes
// each instead of the pod's conditions and label map again.
type podFacts uint16

const (
	factTerminating podFacts = 1 << iota // deletionTimestamp set
	factFailed                           // phase Failed
	factSucceeded                        // phase Succeeded
	factReady                            // UPD-13: the first Ready condition has status True (pkg/api/v1/pod: IsPodReady)
	factAvailable                        // UPD-12 at Options.Now: Ready, and Ready long enough (readyLongEnough)
	factHashLabel                        // the hash label equals the current hash, as DIFF-6 compares it
	factUpdated                          // UPD-3: the hash label equals a non-empty hash, or the pod-template-generation label the template generation
	factControlled                       // controlled by the DaemonSet before this sync (claimOwned), not adopted
	factScheduled                        // spec.nodeName set
)

func (f podFacts) has(x podFacts) bool { return f&x != 0 }

// judge computes podFacts for one sync: it holds the current hash and what UPD-3 and UPD-12
// compare against.
type judge struct {
	hash       string
	gen        string // the template generation in canonical decimal, when hasGen
	hasGen     bool
	minReady   int32
	now        time.Time
	atBoundary bool // availableAtBoundary of the release (VER-3)
}

func newJudge(ds *appsv1.DaemonSet, hash string, opts Options) judge {
	j := judge{hash: hash, minReady: ds.Spec.MinReadySeconds, now: opts.Now, atBoundary: availableAtBoundary(opts.release())}
	if gen, ok := templateGeneration(ds); ok {
		j.gen, j.hasGen = strconv.FormatInt(gen, 10), true
	}
	return j
}

// facts reads pod once. controlled tells whether the pod was claimed as already controlled.
func (j *judge) facts(pod *v1.Pod, controlled bool) podFacts {
	var f podFacts
	if pod.DeletionTimestamp != nil {
		f |= factTerminating
	}
	switch pod.Status.Phase {
	case v1.PodFailed:
		f |= factFailed
	case v1.PodSucceeded:
		f |= factSucceeded
	}
	if c := readyCondition(pod); isReadyCondition(c) {
		f |= factReady
		if readyLongEnough(c, j.minReady, j.now, j.atBoundary) {
			f |= factAvailable
		}
	}
	// A missing label reads as "", as in upstream's map lookups: it equals an empty current
	// hash for DIFF-6, but never makes a pod updated (UPD-3 needs a non-empty hash).
	hashLabel := pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == j.hash
	if hashLabel {
		f |= factHashLabel
	}
	if updatedWith(hashLabel, pod, j.hash, j.gen, j.hasGen) {
		f |= factUpdated
	}
	if controlled {
		f |= factControlled
	}
	if pod.Spec.NodeName != "" {
		f |= factScheduled
	}
	return f
}

// IsPodUpdated reports whether pod runs the current template of ds (UPD-3), hash being the
// current template's hash (Result.RevisionHash): pod's controller-revision-hash label equals
// hash and hash is not empty, or ds's deprecated.daemonset.template.generation annotation
// parses as a base-10 integer whose canonical decimal is pod's pod-template-generation label
// ("01" matches "1"). Missing labels mean not updated. Neither object is modified.
func IsPodUpdated(ds *appsv1.DaemonSet, hash string, pod *v1.Pod) bool {
	gen, ok := templateGeneration(ds)
	if !ok {
		return podUpdated(pod, hash, "", false)
	}
	var buf [20]byte
	return podUpdated(pod, hash, string(strconv.AppendInt(buf[:0], gen, 10)), true)
}

// podUpdated is UPD-3 with the template generation already in canonical decimal (gen, when
// hasGen).
func podUpdated(pod *v1.Pod, hash, gen string, hasGen bool) bool {
	return updatedWith(pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash, pod, hash, gen, hasGen)
}

// updatedWith is podUpdated with the hash label already compared (hashLabel: pod's
// controller-revision-hash label equals hash), so that judge.facts reads the label once, not
// twice, for every pod it claims.
func updatedWith(hashLabel bool, pod *v1.Pod, hash, gen string, hasGen bool) bool {
	return (hash != "" && hashLabel) || (hasGen && pod.Labels[labelTemplateGeneration] == gen)
}

// IsPodReady reports whether pod is Ready (UPD-13): its first condition of type Ready has
// status True.
func IsPodReady(pod *v1.Pod) bool { return isReady(pod) }

// IsPodAvailable reports whether pod is available at now (UPD-12) in release v, the zero
// Version being the newest release as in [Options.Version]: Ready (UPD-13), and
// minReadySeconds is 0 or its Ready condition has a non-zero lastTransitionTime at least
// minReadySeconds before now; exactly minReadySeconds before now counts from 1.34 on, not in
// 1.33 (VER-3).
func (v Version) IsPodAvailable(pod *v1.Pod, minReadySeconds int32, now time.Time) bool {
	c := readyCondition(pod)
	return isReadyCondition(c) && readyLongEnough(c, minReadySeconds, now, availableAtBoundary(Options{Version: v}.release()))
}

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
