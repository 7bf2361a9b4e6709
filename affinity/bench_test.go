package affinity_test

import (
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/daemonsched/daemonsched/affinity"
)

// benchNodes returns n realistic nodes across three zones and varied cpu counts, so that
// every part of the compiled placement gets exercised.
func benchNodes(n int) []*v1.Node {
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	cpus := []string{"2", "8", "16", "064"}
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		nodes[i] = realisticNode("ip-10-0-0-"+strconv.Itoa(i), zones[i%len(zones)], cpus[i%len(cpus)])
	}
	return nodes
}

// BenchmarkMatches compares the compiled placement with component-helpers doing the same job
// per node: GetRequiredNodeAffinity(pod).Match(node) rebuilt per node as the v1.36 DaemonSet
// controller does (pkg/controller/daemon: predicates), RequiredNodeAffinity built once, and
// nodeaffinity.NewNodeSelector built once (required terms only, no node selector). One op is
// one node.
func BenchmarkMatches(b *testing.B) {
	spec := realisticSpec()
	pod := &v1.Pod{Spec: *spec}
	for _, n := range []int{1, 1000, 100000} {
		nodes := benchNodes(n)
		name := "nodes=" + strconv.Itoa(n)
		b.Run(name+"/impl=compiled", func(b *testing.B) {
			r := affinity.Compile(spec, nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkBool = r.Matches(nodes[i])
				if i++; i == len(nodes) {
					i = 0
				}
			}
		})
		b.Run(name+"/impl=upstream-per-node", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkBool, _ = nodeaffinity.GetRequiredNodeAffinity(pod).Match(nodes[i])
				if i++; i == len(nodes) {
					i = 0
				}
			}
		})
		b.Run(name+"/impl=upstream-required-precompiled", func(b *testing.B) {
			ra := nodeaffinity.GetRequiredNodeAffinity(pod)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkBool, _ = ra.Match(nodes[i])
				if i++; i == len(nodes) {
					i = 0
				}
			}
		})
		b.Run(name+"/impl=upstream-nodeselector-precompiled", func(b *testing.B) {
			ns, err := nodeaffinity.NewNodeSelector(spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkBool = ns.Match(nodes[i])
				if i++; i == len(nodes) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkCompile measures the one-time cost of compiling the realistic placement.
func BenchmarkCompile(b *testing.B) {
	spec := realisticSpec()
	b.ReportAllocs()
	for b.Loop() {
		sinkRequired = affinity.Compile(spec, nil)
	}
}
