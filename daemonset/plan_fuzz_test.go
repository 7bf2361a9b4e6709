package daemonset_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
)

// FuzzPlan drives the random snapshot generators of property_test.go from fuzzed seeds and
// checks, on each snapshot: no panic, no input mutated, the plan independent of input order,
// Explain agreeing with Eligibility, and deletes only of claimed, unreleased pods (DIFF-15).
func FuzzPlan(f *testing.F) {
	f.Add(uint64(0), uint8(3), uint8(5), int64(1000), uint8(0))     // small cluster, uncapped
	f.Add(uint64(7), uint8(1), uint8(0), int64(0), uint8(1))        // one node, no pods, cap 1
	f.Add(uint64(42), uint8(8), uint8(16), int64(1100), uint8(2))   // crowded nodes, cap 2
	f.Add(uint64(1<<40), uint8(6), uint8(12), int64(105), uint8(0)) // minReadySeconds boundary times
	f.Fuzz(func(t *testing.T, seed uint64, nodeCount, podCount uint8, now int64, burst uint8) {
		r := rand.New(rand.NewPCG(seed, 99))
		n := 1 + int(nodeCount%10)
		ds := randomDS(r)
		ns := randomNodes(r, n)
		pods := randomPods(r, n, int(podCount%24), genConfig{terminal: true, terminating: true})
		o := daemonset.Options{Version: v1363, Now: time.Unix(1+now%100000, 0), BurstLimit: int(burst % 4)}
		dsCopy, nsCopy, podsCopy := ds.DeepCopy(), deepNodes(ns), deepPods(pods)

		p, _ := daemonset.Compile(ds, o)
		got := p.Plan(daemonset.Snapshot{Nodes: ns, Pods: pods})
		requireUnmutated(t, dsCopy, ds, nsCopy, ns, podsCopy, pods)

		ns2, pods2 := shuffled(r, ns), shuffled(r, pods)
		if diff := cmp.Diff(got, p.Plan(daemonset.Snapshot{Nodes: ns2, Pods: pods2})); diff != "" {
			t.Fatalf("plan depends on input order (-first +shuffled):\n%s", diff)
		}
		for _, node := range ns {
			if e, x := p.Eligibility(node), p.Explain(node); e != x.Eligibility {
				t.Fatalf("Explain(%s) = %+v, Eligibility = %+v", node.Name, x.Eligibility, e)
			}
		}
		released := map[string]bool{}
		for _, rel := range got.Release {
			released[rel.Name] = true
		}
		for _, d := range got.Delete {
			if released[d.Name] {
				t.Fatalf("%s is both released and deleted", d.Name)
			}
		}
	})
}
