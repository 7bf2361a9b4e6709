package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/rollout"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// BenchmarkSimulateRollingUpdate simulates a template change rolling out to completion over n
// nodes under maxUnavailable 10%, start-up 20 to 40 s (the target workload).
func BenchmarkSimulateRollingUpdate(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			if testing.Short() && n > 1_000 {
				b.Skip("large")
			}
			s := settled(b, agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:1", 0), n)
			next := agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:2", 0)
			b.ReportAllocs()
			b.ResetTimer()
			syncs := 0
			cpu0, _ := scalebench.CPUTime()
			for b.Loop() {
				traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Seed: 1,
					Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: 20 * time.Second, Max: 40 * time.Second}}})
				if err != nil || !traj.Quiescent {
					b.Fatal(err)
				}
				syncs = len(traj.Steps)
			}
			b.ReportMetric(float64(syncs), "syncs")
			// CPU time is steadier than wall time on a shared machine.
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkSimulateSyncs runs the first k syncs of the 10,000-node rollout above: the cost of
// a run is a fixed part (copying the snapshot into the simulation, the first whole-snapshot
// plan that builds the incremental state) plus a part that grows with the syncs.
func BenchmarkSimulateSyncs(b *testing.B) {
	s := settled(b, agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:1", 0), 10_000)
	next := agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:2", 0)
	for _, k := range []int{1, 1_000, 4_000, 16_000} {
		b.Run(fmt.Sprintf("syncs=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			cpu0, _ := scalebench.CPUTime()
			for b.Loop() {
				traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Seed: 1, MaxSyncs: k,
					Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: 20 * time.Second, Max: 40 * time.Second}}})
				if err != nil || len(traj.Steps) != k {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkProgress judges a converged rollout (the Complete fast path) and one mid-way.
func BenchmarkProgress(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := settled(b, agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:1", 0), n)
		ds := s.DaemonSets[0]
		b.Run(fmt.Sprintf("complete/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0, _ := scalebench.CPUTime()
			for b.Loop() {
				r, err := rollout.Progress(s, ds, rollout.ProgressOptions{Now: t0})
				if err != nil || r.State != rollout.StateComplete {
					b.Fatal(err, r.State)
				}
			}
			reportCPU(b, cpu0)
		})
		next := agent(intstr.FromString("10%"), intstr.FromInt32(0), "agent:2", 0)
		b.Run(fmt.Sprintf("progressing/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0, _ := scalebench.CPUTime()
			for b.Loop() {
				r, err := rollout.Progress(daemonset.Snapshot{Nodes: s.Nodes, Pods: s.Pods}, next, rollout.ProgressOptions{Now: t0})
				if err != nil || r.State != rollout.StateProgressing {
					b.Fatal(err, r.State)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU reports the CPU time per op since cpu0 (scalebench.CPUTime), where the platform tells it.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if now, ok := scalebench.CPUTime(); ok {
		b.ReportMetric(float64(now-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
