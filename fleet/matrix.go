package fleet

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/parallel"
)

// Matrix holds the decision of every DaemonSet of a Set on every node of a snapshot, one row
// per node, kept up to date node by node or DaemonSet by DaemonSet by [Matrix.UpdateNode],
// [Matrix.RemoveNode] and [Matrix.UpdateDaemonSet], which return only the decisions that
// changed. Each decision takes two bytes. A Matrix keeps the node objects it is given (they
// must not be modified while kept) and is not safe for concurrent use.
type Matrix struct {
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
// modified; the node objects are kept by the result. The Options.Workers the Set was compiled
// with is how many goroutines share the nodes; the matrix is the same whatever the number.
func (s *Set) Decide(nodes []*v1.Node) (*Matrix, field.ErrorList) {
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
	m := &Matrix{set: s, nodes: slices.Clone(nodes), index: index, cells: make([]cell, len(nodes)*n)}
	// Any node is worth a share: deciding one for every DaemonSet costs microseconds, well above
	// what a goroutine costs. Each goroutine has its own memo; the calling goroutine's (the
	// first range) is the matrix's, which later updates reuse.
	parallel.Run(parallel.Workers(s.opts.Workers, len(nodes), 1), len(nodes), func(lo, hi int) {
		sc := &m.sc
		if lo > 0 {
			sc = &scratch{}
		}
		for r := lo; r < hi; r++ {
			s.decide(nodes[r], m.cells[r*n:(r+1)*n], sc)
		}
	})
	return m, nil
}

// Set returns the Set the decisions are for (a new one after UpdateDaemonSet).
func (m *Matrix) Set() *Set { return m.set }

// Rows returns the number of rows, removed ones included.
func (m *Matrix) Rows() int { return len(m.nodes) }

// NodeAt returns the node of row r, or nil when it was removed.
func (m *Matrix) NodeAt(r int) *v1.Node { return m.nodes[r] }

// Row returns the row of the node named name.
func (m *Matrix) Row(name string) (int, bool) {
	r, ok := m.index[name]
	return r, ok
}

// Eligibility returns the decision for DaemonSet i of the Set on the node of row r, equal to
// what [daemonset.Planner.Eligibility] returns. It panics for a removed row.
func (m *Matrix) Eligibility(r, i int) daemonset.Eligibility {
	node := m.nodes[r]
	if node == nil {
		panic(fmt.Sprintf("fleet: row %d was removed", r))
	}
	return m.set.eligibility(i, m.cells[r*m.set.Len()+i], node.Spec.Taints)
}

// DecisionAt stores in into the decisions of row r with the requests and host ports of the
// daemon pods that should run there, as [Set.DecideNode] would compute them. It panics for a
// removed row.
func (m *Matrix) DecisionAt(r int, into *NodeDecision) {
	node := m.nodes[r]
	if node == nil {
		panic(fmt.Sprintf("fleet: row %d was removed", r))
	}
	n := m.set.Len()
	into.reset(m.set, node.Spec.Taints)
	copy(into.cells, m.cells[r*n:(r+1)*n])
	into.summarize()
}

// Count returns, for DaemonSet i, on how many nodes a daemon pod should run and on how many
// an existing one may keep running (the desiredNumberScheduled of STAT-2 is the first).
func (m *Matrix) Count(i int) (shouldRun, shouldContinueRunning int) {
	n := m.set.Len()
	for r, node := range m.nodes {
		if node == nil {
			continue
		}
		switch c := m.cells[r*n+i]; {
		case c == cellRun:
			shouldRun++
			shouldContinueRunning++
		case c.tainted():
			if m.set.eligibility(i, c, node.Spec.Taints).ShouldContinueRunning {
				shouldContinueRunning++
			}
		}
	}
	return shouldRun, shouldContinueRunning
}

// Change is one decision of a [Matrix] that an update changed. A node that was
// added has the zero Before (no decision: ShouldRun and ShouldContinueRunning false, no
// reason); a node that was removed has the zero After.
type Change struct {
	Node      string
	DaemonSet int // index in the Set
	Before    daemonset.Eligibility
	After     daemonset.Eligibility
}

// UpdateNode re-decides every DaemonSet on node, which replaces the node of the same name or,
// if there is none, is added (into a removed row if any, else a new last row). It appends to
// into the decisions that changed, in DaemonSet order, and returns it; other nodes are not
// looked at. When nothing changes it allocates nothing, except, amortised, to remember a label
// projection or list of taints not met before (see [Set]). The node object is kept and must not
// be modified while kept; pass a new object for the next change. A nil node panics.
func (m *Matrix) UpdateNode(node *v1.Node, into []Change) []Change {
	if node == nil {
		panic("fleet: nil node")
	}
	s, n := m.set, m.set.Len()
	if cap(m.row) < n {
		m.row = make([]cell, n)
	}
	m.row = m.row[:n]
	s.decide(node, m.row, &m.sc)
	r, ok := m.index[node.Name]
	if !ok {
		r = m.addRow(node)
		for i, c := range m.row {
			into = append(into, Change{Node: node.Name, DaemonSet: i, After: s.eligibility(i, c, node.Spec.Taints)})
		}
		copy(m.cells[r*n:(r+1)*n], m.row)
		return into
	}
	old := m.nodes[r]
	cells := m.cells[r*n : (r+1)*n]
	for i, c := range m.row {
		if !sameDecision(i, s, cells[i], old.Spec.Taints, s, c, node.Spec.Taints) {
			into = append(into, Change{
				Node: node.Name, DaemonSet: i,
				Before: s.eligibility(i, cells[i], old.Spec.Taints),
				After:  s.eligibility(i, c, node.Spec.Taints),
			})
		}
	}
	copy(cells, m.row)
	m.nodes[r] = node
	return into
}

func (m *Matrix) addRow(node *v1.Node) int {
	var r int
	if k := len(m.free); k > 0 {
		r, m.free = m.free[k-1], m.free[:k-1]
		m.nodes[r] = node
	} else {
		r = len(m.nodes)
		m.nodes = append(m.nodes, node)
		m.cells = append(m.cells, make([]cell, m.set.Len())...)
	}
	m.index[node.Name] = r
	return r
}

// RemoveNode removes the node named name and appends to into its decisions, each with a zero
// After, in DaemonSet order. An unknown name changes nothing.
func (m *Matrix) RemoveNode(name string, into []Change) []Change {
	r, ok := m.index[name]
	if !ok {
		return into
	}
	s, n := m.set, m.set.Len()
	node := m.nodes[r]
	for i, c := range m.cells[r*n : (r+1)*n] {
		into = append(into, Change{Node: name, DaemonSet: i, Before: s.eligibility(i, c, node.Spec.Taints)})
	}
	m.nodes[r] = nil
	delete(m.index, name)
	m.free = append(m.free, r)
	return into
}

// UpdateDaemonSet replaces the DaemonSet with ds's namespace and name by ds, re-decides that
// one column on every node and appends to into the decisions that changed, in row order. The
// Set of m becomes a new Set (the old one is not modified). errs holds what API validation
// would reject in ds, as [daemonset.Compile] reports it (the update still happens, D-4), or a NotFound
// error, and no update, when the Set has no such DaemonSet (adding or removing DaemonSets
// needs a new Set), or an error for each quantity beyond [MaxQuantityDigits], and no update. ds is not modified; a nil ds panics.
func (m *Matrix) UpdateDaemonSet(ds *appsv1.DaemonSet, into []Change) ([]Change, field.ErrorList) {
	if ds == nil {
		panic("fleet: nil DaemonSet")
	}
	prev := m.set
	i, ok := prev.Index(ds.Namespace, ds.Name)
	if !ok {
		return into, field.ErrorList{field.NotFound(field.NewPath("metadata", "name"), ds.Namespace+"/"+ds.Name)}
	}
	if errs := checkQuantities(ds, nil); len(errs) > 0 {
		return into, errs
	}
	p, errs := daemonset.Compile(ds, prev.opts)
	planners := make([]*daemonset.Planner, len(prev.planners))
	copy(planners, prev.planners)
	planners[i] = p
	s := newSet(planners, prev.opts, prev)
	n := s.Len()
	for r, node := range m.nodes {
		if node == nil {
			continue
		}
		old := m.cells[r*n+i]
		c := encode(p, node)
		if !sameDecision(i, prev, old, node.Spec.Taints, s, c, node.Spec.Taints) {
			into = append(into, Change{
				Node: node.Name, DaemonSet: i,
				Before: prev.eligibility(i, old, node.Spec.Taints),
				After:  s.eligibility(i, c, node.Spec.Taints),
			})
		}
		m.cells[r*n+i] = c
	}
	m.set = s
	return into, errs
}

// encode decides node for p as a cell.
func encode(p *daemonset.Planner, node *v1.Node) cell {
	e := p.Eligibility(node)
	switch e.Reason {
	case daemonset.ReasonTaintNotTolerated, daemonset.ReasonNoExecuteTaintNotTolerated:
		return taintCell(p.Tolerations().Untolerated(node.Spec.Taints))
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
	if !a.tainted() {
		return true
	}
	x, y := sa.eligibility(i, a, ta).Taint, sb.eligibility(i, b, tb).Taint
	return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && x.TimeAdded.Equal(y.TimeAdded)
}
