package daemonset_test

// A rollout simulation: a cluster runs a DaemonSet on revision A, the template changes, and
// package rollout plays the controller, the API server, the scheduler and the kubelets on a
// virtual clock until nothing more happens. After every sync the test checks the promises of
// the rolling update (UPD-8, UPD-11): no more unavailable nodes than maxUnavailable allows
// beyond those unavailable at the start, no more extra pods than maxSurge allows; at the end,
// every node that should run the daemon runs one available pod of revision B and one more plan
// does nothing. Both sync models run every case (ROLL-7).

import (
	"fmt"
	"strconv"
	"strings"
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

var simT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type simStrategy struct {
	name           string
	maxUnavailable intstr.IntOrString
	maxSurge       intstr.IntOrString
	// resolve gives the resolved budgets for the invariants (UPD-5), given the cluster size.
	resolve func(nodes int) (mu, ms int)
}

// simDaemonSet is the tests' DaemonSet as the agent of kube-system, running image under the
// strategy s.
func simDaemonSet(s simStrategy, image string, minReady int32) *appsv1.DaemonSet {
	mu, ms := s.maxUnavailable, s.maxSurge
	return apitest.DaemonSet(apitest.Rolling(&mu, &ms), func(ds *appsv1.DaemonSet) {
		ds.Namespace, ds.Name, ds.UID = "kube-system", "agent", "uid-agent"
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "agent"}
		ds.Spec.Template.Labels = map[string]string{"app": "agent"}
		ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: image}}
		ds.Spec.Template.Spec.DNSPolicy = v1.DNSClusterFirst
		ds.Spec.MinReadySeconds = minReady
	})
}

// nodeIndex is i of node-%05d.
func nodeIndex(name string) int {
	i, _ := strconv.Atoi(strings.TrimPrefix(name, "node-"))
	return i
}

// simCensus is what the invariants look at. Terminating pods are counted nowhere: they are on
// their way out and the rolling update ignores them too (UPD-8, UPD-11).
type simCensus struct {
	unavailableNodes int // untainted nodes without an available, non-terminating daemon pod
	extraPods        int // non-terminating pods beyond one per node
	updatedAvailable int // untainted nodes whose only pod is of hash and available
	onTainted        int // non-terminating pods on tainted nodes
}

func census(s daemonset.Snapshot, hash string, minReady int32, now time.Time) simCensus {
	type nodeView struct {
		tainted                           bool
		pods, available, updatedAvailable int
	}
	views := make(map[string]*nodeView, len(s.Nodes))
	for _, n := range s.Nodes {
		views[n.Name] = &nodeView{tainted: len(n.Spec.Taints) > 0}
	}
	var c simCensus
	for _, p := range s.Pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		v := views[p.Spec.NodeName]
		v.pods++
		if simAvailable(p, minReady, now) {
			v.available++
			if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
				v.updatedAvailable++
			}
		}
	}
	for _, v := range views {
		if v.pods > 1 {
			c.extraPods += v.pods - 1
		}
		if v.tainted {
			c.onTainted += v.pods
			continue
		}
		if v.available == 0 {
			c.unavailableNodes++
		}
		if v.pods == 1 && v.updatedAvailable == 1 {
			c.updatedAvailable++
		}
	}
	return c
}

// simAvailable is UPD-12 written out independently for the census.
func simAvailable(pod *v1.Pod, minReady int32, now time.Time) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			if c.Status != v1.ConditionTrue {
				return false
			}
			return minReady == 0 || (!c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).After(now))
		}
	}
	return false
}

// settle runs revision A on n nodes until nothing more happens, every pod Ready at once an hour
// before simT0, except that brokenEvery > 0 leaves the pod of every brokenEvery-th node
// crash-looping.
func settle(t *testing.T, ds *appsv1.DaemonSet, n, brokenEvery int) daemonset.Snapshot {
	t.Helper()
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		nodes[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)}}
	}
	traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes}, ds, rollout.Options{Version: v1363,
		Start: simT0.Add(-time.Hour),
		Kubelet: rollout.Kubelet{Fate: func(p *v1.Pod) rollout.Fate {
			if brokenEvery > 0 && nodeIndex(p.Spec.NodeName)%brokenEvery == 0 {
				return rollout.FateCrashLoop
			}
			return rollout.FateReady
		}},
	})
	require.NoError(t, err)
	require.True(t, traj.Quiescent, "the cluster did not settle on revision A")
	return traj.End
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func TestRolloutSimulation(t *testing.T) {
	t.Parallel()
	percent := func(p int) func(int) int { return func(n int) int { return ceilDiv(p*n, 100) } }
	strategies := []simStrategy{
		{name: "mu=1", maxUnavailable: intstr.FromInt32(1), maxSurge: intstr.FromInt32(0),
			resolve: func(int) (int, int) { return 1, 0 }},
		{name: "mu=25%", maxUnavailable: intstr.FromString("25%"), maxSurge: intstr.FromInt32(0),
			resolve: func(n int) (int, int) { return percent(25)(n), 0 }},
		{name: "ms=1", maxUnavailable: intstr.FromInt32(0), maxSurge: intstr.FromInt32(1),
			resolve: func(int) (int, int) { return 0, 1 }},
		{name: "ms=50%", maxUnavailable: intstr.FromInt32(0), maxSurge: intstr.FromString("50%"),
			resolve: func(n int) (int, int) { return 0, percent(50)(n) }},
	}
	type simCase struct {
		strategy    simStrategy
		nodes       int
		minReady    int32
		brokenEvery int // the pod of revision A on every brokenEvery-th node never turns Ready
		// taintEvery > 0 taints every taintEvery-th node NoSchedule with the template change:
		// its old pod is replaced by nothing (UPD-10, UPD-11 ineligible candidates).
		taintEvery int
	}
	var cases []simCase
	for _, s := range strategies {
		sizes := []int{10, 100, 1000}
		if mu, ms := s.resolve(1000); max(mu, ms) == 1 {
			// One node at a time: 1000 nodes take thousands of syncs; 10 and 100 show the same.
			sizes = []int{10, 100}
		}
		for _, n := range sizes {
			cases = append(cases, simCase{strategy: s, nodes: n})
		}
		cases = append(cases,
			simCase{strategy: s, nodes: 20, minReady: 15},
			simCase{strategy: s, nodes: 20, minReady: 5, brokenEvery: 7},
			simCase{strategy: s, nodes: 30, taintEvery: 4},
			simCase{strategy: s, nodes: 30, minReady: 5, brokenEvery: 5, taintEvery: 3})
	}
	for _, tc := range cases {
		for _, model := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
			name := fmt.Sprintf("%s/nodes=%d/minReady=%d/brokenEvery=%d/taintEvery=%d/%s", tc.strategy.name, tc.nodes, tc.minReady, tc.brokenEvery, tc.taintEvery, model)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if tc.nodes > 100 && (testing.Short() || model == rollout.SyncUnobserved) {
					t.Skip("large: the observed model runs it")
				}
				s := settle(t, simDaemonSet(tc.strategy, "agent:1.0", tc.minReady), tc.nodes, tc.brokenEvery)

				// The template changes: a new hash (UPD-19); some nodes are tainted.
				dsB := simDaemonSet(tc.strategy, "agent:2.0", tc.minReady)
				tainted := 0
				for i, n := range s.Nodes {
					if tc.taintEvery > 0 && i%tc.taintEvery == 0 {
						n = n.DeepCopy()
						n.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
						s.Nodes[i] = n
						tainted++
					}
				}
				desired := tc.nodes - tainted
				planB, err := daemonset.Plan(dsB, s.Nodes, s.Pods, daemonset.Options{Version: v1363, Now: simT0})
				require.NoError(t, err)
				hashB := planB.RevisionHash

				mu, ms := tc.strategy.resolve(desired)
				start := census(s, hashB, tc.minReady, simT0)
				require.Zero(t, start.extraPods)
				if tc.brokenEvery == 0 {
					require.Zero(t, start.unavailableNodes)
				}
				// Each wave replaces at least one budget's worth of nodes within the slowest
				// start-up (30 s), a termination (2 s), minReadySeconds and its requeue (1 s);
				// every node needs a few syncs that act (a delete, a create, a replacement).
				budget := max(mu, ms, 1)
				wave := 30*time.Second + 2*time.Second + time.Duration(tc.minReady)*time.Second + time.Second
				maxDuration := time.Duration(ceilDiv(tc.nodes, budget)+2) * wave
				maxActing := 4*tc.nodes + 10

				opts := rollout.Options{Version: v1363,
					Start: simT0, Seed: uint64(tc.nodes), Model: model,
					// Readiness takes 10 to 30 s, varying from pod to pod.
					Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: 10 * time.Second, Max: 30 * time.Second}, Termination: rollout.Fixed(2 * time.Second)},
					AfterSync: func(step rollout.Step, s daemonset.Snapshot) {
						got := census(s, hashB, tc.minReady, step.At)
						if ms == 0 {
							require.LessOrEqual(t, got.unavailableNodes, start.unavailableNodes+mu,
								"%s: more unavailable nodes than maxUnavailable allows", step.At)
							require.Zero(t, got.extraPods, "%s: a node runs two pods without surge", step.At)
						} else {
							// With surge an old pod goes only once its node has another available
							// pod or was unavailable already (UPD-11); nodes whose old pod is
							// unavailable get their new pod without spending maxSurge.
							require.LessOrEqual(t, got.unavailableNodes, start.unavailableNodes,
								"%s: surge made a node unavailable", step.At)
							require.LessOrEqual(t, got.extraPods, ms+start.unavailableNodes,
								"%s: more extra pods than maxSurge", step.At)
						}
					},
				}
				traj, err := rollout.Simulate(s, dsB, opts)
				require.NoError(t, err)
				require.True(t, traj.Quiescent)
				acting := len(traj.Acting())
				end := census(traj.End, hashB, tc.minReady, traj.EndTime)
				// With surge and minReadySeconds the controller can wait for a sync no event
				// brings (ROLL-5): a surge pod turned Ready while the DaemonSet's one delayed
				// entry was waiting, the status counts only each node's oldest pod (STAT-15
				// queues nothing) and the surge path queues nothing (SYNC-8). kube-controller-manager
				// then waits for its informers' resync; here the next sync comes once every Ready
				// pod is available, and the rollout goes on from there.
				for resyncs := 0; end.updatedAvailable < desired; resyncs++ {
					require.Less(t, resyncs, 3, "the rollout stalls with every Ready pod available")
					require.Positive(t, ms, "only surge waits for a resync")
					require.Positive(t, tc.minReady, "only minReadySeconds waits for a resync")
					next := opts
					next.Start = traj.EndTime.Add(time.Duration(tc.minReady) * time.Second)
					traj, err = rollout.Simulate(traj.End, dsB, next)
					require.NoError(t, err)
					require.True(t, traj.Quiescent)
					acting += len(traj.Acting())
					end = census(traj.End, hashB, tc.minReady, traj.EndTime)
				}
				require.LessOrEqual(t, traj.LastChange.Sub(simT0), maxDuration, "the rollout took too long")
				require.LessOrEqual(t, acting, maxActing, "the rollout took too many syncs")
				require.Equal(t, desired, end.updatedAvailable)
				require.Zero(t, end.onTainted)
				require.Zero(t, end.extraPods)

				// Complete means quiet: one more sync does nothing, and Progress agrees (ROLL-8).
				res, err := daemonset.Plan(dsB, traj.End.Nodes, traj.End.Pods, daemonset.Options{Version: v1363, Now: traj.EndTime})
				require.NoError(t, err)
				require.Empty(t, res.Create)
				require.Empty(t, res.Delete)
				require.True(t, res.RollingUpdate.Acted)
				rep, err := rollout.Progress(traj.End, dsB, rollout.ProgressOptions{Version: v1363, Now: traj.EndTime})
				require.NoError(t, err)
				require.Equal(t, rollout.StateComplete, rep.State, rep.Message)
			})
		}
	}
}
