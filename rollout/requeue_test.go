package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/rollout"
)

// TestSimulateRequeueKeepsOneWaitingEntry: the controller's delaying queue keeps one waiting
// entry per DaemonSet, moved earlier by a sooner AddAfter and never later (client-go
// workqueue: insert in delaying_queue.go). The sync at t0 deletes one of two Failed pods on
// node-00001 and asks for the back-off's requeue after 1s (SYNC-8, DIFF-17) and, with a pod
// Ready since t0 under minReadySeconds 10, for the STAT-15 requeue after 10s: only the sooner
// stays. The sync at t0+1s then asks for t0+11s, so no sync runs at t0+10s. The simulation
// used to queue both delays as items of their own and ran a sync at t0+10s.
func TestSimulateRequeueKeepsOneWaitingEntry(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 10)
	for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
		t.Run(model.String(), func(t *testing.T) {
			s := settled(t, ds, 2)
			s.Pods = append([]*v1.Pod(nil), s.Pods...)
			var failed *v1.Pod
			for i, p := range s.Pods {
				cp := p.DeepCopy()
				switch cp.Spec.NodeName {
				case "node-00000": // Ready since t0: available at t0+10s
					for j := range cp.Status.Conditions {
						if cp.Status.Conditions[j].Type == v1.PodReady {
							cp.Status.Conditions[j].LastTransitionTime = metav1.NewTime(t0)
						}
					}
				case "node-00001":
					cp.Status = v1.PodStatus{Phase: v1.PodFailed}
					failed = cp
				}
				s.Pods[i] = cp
			}
			require.NotNil(t, failed)
			second := failed.DeepCopy()
			second.Name, second.UID = second.Name+"-b", types.UID(string(second.UID)+"-b")
			s.Pods = append(s.Pods, second)
			traj, err := rollout.Simulate(s, ds, rollout.Options{Start: t0, Horizon: time.Minute, Model: model,
				Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Hour)}})
			require.NoError(t, err)
			var at []time.Duration
			for _, st := range traj.Steps {
				at = append(at, st.At.Sub(t0))
			}
			require.Contains(t, at, time.Second, "the back-off's requeue")
			require.Contains(t, at, 11*time.Second, "the minReadySeconds requeue of the sync at t0+1s")
			require.NotContains(t, at, 10*time.Second, "a requeue the queue merged into the sooner one")
			require.Equal(t, int32(1), traj.Steps[len(traj.Steps)-1].Status.NumberAvailable)
		})
	}
}

// TestSimulateStaleRequeueMovesNoClock: an entry moved earlier leaves nothing behind. The
// first pod of node-00001 fails and is replaced; its replacement turns Ready at t0+0.2s, whose
// pod handler asks for minReadySeconds+1s (t0+11.2s), and the sync then for minReadySeconds
// (STAT-15, t0+10.2s), which moves the entry earlier. At t0+10.2s the pod is available and
// nothing more happens: the trajectory ends there, not at the time of the request the queue
// merged away (it used to end at t0+11.2s).
func TestSimulateStaleRequeueMovesNoClock(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 10)
	s := settled(t, ds, 1)
	s.Nodes = nodes(2)
	started := 0
	traj, err := rollout.Simulate(s, ds, rollout.Options{Start: t0, Horizon: time.Minute,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(100 * time.Millisecond), Fate: func(*v1.Pod) rollout.Fate {
			started++
			if started == 1 {
				return rollout.FateFailed
			}
			return rollout.FateReady
		}}})
	require.NoError(t, err)
	require.True(t, traj.Quiescent)
	last := traj.Steps[len(traj.Steps)-1]
	require.Equal(t, 10200*time.Millisecond, last.At.Sub(t0))
	require.Equal(t, int32(2), last.Status.NumberAvailable)
	require.Equal(t, last.At, traj.EndTime, "EndTime %s after the last sync", traj.EndTime.Sub(t0))
}
