package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/rollout"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// agent is the tests' DaemonSet under the budgets mu and ms, running image.
func agent(mu, ms intstr.IntOrString, image string, minReady int32) *appsv1.DaemonSet {
	return apitest.DaemonSet(apitest.Rolling(&mu, &ms), func(ds *appsv1.DaemonSet) {
		ds.Namespace, ds.Name, ds.UID = "kube-system", "agent", "uid-agent"
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "agent"}
		ds.Spec.Template.Labels = map[string]string{"app": "agent"}
		ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: image}}
		ds.Spec.MinReadySeconds = minReady
		ds.Generation = 1
	})
}

func nodes(n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		out[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)}}
	}
	return out
}

// settled runs ds on n nodes until nothing more happens, every pod Ready at once.
func settled(t testing.TB, ds *appsv1.DaemonSet, n int) daemonset.Snapshot {
	t.Helper()
	traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes(n)}, ds, rollout.Options{Start: t0.Add(-time.Hour)})
	require.NoError(t, err)
	require.True(t, traj.Quiescent)
	return traj.End
}

// census counts, in s, the nodes without an available non-terminating pod of ds and the
// non-terminating pods beyond one per node.
func census(s daemonset.Snapshot, ds *appsv1.DaemonSet, now time.Time) (unavailable, extra, updated int, hash string) {
	res, err := daemonset.Plan(ds, s.Nodes, s.Pods, daemonset.Options{Now: now})
	if err != nil {
		panic(err)
	}
	hash = res.RevisionHash
	per := map[string][]*v1.Pod{}
	for _, p := range s.Pods {
		if p.DeletionTimestamp == nil {
			per[p.Spec.NodeName] = append(per[p.Spec.NodeName], p)
		}
	}
	for _, n := range s.Nodes {
		pods := per[n.Name]
		if len(pods) > 1 {
			extra += len(pods) - 1
		}
		ok := false
		for _, p := range pods {
			for _, c := range p.Status.Conditions {
				if c.Type == v1.PodReady && c.Status == v1.ConditionTrue &&
					!c.LastTransitionTime.Add(time.Duration(ds.Spec.MinReadySeconds)*time.Second).After(now) {
					ok = true
					if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash && len(pods) == 1 {
						updated++
					}
				}
			}
		}
		if !ok {
			unavailable++
		}
	}
	return unavailable, extra, updated, hash
}

// TestSimulateRollingUpdate: a template change rolls out to completion when every pod turns
// Ready, within maxUnavailable (no surge) or maxSurge at every sync (UPD-8, UPD-11, ROLL-5),
// under both sync models (ROLL-7), and the end is Complete for Progress (ROLL-8).
func TestSimulateRollingUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		mu, ms   intstr.IntOrString
		budget   int
		minReady int32
	}{
		{"mu=1", intstr.FromInt32(1), intstr.FromInt32(0), 1, 0},
		{"mu=25%", intstr.FromString("25%"), intstr.FromInt32(0), 5, 0},
		{"mu=25%/minReady=10", intstr.FromString("25%"), intstr.FromInt32(0), 5, 10},
		{"ms=1", intstr.FromInt32(0), intstr.FromInt32(1), 1, 0},
		{"ms=50%", intstr.FromInt32(0), intstr.FromString("50%"), 10, 5},
	} {
		for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
			t.Run(tc.name+"/"+model.String(), func(t *testing.T) {
				t.Parallel()
				s := settled(t, agent(tc.mu, tc.ms, "agent:1", tc.minReady), 20)
				next := agent(tc.mu, tc.ms, "agent:2", tc.minReady)
				next.Generation = 2
				surge := tc.ms.IntValue() > 0 || tc.ms.Type == intstr.String
				traj, err := rollout.Simulate(s, next, rollout.Options{
					Start: t0, Seed: 7, Model: model,
					Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: 20 * time.Second, Max: 40 * time.Second}, Termination: rollout.Fixed(2 * time.Second)},
					AfterSync: func(step rollout.Step, s daemonset.Snapshot) {
						unavailable, extra, _, _ := census(s, next, step.At)
						if surge {
							require.Zero(t, unavailable, "%s: surge made a node unavailable", step.At)
							require.LessOrEqual(t, extra, tc.budget, "%s: more extra pods than maxSurge", step.At)
						} else {
							require.LessOrEqual(t, unavailable, tc.budget, "%s: more unavailable than maxUnavailable", step.At)
							require.Zero(t, extra, "%s: two pods on a node without surge", step.At)
						}
					},
				})
				require.NoError(t, err)
				require.True(t, traj.Quiescent)
				_, _, updated, _ := census(traj.End, next, traj.EndTime)
				require.Equal(t, 20, updated)
				rep, err := rollout.Progress(traj.End, next, rollout.ProgressOptions{Now: traj.EndTime})
				require.NoError(t, err)
				require.Equal(t, rollout.StateComplete, rep.State, rep.Message)
			})
		}
	}
}
