package conformance

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/scalebench"
)

// BenchmarkVerifyLarge reads and checks a large valid candidate, as daemonsched verify does:
// a new DaemonSet on 100,000 nodes with no burst cap, whose plan creates a daemon pod on every
// node (issue 25: a valid 177 MB candidate took about 60 s). read is ReadPlan alone, check is
// Check alone on the candidate read, verify both.
//
//	GOMAXPROCS=1 go test -run '^$' -bench VerifyLarge -benchtime 2x ./conformance
func BenchmarkVerifyLarge(b *testing.B) {
	s := freshCluster(100_000)
	// No burst cap: the zero BurstLimit is the controller's 250 (D-18), which would make the
	// candidate 250 creates.
	opts := Options{Now: epoch.Add(time.Hour), BurstLimit: daemonset.NoBurstLimit}
	plan, err := s.Plan(opts.planOptions())
	if err != nil {
		b.Fatal(err)
	}
	data, err := json.Marshal(struct {
		DaemonSets []*daemonset.Result `json:"daemonSets"`
	}{plan.DaemonSets})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("candidate: %d MB, %d creates", len(data)>>20, len(plan.DaemonSets[0].Create))
	if n := len(plan.DaemonSets[0].Create); n != 100_000 {
		b.Fatalf("the candidate creates %d pods, want 100,000", n)
	}
	read := func() Candidate {
		c, err := ReadPlan(bytes.NewReader(data), PlanLimits{})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	check := func(c Candidate) {
		ms, err := Check(s, c.DaemonSets, opts)
		if err != nil || len(ms) > 0 {
			b.Fatal(err, ms)
		}
	}
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		clock := scalebench.StartCPU(b)
		for b.Loop() {
			read()
		}
		clock.Report(b, 0)
	})
	c := read()
	b.Run("check", func(b *testing.B) {
		clock := scalebench.StartCPU(b)
		for b.Loop() {
			check(c)
		}
		clock.Report(b, 0)
	})
}
