//go:build unix

package daemonset_test

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// The scale benchmarks of issue 6 run on the reference workload (internal/workload, seed 1):
// 200 varied DaemonSets and up to 100,000 nodes, generated once per test binary.
//
//	go test -run '^$' -bench 'Scale' -benchmem ./daemonset
//
// The Upstream benchmarks evaluate the same questions the way the v1.36 controller does per
// node (pkg/controller/daemon: NodeShouldRunDaemonPod): build the daemon pod with its default
// tolerations, then component-helpers nodeaffinity.GetRequiredNodeAffinity(pod).Match and
// FindMatchingUntoleratedTaint.

const scaleDaemonSets = 200

var scaleCache struct {
	sync.Mutex
	nodes map[int][]*v1.Node
	set   *daemonset.Set
}

// scaleNodes returns the first n reference nodes; every size shares one generated list.
func scaleNodes(n int) []*v1.Node {
	scaleCache.Lock()
	defer scaleCache.Unlock()
	if scaleCache.nodes == nil {
		scaleCache.nodes = map[int][]*v1.Node{}
	}
	all := scaleCache.nodes[0]
	if len(all) < n {
		all = workload.Nodes(1, max(n, 100_000))
		scaleCache.nodes[0] = all
	}
	return all[:n]
}

func scaleSet(b *testing.B) *daemonset.Set {
	scaleCache.Lock()
	defer scaleCache.Unlock()
	if scaleCache.set == nil {
		s, errs := daemonset.NewSet(workload.DaemonSets(1, scaleDaemonSets), setNow)
		if s == nil {
			b.Fatal(errs)
		}
		scaleCache.set = s
	}
	return scaleCache.set
}

// cpuClock measures the CPU time the process spends in a benchmark loop, reported as
// cpu-ns/op next to the wall-clock ns/op: on a shared machine the wall clock also counts the
// time other processes hold the cores, the CPU time does not. It includes the garbage
// collector's work, which is part of the cost.
type cpuClock struct{ start int64 }

func cpuNow() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func startCPU(b *testing.B) *cpuClock {
	runtime.GC() // finish the setup's garbage collection before the clock starts
	b.ResetTimer()
	return &cpuClock{start: cpuNow()}
}

// report adds cpu-ns/op, and cpu-ns/node when perNode > 0.
func (c *cpuClock) report(b *testing.B, perNode int) {
	ns := float64(cpuNow()-c.start) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	if perNode > 0 {
		b.ReportMetric(ns/float64(perNode), "cpu-ns/node")
	}
}

var (
	scaleSinkBool bool
	scaleSinkInt  int
)

// upstreamNewPod builds the pod the controller evaluates for one node: the template spec,
// the node name, and the default tolerations merged per DEFTOL-2.
func upstreamNewPod(ds *appsv1.DaemonSet, nodeName string) *v1.Pod {
	pod := &v1.Pod{Spec: ds.Spec.Template.Spec, ObjectMeta: ds.Spec.Template.ObjectMeta}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	tols := append([]v1.Toleration(nil), ds.Spec.Template.Spec.Tolerations...)
	for _, d := range daemonDefaults(pod.Spec.HostNetwork) {
		found := false
		for i := range tols {
			if tols[i].MatchToleration(&d) {
				tols[i] = d
				found = true
			}
		}
		if !found {
			tols = append(tols, d)
		}
	}
	pod.Spec.Tolerations = tols
	return pod
}

// upstreamShouldRun is NodeShouldRunDaemonPod through the upstream helpers.
func upstreamShouldRun(logger klog.Logger, ds *appsv1.DaemonSet, node *v1.Node) (shouldRun, shouldContinueRunning bool) {
	pod := upstreamNewPod(ds, node.Name)
	if tpl := ds.Spec.Template.Spec.NodeName; tpl != "" && tpl != node.Name {
		return false, false
	}
	fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	if !fits {
		return false, false
	}
	if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute || t.Effect == v1.TaintEffectNoSchedule
	}, false); !untolerated {
		return true, true
	}
	_, evicted := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	}, false)
	return false, !evicted
}

// BenchmarkScaleEligibility: one DaemonSet (the reference one) on one node, through the
// compiled Planner; the target is 0 allocations and at most 40 ns. "nodes=1000" cycles through
// 1,000 reference nodes, so that each call meets another label map, as in a real pass;
// "nodes=1" asks about one node again and again, with its labels in the CPU cache.
func BenchmarkScaleEligibility(b *testing.B) {
	p, _ := daemonset.Compile(workload.ReferenceDaemonSet(), setNow)
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := scaleNodes(n)
			b.ReportAllocs()
			// The loop costs a compare and an add per call: no division to wrap k and no copy
			// of the whole Eligibility to a global, which would be measured with it.
			k, run := 0, 0
			clock := startCPU(b)
			for b.Loop() {
				if p.Eligibility(nodes[k]).ShouldRun {
					run++
				}
				if k++; k == len(nodes) {
					k = 0
				}
			}
			clock.report(b, 0)
			scaleSinkInt = run
		})
	}
}

// BenchmarkScaleEligibilityUpstream is the baseline of BenchmarkScaleEligibility.
func BenchmarkScaleEligibilityUpstream(b *testing.B) {
	ds := workload.ReferenceDaemonSet()
	nodes := scaleNodes(1000)
	logger := klog.Background()
	b.ReportAllocs()
	k := 0
	clock := startCPU(b)
	for b.Loop() {
		scaleSinkBool, _ = upstreamShouldRun(logger, ds, nodes[k%len(nodes)])
		k++
	}
	clock.report(b, 0)
}

// BenchmarkScaleDecide: every decision of 200 DaemonSets on every node, one goroutine; the
// target is under 1 s at 100,000 nodes.
func BenchmarkScaleDecide(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, nodes := scaleSet(b), scaleNodes(n)
			b.ReportAllocs()
			clock := startCPU(b)
			for b.Loop() {
				d, _ := s.Decide(nodes, daemonset.DecideOptions{})
				scaleSinkInt = d.Rows()
			}
			clock.report(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkScaleDecideParallel is BenchmarkScaleDecide on GOMAXPROCS goroutines.
func BenchmarkScaleDecideParallel(b *testing.B) {
	for _, n := range []int{100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, nodes := scaleSet(b), scaleNodes(n)
			b.ReportAllocs()
			clock := startCPU(b)
			for b.Loop() {
				d, _ := s.Decide(nodes, daemonset.DecideOptions{Workers: runtime.GOMAXPROCS(0)})
				scaleSinkInt = d.Rows()
			}
			clock.report(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkScaleDecideUpstream is the baseline of BenchmarkScaleDecide, at 200 nodes only (it
// is about three orders of magnitude slower per node); compare the ns/node figures.
func BenchmarkScaleDecideUpstream(b *testing.B) {
	for _, n := range []int{200} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			dss, nodes := workload.DaemonSets(1, scaleDaemonSets), scaleNodes(n)
			logger := klog.Background()
			b.ReportAllocs()
			clock := startCPU(b)
			for b.Loop() {
				run := 0
				for _, node := range nodes {
					for _, ds := range dss {
						if ok, _ := upstreamShouldRun(logger, ds, node); ok {
							run++
						}
					}
				}
				scaleSinkInt = run
			}
			clock.report(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkScaleNode: the node-centric what-if for 200 DaemonSets (decisions, request totals,
// host ports) with a reused NodeDecision; the target is under 5 µs and 0 allocations. The
// hypothetical case strips the node names, as an autoscaler's template nodes have none.
func BenchmarkScaleNode(b *testing.B) {
	s := scaleSet(b)
	named := scaleNodes(10_000)
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
			var nd daemonset.NodeDecision
			b.ReportAllocs()
			k := 0
			clock := startCPU(b)
			for b.Loop() {
				s.Node(tc.nodes[k%len(tc.nodes)], &nd)
				k++
			}
			clock.report(b, 0)
			scaleSinkInt = len(nd.ShouldRun())
		})
	}
}

// BenchmarkScaleNodeUpstream is the baseline of BenchmarkScaleNode: 200 upstream decisions
// for one node (without the request sums).
func BenchmarkScaleNodeUpstream(b *testing.B) {
	dss, nodes := workload.DaemonSets(1, scaleDaemonSets), scaleNodes(10_000)
	logger := klog.Background()
	b.ReportAllocs()
	k := 0
	clock := startCPU(b)
	for b.Loop() {
		node := nodes[k%len(nodes)]
		run := 0
		for _, ds := range dss {
			if ok, _ := upstreamShouldRun(logger, ds, node); ok {
				run++
			}
		}
		scaleSinkInt = run
		k++
	}
	clock.report(b, 0)
}

// BenchmarkScaleUpdateNode: one node of a 100,000-node matrix changes. "unchanged" flips a
// label no DaemonSet reads and spec.unschedulable (no decision changes: the target is 0
// allocations, under 5 µs); "changed" adds and removes an untolerated NoSchedule taint.
func BenchmarkScaleUpdateNode(b *testing.B) {
	s, nodes := scaleSet(b), scaleNodes(100_000)
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
			d, _ := s.Decide(nodes, daemonset.DecideOptions{Workers: runtime.GOMAXPROCS(0)})
			changes := d.UpdateNode(tc.variants[0], nil)
			b.ReportAllocs()
			k, total := 0, 0
			clock := startCPU(b)
			for b.Loop() {
				changes = d.UpdateNode(tc.variants[k%2], changes[:0])
				total += len(changes)
				k++
			}
			clock.report(b, 0)
			b.ReportMetric(float64(total)/float64(b.N), "changes/op")
		})
	}
}

// BenchmarkScaleUpdateDaemonSet: one DaemonSet's column of a 100,000-node matrix is
// re-decided after its tolerations change.
func BenchmarkScaleUpdateDaemonSet(b *testing.B) {
	s, nodes := scaleSet(b), scaleNodes(100_000)
	d, _ := s.Decide(nodes, daemonset.DecideOptions{Workers: runtime.GOMAXPROCS(0)})
	ds := s.Planner(0).DaemonSet()
	variants := [2]*appsv1.DaemonSet{ds.DeepCopy(), ds.DeepCopy()}
	variants[1].Spec.Template.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	var changes []daemonset.Change
	b.ReportAllocs()
	k := 0
	clock := startCPU(b)
	for b.Loop() {
		changes, _ = d.UpdateDaemonSet(variants[k%2], changes[:0])
		k++
	}
	clock.report(b, 0)
	scaleSinkInt = len(changes)
}
