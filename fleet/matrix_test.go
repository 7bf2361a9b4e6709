package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// incWantNode is what UpdateNode must report: the DaemonSets, in order, whose
// (*Planner).Eligibility differs between before (nil for an added node) and after (nil for a
// removed node).
func incWantNode(s *fleet.Set, name string, before, after *v1.Node) []fleet.Change {
	var want []fleet.Change
	for i := range s.Len() {
		var b, a daemonset.Eligibility
		if before != nil {
			b = s.Planner(i).Eligibility(before)
		}
		if after != nil {
			a = s.Planner(i).Eligibility(after)
		}
		if !eligEqual(a, b) {
			want = append(want, fleet.Change{Node: name, DaemonSet: i, Before: b, After: a})
		}
	}
	return want
}

func changesEqual(a, b []fleet.Change) bool {
	return slices.EqualFunc(a, b, func(x, y fleet.Change) bool {
		return x.Node == y.Node && x.DaemonSet == y.DaemonSet && eligEqual(x.Before, y.Before) && eligEqual(x.After, y.After)
	})
}

// incCheckAll compares the whole matrix with the single-DaemonSet path.
func incCheckAll(t *testing.T, d *fleet.Matrix, live map[string]*v1.Node) {
	t.Helper()
	s := d.Set()
	seen := 0
	for r := range d.Rows() {
		node := d.NodeAt(r)
		if node == nil {
			continue
		}
		seen++
		require.Same(t, live[node.Name], node)
		for i := range s.Len() {
			if want, got := s.Planner(i).Eligibility(node), d.Eligibility(r, i); !eligEqual(want, got) {
				t.Fatalf("row %d (%s), DaemonSet %d (-planner +decisions):\n%s", r, node.Name, i, cmp.Diff(want, got))
			}
		}
	}
	require.Equal(t, len(live), seen)
}

// TestIncrementalAgreesWithPlanner is the property test of the incremental form: thousands of
// random steps (a node's labels, taints or spec.unschedulable change, a node is added or
// removed, a DaemonSet's placement or tolerations change) each return exactly the decisions
// that changed, and the matrix stays equal to (*Planner).Eligibility everywhere.
func TestIncrementalAgreesWithPlanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	dss, nodes := setSnapshot(r, 150, 30)
	s, _ := fleet.Compile(dss, setNow)
	d, errs := s.Decide(nodes)
	require.Empty(t, errs)
	live := map[string]*v1.Node{}
	var names []string
	for _, n := range nodes {
		live[n.Name] = n
		names = append(names, n.Name)
	}
	var got []fleet.Change
	for step := range 3000 {
		var want []fleet.Change
		switch op := r.IntN(20); {
		case op < 13: // a node changes
			name := setPick(r, names)
			old := live[name]
			changed := setMutateNode(r, old)
			want = incWantNode(d.Set(), name, old, changed)
			got = d.UpdateNode(changed, got[:0])
			live[name] = changed
		case op < 16: // a node is added
			node := setMutateNode(r, workload.Node(int64(step), 1_000_000+step))
			want = incWantNode(d.Set(), node.Name, nil, node)
			got = d.UpdateNode(node, got[:0])
			live[node.Name] = node
			names = append(names, node.Name)
		case op < 18: // a node is removed
			if len(names) < 2 {
				continue
			}
			k := r.IntN(len(names))
			name := names[k]
			want = incWantNode(d.Set(), name, live[name], nil)
			got = d.RemoveNode(name, got[:0])
			delete(live, name)
			names = slices.Delete(names, k, k+1)
		default: // a DaemonSet changes
			old := d.Set()
			i := r.IntN(old.Len())
			ds := setRandomDaemonSet(r, old.Planner(i).DaemonSet().Name, names)
			ds.Namespace = old.Planner(i).DaemonSet().Namespace
			p, _ := daemonset.Compile(ds, setNow)
			for row := range d.Rows() {
				node := d.NodeAt(row)
				if node == nil {
					continue
				}
				b, a := old.Planner(i).Eligibility(node), p.Eligibility(node)
				if !eligEqual(a, b) {
					want = append(want, fleet.Change{Node: node.Name, DaemonSet: i, Before: b, After: a})
				}
			}
			got, _ = d.UpdateDaemonSet(ds, got[:0])
			require.Same(t, ds, d.Set().Planner(i).DaemonSet())
			require.Same(t, old.Planner((i+1)%old.Len()), d.Set().Planner((i+1)%old.Len()), "other DaemonSets are kept")
		}
		if !changesEqual(want, got) {
			t.Fatalf("step %d: changes mismatch (-want +got):\n%s", step, cmp.Diff(want, got, cmpopts.EquateEmpty()))
		}
		if step%500 == 0 {
			incCheckAll(t, d, live)
		}
	}
	incCheckAll(t, d, live)
}

func TestUpdateDaemonSetUnknown(t *testing.T) {
	t.Parallel()
	s, _ := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, setNow)
	d, _ := s.Decide(workload.Nodes(1, 10))
	other := workload.ReferenceDaemonSet()
	other.Name = "new"
	got, errs := d.UpdateDaemonSet(other, nil)
	require.Empty(t, got)
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, field.ErrorList{
		field.NotFound(field.NewPath("metadata", "name"), "kube-system/new"),
	}, errs)
	require.Same(t, s, d.Set())
}

// TestUpdateNodeAllocatesNothingWithoutChange: re-deciding a node whose change touches no
// decision (a label no DaemonSet reads, spec.unschedulable, ELIG-7) allocates nothing.
func TestUpdateNodeAllocatesNothingWithoutChange(t *testing.T) {
	s, _ := fleet.Compile(workload.DaemonSets(1, 200), setNow)
	nodes := workload.Nodes(1, 1000)
	d, _ := s.Decide(nodes)
	variants := make([]*v1.Node, 2)
	for k := range variants {
		variants[k] = nodes[500].DeepCopy()
		variants[k].Labels["example.com/unreferenced"] = fmt.Sprint(k)
		variants[k].Spec.Unschedulable = k == 1
	}
	changes := d.UpdateNode(variants[0], nil)
	require.Empty(t, changes)
	k := 0
	allocs := testing.AllocsPerRun(200, func() {
		changes = d.UpdateNode(variants[k%2], changes[:0])
		k++
	})
	require.Zero(t, allocs)
	require.Empty(t, changes)
}

// TestDecideAgreesWithPlanner is the property test of the cluster-wide form, with and without
// workers: the same matrix either way, each cell equal to (*Planner).Eligibility, and per-row
// NodeDecisions equal to Set.DecideNode.
func TestDecideAgreesWithPlanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		dss, nodes := setSnapshot(r, 200, 30)
		s, _ := fleet.Compile(dss, setNow)
		oracle := setOracle(s)
		nodesBefore := make([]*v1.Node, len(nodes))
		for i, n := range nodes {
			nodesBefore[i] = n.DeepCopy()
		}
		serial, errs := s.Decide(nodes)
		require.Empty(t, errs)
		s7, _ := fleet.Compile(dss, withWorkers(7))
		parallel, errs := s7.Decide(nodes)
		require.Empty(t, errs)
		require.Equal(t, len(nodes), serial.Rows())
		var nd fleet.NodeDecision
		for row, node := range nodes {
			require.Same(t, node, serial.NodeAt(row))
			got, ok := serial.Row(node.Name)
			require.True(t, ok)
			require.Equal(t, row, got)
			for i := range s.Len() {
				want := s.Planner(i).Eligibility(node)
				if g := serial.Eligibility(row, i); !eligEqual(want, g) {
					t.Fatalf("Decide: node %s DaemonSet %d (-planner +decide):\n%s", node.Name, i, cmp.Diff(want, g))
				}
				if g := parallel.Eligibility(row, i); !eligEqual(want, g) {
					t.Fatalf("Decide with workers: node %s DaemonSet %d (-planner +decide):\n%s", node.Name, i, cmp.Diff(want, g))
				}
			}
			serial.DecisionAt(row, &nd)
			setCheckNode(t, s, oracle, node, &nd)
		}
		for i := range s.Len() {
			run, cont := 0, 0
			for _, node := range nodes {
				e := s.Planner(i).Eligibility(node)
				if e.ShouldRun {
					run++
				}
				if e.ShouldContinueRunning {
					cont++
				}
			}
			gotRun, gotCont := serial.Count(i)
			require.Equal(t, [2]int{run, cont}, [2]int{gotRun, gotCont}, "Count(%d)", i)
		}
		if diff := cmp.Diff(nodesBefore, nodes); diff != "" {
			t.Fatalf("Decide modified the nodes (-before +after):\n%s", diff)
		}
	}
}

func TestDecideErrors(t *testing.T) {
	t.Parallel()
	s, errs := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, setNow)
	require.Empty(t, errs)
	nodes := workload.Nodes(1, 3)
	dup := nodes[0].DeepCopy()
	d, errs := s.Decide([]*v1.Node{nodes[0], nil, nodes[1], dup})
	require.Nil(t, d)
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, field.ErrorList{
		field.Required(field.NewPath("nodes").Index(1), ""),
		field.Duplicate(field.NewPath("nodes").Index(3).Child("metadata", "name"), nodes[0].Name),
	}, errs)
}

// FuzzSetAgreesWithPlanner draws a random snapshot from the fuzzed seed and checks every Set,
// Decide and UpdateNode decision against (*Planner).Eligibility.
func FuzzSetAgreesWithPlanner(f *testing.F) {
	f.Add(uint64(0), uint64(0)) // the first snapshot of the default stream
	f.Add(uint64(1), uint64(2)) // TestDecideNodeAgreesWithPlanner's stream
	f.Add(uint64(7), uint64(8)) // TestIncrementalAgreesWithPlanner's stream
	f.Add(uint64(1<<63), uint64(12345))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		dss, nodes := setSnapshot(r, 20, 12)
		s, _ := fleet.Compile(dss, withWorkers(3))
		d, errs := s.Decide(nodes)
		require.Empty(t, errs)
		var nd fleet.NodeDecision
		for row, node := range nodes {
			s.DecideNode(node, &nd)
			changed := setMutateNode(r, node)
			changes := d.UpdateNode(changed, nil)
			k := 0
			for i := range s.Len() {
				want := s.Planner(i).Eligibility(node)
				if g := nd.Eligibility(i); !eligEqual(want, g) {
					t.Fatalf("Set.DecideNode: node %s DaemonSet %d (-planner +set):\n%s", node.Name, i, cmp.Diff(want, g))
				}
				after := s.Planner(i).Eligibility(changed)
				if g := d.Eligibility(row, i); !eligEqual(after, g) {
					t.Fatalf("UpdateNode: node %s DaemonSet %d (-planner +decisions):\n%s", node.Name, i, cmp.Diff(after, g))
				}
				if !eligEqual(want, after) {
					require.Less(t, k, len(changes))
					require.Equal(t, i, changes[k].DaemonSet)
					k++
				}
			}
			require.Len(t, changes, k)
		}
	})
}

func TestEmptySetAndSnapshot(t *testing.T) {
	t.Parallel()
	s, errs := fleet.Compile(nil, withWorkers(4))
	require.Empty(t, errs)
	require.Equal(t, 0, s.Len())
	var nd fleet.NodeDecision
	s.DecideNode(workload.Nodes(1, 1)[0], &nd)
	require.Empty(t, nd.ShouldRun())
	require.Empty(t, nd.Requests(nil))
	d, errs := s.Decide(workload.Nodes(1, 5))
	require.Empty(t, errs)
	require.Equal(t, 5, d.Rows())
	require.Empty(t, d.UpdateNode(workload.Node(1, 99), nil))

	s, _ = fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, withWorkers(4))
	d, errs = s.Decide(nil)
	require.Empty(t, errs)
	require.Equal(t, 0, d.Rows())
	changes := d.UpdateNode(workload.Node(1, 7), nil)
	require.Len(t, changes, 1, "an added node gets a decision for every DaemonSet")
	require.True(t, eligEqual(daemonset.Eligibility{}, changes[0].Before), "no decision before the node existed")
}
