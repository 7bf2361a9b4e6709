package rollout_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// A graceful delete is seen by the simulated controller when it sets the pod's
// deletionTimestamp, not when the kubelet removes the pod (ROLL-3, ROLL-5): upstream's
// updatePod sends that update to deletePod, which queues the DaemonSet at once (and counts the
// delete as observed). Under SyncUnobserved, with maxSurge 1, the sync that deletes the replaced
// old pod at 10 s is followed at the same instant by one that surges the next node while the
// old pod is still terminating (the kubelet removes it 20 s later); that removal queues one more
// sync, which has nothing left to do there.
func TestGracefulDeleteQueuesASyncAtOnce(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(0), intstr.FromInt32(1), "agent:1", 0), 3)
	next := agent(intstr.FromInt32(0), intstr.FromInt32(1), "agent:2", 0)
	type seen struct {
		step        rollout.Step
		terminating []string // the nodes of the terminating pods the sync saw
	}
	var syncs []seen
	after := func(step rollout.Step, snap daemonset.Snapshot) {
		var on []string
		for _, p := range snap.Pods {
			if p.DeletionTimestamp != nil {
				on = append(on, p.Spec.NodeName)
			}
		}
		slices.Sort(on)
		syncs = append(syncs, seen{step, on})
	}
	_, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Model: rollout.SyncUnobserved, AfterSync: after,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second), Termination: rollout.Fixed(20 * time.Second)}})
	require.NoError(t, err)

	at10 := t0.Add(10 * time.Second)
	i := slices.IndexFunc(syncs, func(x seen) bool { return x.step.At.Equal(at10) && len(x.step.Delete) > 0 })
	require.GreaterOrEqual(t, i, 0, "no sync deletes at 10 s")
	require.Less(t, i+1, len(syncs))
	deleted := syncs[i].step.Delete[0]
	require.Equal(t, daemonset.ReasonSurgeNewAvailable, deleted.Reason)
	following := syncs[i+1]
	require.Equal(t, at10, following.step.At, "the deletionTimestamp's update queues the next sync at once")
	require.Equal(t, []string{deleted.Node}, following.terminating, "the next sync sees the deleted pod still terminating")
	require.Equal(t, []string{"node-00001"}, following.step.Create, "and surges the next node")

	// The kubelet removes the pod 20 s later: its delete event queues a sync then.
	at30 := t0.Add(30 * time.Second)
	j := slices.IndexFunc(syncs, func(x seen) bool { return x.step.At.Equal(at30) })
	require.GreaterOrEqual(t, j, 0, "no sync when the terminating pod goes")
	require.NotContains(t, syncs[j].terminating, deleted.Node)
}

// A pod that is terminating in the starting snapshot is removed by the kubelet model after its
// termination delay (capped at its deletionTimestamp), and that removal queues a sync (ROLL-5):
// without surge the node's replacement waits for it (DIFF-5), as upstream's does.
func TestTerminatingPodAtStartIsReplacedWhenItGoes(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	s := settled(t, ds, 2)
	pods := slices.Clone(s.Pods)
	for i, p := range pods {
		if p.Spec.NodeName == "node-00000" {
			cp := p.DeepCopy()
			cp.DeletionTimestamp = new(metav1.NewTime(t0.Add(5 * time.Second)))
			pods[i] = cp
		}
	}
	s.Pods = pods
	traj, err := rollout.Simulate(s, ds, rollout.Options{Start: t0, Model: rollout.SyncUnobserved,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Second), Termination: rollout.Fixed(time.Minute)}})
	require.NoError(t, err)
	acting := traj.Acting()
	require.NotEmpty(t, acting)
	require.Equal(t, t0.Add(5*time.Second), acting[0].At, "the create waits for the removal at the deletionTimestamp")
	require.Equal(t, []string{"node-00000"}, acting[0].Create)
}
