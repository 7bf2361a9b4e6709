package daemonset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonsched/daemonsched/daemonset"
)

// FuzzBackoff plans random snapshots with random back-off states, bad entries included
// (negative, zero and huge delays, zero and future times, other DaemonSets and generations,
// absent nodes, duplicates), and checks: no panic, nothing mutated, Result.Backoff holds only
// the DaemonSet's live entries, sorted and one per key, a Failed pod deleted on a node renews
// its entry at Now, a held node deletes no Failed pod and RequeueAfter is positive then, and
// UpdateBackoff returns live, sorted, unique entries without touching its inputs (DIFF-12,
// SYNC-8).
func FuzzBackoff(f *testing.F) {
	f.Add(uint64(1), uint8(4), uint8(8), uint8(6))
	f.Add(uint64(99), uint8(1), uint8(3), uint8(0))
	f.Add(uint64(1<<33), uint8(7), uint8(20), uint8(30))
	f.Fuzz(func(t *testing.T, seed uint64, nodeCount, podCount, entryCount uint8) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + int(nodeCount%8)
		ds := randomDS(r)
		ns := randomNodes(r, n)
		pods := randomPods(r, n, int(podCount%20), genConfig{terminal: true, terminating: true})
		now := time.Unix(100000, 0).UTC()
		entries := make([]daemonset.BackoffEntry, int(entryCount%40))
		delays := []time.Duration{-time.Second, 0, time.Second, 8 * time.Second, 15 * time.Minute, time.Hour, 1<<63 - 1, -1 << 63}
		for i := range entries {
			e := daemonset.BackoffEntry{DaemonSetUID: ds.UID, Generation: ds.Status.ObservedGeneration,
				Node: fmt.Sprintf("n%02d", r.IntN(n+2)), Delay: metav1.Duration{Duration: delays[r.IntN(len(delays))]},
				Last: metav1.NewTime(now.Add(time.Duration(r.Int64N(int64(2*time.Hour))) - 100*time.Minute))}
			switch r.IntN(6) {
			case 0:
				e.DaemonSetUID = types.UID("other")
			case 1:
				e.Generation++
			case 2:
				e.Last = metav1.Time{}
			}
			entries[i] = e
		}
		in := slices.Clone(entries)
		dsCopy, nsCopy, podsCopy := ds.DeepCopy(), deepNodes(ns), deepPods(pods)
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now, Backoff: entries})
		res := p.Plan(daemonset.Snapshot{Nodes: ns, Pods: pods})
		requireUnmutated(t, dsCopy, ds, nsCopy, ns, podsCopy, pods)
		if d := cmp.Diff(in, entries); d != "" {
			t.Fatalf("Options.Backoff mutated:\n%s", d)
		}
		checkLiveSorted(t, res.Backoff, now)
		for _, e := range res.Backoff {
			if e.DaemonSetUID != ds.UID {
				t.Fatalf("an entry of another DaemonSet in Result.Backoff: %+v", e)
			}
		}
		renewedAt := map[string]bool{}
		for _, e := range res.Backoff {
			if e.Last.Time.Equal(now) && e.Generation == ds.Status.ObservedGeneration {
				renewedAt[e.Node] = true
			}
		}
		for _, d := range res.Delete {
			if d.Reason == daemonset.ReasonFailedPod && !renewedAt[d.Node] {
				t.Fatalf("Failed pod %s deleted on %s without renewing its back-off: %+v", d.Name, d.Node, res.Backoff)
			}
		}
		if res.RequeueAfter.Duration < 0 {
			t.Fatalf("negative requeue %v", res.RequeueAfter)
		}
		state := slices.Clone(entries)
		resCopy := slices.Clone(res.Backoff)
		for _, at := range []time.Time{now, now.Add(time.Hour)} {
			out := daemonset.UpdateBackoff(state, res, at)
			checkLiveSorted(t, out, at)
			if d := cmp.Diff(in, state); d != "" {
				t.Fatalf("UpdateBackoff mutated its state:\n%s", d)
			}
			if d := cmp.Diff(resCopy, res.Backoff); d != "" {
				t.Fatalf("UpdateBackoff mutated the result:\n%s", d)
			}
		}
	})
}

// checkLiveSorted fails unless entries are usable, unexpired at now, sorted and one per key.
func checkLiveSorted(t *testing.T, entries []daemonset.BackoffEntry, now time.Time) {
	t.Helper()
	for i, e := range entries {
		if e.Delay.Duration <= 0 || e.Last.IsZero() || now.Sub(e.Last.Time) > 2*15*time.Minute {
			t.Fatalf("entry %d not live at %v: %+v", i, now, e)
		}
		if i == 0 {
			continue
		}
		a := entries[i-1]
		if a.DaemonSetUID > e.DaemonSetUID || a.DaemonSetUID == e.DaemonSetUID && (a.Generation > e.Generation ||
			a.Generation == e.Generation && a.Node >= e.Node) {
			t.Fatalf("entries %d and %d out of order or of one key: %+v %+v", i-1, i, a, e)
		}
	}
}
