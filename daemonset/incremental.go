package daemonset

import (
	"fmt"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DecideOptions tune [Set.Decide]. The zero value decides on the calling goroutine.
type DecideOptions struct {
	// Workers is the number of goroutines that share the nodes; 0 and 1 mean the calling
	// goroutine only. runtime.GOMAXPROCS(0) uses every core. The decisions are the same
	// whatever the number. Negative panics.
	Workers int
}

// Decisions is the matrix of every DaemonSet of a Set on every node of a snapshot, one row
// per node, kept up to date node by node or DaemonSet by DaemonSet by [Decisions.UpdateNode],
// [Decisions.RemoveNode] and [Decisions.UpdateDaemonSet], which return only the decisions
// that changed. Each decision takes two bytes. Decisions keeps the node objects it is given
// (they must not be modified while kept) and is not safe for concurrent use.
type Decisions struct {
	set   *Set
	nodes []*v1.Node // per row; nil for a removed row
	index map[string]int
	cells []cell // row-major, Set.Len() per row
	free  []int  // removed rows, reused by added nodes (last first)

	row []cell // scratch row for incremental updates
	sc  scratch
}

// Decide decides every DaemonSet of s on every node in one pass over nodes. Row i of the
// result is nodes[i]. A nil node or two nodes with the same name make the snapshot
// inconsistent: Decide then returns nil and those errors (paths nodes[i]). nodes is not
// modified; the node objects are kept by the result.
func (s *Set) Decide(nodes []*v1.Node, opts DecideOptions) (*Decisions, field.ErrorList) {
	if opts.Workers < 0 {
		panic("daemonset: negative DecideOptions.Workers")
	}
	root := field.NewPath("nodes")
	var errs field.ErrorList
	index := make(map[string]int, len(nodes))
	for i, node := range nodes {
		if node == nil {
			errs = append(errs, field.Required(root.Index(i), "a Node"))
			continue
		}
		if _, dup := index[node.Name]; dup {
			errs = append(errs, field.Duplicate(root.Index(i).Child("metadata", "name"), node.Name))
			continue
		}
		index[node.Name] = i
	}
	if len(errs) > 0 {
		return nil, errs
	}
	n := s.Len()
	d := &Decisions{set: s, nodes: slices.Clone(nodes), index: index, cells: make([]cell, len(nodes)*n)}
	workers := min(max(opts.Workers, 1), len(nodes))
	if workers <= 1 {
		for r, node := range nodes {
			s.decide(node, d.cells[r*n:(r+1)*n], &d.sc)
		}
		return d, nil
	}
	var wg sync.WaitGroup
	chunk := (len(nodes) + workers - 1) / workers
	for lo := 0; lo < len(nodes); lo += chunk {
		hi := min(lo+chunk, len(nodes))
		wg.Go(func() {
			var sc scratch
			for r := lo; r < hi; r++ {
				s.decide(nodes[r], d.cells[r*n:(r+1)*n], &sc)
			}
		})
	}
	wg.Wait()
	return d, nil
}

// Set returns the Set the decisions are for (a new one after UpdateDaemonSet).
func (d *Decisions) Set() *Set { return d.set }

// Rows returns the number of rows, removed ones included.
func (d *Decisions) Rows() int { return len(d.nodes) }

// Node returns the node of row r, or nil when it was removed.
func (d *Decisions) Node(r int) *v1.Node { return d.nodes[r] }

// Row returns the row of the node named name.
func (d *Decisions) Row(name string) (int, bool) {
	r, ok := d.index[name]
	return r, ok
}

// Eligibility returns the decision for DaemonSet i of the Set on the node of row r, equal to
// what (*Planner).Eligibility returns. It panics for a removed row.
func (d *Decisions) Eligibility(r, i int) Eligibility {
	node := d.nodes[r]
	if node == nil {
		panic(fmt.Sprintf("daemonset: row %d was removed", r))
	}
	return d.set.eligibility(i, d.cells[r*d.set.Len()+i], node.Spec.Taints)
}

// NodeDecision stores in into the decisions of row r with the requests and host ports of the
// daemon pods that should run there, as [Set.Node] would compute them. It panics for a
// removed row.
func (d *Decisions) NodeDecision(r int, into *NodeDecision) {
	node := d.nodes[r]
	if node == nil {
		panic(fmt.Sprintf("daemonset: row %d was removed", r))
	}
	n := d.set.Len()
	into.reset(d.set, node.Spec.Taints)
	copy(into.cells, d.cells[r*n:(r+1)*n])
	into.summarize()
}

// Count returns, for DaemonSet i, on how many nodes a daemon pod should run and on how many
// an existing one may keep running (the desiredNumberScheduled of STAT-2 is the first).
func (d *Decisions) Count(i int) (shouldRun, shouldContinueRunning int) {
	n := d.set.Len()
	for r, node := range d.nodes {
		if node == nil {
			continue
		}
		switch d.cells[r*n+i].code() {
		case cellRun:
			shouldRun++
			shouldContinueRunning++
		case cellTaint:
			shouldContinueRunning++
		}
	}
	return shouldRun, shouldContinueRunning
}

// Change is one decision of a [Decisions] matrix that an update changed. A node that was
// added has the zero Before (no decision: ShouldRun and ShouldContinueRunning false, no
// reason); a node that was removed has the zero After.
type Change struct {
	Node      string
	DaemonSet int // index in the Set
	Before    Eligibility
	After     Eligibility
}

// UpdateNode re-decides every DaemonSet on node, which replaces the node of the same name or,
// if there is none, is added (into a removed row if any, else a new last row). It appends to
// into the decisions that changed, in DaemonSet order, and returns it; other nodes are not
// looked at. When nothing changes it allocates nothing, except, amortised, to remember a label
// projection or list of taints not met before (see [Set]). The node object is kept and must not
// be modified while kept; pass a new object for the next change. A nil node panics.
func (d *Decisions) UpdateNode(node *v1.Node, into []Change) []Change {
	if node == nil {
		panic("daemonset: nil node")
	}
	s, n := d.set, d.set.Len()
	if cap(d.row) < n {
		d.row = make([]cell, n)
	}
	d.row = d.row[:n]
	s.decide(node, d.row, &d.sc)
	r, ok := d.index[node.Name]
	if !ok {
		r = d.addRow(node)
		for i, c := range d.row {
			into = append(into, Change{Node: node.Name, DaemonSet: i, After: s.eligibility(i, c, node.Spec.Taints)})
		}
		copy(d.cells[r*n:(r+1)*n], d.row)
		return into
	}
	old := d.nodes[r]
	cells := d.cells[r*n : (r+1)*n]
	for i, c := range d.row {
		if !sameDecision(i, s, cells[i], old.Spec.Taints, s, c, node.Spec.Taints) {
			into = append(into, Change{
				Node: node.Name, DaemonSet: i,
				Before: s.eligibility(i, cells[i], old.Spec.Taints),
				After:  s.eligibility(i, c, node.Spec.Taints),
			})
		}
	}
	copy(cells, d.row)
	d.nodes[r] = node
	return into
}

func (d *Decisions) addRow(node *v1.Node) int {
	var r int
	if k := len(d.free); k > 0 {
		r, d.free = d.free[k-1], d.free[:k-1]
		d.nodes[r] = node
	} else {
		r = len(d.nodes)
		d.nodes = append(d.nodes, node)
		d.cells = append(d.cells, make([]cell, d.set.Len())...)
	}
	d.index[node.Name] = r
	return r
}

// RemoveNode removes the node named name and appends to into its decisions, each with a zero
// After, in DaemonSet order. An unknown name changes nothing.
func (d *Decisions) RemoveNode(name string, into []Change) []Change {
	r, ok := d.index[name]
	if !ok {
		return into
	}
	s, n := d.set, d.set.Len()
	node := d.nodes[r]
	for i, c := range d.cells[r*n : (r+1)*n] {
		into = append(into, Change{Node: name, DaemonSet: i, Before: s.eligibility(i, c, node.Spec.Taints)})
	}
	d.nodes[r] = nil
	delete(d.index, name)
	d.free = append(d.free, r)
	return into
}

// UpdateDaemonSet replaces the DaemonSet with ds's namespace and name by ds, re-decides that
// one column on every node and appends to into the decisions that changed, in row order. The
// Set of d becomes a new Set (the old one is not modified). errs holds what API validation
// would reject in ds, as [Compile] reports it (the update still happens, D-4), or a NotFound
// error, and no update, when the Set has no such DaemonSet: adding or removing DaemonSets
// needs a new Set. ds is not modified.
func (d *Decisions) UpdateDaemonSet(ds *appsv1.DaemonSet, into []Change) ([]Change, field.ErrorList) {
	if ds == nil {
		panic("daemonset: nil DaemonSet")
	}
	prev := d.set
	i, ok := prev.Index(ds.Namespace, ds.Name)
	if !ok {
		return into, field.ErrorList{field.NotFound(field.NewPath("metadata", "name"), ds.Namespace+"/"+ds.Name)}
	}
	p, errs := Compile(ds, prev.opts)
	planners := make([]*Planner, len(prev.planners))
	copy(planners, prev.planners)
	planners[i] = p
	s := newSet(planners, prev.opts, prev)
	n := s.Len()
	for r, node := range d.nodes {
		if node == nil {
			continue
		}
		old := d.cells[r*n+i]
		c := encode(p, node)
		if !sameDecision(i, prev, old, node.Spec.Taints, s, c, node.Spec.Taints) {
			into = append(into, Change{
				Node: node.Name, DaemonSet: i,
				Before: prev.eligibility(i, old, node.Spec.Taints),
				After:  s.eligibility(i, c, node.Spec.Taints),
			})
		}
		d.cells[r*n+i] = c
	}
	d.set = s
	return into, errs
}

// encode decides node for p as a cell.
func encode(p *Planner, node *v1.Node) cell {
	e := p.Eligibility(node)
	switch e.Reason {
	case ReasonTaintNotTolerated, ReasonNoExecuteTaintNotTolerated:
		return taintCell(p.tols.Untolerated(node.Spec.Taints))
	default:
		return placementCell(e)
	}
}

// sameDecision reports whether cell a of Set sa on a node with taints ta and cell b of Set sb
// on a node with taints tb are the same decision of DaemonSet i: the same code and, for the
// taint codes, an equal taint (key, value, effect and timeAdded).
func sameDecision(i int, sa *Set, a cell, ta []v1.Taint, sb *Set, b cell, tb []v1.Taint) bool {
	if a.code() != b.code() {
		return false
	}
	if a.code() != cellTaint && a.code() != cellNoExecute {
		return true
	}
	x, y := sa.eligibility(i, a, ta).Taint, sb.eligibility(i, b, tb).Taint
	return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && x.TimeAdded.Equal(y.TimeAdded)
}
