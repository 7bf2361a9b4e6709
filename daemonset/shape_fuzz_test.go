package daemonset_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/google/go-cmp/cmp"
)

// shapeSeeds are the fuzz seeds of the structured targets; testdata/fuzz keeps what the fuzzer
// found interesting.
var shapeSeeds = [][]byte{
	nil,
	[]byte("0123456789abcdef0123456789abcdef"),
	{255, 254, 253, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	[]byte("\x00\x00\x00\x09\x13\x2a\x03\x41\x99\x07\x33\x12\x55\x66\x77\x88\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"),
}

// planBytes is a plan as the oracle contract writes it.
func planBytes(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// bounded fails t when f takes longer than shapefuzz.Bound.
func bounded(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > shapefuzz.Bound {
		t.Fatalf("%s took %v", what, d)
	}
}

// FuzzPlanShaped plans each DaemonSet of a cluster shaped from the fuzzer's bytes (names,
// labels, selectors, affinities, taints, tolerations, owners, phases, strategies drawn by
// randfill): no panic, no input modified, the same bytes with every list shuffled and on
// several goroutines, Explain agreeing with Eligibility, and each plan within a time bound.
func FuzzPlanShaped(f *testing.F) {
	fuzzShaped(f, func(t *testing.T, c shapefuzz.Cluster, data []byte) {
		shuffled := c.Shuffled(uint64(len(data)))
		opts := daemonset.Options{Version: v1363, Now: shapefuzz.Base, BurstLimit: len(data) % 3}
		for _, ds := range c.DaemonSets {
			var res *daemonset.Result
			var err error
			bounded(t, "Plan", func() { res, err = daemonset.Plan(ds, c.Nodes, c.Pods, opts) })
			if err != nil {
				t.Fatalf("Plan: %v", err) // the drawn snapshots hold no duplicate and no nil
			}
			p, _ := daemonset.Compile(ds, opts)
			again := p.Plan(daemonset.Snapshot{Nodes: shuffled.Nodes, Pods: shuffled.Pods, Revisions: shuffled.Revisions})
			o := opts
			o.Workers = 3
			p3, _ := daemonset.Compile(ds, o)
			parallel := p3.Plan(daemonset.Snapshot{Nodes: c.Nodes, Pods: c.Pods})
			if a, b := planBytes(t, res), planBytes(t, parallel); a != b {
				t.Fatalf("plan differs on 3 goroutines:\n%s\n%s", a, b)
			}
			withRevs := p.Plan(daemonset.Snapshot{Nodes: c.Nodes, Pods: c.Pods, Revisions: c.Revisions})
			if a, b := planBytes(t, withRevs), planBytes(t, again); a != b {
				t.Fatalf("plan depends on input order:\n%s\n%s", a, b)
			}
			for _, node := range c.Nodes {
				if e, x := p.Eligibility(node), p.Explain(node); e != x.Eligibility {
					t.Fatalf("Explain(%q) = %+v, Eligibility = %+v", node.Name, x.Eligibility, e)
				}
				_ = p.Explain(node).String()
			}
		}
	})
}

// fuzzShaped runs check on the cluster shaped from each fuzz input, then requires that the
// cluster was not modified.
func fuzzShaped(f *testing.F, check func(t *testing.T, c shapefuzz.Cluster, data []byte)) {
	for _, s := range shapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := shapefuzz.New(data)
		before := c.DeepCopy()
		check(t, c, data)
		if diff := cmp.Diff(before, c); diff != "" {
			t.Fatalf("input modified (-before +after):\n%s", diff)
		}
	})
}

// FuzzPlanClusterShaped plans every DaemonSet of a shaped cluster at once (D-2 conflicts
// included): no panic, no input modified, the same bytes with every list shuffled and on
// several goroutines, within a time bound.
func FuzzPlanClusterShaped(f *testing.F) {
	fuzzShaped(f, func(t *testing.T, c shapefuzz.Cluster, data []byte) {
		snap := daemonset.Snapshot(c)
		opts := daemonset.Options{Version: v1363, Now: shapefuzz.Base}
		var res *daemonset.ClusterResult
		var err error
		bounded(t, "Snapshot.Plan", func() { res, err = snap.Plan(opts) })
		if err != nil {
			t.Fatalf("Snapshot.Plan: %v", err)
		}
		opts.Workers = 3
		again, err := daemonset.Snapshot(c.Shuffled(uint64(len(data)))).Plan(opts)
		if err != nil {
			t.Fatalf("Snapshot.Plan, shuffled: %v", err)
		}
		if a, b := planBytes(t, res), planBytes(t, again); a != b {
			t.Fatalf("cluster plan depends on input order or goroutines:\n%s\n%s", a, b)
		}
	})
}
