package fleet

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonsched/daemonsched/daemonset"
)

// NodeDecision is what a Set decides for one node: each DaemonSet's [daemonset.Eligibility],
// and the total requests and the host ports of the daemon pods that should run there. Reuse
// one NodeDecision across calls of [Set.DecideNode]: once its buffers have grown, a call
// allocates nothing, except, amortised, to remember a label projection or list of taints not
// met before (at most 4,096 of each are kept). The zero value is ready to use. A NodeDecision
// is not safe for concurrent use.
type NodeDecision struct {
	set     *Set
	cells   []cell
	taints  []v1.Taint // a shallow copy of the node's taints
	run     []int
	totals  []int64             // per exact column
	qtotals []resource.Quantity // per other column
	present []bool
	ports   []HostPort
	sc      scratch
}

// DecideNode decides node for every DaemonSet of the set and stores the answer in into,
// replacing what it held. node may be hypothetical: it needs labels and taints, and a name only for
// DaemonSets that use spec.nodeName or matchFields. As upstream, a node without a name fails
// any spec.nodeName (ELIG-2) but passes any matchFields requirement (AFF-10). node is not
// modified nor kept.
func (s *Set) DecideNode(node *v1.Node, into *NodeDecision) {
	into.reset(s, node.Spec.Taints)
	s.decide(node, into.cells, &into.sc)
	into.summarize()
}

func (d *NodeDecision) reset(s *Set, taints []v1.Taint) {
	n := s.Len()
	d.set = s
	if cap(d.cells) < n {
		d.cells = make([]cell, n)
	}
	d.cells = d.cells[:n]
	clear(d.taints[:cap(d.taints)]) // drop references to an earlier node's strings
	if cap(d.taints) < len(taints) {
		d.taints = make([]v1.Taint, 0, len(taints))
	}
	d.taints = append(d.taints[:0], taints...)
}

// Eligibility returns the decision for the i-th DaemonSet of the set, equal to what
// [daemonset.Planner.Eligibility] returns for that node.
func (d *NodeDecision) Eligibility(i int) daemonset.Eligibility {
	return d.set.eligibility(i, d.cells[i], d.taints)
}

// ShouldRun returns the indices, ascending, of the DaemonSets that should run a daemon pod on
// the node (ShouldRun true). The slice is owned by d and valid until d is reused.
func (d *NodeDecision) ShouldRun() []int { return d.run }

// summarize derives the running list, the request totals and the host ports from the cells.
func (d *NodeDecision) summarize() {
	s := d.set
	cols := len(s.res.names)
	if cap(d.totals) < cols {
		d.totals, d.qtotals, d.present = make([]int64, cols), make([]resource.Quantity, cols), make([]bool, cols)
	}
	d.totals, d.qtotals, d.present = d.totals[:cols], d.qtotals[:cols], d.present[:cols]
	clear(d.totals)
	clear(d.qtotals)
	clear(d.present)
	d.run, d.ports = d.run[:0], d.ports[:0]
	for i, c := range d.cells {
		if c != cellRun {
			continue
		}
		d.run = append(d.run, i)
		for _, a := range s.res.perDS[i] {
			d.totals[a.col] += a.v
			d.present[a.col] = true
		}
		for _, a := range s.res.perDSQuantity[i] {
			d.qtotals[a.col].Add(a.q)
			d.present[a.col] = true
		}
		d.ports = append(d.ports, s.ports[i]...)
	}
}

// Request returns the total request of resource name by the daemon pods that should run on
// the node, and whether any of them names that resource.
func (d *NodeDecision) Request(name v1.ResourceName) (resource.Quantity, bool) {
	c, ok := slices.BinarySearch(d.set.res.names, name)
	if !ok || !d.present[c] {
		return resource.Quantity{}, false
	}
	return d.total(c), true
}

func (d *NodeDecision) total(c int) resource.Quantity {
	if !d.set.res.exact[c] {
		return d.qtotals[c].DeepCopy()
	}
	return d.set.res.quantity(c, d.totals[c])
}

// Requests stores in into, after clearing it, the total requests of the daemon pods that
// should run on the node, and returns it. A nil into allocates a new list; reusing one avoids
// all allocation once it has held every resource. The totals are the sums of [PodRequests].
func (d *NodeDecision) Requests(into v1.ResourceList) v1.ResourceList {
	if into == nil {
		into = v1.ResourceList{}
	}
	clear(into)
	for c, name := range d.set.res.names {
		if d.present[c] {
			into[name] = d.total(c)
		}
	}
	return into
}

// HostPorts returns the host ports the daemon pods that should run on the node claim, in
// DaemonSet order, each pod's in [PodHostPorts] order. Two entries that conflict
// ([HostPort.Conflicts]) mean that the scheduler would leave one of those pods pending. The
// slice is owned by d and valid until d is reused.
func (d *NodeDecision) HostPorts() []HostPort { return d.ports }
