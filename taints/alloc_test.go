package taints_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/taints"
)

// Package-level sinks keep the compiler from discarding the measured calls.
var (
	sinkTaint v1.Taint
	sinkBool  bool
)

// TestHotPathAllocatesNothing holds the promise of the package doc: Tolerates and
// FirstUntolerated allocate nothing, including on the Lt/Gt path where upstream parses (and
// allocates errors for) both values on every match.
func TestHotPathAllocatesNothing(t *testing.T) {
	tols := append(daemonDefaults(true),
		tol("node-role.kubernetes.io/control-plane", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
		tol("cpus", v1.TolerationOpGt, "8", v1.TaintEffectNoSchedule),
		tol("", v1.TolerationOpLt, "100", v1.TaintEffectNoExecute),
	)
	nodeTaints := []v1.Taint{
		taint("node-role.kubernetes.io/control-plane", "", v1.TaintEffectNoSchedule),
		taint("cpus", "abc", v1.TaintEffectNoSchedule),
		taint("cpus", "99999999999999999999", v1.TaintEffectNoExecute),
		taint("dedicated", "db", v1.TaintEffectNoSchedule),
	}
	for _, gate := range []bool{false, true} {
		compiled := taints.Compile(tols, taints.Options{ComparisonOperators: gate})
		if n := testing.AllocsPerRun(100, func() {
			sinkTaint, sinkBool = compiled.FirstUntolerated(nodeTaints, taints.Placement)
		}); n != 0 {
			t.Errorf("FirstUntolerated (gate %v) allocates %v times per run, want 0", gate, n)
		}
		if n := testing.AllocsPerRun(100, func() {
			sinkBool = compiled.Tolerates(&nodeTaints[2])
		}); n != 0 {
			t.Errorf("Tolerates (gate %v) allocates %v times per run, want 0", gate, n)
		}
	}
}
