package schedule

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// The built-in priority classes every cluster has (pkg/apis/scheduling: SystemPriorityClasses).
const (
	SystemClusterCritical = "system-cluster-critical"
	SystemNodeCritical    = "system-node-critical"
)

var builtinClasses = map[string]int32{
	SystemClusterCritical: 2000000000,
	SystemNodeCritical:    2000001000,
}

// priorityOf is the pod's priority (SCHED-4): spec.priority when set (the Priority admission
// plugin sets it on every stored pod), else its class's value, built in or from classes; no
// class is 0 (a cluster without a globalDefault class). An unknown class counts as 0, not known.
func priorityOf(spec *v1.PodSpec, classes map[string]int32) (int32, bool) {
	if spec.Priority != nil {
		return *spec.Priority, true
	}
	name := spec.PriorityClassName
	if name == "" {
		return 0, true
	}
	if v, ok := builtinClasses[name]; ok {
		return v, true
	}
	v, ok := classes[name]
	return v, ok
}

// PriorityClassesOf learns the value of each priority class from the pods that name it and carry
// the spec.priority admission gave them, for [Options.PriorityClasses]: a dump of a cluster
// holds its pods but rarely its PriorityClasses. Of pods of one class that disagree (the class
// was recreated), the highest value counts; nil entries are skipped. pods are only read.
func PriorityClassesOf(pods []*v1.Pod) map[string]int32 {
	out := map[string]int32{}
	for _, pod := range pods {
		if pod == nil {
			continue
		}
		name := pod.Spec.PriorityClassName
		if name == "" || pod.Spec.Priority == nil {
			continue
		}
		if v, ok := out[name]; !ok || *pod.Spec.Priority > v {
			out[name] = *pod.Spec.Priority
		}
	}
	return out
}

// PreemptionReason says why the default preemption would not make room on a node.
type PreemptionReason string

// The reasons preemption does not help, stable codes.
const (
	// PreemptionReasonPolicyNever: the pod's preemptionPolicy is Never.
	PreemptionReasonPolicyNever PreemptionReason = "PreemptionPolicyNever"
	// PreemptionReasonUnresolvable: a filter refuses whatever is evicted (requests beyond the
	// node's allocatable, a node feature it does not declare).
	PreemptionReasonUnresolvable PreemptionReason = "Unresolvable"
	// PreemptionReasonNoLowerPriorityPods: no pod of the node has a lower priority.
	PreemptionReasonNoLowerPriorityPods PreemptionReason = "NoLowerPriorityPods"
	// PreemptionReasonNotEnough: evicting every lower-priority pod would still not make room.
	PreemptionReasonNotEnough PreemptionReason = "NotEnoughLowerPriorityPods"
)

// Preemption is what the default preemption would do for the pod on one node (SCHED-4).
type Preemption struct {
	// Possible is true when evicting Victims makes the pod fit.
	Possible bool `json:"possible"`
	// Reason says why not, when not Possible.
	Reason PreemptionReason `json:"reason,omitempty"`
	// Priority is the pod's priority; PriorityUnknown is true when it names a class whose
	// value is not known, counted as 0.
	Priority        int32  `json:"priority"`
	PriorityClass   string `json:"priorityClass,omitempty"`
	PriorityUnknown bool   `json:"priorityUnknown,omitempty"`
	// Victims are the pods it would evict, most important first (higher priority, then
	// started earlier).
	Victims []Victim `json:"victims,omitempty"`
}

// Victim is a pod the preemption would evict.
type Victim struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Priority  int32  `json:"priority"`
}

// preempt is the default preemption's choice on one node (SCHED-4): every pod of lower
// priority is set aside; if the pod then fits, they are given back one by one, most important
// first, and those it does not fit beside are the victims. There are no PodDisruptionBudgets
// in a snapshot, so every victim is a non-violating one.
func (p *Pod) preempt(node *v1.Node, on []*v1.Pod, v Verdict) Preemption {
	out := Preemption{Priority: p.priority, PriorityClass: p.priorityClass, PriorityUnknown: !p.priorityKnown}
	unresolvable := len(v.MissingFeatures) > 0 || slices.ContainsFunc(v.Insufficient, func(i Insufficient) bool { return i.Unresolvable })
	switch {
	case p.preemptNever:
		out.Reason = PreemptionReasonPolicyNever
		return out
	case unresolvable:
		out.Reason = PreemptionReasonUnresolvable
		return out
	}
	kept := make([]bool, len(on))
	var candidates []int
	for i, q := range on {
		kept[i] = true
		if priority(q) < p.priority {
			candidates = append(candidates, i)
			kept[i] = false
		}
	}
	if len(candidates) == 0 {
		out.Reason = PreemptionReasonNoLowerPriorityPods
		return out
	}
	n := p.nodeState(node, nil)
	if !p.fitsWith(n, on, kept) {
		out.Reason = PreemptionReasonNotEnough
		return out
	}
	slices.SortStableFunc(candidates, func(a, b int) int { return moreImportant(on[a], on[b]) })
	for _, i := range candidates {
		kept[i] = true
		if !p.fitsWith(n, on, kept) {
			kept[i] = false
			out.Victims = append(out.Victims, Victim{Namespace: on[i].Namespace, Name: on[i].Name, Priority: priority(on[i])})
		}
	}
	out.Possible = true
	return out
}

// priority is a bound pod's priority: spec.priority, 0 when unset (scheduling helper
// PodPriority).
func priority(pod *v1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// moreImportant orders a before b when the preemption would rather keep a (scheduler util
// MoreImportantPod): higher priority, then the earlier status.startTime. A pod without one has
// not started: upstream counts it as started now, after every recorded start. Pods still tied
// are ordered by namespace and name (upstream's sort is not stable; D-17).
func moreImportant(a, b *v1.Pod) int {
	if c := cmp.Compare(priority(b), priority(a)); c != 0 {
		return c
	}
	sa, sb := a.Status.StartTime, b.Status.StartTime
	switch {
	case sa != nil && sb != nil:
		if c := sa.Time.Compare(sb.Time); c != 0 {
			return c
		}
	case sa != nil:
		return -1
	case sb != nil:
		return 1
	}
	return comparePods(a, b)
}
