package fleet_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// The scale benchmarks of issue 6 for many DaemonSets run on the reference workload
// (internal/workload, seed 1): 200 varied DaemonSets and up to 100,000 nodes, generated once
// per test binary.
//
//	go test -run '^$' -bench 'Scale' -benchmem ./fleet
//
// The Upstream benchmarks evaluate the same questions the way the v1.36 controller does per
// node (scalebench.UpstreamShouldRun).

var scaleSets struct {
	sync.Mutex
	byWorkers map[int]*fleet.Set
}

// scaleSet returns the Set of the reference DaemonSets compiled with Options.Workers workers,
// one per test binary and workers.
func scaleSet(b *testing.B, workers int) *fleet.Set {
	scaleSets.Lock()
	defer scaleSets.Unlock()
	if s := scaleSets.byWorkers[workers]; s != nil {
		return s
	}
	opts := setNow
	opts.Workers = workers
	s, errs := fleet.Compile(workload.DaemonSets(1, scalebench.DaemonSets), opts)
	if s == nil {
		b.Fatal(errs)
	}
	if scaleSets.byWorkers == nil {
		scaleSets.byWorkers = map[int]*fleet.Set{}
	}
	scaleSets.byWorkers[workers] = s
	return s
}

var scaleSinkInt int

// BenchmarkScaleDecide: every decision of 200 DaemonSets on every node, one goroutine; the
// target is under 1 s at 100,000 nodes.
func BenchmarkScaleDecide(b *testing.B) { benchmarkDecide(b, 0, 1000, 10_000, 100_000) }

// BenchmarkScaleDecideParallel is BenchmarkScaleDecide with Options.Workers GOMAXPROCS.
func BenchmarkScaleDecideParallel(b *testing.B) {
	benchmarkDecide(b, runtime.GOMAXPROCS(0), 100_000)
}

// benchmarkDecide runs Set.Decide with Options.Workers workers on each number of nodes.
func benchmarkDecide(b *testing.B, workers int, sizes ...int) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, nodes := scaleSet(b, workers), scalebench.Nodes(n)
			b.ReportAllocs()
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				d, _ := s.Decide(nodes)
				scaleSinkInt = d.Rows()
			}
			clock.Report(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkScaleDecideUpstream is the baseline of BenchmarkScaleDecide, at 200 nodes only (it
// is about three orders of magnitude slower per node); compare the ns/node figures.
func BenchmarkScaleDecideUpstream(b *testing.B) {
	for _, n := range []int{200} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			dss, nodes := workload.DaemonSets(1, scalebench.DaemonSets), scalebench.Nodes(n)
			logger := klog.Background()
			b.ReportAllocs()
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				run := 0
				for _, node := range nodes {
					for _, ds := range dss {
						if ok, _ := scalebench.UpstreamShouldRun(logger, ds, node); ok {
							run++
						}
					}
				}
				scaleSinkInt = run
			}
			clock.Report(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkScaleNode: the node-centric what-if for 200 DaemonSets (decisions, request totals,
// host ports) with a reused NodeDecision; the target is under 5 µs and 0 allocations. The
// hypothetical case strips the node names, as an autoscaler's template nodes have none.
func BenchmarkScaleNode(b *testing.B) {
	s := scaleSet(b, 0)
	named := scalebench.Nodes(10_000)
	unnamed := make([]*v1.Node, len(named))
	for i, n := range named {
		c := *n
		c.Name = ""
		unnamed[i] = &c
	}
	for _, tc := range []struct {
		name  string
		nodes []*v1.Node
	}{{"named", named}, {"hypothetical", unnamed}} {
		b.Run(tc.name, func(b *testing.B) {
			var nd fleet.NodeDecision
			b.ReportAllocs()
			k := 0
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				s.DecideNode(tc.nodes[k%len(tc.nodes)], &nd)
				k++
			}
			clock.Report(b, 0)
			scaleSinkInt = len(nd.ShouldRun())
		})
	}
}

// BenchmarkScaleNodeUpstream is the baseline of BenchmarkScaleNode: 200 upstream decisions
// for one node (without the request sums).
func BenchmarkScaleNodeUpstream(b *testing.B) {
	dss, nodes := workload.DaemonSets(1, scalebench.DaemonSets), scalebench.Nodes(10_000)
	logger := klog.Background()
	b.ReportAllocs()
	k := 0
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		node := nodes[k%len(nodes)]
		run := 0
		for _, ds := range dss {
			if ok, _ := scalebench.UpstreamShouldRun(logger, ds, node); ok {
				run++
			}
		}
		scaleSinkInt = run
		k++
	}
	clock.Report(b, 0)
}

// BenchmarkScaleUpdateNode: one node of a 100,000-node matrix changes. "unchanged" flips a
// label no DaemonSet reads and spec.unschedulable (no decision changes: the target is 0
// allocations, under 5 µs); "changed" adds and removes an untolerated NoSchedule taint.
func BenchmarkScaleUpdateNode(b *testing.B) {
	s, nodes := scaleSet(b, runtime.GOMAXPROCS(0)), scalebench.Nodes(100_000)
	base := nodes[4242]
	quiet := [2]*v1.Node{base.DeepCopy(), base.DeepCopy()}
	quiet[1].Labels["example.com/unreferenced"] = "x"
	quiet[1].Spec.Unschedulable = true
	loud := [2]*v1.Node{base.DeepCopy(), base.DeepCopy()}
	loud[1].Spec.Taints = append(loud[1].Spec.Taints, v1.Taint{Key: "example.com/new", Effect: v1.TaintEffectNoSchedule})
	for _, tc := range []struct {
		name     string
		variants [2]*v1.Node
	}{{"unchanged", quiet}, {"changed", loud}} {
		b.Run(tc.name, func(b *testing.B) {
			d, _ := s.Decide(nodes)
			changes := d.UpdateNode(tc.variants[0], nil)
			b.ReportAllocs()
			k, total := 0, 0
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				changes = d.UpdateNode(tc.variants[k%2], changes[:0])
				total += len(changes)
				k++
			}
			clock.Report(b, 0)
			b.ReportMetric(float64(total)/float64(b.N), "changes/op")
		})
	}
}

// BenchmarkScaleUpdateDaemonSet: one DaemonSet's column of a 100,000-node matrix is
// re-decided after its tolerations change.
func BenchmarkScaleUpdateDaemonSet(b *testing.B) {
	s, nodes := scaleSet(b, runtime.GOMAXPROCS(0)), scalebench.Nodes(100_000)
	d, _ := s.Decide(nodes)
	ds := s.Planner(0).DaemonSet()
	variants := [2]*appsv1.DaemonSet{ds.DeepCopy(), ds.DeepCopy()}
	variants[1].Spec.Template.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	var changes []fleet.Change
	b.ReportAllocs()
	k := 0
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		changes, _ = d.UpdateDaemonSet(variants[k%2], changes[:0])
		k++
	}
	clock.Report(b, 0)
	scaleSinkInt = len(changes)
}
