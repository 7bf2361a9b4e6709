package rollout

import (
	"math/rand/v2"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Distribution is a delay drawn uniformly from [Min, Max] in whole milliseconds; Min == Max
// is a fixed delay.
type Distribution struct {
	Min, Max time.Duration
}

// Fixed is the distribution of exactly d.
func Fixed(d time.Duration) Distribution { return Distribution{Min: d, Max: d} }

func (d Distribution) draw(r *rand.Rand) time.Duration {
	if d.Max <= d.Min {
		return d.Min
	}
	span := int64((d.Max - d.Min) / time.Millisecond)
	return d.Min + time.Duration(r.Int64N(span+1))*time.Millisecond
}

func (d Distribution) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if d.Min < 0 {
		errs = append(errs, field.Invalid(p.Child("min"), d.Min.String(), "must not be negative"))
	}
	if d.Max < d.Min {
		errs = append(errs, field.Invalid(p.Child("max"), d.Max.String(), "must not be below min "+d.Min.String()))
	}
	return errs
}

// Fate is what the kubelet model does with a pod it starts.
type Fate string

const (
	// FateReady: the pod runs and turns Ready after its start-up delay.
	FateReady Fate = "Ready"
	// FateCrashLoop: the pod runs but never turns Ready (container waiting in CrashLoopBackOff).
	FateCrashLoop Fate = "CrashLoopBackOff"
	// FateImagePullFailure: the pod never starts (Pending, container waiting in ErrImagePull).
	FateImagePullFailure Fate = "ErrImagePull"
	// FateFailed: the kubelet rejects the pod after its start-up delay (phase Failed).
	FateFailed Fate = "Failed"
)

// Kubelet is the kubelet model of Simulate (ROLL-5): how long a created pod takes to start,
// how it ends up, and how long a deleted pod takes to go.
type Kubelet struct {
	// Startup is the delay from a pod's binding to its fate: Ready, or Failed.
	Startup Distribution
	// Termination is the delay from a graceful delete to the pod's removal, capped at the
	// pod's grace period.
	Termination Distribution
	// CrashLoop, ImagePullFailure and Failed are the fractions of created pods with those
	// fates, drawn in that order; the rest turn Ready. Their sum is at most 1.
	CrashLoop, ImagePullFailure, Failed float64
	// Fate, when set, decides each created pod's fate instead of the fractions.
	Fate func(pod *v1.Pod) Fate
}

func (k Kubelet) validate(p *field.Path) field.ErrorList {
	errs := k.Startup.validate(p.Child("startup"))
	errs = append(errs, k.Termination.validate(p.Child("termination"))...)
	sum := 0.0
	for _, f := range []struct {
		name string
		v    float64
	}{{"crashLoop", k.CrashLoop}, {"imagePullFailure", k.ImagePullFailure}, {"failed", k.Failed}} {
		if !(f.v >= 0 && f.v <= 1) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, "must be a fraction between 0 and 1"))
			continue
		}
		sum += f.v
	}
	if sum > 1 {
		errs = append(errs, field.Invalid(p, sum, "the fractions of pods that crash-loop, fail to pull and fail add up to more than 1"))
	}
	return errs
}

func (k Kubelet) fate(pod *v1.Pod, r *rand.Rand) Fate {
	if k.Fate != nil {
		return k.Fate(pod)
	}
	if k.CrashLoop == 0 && k.ImagePullFailure == 0 && k.Failed == 0 {
		return FateReady
	}
	x := r.Float64()
	switch {
	case x < k.CrashLoop:
		return FateCrashLoop
	case x < k.CrashLoop+k.ImagePullFailure:
		return FateImagePullFailure
	case x < k.CrashLoop+k.ImagePullFailure+k.Failed:
		return FateFailed
	}
	return FateReady
}

// fate is the kubelet model's fate of the pod named k: sm.fates holds those that are not
// FateReady, the fate of most pods, whose entries cost a map insert, look-up and delete per
// created pod (7% of a 100,000-node rolling update's CPU profile).
func (sm *sim) fate(k podKey) Fate {
	if f, ok := sm.fates[k]; ok {
		return f
	}
	return FateReady
}

// started returns pod as its kubelet reports it at now under fate.
func started(pod *v1.Pod, fate Fate, now time.Time) *v1.Pod {
	cp := &startedPod{pod: *pod} // copy on write: only the status changes
	startWith(&cp.pod, &cp.status, fate, now)
	return &cp.pod
}

// startedPod is a started pod with what its status points to: one allocation instead of three.
type startedPod struct {
	pod    v1.Pod
	status startedStatus
}

// startedStatus is what a started pod's status points to: its start time and conditions.
type startedStatus struct {
	at    metav1.Time
	conds [2]v1.PodCondition
}

// start sets the status of p to what its kubelet reports at now under fate. The old status
// is replaced, never modified.
func start(p *v1.Pod, fate Fate, now time.Time) { startWith(p, &startedStatus{}, fate, now) }

// startWith is start with the start time and conditions in parts.
func startWith(p *v1.Pod, parts *startedStatus, fate Fate, now time.Time) {
	p.Status = v1.PodStatus{Phase: p.Status.Phase}
	parts.at = metavNow(now)
	t := &parts.at
	waiting := func(reason string) []v1.ContainerStatus {
		out := make([]v1.ContainerStatus, len(p.Spec.Containers))
		for i, c := range p.Spec.Containers {
			out[i] = v1.ContainerStatus{Name: c.Name, Image: c.Image,
				State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}}
		}
		return out
	}
	conds := parts.conds[:1:2]
	conds[0] = v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: p.CreationTimestamp}
	switch fate {
	case FateReady:
		p.Status.Phase = v1.PodRunning
		p.Status.StartTime = t
		conds = append(conds, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: *t})
	case FateCrashLoop:
		p.Status.Phase = v1.PodRunning
		p.Status.StartTime = t
		conds = append(conds, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: *t})
		p.Status.ContainerStatuses = waiting(string(FateCrashLoop))
	case FateImagePullFailure:
		conds = append(conds, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: *t})
		p.Status.ContainerStatuses = waiting(string(FateImagePullFailure))
	case FateFailed:
		p.Status.Phase = v1.PodFailed
		p.Status.Reason = "UnexpectedAdmissionError"
		conds = append(conds, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: *t})
	}
	p.Status.Conditions = conds
}

// markNotReady returns pod with its Ready condition False, as the node lifecycle controller
// leaves the pods of a node that stopped reporting; pod itself when it is not Ready.
func markNotReady(pod *v1.Pod, now time.Time) *v1.Pod {
	for i, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
			cp := *pod
			p := &cp
			p.Status.Conditions = slices.Clone(pod.Status.Conditions)
			p.Status.Conditions[i].Status = v1.ConditionFalse
			p.Status.Conditions[i].LastTransitionTime = metavNow(now)
			return p
		}
	}
	return pod
}
