package rollout_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// Properties of whole trajectories (ROLL-5, ROLL-7, UPD-8, UPD-11): each holds for every
// configuration of trajectoryCases, not only for one hand-picked run.

type trajectoryCase struct {
	name   string
	mu, ms intstr.IntOrString
	burst  int
	nodes  int
}

func trajectoryCases() []trajectoryCase {
	return []trajectoryCase{
		{name: "mu=1", mu: intstr.FromInt32(1), ms: intstr.FromInt32(0), nodes: 12},
		{name: "mu=3/burst=2", mu: intstr.FromInt32(3), ms: intstr.FromInt32(0), burst: 2, nodes: 15},
		{name: "mu=25%", mu: intstr.FromString("25%"), ms: intstr.FromInt32(0), nodes: 20},
		{name: "ms=1", mu: intstr.FromInt32(0), ms: intstr.FromInt32(1), nodes: 10},
		{name: "ms=30%/burst=3", mu: intstr.FromInt32(0), ms: intstr.FromString("30%"), burst: 3, nodes: 14},
	}
}

// randomKubelet starts pods after 5 to 40 s and stops them within 10 s: the seed decides every
// delay.
var randomKubelet = rollout.Kubelet{
	Startup:     rollout.Distribution{Min: 5 * time.Second, Max: 40 * time.Second},
	Termination: rollout.Distribution{Max: 10 * time.Second},
}

// TestTrajectoryReplaysFromItsSeed: the same inputs and seed give the same trajectory, steps,
// end state and times, under both sync models, with crash-looping and failing pods and node
// events (ROLL-5: Simulate reads no clock and no global randomness).
func TestTrajectoryReplaysFromItsSeed(t *testing.T) {
	for _, tc := range trajectoryCases() {
		for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, model), func(t *testing.T) {
				t.Parallel()
				s := settled(t, agent(tc.mu, tc.ms, "agent:1", 0), tc.nodes)
				next := agent(tc.mu, tc.ms, "agent:2", 0)
				k := randomKubelet
				k.CrashLoop, k.Failed = 0.1, 0.05
				opts := rollout.Options{Start: t0, Seed: 7, Model: model, BurstLimit: tc.burst, Kubelet: k,
					Horizon: time.Hour,
					Events: []rollout.Event{
						{After: 30 * time.Second, Type: rollout.EventNodeNotReady, Node: "node-00001"},
						{After: 90 * time.Second, Type: rollout.EventNodeReady, Node: "node-00001"},
					}}
				first, err := rollout.Simulate(s, next, opts)
				require.NoError(t, err)
				again, err := rollout.Simulate(s, next, opts)
				require.NoError(t, err)
				if diff := cmp.Diff(first, again); diff != "" {
					t.Fatalf("Simulate() with the same seed mismatch (-first +again):\n%s", diff)
				}
			})
		}
	}
}

// TestSyncModelsEndInTheSameState: whether a sync observes its own writes (ROLL-7) changes the
// path and its length, never where a rollout ends: under both models every node runs one
// available pod of the new template, and the status says so.
func TestSyncModelsEndInTheSameState(t *testing.T) {
	for _, tc := range trajectoryCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := settled(t, agent(tc.mu, tc.ms, "agent:1", 0), tc.nodes)
			next := agent(tc.mu, tc.ms, "agent:2", 0)
			ends := map[rollout.SyncModel]map[string][]string{}
			statuses := map[rollout.SyncModel]appsv1.DaemonSetStatus{}
			for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
				traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Seed: 3, Model: model,
					BurstLimit: tc.burst, Kubelet: randomKubelet})
				require.NoError(t, err)
				require.True(t, traj.Quiescent, "model %s", model)
				ends[model] = podsByNode(traj.End, next)
				st := daemonSetOf(traj.End, next).Status
				statuses[model] = appsv1.DaemonSetStatus{DesiredNumberScheduled: st.DesiredNumberScheduled,
					CurrentNumberScheduled: st.CurrentNumberScheduled, UpdatedNumberScheduled: st.UpdatedNumberScheduled,
					NumberReady: st.NumberReady, NumberAvailable: st.NumberAvailable, NumberUnavailable: st.NumberUnavailable,
					NumberMisscheduled: st.NumberMisscheduled}
			}
			if diff := cmp.Diff(ends[rollout.SyncObserved], ends[rollout.SyncUnobserved]); diff != "" {
				t.Errorf("end pods by node mismatch (-observed +unobserved):\n%s", diff)
			}
			if diff := cmp.Diff(statuses[rollout.SyncObserved], statuses[rollout.SyncUnobserved]); diff != "" {
				t.Errorf("end status mismatch (-observed +unobserved):\n%s", diff)
			}
			n := int32(tc.nodes)
			require.Equal(t, appsv1.DaemonSetStatus{DesiredNumberScheduled: n, CurrentNumberScheduled: n,
				UpdatedNumberScheduled: n, NumberReady: n, NumberAvailable: n}, statuses[rollout.SyncObserved])
		})
	}
}

// podsByNode describes the pods of ds in s by node: image, Ready, terminating.
func podsByNode(s daemonset.Snapshot, ds *appsv1.DaemonSet) map[string][]string {
	out := map[string][]string{}
	for _, p := range s.Pods {
		if !daemonset.NewestVersion().IsControlledBy(p, ds) {
			continue
		}
		d := fmt.Sprintf("%s ready=%t terminating=%t", p.Spec.Containers[0].Image, daemonset.IsPodReady(p), p.DeletionTimestamp != nil)
		out[p.Spec.NodeName] = append(out[p.Spec.NodeName], d)
	}
	for _, k := range slices.Collect(maps.Keys(out)) {
		slices.Sort(out[k])
	}
	return out
}

func daemonSetOf(s daemonset.Snapshot, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	for _, d := range s.DaemonSets {
		if d.Namespace == ds.Namespace && d.Name == ds.Name {
			return d
		}
	}
	return nil
}

// TestMaxUnavailableIsNeverExceeded: without surge, after every sync of a rollout at most
// maxUnavailable nodes lack an available pod that is not terminating (UPD-8: the step deletes
// old pods only within the budget), under both sync models, any burst limit and random start-up
// and termination delays; and the rollout completes.
func TestMaxUnavailableIsNeverExceeded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mu    intstr.IntOrString
		nodes int
		want  int // maxUnavailable resolved against the nodes (UPD-5)
	}{
		{name: "mu=1", mu: intstr.FromInt32(1), nodes: 10, want: 1},
		{name: "mu=4", mu: intstr.FromInt32(4), nodes: 15, want: 4},
		{name: "mu=25% of 18 rounds up to 5", mu: intstr.FromString("25%"), nodes: 18, want: 5},
	} {
		for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
			for _, burst := range []int{0, 2} {
				t.Run(fmt.Sprintf("%s/%s/burst=%d", tc.name, model, burst), func(t *testing.T) {
					t.Parallel()
					s := settled(t, agent(tc.mu, intstr.FromInt32(0), "agent:1", 0), tc.nodes)
					next := agent(tc.mu, intstr.FromInt32(0), "agent:2", 0)
					most, syncs := 0, 0
					opts := rollout.Options{Start: t0, Seed: uint64(tc.nodes + burst), Model: model, BurstLimit: burst,
						Kubelet: randomKubelet,
						AfterSync: func(step rollout.Step, s daemonset.Snapshot) {
							syncs++
							u := unavailableNodes(s, next)
							most = max(most, u)
							if u > tc.want {
								t.Errorf("at %s: %d nodes unavailable, maxUnavailable %d", step.At.Format(time.TimeOnly), u, tc.want)
							}
						}}
					traj, err := rollout.Simulate(s, next, opts)
					require.NoError(t, err)
					require.True(t, traj.Quiescent)
					require.Equal(t, tc.want, most, "the rollout never used its whole budget")
					rep, err := rollout.Progress(traj.End, next, rollout.ProgressOptions{Now: traj.EndTime})
					require.NoError(t, err)
					require.Equal(t, rollout.StateComplete, rep.State)
				})
			}
		}
	}
}

// unavailableNodes counts the nodes of s without a Ready pod of ds that is not terminating
// (minReadySeconds is 0: Ready is available).
func unavailableNodes(s daemonset.Snapshot, ds *appsv1.DaemonSet) int {
	available := map[string]bool{}
	for _, p := range s.Pods {
		if daemonset.NewestVersion().IsControlledBy(p, ds) && p.DeletionTimestamp == nil && daemonset.IsPodReady(p) {
			available[p.Spec.NodeName] = true
		}
	}
	n := 0
	for _, node := range s.Nodes {
		if !available[node.Name] {
			n++
		}
	}
	return n
}
