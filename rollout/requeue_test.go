package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
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

// TestSimulateObservedQueuesTheBackoffNotTheFirstStatus: under SyncObserved a sync that holds
// a Failed pod back queues the back-off's requeue, which upstream asks for while it walks the
// nodes (podsShouldBeOnNode), and the minReadySeconds requeue of the status it writes, that of
// the state after its actions (updateDaemonSetStatus; SYNC-8, STAT-15, ROLL-7). At t0 the
// Failed pod on node-00001 is held for 60 s and node-00000's old pod, Ready since t0 under
// minReadySeconds 10, is unavailable; the rolling step deletes both old pods, so the status
// written has no Ready pod and asks for nothing: the DaemonSet is synced again at t0+60s, not
// at t0+10s. The simulation used to queue the whole RequeueAfter of the sync's first plan,
// whose status (before the actions) asked for t0+10s. Under SyncUnobserved that first status
// is the one written, and t0+10s is right.
func TestSimulateObservedQueuesTheBackoffNotTheFirstStatus(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 10), 2)
	next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", 10)
	next.Generation, next.Status = 2, s.DaemonSets[0].Status
	require.Equal(t, int64(1), next.Status.ObservedGeneration)
	s.Pods = append([]*v1.Pod(nil), s.Pods...)
	for i, p := range s.Pods {
		cp := p.DeepCopy()
		switch cp.Spec.NodeName {
		case "node-00000": // Ready since t0: available at t0+10s; deleted, it goes at once
			for j := range cp.Status.Conditions {
				if cp.Status.Conditions[j].Type == v1.PodReady {
					cp.Status.Conditions[j].LastTransitionTime = metav1.NewTime(t0)
				}
			}
			cp.Spec.TerminationGracePeriodSeconds = new(int64)
		case "node-00001":
			cp.Status = v1.PodStatus{Phase: v1.PodFailed}
		}
		s.Pods[i] = cp
	}
	held := []daemonset.BackoffEntry{{DaemonSetUID: next.UID, Generation: 1, Node: "node-00001",
		Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(t0)}}
	// The DaemonSet is compiled three times in either model: at t0, again at t0 once the
	// first sync's status write raised observedGeneration, and at the next sync's time.
	for _, tt := range []struct {
		model        rollout.SyncModel
		want, not    time.Duration
		wantCompiles int
	}{
		{rollout.SyncObserved, time.Minute, 10 * time.Second, 3},
		{rollout.SyncUnobserved, 10 * time.Second, time.Minute, 3},
	} {
		t.Run(tt.model.String(), func(t *testing.T) {
			traj, err := rollout.Simulate(s, next, rollout.WithBackoff(rollout.Options{Start: t0, Horizon: 5 * time.Minute, Model: tt.model,
				Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Hour)}}, held))
			require.NoError(t, err)
			require.Equal(t, 1, traj.Steps[0].HeldBack, "the back-off holds node-00001's Failed pod at t0")
			var at []time.Duration
			for _, st := range traj.Steps {
				if d := st.At.Sub(t0); d > 0 {
					at = append(at, d)
				}
			}
			require.Equal(t, []time.Duration{tt.want}, at, "the syncs after t0")
			// The simulation's planner is compiled again only when what it was compiled for
			// changes (plannerFor): three times here, whatever the model. This counts
			// plannerFor's compiles only; that the back-off's part of the requeue comes with
			// the plan (PlanRequeues) rather than from planning again is what the syncs'
			// times above show.
			_, compiles, err := rollout.Compiles(s, next, rollout.WithBackoff(rollout.Options{Start: t0, Horizon: 5 * time.Minute, Model: tt.model,
				Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Hour)}}, held))
			require.NoError(t, err)
			require.Equal(t, tt.wantCompiles, compiles, "DaemonSets compiled")
		})
	}
}

// TestSimulatePodHandlerRequeuesOnlyItsDaemonSet: the pod update handler's requeue after
// minReadySeconds + 1 s is for the DaemonSet that controls the pod turning Ready (SYNC-8,
// updatePod). A pod nobody controls that turns Ready when its node comes back asks for
// nothing; the simulation used to queue the DaemonSet then too, and synced at t0+2m12s.
func TestSimulatePodHandlerRequeuesOnlyItsDaemonSet(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 10)
	s := settled(t, ds, 1)
	other := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "dedicated", Effect: v1.TaintEffectNoSchedule}}}}
	orphan := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "kube-system", UID: "orphan-uid",
		Labels: map[string]string{"app": "other"}}, Spec: v1.PodSpec{NodeName: "other"}, Status: v1.PodStatus{Phase: v1.PodPending}}
	s.Nodes = append(append([]*v1.Node(nil), s.Nodes...), other)
	s.Pods = append(append([]*v1.Pod(nil), s.Pods...), orphan)
	traj, err := rollout.Simulate(s, ds, rollout.Options{Start: t0, Horizon: 10 * time.Minute,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Second)},
		Events: []rollout.Event{{After: time.Minute, Type: rollout.EventNodeNotReady, Node: "other"},
			{After: 2 * time.Minute, Type: rollout.EventNodeReady, Node: "other"}}})
	require.NoError(t, err)
	var at []time.Duration
	for _, st := range traj.Steps {
		if d := st.At.Sub(t0); len(at) == 0 || at[len(at)-1] != d {
			at = append(at, d)
		}
	}
	require.Equal(t, []time.Duration{0, time.Minute, 2 * time.Minute}, at)
	for _, p := range traj.End.Pods {
		if p.Name == "orphan" {
			require.Equal(t, v1.PodRunning, p.Status.Phase, "the orphan started")
		}
	}
}
