package daemonset_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestPlanPodLookupPathsAgree holds the three ways a plan finds a pod's node (OWN-9) to one
// answer: the guess and binary search on a node list sorted by name, the binary search giving
// way to the name map once many pods are out of node order, and the map on an unsorted list.
// The snapshot is large enough for every path and has pods on missing nodes (DIFF-5).
func TestPlanPodLookupPathsAgree(t *testing.T) {
	ds := realisticDS()
	ns := realisticNodes(400)
	pods := realisticPods(ds, ns)
	// Pods whose nodes are gone, one of them sorting before every node and one after.
	hash := hashOf(ds)
	pods = append(pods, pod("gone-a", "a-gone", hashLabel(hash), ready), pod("gone-z", "z-gone", hashLabel(hash), ready),
		pod("gone-mid", "node-000100x", hashLabel(hash), ready))
	// A second pod on some nodes, so that pods come out of node order.
	for i := 0; i < len(ns); i += 37 {
		pods = append(pods, pod("extra-"+ns[i].Name, ns[i].Name, hashLabel(hash), ready))
	}
	p, errs := daemonset.Compile(ds, opts())
	require.Empty(t, errs)
	want := p.Plan(daemonset.Snapshot{Nodes: ns, Pods: pods})
	require.NotEmpty(t, want.Delete, "the snapshot should hold pods to delete")

	r := rand.New(rand.NewPCG(1, 2))
	shuffledPods, shuffledNodes := shuffled(r, pods), shuffled(r, ns)
	fewOutOfOrder := slices.Clone(pods)
	for i := 0; i+10 < len(fewOutOfOrder); i += 50 {
		fewOutOfOrder[i], fewOutOfOrder[i+10] = fewOutOfOrder[i+10], fewOutOfOrder[i]
	}
	// In node order with gaps: no pod on some nodes, two on others, as after a rollout.
	var gaps []*v1.Pod
	for i, pod := range pods[:len(ns)] {
		if i%3 != 1 {
			gaps = append(gaps, pod)
		}
		if i%37 == 0 {
			gaps = append(gaps, pods[len(ns)+3+i/37])
		}
	}
	gaps = append(gaps, pods[len(ns):len(ns)+3]...)
	wantGaps := p.Plan(daemonset.Snapshot{Nodes: ns, Pods: gaps})
	shuffledGaps := shuffled(r, gaps)
	require.Equal(t, wantGaps, p.Plan(daemonset.Snapshot{Nodes: shuffledNodes, Pods: shuffledGaps}),
		"pods in node order with gaps are found by the forward search as by the name map")
	for _, tc := range []struct {
		name  string
		nodes []*v1.Node
		pods  []*v1.Pod
	}{
		{"sorted nodes with a few pods out of order are found by binary search", ns, fewOutOfOrder},
		{"sorted nodes with shuffled pods fall back to the name map", ns, shuffledPods},
		{"shuffled nodes use the name map", shuffledNodes, pods},
		{"reversed nodes and shuffled pods use the name map", reversed(ns), shuffledPods},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := p.Plan(daemonset.Snapshot{Nodes: tc.nodes, Pods: tc.pods})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan depends on the lookup path (-in order +%s):\n%s", tc.name, diff)
			}
		})
	}
}

// TestPlanDuplicateNodeNamesFirstWins pins the behaviour on an inconsistent snapshot (two
// nodes with one name, in sorted position): the pod belongs to the first of them, whatever
// lookup path is taken.
func TestPlanDuplicateNodeNamesFirstWins(t *testing.T) {
	ds := realisticDS()
	p, errs := daemonset.Compile(ds, opts())
	require.Empty(t, errs)
	good := node("n1", labels("kubernetes.io/os", "linux", "node-role.kubernetes.io/gpu", ""))
	bad := node("n1", labels("kubernetes.io/os", "windows"))
	pods := []*v1.Pod{pod("p", "n1", hashLabel(hashOf(ds)), ready)}
	first := p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{good, bad}, Pods: pods})
	require.Empty(t, first.Delete, "the pod is on the first n1, which should run it")
	second := p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{bad, good}, Pods: pods})
	require.Len(t, second.Delete, 1, "the pod is on the first n1, which should not run it")

	// Out of name order, with the pods not in step with the nodes, so that the node is looked
	// up in the name map.
	others := []*v1.Node{node("n0"), node("n2"), node("n3")}
	pods = append([]*v1.Pod{pod("q", "n9", hashLabel(hashOf(ds)), ready)}, pods...)
	third := p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{others[0], others[1], good, others[2], bad}, Pods: pods})
	require.Empty(t, deletedPods(third), "the pod is on the first n1, which should run it")
	fourth := p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{others[0], others[1], bad, others[2], good}, Pods: pods})
	require.Equal(t, []string{"p"}, deletedPods(fourth), "the pod is on the first n1, which should not run it")
}

// TestPlanWorkersAgree holds Options.Workers to its promise: sharing the nodes and pods among
// goroutines gives the plan of one goroutine, also when the only names out of order sit
// across the boundary between two workers' nodes, where no worker alone can see them.
func TestPlanWorkersAgree(t *testing.T) {
	t.Parallel()
	ds := realisticDS()
	ns := realisticNodes(6000)
	pods := realisticPods(ds, ns)
	pods = append(pods, pod("gone", "node-003000x", hashLabel(hashOf(ds)), ready))
	boundary := slices.Clone(ns)
	boundary[2999], boundary[3000] = boundary[3000], boundary[2999] // 2 workers split at 3000
	one := opts()
	for _, tc := range []struct {
		name  string
		nodes []*v1.Node
	}{
		{"sorted nodes", ns},
		{"two nodes swapped across the workers' boundary", boundary},
		{"reversed nodes", reversed(ns)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p1, _ := daemonset.Compile(ds, one)
			want := p1.Plan(daemonset.Snapshot{Nodes: tc.nodes, Pods: pods})
			for _, workers := range []int{2, 3} {
				o := one
				o.Workers = workers
				p, _ := daemonset.Compile(ds, o)
				if diff := cmp.Diff(want, p.Plan(daemonset.Snapshot{Nodes: tc.nodes, Pods: pods})); diff != "" {
					t.Fatalf("%d workers plan differently (-one +%d):\n%s", workers, workers, diff)
				}
			}
		})
	}
}

func deletedPods(res *daemonset.Result) []string {
	var out []string
	for _, d := range res.Delete {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// shuffled returns a copy of s in an order drawn from r.
func shuffled[T any](r *rand.Rand, s []T) []T {
	out := slices.Clone(s)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
