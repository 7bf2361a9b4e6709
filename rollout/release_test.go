package rollout_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
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

// TestProgressJudgesBindingAtTheRelease: the scheduler's filters Progress asks about an
// unbound pod are the release's (SCHED-5): a pod that needs UserNamespacesHostNetworkSupport
// is refused by NodeDeclaredFeatures from 1.36, and starts in 1.35, which has no such filter.
func TestProgressJudgesBindingAtTheRelease(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	ds.Spec.Template.Spec.HostNetwork = true
	ds.Spec.Template.Spec.HostUsers = ptr.To(false)
	for _, tt := range []struct {
		release string
		want    rollout.BlockReason
	}{
		{"1.35.4", rollout.WaitPodStarting},
		{"1.36.3", rollout.BlockUnschedulable},
	} {
		t.Run("SCHED-5 "+tt.release, func(t *testing.T) {
			v, err := daemonset.ParseVersion(tt.release)
			require.NoError(t, err)
			s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: reporting(nodes(1))}
			res, err := daemonset.Plan(ds, s.Nodes, nil, daemonset.Options{Now: t0, Version: v})
			require.NoError(t, err)
			after, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0, Scheduler: func(*v1.Pod, *v1.Node) bool { return false }})
			require.NoError(t, err)
			for i, p := range after.Pods {
				p = p.DeepCopy()
				p.Status.Conditions = nil // not yet judged by the scheduler
				after.Pods[i] = p
			}
			rep, err := rollout.Progress(after, after.DaemonSets[0], rollout.ProgressOptions{Now: t0, Version: v})
			require.NoError(t, err)
			got := append(blockerNodes(rep.Blocking), blockerNodes(rep.Waiting)...)
			require.Equal(t, []string{"node-00000"}, got)
			reasons := append(rep.Blocking, rep.Waiting...)
			require.Equal(t, tt.want, reasons[0].Reason, reasons[0].Message)
		})
	}
}
