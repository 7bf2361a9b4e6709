package daemonset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// trackerPods returns random pods of ds (the fixture DaemonSet "foo") grouped by the node they
// target, each one of nodeCount nodes: old or current hash, ready or not, pending, terminating,
// failed or succeeded when terminal, sometimes unscheduled and aimed through affinity (OWN-9),
// and, when foreign, sometimes an orphan (adopted, beyond the Tracker's fold).
func trackerPods(r *rand.Rand, nodeCount, n int, round int, terminal, foreign bool) map[string][]*v1.Pod {
	out := map[string][]*v1.Pod{}
	for i := range n {
		target := fmt.Sprintf("n%02d", r.IntN(nodeCount))
		var mods []podMod
		if r.IntN(4) == 0 {
			mods = append(mods, unscheduledFor(target))
		}
		if foreign && r.IntN(10) == 0 {
			mods = append(mods, orphan)
		}
		if r.IntN(2) == 0 {
			mods = append(mods, oldHash)
		}
		if r.IntN(3) > 0 {
			mods = append(mods, readyAt(int64(r.IntN(1000))))
		}
		switch {
		case terminal && r.IntN(8) == 0:
			mods = append(mods, phase([]v1.PodPhase{v1.PodFailed, v1.PodSucceeded}[r.IntN(2)]))
		case r.IntN(6) == 0:
			mods = append(mods, phase(v1.PodPending))
		}
		if r.IntN(8) == 0 {
			mods = append(mods, terminating)
		}
		mods = append(mods, created(int64(r.IntN(5))))
		out[target] = append(out[target], pod(fmt.Sprintf("p%02d-%03d", round, i), target, mods...))
	}
	return out
}

func flatten(nodes []*v1.Node, byNode map[string][]*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, n := range nodes {
		out = append(out, byNode[n.Name]...)
	}
	return out
}

// TestTrackerFoldsAsPlan checks that re-planning after touched nodes gives what a whole-snapshot
// Plan gives (SYNC-2, DIFF-*, UPD-8, UPD-11, DIFF-10, STAT-*), on random snapshots, random
// touches and burst limits, and that a Tracker refuses (nil) only snapshots beyond its fold.
func TestTrackerFoldsAsPlan(t *testing.T) {
	folded, refused := 0, 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 7))
		ds := randomDS(r)
		o := opts()
		o.BurstLimit = []int{0, 0, 1, 2, 3}[r.IntN(5)]
		p, _ := daemonset.Compile(ds, o)
		nodeCount := 1 + r.IntN(12)
		nodes := randomNodes(r, nodeCount)
		if seed%2 == 1 { // Track sorts a node list out of name order, and keeps one in it as is
			r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		}
		byNode := trackerPods(r, nodeCount, r.IntN(2*nodeCount+1), 0, r.IntN(3) == 0, r.IntN(4) == 0)
		revs := currentRevisions(p)
		s := daemonset.Snapshot{Nodes: nodes, Pods: flatten(nodes, byNode), Revisions: revs}
		tr := p.Track(s)
		if tr == nil {
			refused++
			continue
		}
		var reused daemonset.Result
		for round := range 6 {
			want := p.Plan(daemonset.Snapshot{Nodes: nodes, Pods: flatten(nodes, byNode), Revisions: revs})
			got := tr.Plan()
			if round%2 == 1 { // PlanTo into a Result reused from the last rounds
				if !tr.PlanTo(&reused) {
					got = nil
				} else {
					got = &reused
				}
			}
			if got != nil {
				folded++
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("seed %d round %d: Tracker.Plan() mismatch with Plan (-want +got):\n%s", seed, round, diff)
				}
			} else {
				require.Truef(t, len(want.Adopt)+len(want.Release) > 0 || hasFailed(flatten(nodes, byNode)),
					"seed %d round %d: Tracker.Plan() is nil for a plan within its fold", seed, round)
			}
			// Touch a few nodes: new pods, or a changed node object.
			fresh := trackerPods(r, nodeCount, r.IntN(nodeCount+1), round+1, r.IntN(3) == 0, r.IntN(4) == 0)
			for k := 0; k < 1+r.IntN(3); k++ {
				i := r.IntN(nodeCount)
				name := nodes[i].Name
				switch r.IntN(4) {
				case 0:
					byNode[name] = nil
				case 1:
					fresh := randomNodes(r, nodeCount) // the same names, maybe other labels and taints
					nodes[i] = fresh[slices.IndexFunc(fresh, func(n *v1.Node) bool { return n.Name == name })]
				default:
					byNode[name] = append(byNode[name][:len(byNode[name]):len(byNode[name])], fresh[name]...)
				}
				require.True(t, tr.Touch(nodes[i], byNode[name]))
			}
		}
	}
	t.Logf("%d plans folded, %d snapshots refused", folded, refused)
	require.Greater(t, folded, 500, "too few plans within the fold to prove anything")
}

// currentRevisions returns the DaemonSet's current revision as the first sync creates it, so
// that a snapshot holding it needs no revision write (UPD-14).
func currentRevisions(p *daemonset.Planner) []*appsv1.ControllerRevision {
	return p.Plan(daemonset.Snapshot{}).Revisions.Create
}

// hasFailed reports whether pods hold a Failed pod the base diff may delete (DIFF-17).
func hasFailed(pods []*v1.Pod) bool {
	for _, p := range pods {
		if p.Status.Phase == v1.PodFailed && p.DeletionTimestamp == nil {
			return true
		}
	}
	return false
}

// TestTrackerRefusesBeyondItsFold checks the snapshots Track refuses: pods to adopt, pods on a
// node missing from the node list (DIFF-8).
func TestTrackerRefusesBeyondItsFold(t *testing.T) {
	ds := newDS()
	p, _ := daemonset.Compile(ds, opts())
	nodes := []*v1.Node{node("n00"), node("n01")}
	tests := []struct {
		name string
		pods []*v1.Pod
		want bool
	}{
		{name: "controlled pods on listed nodes are folded", pods: []*v1.Pod{pod("a", "n00")}, want: true},
		{name: "an orphan to adopt is refused", pods: []*v1.Pod{pod("a", "n00", orphan)}},
		{name: "a pod on a missing node is refused", pods: []*v1.Pod{pod("a", "n09")}},
		{name: "another controller's pod plays no part", pods: []*v1.Pod{pod("a", "n00", owners(ownedBy("DaemonSet", "bar", "uid-bar", true)))}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Track(daemonset.Snapshot{Nodes: nodes, Pods: tt.pods, Revisions: currentRevisions(p)}) != nil
			require.Equal(t, tt.want, got)
		})
	}
	require.False(t, p.Track(daemonset.Snapshot{Nodes: nodes, Revisions: currentRevisions(p)}).Touch(node("n09"), nil), "a node the Tracker does not know")
	require.Nil(t, p.Track(daemonset.Snapshot{Nodes: nodes}), "a sync that creates the first revision")
}

// TestTrackerPlanToAllocatesNothingWhenConverged: re-planning a converged DaemonSet after a
// touch (a simulator's commonest sync) allocates nothing once its Result is reused.
func TestTrackerPlanToAllocatesNothingWhenConverged(t *testing.T) {
	ds := newDS(rolling(ios(1), ios(0)))
	p, _ := daemonset.Compile(ds, opts())
	revs := currentRevisions(p)
	hash := p.Plan(daemonset.Snapshot{Revisions: revs}).RevisionHash
	nodes := []*v1.Node{node("n00"), node("n01"), node("n02")}
	var pods []*v1.Pod
	for _, n := range nodes {
		pods = append(pods, pod("p-"+n.Name, n.Name, hashLabel(hash), ready))
	}
	tr := p.Track(daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs})
	require.NotNil(t, tr)
	var res daemonset.Result
	require.True(t, tr.PlanTo(&res))
	require.Empty(t, res.Create)
	require.Empty(t, res.Delete)
	allocs := testing.AllocsPerRun(100, func() {
		tr.Touch(nodes[1], pods[1:2])
		tr.PlanTo(&res)
	})
	require.Zero(t, allocs)
}

// TestTrackerStepKeepsItsBuffer: a rolling step that deletes nothing (UPD-8: no old pod left to
// take) between two that delete one keeps the array the deleting steps build their list in, so
// re-planning allocates nothing once the Result is reused.
func TestTrackerStepKeepsItsBuffer(t *testing.T) {
	ds := newDS(rolling(ios(1), ios(0)))
	p, _ := daemonset.Compile(ds, opts())
	revs := currentRevisions(p)
	hash := p.Plan(daemonset.Snapshot{Revisions: revs}).RevisionHash
	nodes := []*v1.Node{node("n00"), node("n01")}
	current := []*v1.Pod{pod("p-n00", "n00", hashLabel(hash), ready), pod("p-n01", "n01", hashLabel(hash), ready)}
	old := []*v1.Pod{pod("old-n00", "n00", oldHash, ready)}
	tr := p.Track(daemonset.Snapshot{Nodes: nodes, Pods: current, Revisions: revs})
	require.NotNil(t, tr)
	var res daemonset.Result
	for range 2 {
		tr.Touch(nodes[0], old)
		require.True(t, tr.PlanTo(&res))
		require.Len(t, res.Delete, 1)
		tr.Touch(nodes[0], current[:1])
		require.True(t, tr.PlanTo(&res))
		require.Empty(t, res.Delete)
	}
	allocs := testing.AllocsPerRun(100, func() {
		tr.Touch(nodes[0], old)
		tr.PlanTo(&res)
		tr.Touch(nodes[0], current[:1])
		tr.PlanTo(&res)
	})
	require.Zero(t, allocs)
}
