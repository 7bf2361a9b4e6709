package rollout_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/daemonsched/daemonsched/daemonset"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/rollout"
)

// TestTrajectoryDigests pins whole trajectories, every step and the end state, of rollouts
// that exercise the incremental re-plan (ROLL-12) and its fallbacks: no surge and surge, the
// burst cap, the failed-pod back-off, crash loops, node events, minReadySeconds (whole plans)
// and both sync models. A speed change that moves any step changes a digest. The digests were
// taken before the speed work on the simulation and must not move; they moved once on purpose,
// when created pods began to carry the API server's default grace period (every step equal,
// only the end state's pod specs gained the field), and mu=20%/minReady=10 once more when the
// delayed syncs began to share the DaemonSet's one waiting entry of the controller's delaying
// queue (ROLL-5: the minReadySeconds requeues that queue merges no longer each ran a sync).
// They are 1.36.3's trajectories, pinned with Options.Version (the default release is the
// newest).
func TestTrajectoryDigests(t *testing.T) {
	events := []rollout.Event{
		{After: 20 * time.Second, Type: rollout.EventNodeNotReady, Node: "node-00003"},
		{After: 50 * time.Second, Type: rollout.EventNodeReady, Node: "node-00003"},
		{After: 70 * time.Second, Type: rollout.EventNodeRemoved, Node: "node-00005"},
	}
	kubelet := rollout.Kubelet{Startup: rollout.Distribution{Min: 5 * time.Second, Max: 30 * time.Second},
		Termination: rollout.Distribution{Max: 3 * time.Second}, CrashLoop: 0.05, Failed: 0.05}
	for _, tc := range []struct {
		name     string
		mu, ms   intstr.IntOrString
		minReady int32
		nodes    int
		model    rollout.SyncModel
		burst    int
		events   bool
		want     string
	}{
		{name: "mu=10%", mu: intstr.FromString("10%"), ms: intstr.FromInt32(0), nodes: 300, want: "70683aa03f452d32"},
		{name: "mu=1/burst=3", mu: intstr.FromInt32(1), ms: intstr.FromInt32(0), nodes: 40, burst: 3, events: true, want: "a19a90109fe348c5"},
		{name: "ms=25%", mu: intstr.FromInt32(0), ms: intstr.FromString("25%"), nodes: 200, events: true, want: "792d2ed78840c471"},
		{name: "ms=1/unobserved", mu: intstr.FromInt32(0), ms: intstr.FromInt32(1), nodes: 30, model: rollout.SyncUnobserved, want: "d27a4ea5c2992ce8"},
		{name: "mu=30%/unobserved", mu: intstr.FromString("30%"), ms: intstr.FromInt32(0), nodes: 100, model: rollout.SyncUnobserved, events: true, want: "496d2e6bb51a7093"},
		{name: "mu=50%/burst=5", mu: intstr.FromString("50%"), ms: intstr.FromInt32(0), nodes: 80, burst: 5, want: "bcbb22321bb232fd"},
		{name: "mu=20%/minReady=10", mu: intstr.FromString("20%"), ms: intstr.FromInt32(0), minReady: 10, nodes: 60, events: true, want: "b06709cec25cdb2d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settledAt(t, agent(tc.mu, tc.ms, "agent:1", tc.minReady), tc.nodes-2, v1363)
			s.Nodes = append(s.Nodes[:len(s.Nodes):len(s.Nodes)], nodes(tc.nodes)[tc.nodes-2:]...)
			next := agent(tc.mu, tc.ms, "agent:2", tc.minReady)
			opts := rollout.Options{Version: v1363, Start: t0, Seed: 7, Model: tc.model, BurstLimit: tc.burst, Kubelet: kubelet}
			if tc.events {
				opts.Events = events
			}
			traj, err := rollout.Simulate(s, next, opts)
			require.NoError(t, err)
			b, err := json.Marshal(struct {
				Steps []rollout.Step
				End   any
				At    time.Time
				Q     bool
			}{traj.Steps, traj.End, traj.EndTime, traj.Quiescent})
			require.NoError(t, err)
			sum := sha256.Sum256(b)
			require.Equal(t, tc.want, hex.EncodeToString(sum[:8]), "%d steps", len(traj.Steps))
		})
	}
}

// v1363 is the release the pinned trajectories were taken with.
var v1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()
