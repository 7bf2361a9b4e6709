package daemonset_test

import (
	"runtime"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

var allocEligSink daemonset.Eligibility

// TestAllocsEligibility enforces the hot-path promise: deciding a node allocates nothing,
// whatever the outcome (ELIG-2..ELIG-5).
func TestAllocsEligibility(t *testing.T) {
	p, errs := daemonset.Compile(realisticDS(), opts())
	require.Empty(t, errs)
	ns := realisticNodes(8)
	ns = append(ns, node("other", labels("kubernetes.io/os", "windows")), node("bare"))
	for _, n := range ns {
		allocs := testing.AllocsPerRun(100, func() { allocEligSink = p.Eligibility(n) })
		require.Zero(t, allocs, "Eligibility(%s) allocates", n.Name)
	}
	pinned, _ := daemonset.Compile(newDS(withNodeName("x")), opts())
	require.Zero(t, testing.AllocsPerRun(100, func() { allocEligSink = pinned.Eligibility(ns[0]) }))
	tainted := node("t", taint("a", "", v1.TaintEffectNoSchedule), taint("b", "", v1.TaintEffectNoExecute))
	plain, _ := daemonset.Compile(newDS(), opts())
	require.Zero(t, testing.AllocsPerRun(100, func() { allocEligSink = plain.Eligibility(tainted) }))
	require.Zero(t, testing.AllocsPerRun(100, func() {
		allocEligSink = daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}.WithUntolerated(tainted.Spec.Taints, 0, -1)
	}))
}

// runtimeMem measures bytes allocated between start and stop, for the B/node metric.
type runtimeMem struct{ before uint64 }

func (m *runtimeMem) start() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.before = s.TotalAlloc
}

func (m *runtimeMem) stop() uint64 {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return s.TotalAlloc - m.before
}
