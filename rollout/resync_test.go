package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// stalledSurge is TestForecastSaysWhenNoSyncIsQueued's rollout: under maxSurge with
// minReadySeconds a surge pod turns available while no sync is queued (ROLL-5).
func stalledSurge(t *testing.T) (daemonset.Snapshot, rollout.Kubelet) {
	t.Helper()
	s := settled(t, agent(intstr.FromInt32(0), intstr.FromString("50%"), "agent:1", 15), 4)
	return s, rollout.Kubelet{Startup: rollout.Distribution{Min: 10 * time.Second, Max: 30 * time.Second}}
}

// TestSimulateResyncSyncsAStalledRollout: the informers' resync queues the DaemonSet (its
// informer's update handler compares nothing), so a rollout that waits with no sync queued
// goes on at the next resync, Resync after Start, and finishes; without Resync it ends
// quiescent and incomplete.
func TestSimulateResyncSyncsAStalledRollout(t *testing.T) {
	s, kubelet := stalledSurge(t)
	next := agent(intstr.FromInt32(0), intstr.FromString("50%"), "agent:2", 15)
	stalled, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Seed: 1, Kubelet: kubelet})
	require.NoError(t, err)
	require.True(t, stalled.Quiescent)
	require.Less(t, stalled.EndTime.Sub(t0), time.Hour)
	last := stalled.Steps[len(stalled.Steps)-1].Status
	require.Less(t, last.UpdatedNumberScheduled+last.NumberAvailable, 2*last.DesiredNumberScheduled, "the rollout was meant to stall")

	traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Seed: 1, Kubelet: kubelet, Resync: 2 * time.Hour})
	require.NoError(t, err)
	require.True(t, traj.Quiescent)
	require.Equal(t, stalled.Steps, traj.Steps[:len(stalled.Steps)], "before the first resync nothing differs")
	resync := traj.Steps[len(stalled.Steps)]
	require.Equal(t, t0.Add(2*time.Hour), resync.At, "the first resync comes Resync after Start")
	require.True(t, resync.Acted(), "the resync's sync goes on with the rollout")
	for _, st := range traj.Steps {
		if d := st.At.Sub(t0); d > 0 && d%(2*time.Hour) == 0 {
			continue
		}
		require.Less(t, st.At.Sub(t0), 2*time.Hour+time.Hour, "a sync at %s is neither a resync nor caused by one", st.At.Sub(t0))
	}
	end := traj.Steps[len(traj.Steps)-1].Status
	require.Equal(t, end.DesiredNumberScheduled, end.UpdatedNumberScheduled)
	require.Equal(t, end.DesiredNumberScheduled, end.NumberAvailable)
}

// TestSimulateResyncOfASettledClusterChangesNothing: a resync that would find nothing new to
// do (the cluster as the last sync planned it, no Ready pod waiting out minReadySeconds) ends
// the simulation as before: the same trajectory, quiescent, with or without Resync.
func TestSimulateResyncOfASettledClusterChangesNothing(t *testing.T) {
	for _, minReady := range []int32{0, 10} {
		s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", minReady), 3)
		next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", minReady)
		opts := rollout.Options{Start: t0, Seed: 2, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(5 * time.Second)}}
		without, err := rollout.Simulate(s, next, opts)
		require.NoError(t, err)
		opts.Resync = 12 * time.Hour
		with, err := rollout.Simulate(s, next, opts)
		require.NoError(t, err)
		require.True(t, with.Quiescent)
		require.Equal(t, without.Steps, with.Steps, "minReadySeconds %d", minReady)
		require.Equal(t, without.EndTime, with.EndTime)
	}
}

// TestSimulateResyncWhileMoreIsQueued: a resync that comes while other things are queued is a
// sync at its instant too, Resync after Start and every Resync after that.
func TestSimulateResyncWhileMoreIsQueued(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 1)
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	late := rollout.Event{After: 5 * time.Hour, Type: rollout.EventNodeNotReady, Node: "node-00000"}
	traj, err := rollout.Simulate(s, ds, rollout.Options{Start: t0, Resync: 2 * time.Hour, Events: []rollout.Event{late}})
	require.NoError(t, err)
	var at []time.Duration // the instants after t0 with a sync
	for _, st := range traj.Steps {
		if d := st.At.Sub(t0); d > 0 && (len(at) == 0 || at[len(at)-1] != d) {
			at = append(at, d)
		}
	}
	require.GreaterOrEqual(t, len(at), 3)
	require.Equal(t, []time.Duration{2 * time.Hour, 4 * time.Hour, 5 * time.Hour}, at[:3])
}

// TestSimulateRefusesANegativeResync: bad input, at its path.
func TestSimulateRefusesANegativeResync(t *testing.T) {
	_, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes(1)}, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0),
		rollout.Options{Start: t0, Resync: -time.Hour})
	require.ErrorContains(t, err, "opts.resync: Invalid value")
}

// TestForecastSaysWhenTheNextResyncComes: a forecast that ends with no sync queued says what
// would queue one: an event, or else only a resync, when the next one comes if ForecastOptions
// models it, and that an unmodelled one comes every 12h to 24h otherwise (ROLL-5, ROLL-10).
// A resync within the horizon finishes the rollout.
func TestForecastSaysWhenTheNextResyncComes(t *testing.T) {
	s, kubelet := stalledSurge(t)
	next := agent(intstr.FromInt32(0), intstr.FromString("50%"), "agent:2", 15)
	forecast := func(resync time.Duration) *rollout.ForecastResult {
		f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Seed: 1, Kubelet: kubelet, Resync: resync})
		require.NoError(t, err)
		return f
	}
	none := forecast(0)
	require.False(t, none.Complete)
	require.Contains(t, none.Final.Message, "no sync is queued")
	require.Contains(t, none.Final.Message, "ForecastOptions.Resync models it")

	late := forecast(30 * time.Hour) // after the 24h horizon
	require.False(t, late.Complete)
	require.Equal(t, rollout.StateProgressing, late.Final.State)
	require.Contains(t, late.Final.Message, "only its informers' next resync queues it again, at "+
		t0.Add(30*time.Hour).Format(time.RFC3339)+" (30h0m0s after the start)")

	soon := forecast(12 * time.Hour)
	require.True(t, soon.Complete, soon.Final.Message)
	require.GreaterOrEqual(t, soon.Duration, 12*time.Hour)
}
