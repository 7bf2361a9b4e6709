package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

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

func ExampleMatrix_UpdateNode() {
	opts := daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	set, _ := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, opts)
	nodes := workload.Nodes(1, 1000)
	decisions, _ := set.Decide(nodes)

	// Cordoning changes no decision: the cordon taint is tolerated by default (DEFTOL-7).
	cordoned := nodes[2].DeepCopy()
	cordoned.Spec.Unschedulable = true
	cordoned.Spec.Taints = append(cordoned.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	fmt.Println("cordon:", len(decisions.UpdateNode(cordoned, nil)), "changes")

	// The node becomes a GPU node: the reference DaemonSet does not tolerate that taint.
	gpu := cordoned.DeepCopy()
	gpu.Spec.Taints = append(gpu.Spec.Taints, v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule})
	for _, c := range decisions.UpdateNode(gpu, nil) {
		fmt.Printf("%s: shouldRun %v -> %v (%s)\n", c.Node, c.Before.ShouldRun, c.After.ShouldRun, c.After.Reason)
	}
	// Output:
	// cordon: 0 changes
	// node-000002: shouldRun true -> false (TaintNotTolerated)
}
