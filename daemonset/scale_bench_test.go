package daemonset_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// The scale benchmarks of issue 6 for one DaemonSet run on the reference workload
// (internal/workload, seed 1); those of many DaemonSets (the Set) are in package fleet.
//
//	go test -run '^$' -bench 'Scale' -benchmem ./daemonset ./fleet
//
// The Upstream benchmark evaluates the same question the way the v1.36 controller does per
// node (scalebench.UpstreamShouldRun).

// setNow is the options of the reference-workload benchmarks here and in eligibility_test.go
// (the name is the one the fleet package's tests use for the same options).
var setNow = daemonset.Options{Version: v1363, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}

var (
	scaleSinkBool bool
	scaleSinkInt  int
)

// BenchmarkScaleEligibility: one DaemonSet (the reference one) on one node, through the
// compiled Planner; the target is 0 allocations and at most 40 ns. "nodes=1000" cycles through
// 1,000 reference nodes, so that each call meets another label map, as in a real pass;
// "nodes=1" asks about one node again and again, with its labels in the CPU cache.
func BenchmarkScaleEligibility(b *testing.B) {
	p, _ := daemonset.Compile(workload.ReferenceDaemonSet(), setNow)
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := scalebench.Nodes(n)
			b.ReportAllocs()
			// The loop costs a compare and an add per call: no division to wrap k and no copy
			// of the whole Eligibility to a global, which would be measured with it.
			k, run := 0, 0
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				if p.Eligibility(nodes[k]).ShouldRun {
					run++
				}
				if k++; k == len(nodes) {
					k = 0
				}
			}
			clock.Report(b, 0)
			scaleSinkInt = run
		})
	}
}

// BenchmarkScaleEligibilityUpstream is the baseline of BenchmarkScaleEligibility.
func BenchmarkScaleEligibilityUpstream(b *testing.B) {
	ds := workload.ReferenceDaemonSet()
	nodes := scalebench.Nodes(1000)
	logger := klog.Background()
	b.ReportAllocs()
	k := 0
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		scaleSinkBool, _ = scalebench.UpstreamShouldRun(logger, ds, nodes[k%len(nodes)])
		k++
	}
	clock.Report(b, 0)
}
