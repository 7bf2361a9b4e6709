package schedule

import (
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/fleet"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// vector is a resource list in the scheduler's integer units (its framework Resource): cpu in
// millicores, everything else in whole units rounded up, as resource.Quantity.Value rounds.
// Only the resources the scheduler tracks are kept: cpu, memory, ephemeral-storage, pods and
// the scalar ones (extended, hugepages-*, kubernetes.io/-prefixed, attachable-volumes-*).
type vector map[v1.ResourceName]int64

// add adds o to v.
func (v vector) add(o vector) {
	for name, n := range o {
		v[name] += n
	}
}

// vectorOf converts list as the scheduler's Resource.Add does.
func vectorOf(list v1.ResourceList) vector {
	out := vector{}
	for name, q := range list {
		switch {
		case name == v1.ResourceCPU:
			out[name] += q.MilliValue()
		case name == v1.ResourceMemory, name == v1.ResourceEphemeralStorage, name == v1.ResourcePods, isScalar(name):
			out[name] += q.Value()
		}
	}
	return out
}

// quantity renders n units of name as a Quantity in the format users see it in.
func quantity(name v1.ResourceName, n int64) resource.Quantity {
	switch {
	case name == v1.ResourceCPU:
		return *resource.NewMilliQuantity(n, resource.DecimalSI)
	case name == v1.ResourceMemory, name == v1.ResourceEphemeralStorage, strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix):
		return *resource.NewQuantity(n, resource.BinarySI)
	}
	return *resource.NewQuantity(n, resource.DecimalSI)
}

func (v vector) list() v1.ResourceList {
	out := v1.ResourceList{}
	for name, n := range v {
		if n != 0 {
			out[name] = quantity(name, n)
		}
	}
	return out
}

// requestsOf is a pod's request as NodeResourcesFit of p's release and gates counts it
// (SCHED-1): fleet.PodRequests, which is component-helpers PodRequests with pod-level
// resources on from 1.34 (or with PodLevelResources turned on) and leaves spec.resources out
// otherwise (SCHED-5).
func (p *Pod) requestsOf(spec *v1.PodSpec) vector {
	return vectorOf(fleet.PodRequests(p.counting, spec))
}

// isScalar reports whether the scheduler tracks name as a scalar resource (core/v1 helper
// IsScalarResourceName): an extended resource, hugepages-*, a kubernetes.io/-prefixed native
// resource or attachable-volumes-*.
func isScalar(name v1.ResourceName) bool {
	s := string(name)
	return isExtended(name) || strings.HasPrefix(s, v1.ResourceHugePagesPrefix) ||
		strings.Contains(s, v1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, v1.ResourceAttachableVolumesPrefix)
}

// isExtended is core/v1 helper IsExtendedResourceName: not native (a name without a domain, or
// in kubernetes.io/), not a quota "requests." name, and a qualified name once prefixed with it.
func isExtended(name v1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, v1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+s)) == 0
}

// nodeState is what NodeResourcesFit reads of a node: its allocatable and the requests of its
// pods, and how many there are. A node that reports no allocatable at all has 0 of everything,
// as the scheduler's NodeInfo has after SetNode: it allows no pod (SCHED-1).
type nodeState struct {
	allocatable vector
	used        vector
	pods        int
}

func (p *Pod) nodeState(node *v1.Node, on []*v1.Pod) nodeState {
	n := nodeState{allocatable: vectorOf(node.Status.Allocatable), used: vector{}, pods: len(on)}
	for _, q := range on {
		n.used.add(p.requestsOf(&q.Spec))
	}
	return n
}

// insufficient is the NodeResourcesFit filter (SCHED-1), in its order: the pod count, cpu,
// memory, ephemeral-storage, then the scalar resources (by name here; upstream walks a map).
func (p *Pod) insufficient(n nodeState) []Insufficient {
	var out []Insufficient
	short := func(name v1.ResourceName, req int64) {
		alloc, used := n.allocatable[name], n.used[name]
		if req > alloc-used {
			out = append(out, Insufficient{Resource: name, Requested: quantity(name, req), Used: quantity(name, used),
				Allocatable: quantity(name, alloc), Unresolvable: req > alloc})
		}
	}
	if allowed := n.allocatable[v1.ResourcePods]; int64(n.pods)+1 > allowed {
		out = append(out, Insufficient{Resource: v1.ResourcePods, Requested: quantity(v1.ResourcePods, 1),
			Used: quantity(v1.ResourcePods, int64(n.pods)), Allocatable: quantity(v1.ResourcePods, allowed)})
	}
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage} {
		if req := p.requests[name]; req > 0 {
			short(name, req)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.requests)) {
		if req := p.requests[name]; req != 0 && isScalar(name) {
			short(name, req)
		}
	}
	return out
}
