package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/rollout"
)

// TestSimulateHeldFailedPodLetsTheRollingStepRun: a Failed pod the back-off holds back is
// neither deleted nor running, so the sync's base diff can be empty and its rolling step runs,
// as in the controller (ROLL-6, DIFF-12, UPD-2); the simulator used to skip the step then.
func TestSimulateHeldFailedPodLetsTheRollingStepRun(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 2)
	next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", 0)
	traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Horizon: 2 * time.Minute,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(100 * time.Millisecond), Failed: 1}})
	require.NoError(t, err)
	both := 0
	for _, st := range traj.Steps {
		if st.HeldBack > 0 && st.RollingActed {
			both++
		}
	}
	require.Positive(t, both, "no sync held a Failed pod back and ran the rolling step")
}
