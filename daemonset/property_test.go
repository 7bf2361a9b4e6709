package daemonset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Properties of whole plans on random snapshots. Every generator is seeded, so a failure
// names its seed and replays exactly.

type genConfig struct {
	// terminal and terminating allow failed/succeeded and terminating pods.
	terminal, terminating bool
}

func randomDS(r *rand.Rand) *appsv1.DaemonSet {
	mods := []dsMod{}
	switch r.IntN(4) {
	case 0:
		mods = append(mods, rolling(ios(1), ios(0)))
	case 1:
		mods = append(mods, rolling(ios(0), ios(1)))
	case 2:
		mods = append(mods, rolling(ptr.To(intstr.FromString("50%")), ios(0)))
	}
	if r.IntN(3) == 0 {
		mods = append(mods, nodeSelector("zone", "a"))
	}
	if r.IntN(3) == 0 {
		mods = append(mods, requiredTerms(term(expr("zone", v1.NodeSelectorOpIn, "a", "b"))))
	}
	if r.IntN(2) == 0 {
		mods = append(mods, tolerations(tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule)))
	}
	if r.IntN(4) == 0 {
		mods = append(mods, func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = int32(r.IntN(20)) })
	}
	return newDS(mods...)
}

func randomNodes(r *rand.Rand, n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		var mods []nodeMod
		if z := r.IntN(3); z < 2 {
			mods = append(mods, labels("zone", []string{"a", "b"}[z]))
		}
		switch r.IntN(6) {
		case 0:
			mods = append(mods, taint("k", "", v1.TaintEffectNoSchedule))
		case 1:
			mods = append(mods, taint("e", "", v1.TaintEffectNoExecute))
		case 2:
			mods = append(mods, taint("k2", "", v1.TaintEffectNoSchedule))
		}
		out[i] = node(fmt.Sprintf("n%02d", i), mods...)
	}
	return out
}

func randomPods(r *rand.Rand, nodeCount, n int, cfg genConfig) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range out {
		target := fmt.Sprintf("n%02d", r.IntN(nodeCount+2)) // sometimes a missing node
		var mods []podMod
		if r.IntN(3) == 0 {
			mods = append(mods, unscheduledFor(target))
		}
		switch r.IntN(8) {
		case 0:
			mods = append(mods, orphan)
		case 1:
			mods = append(mods, owners(ownedBy("DaemonSet", "bar", "uid-bar", true)))
		case 2:
			mods = append(mods, podLabels(map[string]string{"app": "other", appsv1.DefaultDaemonSetUniqueLabelKey: "old"}))
		}
		if r.IntN(2) == 0 {
			mods = append(mods, oldHash)
		}
		if r.IntN(2) == 0 {
			mods = append(mods, readyAt(int64(r.IntN(1000))))
		}
		switch {
		case cfg.terminal && r.IntN(5) == 0:
			mods = append(mods, phase([]v1.PodPhase{v1.PodFailed, v1.PodSucceeded}[r.IntN(2)]))
		case r.IntN(5) == 0:
			mods = append(mods, phase(v1.PodPending))
		}
		if cfg.terminating && r.IntN(6) == 0 {
			mods = append(mods, terminating)
		}
		mods = append(mods, created(int64(r.IntN(5))))
		out[i] = pod(fmt.Sprintf("p%03d", i), target, mods...)
	}
	return out
}

// apply plays res on pods as the API server and kubelet would: creates appear (bound, Running
// and Ready at once), deletes disappear, adoptions and releases rewrite owner references.
func apply(pods []*v1.Pod, res *daemonset.Result, round int) []*v1.Pod {
	deleted := map[string]bool{}
	for _, d := range res.Delete {
		deleted[d.Namespace+"/"+d.Name] = true
	}
	adopt := map[string]bool{}
	for _, a := range res.Adopt {
		adopt[a.Namespace+"/"+a.Name] = true
	}
	release := map[string]bool{}
	for _, a := range res.Release {
		release[a.Namespace+"/"+a.Name] = true
	}
	var out []*v1.Pod
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		if deleted[key] {
			continue
		}
		if adopt[key] || release[key] {
			p = p.DeepCopy()
			var refs []metav1.OwnerReference
			for _, r := range p.OwnerReferences {
				if r.Controller == nil || !*r.Controller {
					refs = append(refs, r)
				}
			}
			if adopt[key] {
				refs = append(refs, ownedBy("DaemonSet", res.Name, "uid-foo", true))
			}
			p.OwnerReferences = refs
		}
		out = append(out, p)
	}
	for i, c := range res.Create {
		p := c.Pod.DeepCopy()
		p.Name = fmt.Sprintf("%sr%d-%d", p.GenerateName, round, i)
		p.CreationTimestamp = metav1.Unix(int64(100+round), 0)
		if i%2 == 0 {
			p.Spec.NodeName = c.Node
		}
		p.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.Unix(1, 0)}}}
		out = append(out, p)
	}
	return out
}

func TestPropertyConvergence(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		ds := randomDS(r)
		nodeCount := 1 + r.IntN(8)
		ns := randomNodes(r, nodeCount)
		pods := randomPods(r, nodeCount, r.IntN(14), genConfig{})
		maxRounds := 2*nodeCount + 4
		converged := false
		for round := 0; round < maxRounds; round++ {
			res, err := daemonset.Plan(ds, ns, pods, daemonset.Options{Version: v1363, Now: time.Unix(10000, 0)})
			require.NoError(t, err, "seed %d", seed)
			if len(res.Create)+len(res.Delete)+len(res.Adopt)+len(res.Release) == 0 {
				converged = true
				// At rest every desired node holds exactly its pod.
				require.Equal(t, res.Status.DesiredNumberScheduled, res.Status.CurrentNumberScheduled, "seed %d", seed)
				break
			}
			pods = apply(pods, res, round)
		}
		require.True(t, converged, "seed %d: no empty plan after %d rounds", seed, maxRounds)
	}
}

func TestPropertyInputOrderDoesNotMatter(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		ds := randomDS(r)
		nodeCount := 1 + r.IntN(8)
		ns := randomNodes(r, nodeCount)
		pods := randomPods(r, nodeCount, r.IntN(16), genConfig{terminal: true, terminating: true})
		o := daemonset.Options{Version: v1363, Now: time.Unix(int64(r.IntN(1200)), 0), BurstLimit: r.IntN(3)}
		want, err := daemonset.Plan(ds, ns, pods, o)
		require.NoError(t, err)

		ns2, pods2 := shuffled(r, ns), shuffled(r, pods)
		got, err := daemonset.Plan(ds, ns2, pods2, o)
		require.NoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: plan depends on input order (-sorted +shuffled):\n%s", seed, diff)
		}
	}
}

func TestPropertyInputsNeverMutated(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		ds := randomDS(r)
		nodeCount := 1 + r.IntN(8)
		ns := randomNodes(r, nodeCount)
		pods := randomPods(r, nodeCount, r.IntN(16), genConfig{terminal: true, terminating: true})
		dsCopy, nsCopy, podsCopy := ds.DeepCopy(), deepNodes(ns), deepPods(pods)
		res, err := daemonset.Plan(ds, ns, pods, opts())
		require.NoError(t, err)
		// Mutating the plan's pods must not reach the inputs or the next plan either.
		for _, c := range res.Create {
			c.Pod.Labels["mutated"] = "yes"
			c.Pod.Spec.Containers[0].Image = "mutated"
		}
		requireUnmutated(t, dsCopy, ds, nsCopy, ns, podsCopy, pods)
	}
}

func TestPropertyExplainAgreesWithEligibility(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 4))
		p, _ := daemonset.Compile(randomDS(r), opts())
		for _, n := range randomNodes(r, 8) {
			e := p.Eligibility(n)
			x := p.Explain(n)
			require.Equal(t, e, x.Eligibility, "seed %d node %s", seed, n.Name)
			require.Equal(t, n.Name, x.Node)
			// ELIG-1: only three combinations occur.
			require.False(t, e.ShouldRun && !e.ShouldContinueRunning, "seed %d", seed)
			require.Equal(t, e.ShouldRun, e.Reason == "", "seed %d", seed)
			require.NotEmpty(t, x.String())
		}
	}
}

// TestPropertyDeletesAreClaimed checks DIFF-15 and OWN-14 on random snapshots: deletes target
// only claimed pods, never a released one, and no pod is deleted twice.
func TestPropertyDeletesAreClaimed(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		ds := randomDS(r)
		nodeCount := 1 + r.IntN(8)
		pods := randomPods(r, nodeCount, r.IntN(16), genConfig{terminal: true, terminating: true})
		res, err := daemonset.Plan(ds, randomNodes(r, nodeCount), pods, opts())
		require.NoError(t, err)
		released := map[string]bool{}
		for _, p := range res.Release {
			released[p.Name] = true
		}
		seen := map[string]bool{}
		for _, d := range res.Delete {
			require.False(t, released[d.Name], "seed %d: %s released and deleted", seed, d.Name)
			require.False(t, seen[d.Name], "seed %d: %s deleted twice", seed, d.Name)
			seen[d.Name] = true
			var found *v1.Pod
			for _, p := range pods {
				if p.Name == d.Name {
					found = p
				}
			}
			require.NotNil(t, found)
			ref := metav1.GetControllerOfNoCopy(found)
			owned := ref != nil && ref.UID == "uid-foo" && ref.Kind == "DaemonSet"
			require.True(t, owned || ref == nil, "seed %d: %s is not this DaemonSet's", seed, d.Name)
		}
	}
}

// TestPropertyPlanCluster checks that the cluster-wide plan does not depend on input order,
// and that a DaemonSet without conflicts gets exactly its single-DaemonSet plan (D-2).
func TestPropertyPlanCluster(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 6))
		nodeCount := 1 + r.IntN(6)
		var dss []*appsv1.DaemonSet
		for i := range 1 + r.IntN(3) {
			ds := randomDS(r)
			ds.Name = fmt.Sprintf("ds%d", i)
			ds.UID = "uid-foo" // pods of the generator are owned by uid-foo: only ds0 owns them
			if i > 0 {
				ds.UID = types.UID(fmt.Sprintf("uid-%d", i))
			}
			ds.CreationTimestamp = metav1.Unix(int64(r.IntN(3)), 0)
			dss = append(dss, ds)
		}
		s := daemonset.Snapshot{DaemonSets: dss, Nodes: randomNodes(r, nodeCount),
			Pods: randomPods(r, nodeCount, r.IntN(12), genConfig{terminal: true, terminating: true})}
		want, err := s.Plan(opts())
		require.NoError(t, err)

		shuffled := daemonset.Snapshot{DaemonSets: slices.Clone(dss), Nodes: slices.Clone(s.Nodes), Pods: slices.Clone(s.Pods)}
		r.Shuffle(len(shuffled.DaemonSets), func(i, j int) {
			shuffled.DaemonSets[i], shuffled.DaemonSets[j] = shuffled.DaemonSets[j], shuffled.DaemonSets[i]
		})
		r.Shuffle(len(shuffled.Pods), func(i, j int) { shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i] })
		got, err := shuffled.Plan(opts())
		require.NoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: cluster plan depends on input order (-want +got):\n%s", seed, diff)
		}

		adopted := map[string]string{}
		for _, res := range want.DaemonSets {
			for _, a := range res.Adopt {
				require.NotContains(t, adopted, a.Name, "seed %d: %s adopted twice", seed, a.Name)
				adopted[a.Name] = res.Name
			}
		}
		for _, res := range want.DaemonSets {
			if len(res.Conflicts) > 0 {
				continue
			}
			var ds *appsv1.DaemonSet
			for _, d := range dss {
				if d.Name == res.Name {
					ds = d
				}
			}
			single, err := daemonset.Plan(ds, s.Nodes, s.Pods, opts())
			require.NoError(t, err)
			if diff := cmp.Diff(single, res); diff != "" {
				t.Fatalf("seed %d: %s without conflicts differs from its own plan (-single +cluster):\n%s", seed, res.Name, diff)
			}
		}
	}
}

// TestPropertyConcurrentPlansOnOnePlanner checks that one Planner planning many snapshots at
// once (its working memory is pooled) gives each the plan it gives alone.
func TestPropertyConcurrentPlansOnOnePlanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 8))
	ds := randomDS(r)
	p, _ := daemonset.Compile(ds, opts())
	var snaps []daemonset.Snapshot
	var want []*daemonset.Result
	for range 16 {
		n := 1 + r.IntN(30)
		s := daemonset.Snapshot{Nodes: randomNodes(r, n), Pods: randomPods(r, n, r.IntN(40), genConfig{terminal: true, terminating: true})}
		snaps = append(snaps, s)
		want = append(want, p.Plan(s))
	}
	var wg sync.WaitGroup
	got := make([][]*daemonset.Result, 4)
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				got[w] = got[w][:0]
				for _, s := range snaps {
					got[w] = append(got[w], p.Plan(s))
				}
			}
		}()
	}
	wg.Wait()
	for w := range got {
		if diff := cmp.Diff(want, got[w]); diff != "" {
			t.Fatalf("worker %d: concurrent plans differ (-alone +concurrent):\n%s", w, diff)
		}
	}
}
