package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/rollout"
)

// TestIncrementalMatchesWholePlans: re-planning only the touched nodes gives the trajectory
// whole-snapshot plans give, step for step (ROLL-12).
func TestIncrementalMatchesWholePlans(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mu, ms intstr.IntOrString
	}{
		{"mu=1", intstr.FromInt32(1), intstr.FromInt32(0)},
		{"mu=30%", intstr.FromString("30%"), intstr.FromInt32(0)},
		{"ms=1", intstr.FromInt32(0), intstr.FromInt32(1)},
		{"ms=40%", intstr.FromInt32(0), intstr.FromString("40%")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settled(t, agent(tc.mu, tc.ms, "agent:1", 0), 12)
			// Two more nodes without a pod: the first sync's base diff acts.
			s.Nodes = append(s.Nodes[:len(s.Nodes):len(s.Nodes)], nodes(14)[12:]...)
			next := agent(tc.mu, tc.ms, "agent:2", 0)
			opts := rollout.Options{Start: t0, Seed: 5, BurstLimit: 3, Kubelet: rollout.Kubelet{
				Startup: rollout.Distribution{Min: 5 * time.Second, Max: 30 * time.Second}, Termination: rollout.Distribution{Max: 3 * time.Second},
				CrashLoop: 0.1, Failed: 0.1},
				Events: []rollout.Event{
					{After: 20 * time.Second, Type: rollout.EventNodeNotReady, Node: "node-00003"},
					{After: 50 * time.Second, Type: rollout.EventNodeReady, Node: "node-00003"},
					{After: 70 * time.Second, Type: rollout.EventNodeRemoved, Node: "node-00005"},
				}}
			fast, err := rollout.Simulate(s, next, opts)
			require.NoError(t, err)
			whole, err := rollout.Simulate(s, next, rollout.WithoutIncremental(opts))
			require.NoError(t, err)
			require.Equal(t, whole.Steps, fast.Steps)
		})
	}
}
