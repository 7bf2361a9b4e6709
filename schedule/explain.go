package schedule

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// String says in one line why the scheduler would leave the pod Pending on the node and
// whether preemption would make room, with the numbers; "" when the pod fits. For example:
//
//	NodeResourcesFit: cpu 250m requested, 120m free of 4; preempting 2 pods of priority 0 would make room (default/a, default/b)
func (v Verdict) String() string {
	if v.Fits() {
		return ""
	}
	var parts []string
	for _, c := range v.PortConflicts {
		parts = append(parts, fmt.Sprintf("%s: host port %d/%s held by %s/%s", FilterNodePorts, c.Port.Port, c.Port.Protocol, c.Namespace, c.Name))
	}
	for _, in := range v.Insufficient {
		parts = append(parts, string(FilterNodeResourcesFit)+": "+in.String())
	}
	for _, f := range v.MissingFeatures {
		parts = append(parts, fmt.Sprintf("%s: the node does not declare %s", FilterNodeDeclaredFeatures, f))
	}
	if v.Preemption != nil {
		parts = append(parts, v.Preemption.String())
	}
	return strings.Join(parts, "; ")
}

// String says the shortfall with its numbers: "cpu 250m requested, 120m free of 4".
func (i Insufficient) String() string {
	if i.Resource == v1.ResourcePods {
		// Upstream's reason is "Too many pods"; a node whose allocatable has no pods entry
		// allows none (noderesources fitsRequest: GetAllowedPodNumber is 0).
		if i.Allocatable.IsZero() {
			return "Too many pods: the node allows none (its allocatable has no pods, or 0)"
		}
		return fmt.Sprintf("Too many pods: %s on the node, which allows %s", i.Used.String(), i.Allocatable.String())
	}
	if i.Unresolvable {
		return fmt.Sprintf("%s %s requested, more than the %s the node can ever allocate", i.Resource, i.Requested.String(), i.Allocatable.String())
	}
	free := i.Free()
	return fmt.Sprintf("%s %s requested, %s free of %s", i.Resource, i.Requested.String(), free.String(), i.Allocatable.String())
}

// String says whether the default preemption would make room, and by evicting which pods.
func (p Preemption) String() string {
	switch {
	case p.Possible:
		names := make([]string, len(p.Victims))
		same := true
		for i, v := range p.Victims {
			names[i] = v.Namespace + "/" + v.Name
			same = same && v.Priority == p.Victims[0].Priority
		}
		what := plural(len(p.Victims), "pod")
		if same && len(p.Victims) > 0 {
			what += fmt.Sprintf(" of priority %d", p.Victims[0].Priority)
		}
		return fmt.Sprintf("preempting %s would make room (%s)", what, strings.Join(names, ", "))
	case p.Reason == PreemptionReasonPolicyNever:
		return "its preemptionPolicy is Never, so nothing is preempted for it"
	case p.Reason == PreemptionReasonUnresolvable:
		return "no preemption can make room"
	case p.Reason == PreemptionReasonNoLowerPriorityPods:
		return fmt.Sprintf("no pod there has a priority below its %s, so nothing is preempted for it", p.priorityText())
	case p.Reason == PreemptionReasonNotEnough:
		return fmt.Sprintf("preempting every pod there of priority below its %s would not make room", p.priorityText())
	}
	return ""
}

func (p Preemption) priorityText() string {
	if p.PriorityUnknown {
		return fmt.Sprintf("%d (priority class %s unknown, counted as 0)", p.Priority, p.PriorityClass)
	}
	return fmt.Sprint(p.Priority)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
