package rollout_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestProgressFollowsTheRelease: Simulate, Forecast and Progress plan as Options.Version's
// controller: its hash, and its availability rule (VER-3): a pod Ready exactly minReadySeconds
// ago is available from 1.34 on, not in 1.33.
func TestProgressFollowsTheRelease(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 10)
	for _, tt := range []struct {
		release string
		want    rollout.State
	}{
		{"1.33.13", rollout.StateProgressing},
		{"1.34.0", rollout.StateComplete},
		{"1.37.2", rollout.StateComplete},
	} {
		t.Run("VER-3 "+tt.release, func(t *testing.T) {
			v, err := daemonset.ParseVersion(tt.release)
			require.NoError(t, err)
			traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes(2)}, ds, rollout.Options{Start: t0.Add(-time.Hour), Version: v})
			require.NoError(t, err)
			require.True(t, traj.Quiescent)
			s := traj.End
			for _, p := range s.Pods {
				require.Equal(t, v.ComputeHash(&ds.Spec.Template, nil), p.Labels["controller-revision-hash"], "the release's hash")
				for i := range p.Status.Conditions {
					p.Status.Conditions[i].LastTransitionTime = metav1.NewTime(t0.Add(-10 * time.Second))
				}
			}
			rep, err := rollout.Progress(s, s.DaemonSets[0], rollout.ProgressOptions{Now: t0, Version: v})
			require.NoError(t, err)
			require.Equal(t, tt.want, rep.State, rep.Message)
		})
	}
}
