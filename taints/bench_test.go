package taints_test

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/daemonsched/daemonsched/taints"
)

// benchNodes are realistic node taint lists with 0 to 3 taints: a plain worker, a cordoned
// node, a control-plane node, a GPU node, a NotReady node and a node being drained.
var benchNodes = [][]v1.Taint{
	nil,
	{taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)},
	{taint("node-role.kubernetes.io/control-plane", "", v1.TaintEffectNoSchedule)},
	{taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule), taint("example.com/pool", "gpu", v1.TaintEffectPreferNoSchedule)},
	{taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule), taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoExecute)},
	{taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule), taint("example.com/drain", "now", v1.TaintEffectNoExecute), taint("dedicated", "db", v1.TaintEffectNoSchedule)},
}

// benchTolerations returns n realistic tolerations (3 to 9): the daemon defaults first, then
// user tolerations.
func benchTolerations(n int) []v1.Toleration {
	all := append(daemonDefaults(true),
		tol("node-role.kubernetes.io/control-plane", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
		tol("nvidia.com/gpu", v1.TolerationOpEqual, "present", v1.TaintEffectNoSchedule),
	)
	return all[:n]
}

// BenchmarkFirstUntolerated compares the compiled finder with component-helpers'
// FindMatchingUntoleratedTaint on the same inputs; each iteration evaluates all benchNodes.
func BenchmarkFirstUntolerated(b *testing.B) {
	for _, n := range []int{3, 6, 9} {
		tols := benchTolerations(n)
		b.Run(fmt.Sprintf("tolerations=%d/impl=taints", n), func(b *testing.B) {
			compiled := taints.Compile(tols, taints.Options{})
			b.ReportAllocs()
			for b.Loop() {
				for _, node := range benchNodes {
					sinkTaint, sinkBool = compiled.FirstUntolerated(node, taints.Placement)
				}
			}
		})
		b.Run(fmt.Sprintf("tolerations=%d/impl=upstream", n), func(b *testing.B) {
			filter := func(t *v1.Taint) bool {
				return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
			}
			logger := logr.Discard()
			b.ReportAllocs()
			for b.Loop() {
				for _, node := range benchNodes {
					sinkTaint, sinkBool = corev1helpers.FindMatchingUntoleratedTaint(logger, node, tols, filter, false)
				}
			}
		})
	}
}

// BenchmarkTolerates measures one taint against 9 tolerations including Gt, with the gate on, a
// case where upstream parses both values on every call.
func BenchmarkTolerates(b *testing.B) {
	tols := append(benchTolerations(8), tol("cpus", v1.TolerationOpGt, "8", v1.TaintEffectNoSchedule))
	cpus := taint("cpus", "16", v1.TaintEffectNoSchedule)
	b.Run("impl=taints", func(b *testing.B) {
		compiled := taints.Compile(tols, taints.Options{ComparisonOperators: true})
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = compiled.Tolerates(&cpus)
		}
	})
	b.Run("impl=upstream", func(b *testing.B) {
		logger := logr.Discard()
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = corev1helpers.TolerationsTolerateTaint(logger, tols, &cpus, true)
		}
	})
}

// BenchmarkUntolerated measures the DaemonSet controller's question (placement and eviction
// in one walk) on every benchNodes taint list against the 9 realistic tolerations.
func BenchmarkUntolerated(b *testing.B) {
	compiled := taints.Compile(benchTolerations(9), taints.Options{})
	b.ReportAllocs()
	sum := 0
	for b.Loop() {
		for _, node := range benchNodes {
			p, e := compiled.Untolerated(node)
			sum += p + e
		}
	}
	sinkInt = sum
}

var sinkInt int
