package daemonset_test

// A rollout simulation: a cluster runs a DaemonSet on revision A, the template changes, and the
// test plays the controller, the API server, the scheduler and the kubelets in turn (plan, apply,
// advance the clock, pods turn Ready after a delay) until every node runs an available pod of
// the new revision. At every step it checks the promises of the rolling update (UPD-8, UPD-11):
// no more unavailable nodes than maxUnavailable allows beyond those unavailable at the start,
// no more extra pods than maxSurge allows, and completion within a bounded number of steps.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
)

// simStep is the simulated time between two syncs.
const simStep = 10 * time.Second

var simT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type simStrategy struct {
	name           string
	maxUnavailable intstr.IntOrString
	maxSurge       intstr.IntOrString
	// resolved budgets for the invariants (UPD-5), given the cluster size.
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

// simPod is a pod of the simulated cluster with the instant its kubelet reports it Ready.
type simPod struct {
	pod     *v1.Pod
	readyAt time.Time // zero: never turns Ready by itself
}

type simCluster struct {
	t       *testing.T
	ds      *appsv1.DaemonSet
	nodes   []*v1.Node
	pods    []*simPod
	now     time.Time
	created int
}

func newSimCluster(t *testing.T, ds *appsv1.DaemonSet, n int) *simCluster {
	c := &simCluster{t: t, ds: ds, now: simT0}
	for i := range n {
		c.nodes = append(c.nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)}})
	}
	return c
}

func (c *simCluster) podList() []*v1.Pod {
	pods := make([]*v1.Pod, len(c.pods))
	for i, sp := range c.pods {
		pods[i] = sp.pod
	}
	return pods
}

// plan runs one sync and fails the test on an inconsistent snapshot or a rolling-update error.
func (c *simCluster) plan() *daemonset.Result {
	c.t.Helper()
	res, err := daemonset.Plan(c.ds, c.nodes, c.podList(), daemonset.Options{Now: c.now})
	require.NoError(c.t, err)
	require.Empty(c.t, res.Skipped)
	if ru := res.RollingUpdate; ru != nil {
		require.Empty(c.t, ru.Error, "rolling update failed")
	}
	return res
}

// apply plays the API server, the scheduler and the kubelets: pods marked for deletion in the
// previous step are gone now (their grace period is one step), deleted pods become terminating,
// created pods are bound to their node and start Running, Ready after readyDelay(name).
func (c *simCluster) apply(res *daemonset.Result, readyDelay func(seq int) time.Duration) {
	c.t.Helper()
	kept := c.pods[:0]
	for _, sp := range c.pods {
		if sp.pod.DeletionTimestamp == nil {
			kept = append(kept, sp)
		}
	}
	c.pods = kept
	byName := make(map[string]*simPod, len(c.pods))
	for _, sp := range c.pods {
		byName[sp.pod.Name] = sp
	}
	for _, d := range res.Delete {
		sp, ok := byName[d.Name]
		require.True(c.t, ok, "delete of unknown pod %s", d.Name)
		require.Nil(c.t, sp.pod.DeletionTimestamp, "pod %s deleted twice", d.Name)
		sp.pod.DeletionTimestamp = &metav1.Time{Time: c.now}
	}
	for _, ref := range res.Adopt {
		sp := byName[ref.Name]
		sp.pod.OwnerReferences = append(sp.pod.OwnerReferences, *metav1.NewControllerRef(c.ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")))
	}
	for _, ref := range res.Release {
		byName[ref.Name].pod.OwnerReferences = nil
	}
	for _, cr := range res.Create {
		require.NotNil(c.t, cr.Pod, "create on %s without a pod", cr.Node)
		pod := cr.Pod.DeepCopy()
		c.created++
		pod.Name = fmt.Sprintf("agent-%06d", c.created)
		pod.UID = types.UID("uid-" + pod.Name)
		pod.Namespace = c.ds.Namespace
		pod.CreationTimestamp = metav1.NewTime(c.now)
		pod.Spec.NodeName = cr.Node
		pod.Status = v1.PodStatus{
			Phase:      v1.PodRunning,
			Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: metav1.NewTime(c.now)}},
		}
		c.pods = append(c.pods, &simPod{pod: pod, readyAt: c.now.Add(readyDelay(c.created))})
	}
}

// advance moves the clock one step and lets the kubelets report readiness.
func (c *simCluster) advance() {
	c.now = c.now.Add(simStep)
	for _, sp := range c.pods {
		cond := &sp.pod.Status.Conditions[0]
		if cond.Status != v1.ConditionTrue && !sp.readyAt.IsZero() && !sp.readyAt.After(c.now) {
			cond.Status = v1.ConditionTrue
			cond.LastTransitionTime = metav1.NewTime(sp.readyAt)
		}
	}
}

// simCensus is what the invariants look at. Terminating pods are counted nowhere: they are on
// their way out and the rolling update ignores them too (UPD-8, UPD-11).
type simCensus struct {
	unavailableNodes int // untainted nodes without an available, non-terminating daemon pod
	extraPods        int // non-terminating pods beyond one per node
	updatedAvailable int // untainted nodes whose only pod is of hash and available
	onTainted        int // non-terminating pods on tainted nodes
	terminating      int
}

// simTainted reports whether the node carries the NoSchedule taint of the simulation: such a
// node should not run the daemon but may keep its pod (ELIG-4).
func simTainted(n *v1.Node) bool { return len(n.Spec.Taints) > 0 }

func (c *simCluster) census(hash string) simCensus {
	type nodeView struct {
		tainted                           bool
		pods, available, updatedAvailable int
	}
	views := make(map[string]*nodeView, len(c.nodes))
	for _, n := range c.nodes {
		views[n.Name] = &nodeView{tainted: simTainted(n)}
	}
	var s simCensus
	for _, sp := range c.pods {
		if sp.pod.DeletionTimestamp != nil {
			s.terminating++
			continue
		}
		v := views[sp.pod.Spec.NodeName]
		v.pods++
		if simAvailable(sp.pod, c.ds.Spec.MinReadySeconds, c.now) {
			v.available++
			if sp.pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
				v.updatedAvailable++
			}
		}
	}
	for _, v := range views {
		if v.pods > 1 {
			s.extraPods += v.pods - 1
		}
		if v.tainted {
			s.onTainted += v.pods
			continue
		}
		if v.available == 0 {
			s.unavailableNodes++
		}
		if v.pods == 1 && v.updatedAvailable == 1 {
			s.updatedAvailable++
		}
	}
	return s
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

// settle runs syncs until the plan is empty, making every created pod Ready at once and long
// ago: the cluster at revision A before the rollout. brokenEvery > 0 leaves every brokenEvery-th
// created pod never Ready.
func (c *simCluster) settle(brokenEvery int) {
	c.t.Helper()
	for range 5 {
		res := c.plan()
		if len(res.Create)+len(res.Delete) == 0 {
			return
		}
		c.apply(res, func(int) time.Duration { return 0 })
		for _, sp := range c.pods {
			seq := 0
			fmt.Sscanf(sp.pod.Name, "agent-%d", &seq)
			if brokenEvery > 0 && seq%brokenEvery == 0 {
				sp.readyAt = time.Time{}
				continue
			}
			sp.pod.CreationTimestamp = metav1.NewTime(simT0.Add(-time.Hour))
			sp.pod.Status.Conditions[0] = v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(simT0.Add(-time.Hour))}
		}
	}
	c.t.Fatal("the cluster did not settle on revision A")
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
		brokenEvery int // every brokenEvery-th pod of revision A never turns Ready
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
		name := fmt.Sprintf("%s/nodes=%d/minReady=%d/brokenEvery=%d/taintEvery=%d", tc.strategy.name, tc.nodes, tc.minReady, tc.brokenEvery, tc.taintEvery)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsA := simDaemonSet(tc.strategy, "agent:1.0", tc.minReady)
			c := newSimCluster(t, dsA, tc.nodes)
			c.settle(tc.brokenEvery)
			hashA := c.plan().RevisionHash

			// The template changes: a new hash (UPD-19).
			c.ds = simDaemonSet(tc.strategy, "agent:2.0", tc.minReady)
			tainted := 0
			for i, n := range c.nodes {
				if tc.taintEvery > 0 && i%tc.taintEvery == 0 {
					n.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
					tainted++
				}
			}
			desired := tc.nodes - tainted
			hashB := c.plan().RevisionHash
			require.NotEqual(t, hashA, hashB)

			mu, ms := tc.strategy.resolve(desired)
			start := c.census(hashB)
			require.Zero(t, start.extraPods)
			if tc.brokenEvery == 0 {
				require.Zero(t, start.unavailableNodes)
			}
			// Each wave replaces at least one budget's worth of nodes in a few steps: a delete,
			// a grace period, a create, readiness (up to 3 steps) and minReadySeconds.
			budget := max(mu, ms, 1)
			perWave := 6 + int(tc.minReady)/int(simStep/time.Second) + 1
			maxSteps := (ceilDiv(tc.nodes, budget) + 2) * perWave

			// Readiness takes 1 to 3 steps, varying from pod to pod.
			delay := func(seq int) time.Duration { return time.Duration(1+seq%3) * simStep }
			for step := 0; ; step++ {
				require.Less(t, step, maxSteps, "the rollout did not complete in %d steps", maxSteps)
				res := c.plan()
				require.Equal(t, hashB, res.RevisionHash)
				c.apply(res, delay)

				// Invariants at the instant the plan was applied, the worst moment: deletions
				// done, nothing has had time to turn Ready.
				got := c.census(hashB)
				if ms == 0 {
					require.LessOrEqual(t, got.unavailableNodes, start.unavailableNodes+mu,
						"step %d: more unavailable nodes than maxUnavailable allows", step)
					require.Zero(t, got.extraPods, "step %d: a node runs two pods without surge", step)
				} else {
					// With surge an old pod goes only once its node has another available pod
					// or was unavailable already (UPD-11); nodes whose old pod is unavailable
					// get their new pod without spending maxSurge.
					require.LessOrEqual(t, got.unavailableNodes, start.unavailableNodes,
						"step %d: surge made a node unavailable", step)
					require.LessOrEqual(t, got.extraPods, ms+start.unavailableNodes,
						"step %d: more extra pods than maxSurge", step)
				}
				if got.updatedAvailable == desired && got.onTainted == 0 && got.terminating == 0 && got.extraPods == 0 {
					break
				}
				c.advance()
			}
			// Complete means quiet: one more sync does nothing.
			res := c.plan()
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
			require.True(t, res.RollingUpdate.Acted)
		})
	}
}
