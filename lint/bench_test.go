package lint_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/lint"
)

// benchCluster is n nodes with allocatable, one in a hundred NotReady and one in fifty tainted,
// ten pods on each, and three DaemonSets that every rule reads.
func benchCluster(n int) daemonset.Snapshot {
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{
		apitest.DaemonSet(named("default", "a", "app", "a"), apitest.Rolling(apitest.Int(1), nil), requests("cpu", "250m")),
		apitest.DaemonSet(named("default", "b", "app", "b"), apitest.Rolling(apitest.Int(0), apitest.Int(1)), hostPort(9100)),
		apitest.DaemonSet(named("default", "c", "app", "c"), requests("cpu", "100m", "memory", "64Mi")),
	}}
	for i := range n {
		mods := []func(*v1.Node){allocatable("cpu", "4", "memory", "8Gi"), ready(v1.ConditionTrue)}
		if i%100 == 99 {
			mods[1] = ready(v1.ConditionFalse)
		}
		if i%50 == 49 {
			mods = append(mods, apitest.Taint("dedicated", "x", v1.TaintEffectNoSchedule))
		}
		name := fmt.Sprintf("node-%06d", i)
		s.Nodes = append(s.Nodes, apitest.Node(name, mods...))
		for j := range 10 {
			s.Pods = append(s.Pods, pod(fmt.Sprintf("%s-%d", name, j), name, "cpu", "350m", "memory", "512Mi"))
		}
	}
	return s
}

// BenchmarkLint lints three DaemonSets on a cluster. It stops at 10,000 nodes: LINT-2 plans the
// DaemonSet when a node is down, and the plan builds one daemon pod per node without one.
func BenchmarkLint(b *testing.B) {
	for _, n := range []int{1, 1000, 10000} {
		s := benchCluster(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := lint.Lint(s, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// invalidTolerations is a DaemonSet with n tolerations whose keys the API server refuses.
func invalidTolerations(n int) daemonset.Snapshot {
	ds := apitest.DaemonSet(named("default", "ds", "app", "ds"))
	for i := range n {
		ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations,
			v1.Toleration{Key: fmt.Sprintf("bad key %d!", i), Operator: v1.TolerationOpExists})
	}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}
}

// BenchmarkLintInvalidTolerations lints a DaemonSet that does not compile, with 4,000 field
// errors: the error naming them was built in time quadratic in their number (issue 25, F14).
func BenchmarkLintInvalidTolerations(b *testing.B) {
	s := invalidTolerations(4000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lint.Lint(s, opts); err == nil {
			b.Fatal("no error")
		} else {
			sinkMessage = err.Error()
		}
	}
}

var sinkMessage string
