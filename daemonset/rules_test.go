package daemonset_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rules that no other test cites by name, one small table per rule, each case through the
// public API with its inputs deep-copied and compared afterwards. Conventions: DaemonSet rt in
// namespace ns, selector and template labels app=rt, OnDelete unless a case says otherwise,
// pods controlled by it, Running and not Ready; now = 1000.

var rtNow = time.Unix(1000, 0).UTC()

func rtOpts() daemonset.Options { return daemonset.Options{Now: rtNow} }

// rtDS is newDS under its own identity (ns/rt, generation 3), without typeMeta or
// revisionHistoryLimit.
func rtDS(mods ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.TypeMeta = metav1.TypeMeta{}
		ds.Name, ds.Namespace, ds.UID, ds.Generation = "rt", "ns", "uid-rt", 3
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "rt"}
		ds.Spec.Template.Labels = map[string]string{"app": "rt"}
		ds.Spec.RevisionHistoryLimit = nil
	})
	for _, m := range mods {
		m(ds)
	}
	return ds
}

func rtIOS(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }

// rtRolling sets the RollingUpdate strategy with the given budgets.
func rtRolling(maxUnavailable, maxSurge int) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
			Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{
				MaxUnavailable: rtIOS(maxUnavailable), MaxSurge: rtIOS(maxSurge),
			},
		}
	}
}

func rtHostNetwork(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }

func rtMinReady(sec int32) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = sec }
}

func rtHash(ds *appsv1.DaemonSet) string {
	return daemonset.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

func rtNode(name string, taints ...v1.Taint) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{Taints: taints}}
}

func rtTaint(key string, effect v1.TaintEffect) v1.Taint { return v1.Taint{Key: key, Effect: effect} }

var (
	rtNoSchedule = rtTaint("dedicated", v1.TaintEffectNoSchedule)
	rtNoExecute  = rtTaint("dedicated", v1.TaintEffectNoExecute)
)

func rtControllerRef(name string, uid types.UID) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name, UID: uid, Controller: &yes}
}

// rtPod is a pod of rtDS() bound to nodeName carrying hash, Running, not Ready, created at 1.
func rtPod(name, nodeName, hash string, mods ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns",
			Labels:            map[string]string{"app": "rt", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			OwnerReferences:   []metav1.OwnerReference{rtControllerRef("rt", "uid-rt")},
			CreationTimestamp: metav1.Unix(1, 0),
		},
		Spec:   v1.PodSpec{NodeName: nodeName},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

// rtReady makes the pod Ready since sec.
func rtReady(sec int64) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
			Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.Unix(sec, 0),
		})
	}
}

func rtPhase(ph v1.PodPhase) func(*v1.Pod) { return func(p *v1.Pod) { p.Status.Phase = ph } }

func rtOrphan(p *v1.Pod) { p.OwnerReferences = nil }

// rtPlan plans one sync of ds on the snapshot through Compile and (*Planner).Plan, and checks
// that no input was modified.
func rtPlan(t *testing.T, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs ...*appsv1.ControllerRevision) *daemonset.Result {
	t.Helper()
	return rtPlanWith(t, rtOpts(), ds, nodes, pods, revs...)
}

func rtPlanWith(t *testing.T, opts daemonset.Options, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs ...*appsv1.ControllerRevision) *daemonset.Result {
	t.Helper()
	s := daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs}
	require.Empty(t, daemonset.CheckSnapshot(s))
	before := rtCopy(ds, s)
	p, _ := daemonset.Compile(ds, opts)
	res := p.Plan(s)
	require.NotNil(t, res)
	rtRequireUnchanged(t, before, ds, s)
	return res
}

type rtInputs struct {
	ds   *appsv1.DaemonSet
	dss  []*appsv1.DaemonSet
	nds  []*v1.Node
	pods []*v1.Pod
	revs []*appsv1.ControllerRevision
}

func rtCopy(ds *appsv1.DaemonSet, s daemonset.Snapshot) rtInputs {
	c := rtInputs{}
	if ds != nil {
		c.ds = ds.DeepCopy()
	}
	for _, d := range s.DaemonSets {
		c.dss = append(c.dss, d.DeepCopy())
	}
	for _, n := range s.Nodes {
		c.nds = append(c.nds, n.DeepCopy())
	}
	for _, p := range s.Pods {
		c.pods = append(c.pods, p.DeepCopy())
	}
	for _, r := range s.Revisions {
		c.revs = append(c.revs, r.DeepCopy())
	}
	return c
}

func rtRequireUnchanged(t *testing.T, before rtInputs, ds *appsv1.DaemonSet, s daemonset.Snapshot) {
	t.Helper()
	after := rtCopy(ds, s)
	if d := cmp.Diff(before, after, cmp.AllowUnexported(rtInputs{})); d != "" {
		t.Fatalf("inputs were modified (-before +after):\n%s", d)
	}
}

func rtCreateNodes(res *daemonset.Result) []string {
	out := []string{}
	for _, c := range res.Create {
		out = append(out, c.Node)
	}
	return out
}

// rtDeletes lists the deletions as "name@node:reason".
func rtDeletes(res *daemonset.Result) []string {
	out := []string{}
	for _, d := range res.Delete {
		out = append(out, fmt.Sprintf("%s@%s:%s", d.Name, d.Node, d.Reason))
	}
	return out
}

func rtRefs(refs []daemonset.PodRef) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.Namespace+"/"+r.Name)
	}
	return out
}

// rtCounts is the seven status counters in STAT order: desired, current, misscheduled, ready,
// available, unavailable, updated.
type rtCounts [7]int32

func rtStatus(t *testing.T, res *daemonset.Result) rtCounts {
	t.Helper()
	require.NotNil(t, res.Status)
	s := res.Status
	return rtCounts{s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberMisscheduled,
		s.NumberReady, s.NumberAvailable, s.NumberUnavailable, s.UpdatedNumberScheduled}
}

func rtHasToleration(tols []v1.Toleration, key string, effect v1.TaintEffect) bool {
	return slices.ContainsFunc(tols, func(tol v1.Toleration) bool {
		return tol.Key == key && tol.Effect == effect && tol.Operator == v1.TolerationOpExists
	})
}

type rtCase struct {
	name string
	run  func(t *testing.T)
}

func rtRun(t *testing.T, cases []rtCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

func TestRulesDEFTOL(t *testing.T) {
	notReady := rtTaint(v1.TaintNodeNotReady, v1.TaintEffectNoExecute)
	netDown := rtTaint(v1.TaintNodeNetworkUnavailable, v1.TaintEffectNoSchedule)
	rtRun(t, []rtCase{
		{"DEFTOL-4 the merged defaults decide eligibility: a not-ready NoExecute node still runs the pod", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), rtOpts())
			e := p.Eligibility(rtNode("a", notReady, rtTaint(v1.TaintNodeDiskPressure, v1.TaintEffectNoSchedule)))
			require.True(t, e.ShouldRun)
			require.True(t, e.ShouldContinueRunning)
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a", notReady)}, nil)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
		}},
		{"DEFTOL-4 created pods carry the merged tolerations", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, nil)
			require.Len(t, res.Create, 1)
			tols := res.Create[0].Pod.Spec.Tolerations
			for _, key := range []string{v1.TaintNodeNotReady, v1.TaintNodeUnreachable} {
				require.True(t, rtHasToleration(tols, key, v1.TaintEffectNoExecute), key)
			}
			for _, key := range []string{v1.TaintNodeDiskPressure, v1.TaintNodeMemoryPressure, v1.TaintNodePIDPressure, v1.TaintNodeUnschedulable} {
				require.True(t, rtHasToleration(tols, key, v1.TaintEffectNoSchedule), key)
			}
		}},
		{"DEFTOL-4 the revision hash is computed from the template without the default tolerations", func(t *testing.T) {
			ds := rtDS()
			res := rtPlan(t, ds, []*v1.Node{rtNode("a")}, nil)
			require.Equal(t, rtHash(ds), res.RevisionHash)
			require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
			merged := ds.DeepCopy()
			merged.Spec.Template.Spec.Tolerations = res.Create[0].Pod.Spec.Tolerations
			require.NotEqual(t, rtHash(merged), res.RevisionHash)
		}},
		{"DEFTOL-6 a hostNetwork template tolerates the network-unavailable NoSchedule taint", func(t *testing.T) {
			ds := rtDS(rtHostNetwork)
			p, _ := daemonset.Compile(ds, rtOpts())
			require.True(t, p.Eligibility(rtNode("a", netDown)).ShouldRun)
			require.True(t, rtHasToleration(p.NewPod("a").Spec.Tolerations, v1.TaintNodeNetworkUnavailable, v1.TaintEffectNoSchedule))
		}},
		{"DEFTOL-6 without template hostNetwork the taint blocks placement, whatever the pods on the node use", func(t *testing.T) {
			ds := rtDS()
			ds.Spec.Template.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
			p, _ := daemonset.Compile(ds, rtOpts())
			e := p.Eligibility(rtNode("a", netDown))
			require.False(t, e.ShouldRun)
			require.True(t, e.ShouldContinueRunning)
			require.Equal(t, daemonset.ReasonTaintNotTolerated, e.Reason)
			require.False(t, rtHasToleration(p.NewPod("a").Spec.Tolerations, v1.TaintNodeNetworkUnavailable, v1.TaintEffectNoSchedule))
			hostPod := rtPod("p", "a", rtHash(ds), func(p *v1.Pod) { p.Spec.HostNetwork = true })
			res := rtPlan(t, ds, []*v1.Node{rtNode("a", netDown)}, []*v1.Pod{hostPod})
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, res))
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
		}},
	})
}

func TestRulesDIFF(t *testing.T) {
	h := rtHash(rtDS())
	rtRun(t, []rtCase{
		{"DIFF-1 every node of the node list is visited once, in any input order", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("c"), rtNode("a"), rtNode("b", rtNoSchedule)}
			res := rtPlan(t, rtDS(), nodes, nil)
			require.Equal(t, []string{"a", "c"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{2, 0, 0, 0, 0, 2, 0}, rtStatus(t, res))
		}},
		{"DIFF-1 pods grouped under node names missing from the node list are handled after the nodes", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), rtOpts())
			unscheduled := p.NewPod("gone")
			unscheduled.Name = "u"
			pods := []*v1.Pod{unscheduled, rtPod("bound", "gone2", h), rtPod("ok", "a", h)}
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b")}, pods)
			require.Equal(t, []string{"b"}, rtCreateNodes(res))
			require.Equal(t, []string{"u@gone:" + string(daemonset.ReasonUnscheduledOnMissingNode)}, rtDeletes(res))
			require.Equal(t, rtCounts{2, 1, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"DIFF-14 without surge a node with only a failed pod gets its delete and no create", func(t *testing.T) {
			for _, ds := range []*appsv1.DaemonSet{rtDS(), rtDS(rtRolling(1, 0))} {
				res := rtPlan(t, ds, []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("f", "a", h, rtPhase(v1.PodFailed))})
				require.Empty(t, res.Create)
				require.Equal(t, []string{"f@a:" + string(daemonset.ReasonFailedPod)}, rtDeletes(res))
			}
		}},
		{"DIFF-14 with surge the same node gets a delete and a create in one base diff", func(t *testing.T) {
			res := rtPlan(t, rtDS(rtRolling(0, 1)), []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("s", "a", h, rtPhase(v1.PodSucceeded))})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{"s@a:" + string(daemonset.ReasonSucceededPod)}, rtDeletes(res))
		}},
		{"DIFF-14 without surge a node with a running and a failed pod only deletes", func(t *testing.T) {
			pods := []*v1.Pod{rtPod("f", "a", h, rtPhase(v1.PodFailed)), rtPod("r", "a", h)}
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, pods)
			require.Empty(t, res.Create)
			require.Equal(t, []string{"f@a:" + string(daemonset.ReasonFailedPod)}, rtDeletes(res))
		}},
	})
}

func TestRulesELIG(t *testing.T) {
	h := rtHash(rtDS())
	rtRun(t, []rtCase{
		{"ELIG-8 eligibility ignores status, strategy, minReadySeconds, annotations and the clock", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("a"), rtNode("b", rtNoSchedule), rtNode("c", rtNoExecute)}
			base, _ := daemonset.Compile(rtDS(), rtOpts())
			want := []daemonset.Eligibility{}
			for _, n := range nodes {
				want = append(want, base.Eligibility(n))
			}
			require.Equal(t, []bool{true, false, false}, []bool{want[0].ShouldRun, want[1].ShouldRun, want[2].ShouldRun})
			require.Equal(t, []bool{true, true, false}, []bool{want[0].ShouldContinueRunning, want[1].ShouldContinueRunning, want[2].ShouldContinueRunning})
			variants := []*appsv1.DaemonSet{
				rtDS(rtRolling(2, 0)), rtDS(rtRolling(0, 3)), rtDS(rtMinReady(60)),
				rtDS(func(ds *appsv1.DaemonSet) {
					ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 9, NumberMisscheduled: 4, ObservedGeneration: 7}
					ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "5"}
					ds.Generation = 8
				}),
			}
			for i, ds := range variants {
				p, _ := daemonset.Compile(ds, daemonset.Options{Now: rtNow.Add(time.Duration(i+1) * time.Hour)})
				for j, n := range nodes {
					require.Equal(t, want[j], p.Eligibility(n), "variant %d node %s", i, n.Name)
				}
			}
		}},
		{"ELIG-8 pods on a node do not change whether it is desired", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("a"), rtNode("b", rtNoSchedule), rtNode("c")}
			pods := []*v1.Pod{rtPod("pa", "a", h, rtPhase(v1.PodFailed)), rtPod("pb", "b", h, rtReady(1)), rtPod("pc", "c", "old")}
			without := rtPlan(t, rtDS(), nodes, nil)
			with := rtPlan(t, rtDS(), nodes, pods)
			require.Equal(t, int32(2), without.Status.DesiredNumberScheduled)
			require.Equal(t, without.Status.DesiredNumberScheduled, with.Status.DesiredNumberScheduled)
		}},
		{"ELIG-9 a NoSchedule-tainted node keeps its pod, counts as misscheduled and is not desired", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b", rtNoSchedule)}, []*v1.Pod{rtPod("pb", "b", h)})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 1, 0, 0, 1, 0}, rtStatus(t, res))
		}},
		{"ELIG-9 a NoExecute-tainted node loses its pod in the base diff", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a", rtNoExecute)}, []*v1.Pod{rtPod("pa", "a", h)})
			require.Empty(t, res.Create)
			require.Equal(t, []string{"pa@a:" + string(daemonset.ReasonNodeNotEligible)}, rtDeletes(res))
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, res))
		}},
		{"ELIG-9 the surge rolling update replaces an unavailable old pod only where shouldRun holds", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("a"), rtNode("b", rtNoSchedule)}
			pods := []*v1.Pod{rtPod("pa", "a", "old"), rtPod("pb", "b", "old")}
			res := rtPlan(t, rtDS(rtRolling(0, 1)), nodes, pods)
			require.NotNil(t, res.RollingUpdate)
			require.True(t, res.RollingUpdate.Acted)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{"pb@b:" + string(daemonset.ReasonSurgeOldUnavailableIneligible)}, rtDeletes(res))
			require.Equal(t, 1, res.RollingUpdate.MaxSurge) // resolved against desired = 1
		}},
	})
}

func TestRulesOWN(t *testing.T) {
	h := rtHash(rtDS())
	other := rtControllerRef("other", "uid-other")
	mine := rtControllerRef("rt", "uid-rt")
	no := false
	notController := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "uid-cm", Controller: &no}
	owners := func(refs ...metav1.OwnerReference) func(*v1.Pod) {
		return func(p *v1.Pod) { p.OwnerReferences = refs }
	}
	rtRun(t, []rtCase{
		{"OWN-7 the first controller reference decides when this DaemonSet's comes first", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("p", "a", h, owners(mine, other))})
			require.Empty(t, res.Create)
			require.Empty(t, res.Adopt)
			require.Equal(t, rtCounts{1, 1, 0, 0, 0, 1, 1}, rtStatus(t, res))
		}},
		{"OWN-7 the first controller reference decides: another controller first makes the pod invisible", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("p", "a", h, owners(other, mine))})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Adopt)
			require.Empty(t, res.Release)
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
		{"OWN-7 references without controller: true before the first controller one are skipped", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("p", "a", h, owners(notController, mine, other))})
			require.Empty(t, res.Create)
			require.Empty(t, res.Adopt)
			require.Equal(t, int32(1), res.Status.CurrentNumberScheduled)
		}},
		{"OWN-8 an adopted old pod replaced by the rolling update is reported as adopted once", func(t *testing.T) {
			pods := []*v1.Pod{rtPod("o", "a", "old", rtOrphan), rtPod("n", "b", h)}
			res := rtPlan(t, rtDS(rtRolling(1, 0)), []*v1.Node{rtNode("a"), rtNode("b")}, pods)
			require.True(t, res.RollingUpdate.Acted)
			require.Equal(t, []string{"ns/o"}, rtRefs(res.Adopt))
			require.Equal(t, []string{"o@a:" + string(daemonset.ReasonUpdateOldUnavailable)}, rtDeletes(res))
			require.Equal(t, rtCounts{2, 2, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"OWN-8 a released pod is reported once and no step claims it again", func(t *testing.T) {
			stray := rtPod("x", "a", h, func(p *v1.Pod) { p.Labels = map[string]string{"app": "other"} })
			res := rtPlan(t, rtDS(rtRolling(1, 1)), []*v1.Node{rtNode("a")}, []*v1.Pod{stray})
			require.Equal(t, []string{"ns/x"}, rtRefs(res.Release))
			require.Empty(t, res.Adopt)
			require.Empty(t, res.Delete)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
	})
}

func TestRulesPOD(t *testing.T) {
	ds := rtDS(func(ds *appsv1.DaemonSet) {
		ds.Namespace = "team-a"
		ds.Spec.Template.Namespace = "elsewhere"
		ds.Spec.Template.OwnerReferences = []metav1.OwnerReference{rtControllerRef("x", "uid-x")}
	})
	yes := true
	wantRef := []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "DaemonSet", Name: "rt", UID: "uid-rt", Controller: &yes, BlockOwnerDeletion: &yes,
	}}
	created := func(t *testing.T) (*v1.Pod, *v1.Pod) {
		t.Helper()
		res := rtPlan(t, ds, []*v1.Node{rtNode("a")}, nil)
		require.Len(t, res.Create, 1)
		p, _ := daemonset.Compile(ds, rtOpts())
		return res.Create[0].Pod, p.NewPod("a")
	}
	h := rtHash(rtDS())
	rtRun(t, []rtCase{
		{"POD-2 the pod is placed in the DaemonSet's namespace, not the template's", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Equal(t, "team-a", fromPlan.Namespace)
			require.Equal(t, "team-a", fromNewPod.Namespace)
		}},
		{"POD-5 the pod has exactly one owner reference, the DaemonSet's blocking controller reference", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Empty(t, cmp.Diff(wantRef, fromPlan.OwnerReferences))
			require.Empty(t, cmp.Diff(wantRef, fromNewPod.OwnerReferences))
		}},
		{"POD-7 the pod status is empty, with no phase or conditions defaulted", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Empty(t, cmp.Diff(v1.PodStatus{}, fromPlan.Status))
			require.Empty(t, cmp.Diff(v1.PodStatus{}, fromNewPod.Status))
			surge := rtPlan(t, rtDS(rtRolling(0, 1)), []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("o", "a", "old", rtReady(1))})
			require.Len(t, surge.Create, 1)
			require.Empty(t, cmp.Diff(v1.PodStatus{}, surge.Create[0].Pod.Status))
		}},
		{"POD-9 a created pod fed back unscheduled is found on its node through its matchFields entry", func(t *testing.T) {
			first := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b")}, nil)
			require.Equal(t, []string{"a", "b"}, rtCreateNodes(first))
			pa := first.Create[0].Pod.DeepCopy()
			pa.Name = "pa"
			require.Empty(t, pa.Spec.NodeName)
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b")}, []*v1.Pod{pa})
			require.Equal(t, []string{"b"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{2, 1, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"POD-9 spec.nodeName wins over the matchFields entry once the pod is bound", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), rtOpts())
			pa := p.NewPod("a")
			pa.Name = "pa"
			pa.Spec.NodeName = "b"
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b")}, []*v1.Pod{pa})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
		}},
		{"POD-9 a pod tied to a node only by a hostname label expression has no node", func(t *testing.T) {
			pa := rtPod("pa", "", h, func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
						MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}},
					}}},
				}}
			})
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, []*v1.Pod{pa})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
	})
}

func TestRulesSTAT(t *testing.T) {
	h := rtHash(rtDS())
	rtRun(t, []rtCase{
		{"STAT-1 status counts the snapshot before the sync's creates and deletes", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("a"), rtNode("b"), rtNode("c", rtNoExecute)}
			pods := []*v1.Pod{rtPod("f", "b", h, rtPhase(v1.PodFailed)), rtPod("pc", "c", h, rtReady(1))}
			res := rtPlan(t, rtDS(), nodes, pods)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{
				"f@b:" + string(daemonset.ReasonFailedPod), "pc@c:" + string(daemonset.ReasonNodeNotEligible),
			}, rtDeletes(res))
			require.Equal(t, rtCounts{2, 1, 1, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"STAT-6 numberUnavailable is desired minus available, available counted on desired nodes only", func(t *testing.T) {
			ds := rtDS(rtMinReady(100))
			nodes := []*v1.Node{rtNode("a"), rtNode("b"), rtNode("c"), rtNode("d", rtNoSchedule)}
			pods := []*v1.Pod{
				rtPod("pa", "a", h, rtReady(1)),   // available at 1000
				rtPod("pb", "b", h, rtReady(950)), // ready, not yet available
				rtPod("pd", "d", h, rtReady(1)),   // available, but d is not desired
			}
			res := rtPlan(t, ds, nodes, pods)
			require.Equal(t, rtCounts{3, 2, 1, 2, 1, 2, 2}, rtStatus(t, res))
		}},
		{"STAT-6 numberUnavailable is zero when every desired node has an available pod", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{rtNode("a"), rtNode("b")}, []*v1.Pod{rtPod("pa", "a", h, rtReady(1)), rtPod("pb", "b", "old", rtReady(1))})
			require.Equal(t, rtCounts{2, 2, 0, 2, 2, 0, 1}, rtStatus(t, res))
		}},
		{"STAT-12 a pod that may continue running on a NoSchedule node counts exactly as on a NoExecute node", func(t *testing.T) {
			pod := []*v1.Pod{rtPod("p", "a", h, rtReady(1))}
			clean := rtPlan(t, rtDS(), []*v1.Node{rtNode("a")}, pod)
			require.Equal(t, rtCounts{1, 1, 0, 1, 1, 0, 1}, rtStatus(t, clean))
			noSchedule := rtPlan(t, rtDS(), []*v1.Node{rtNode("a", rtNoSchedule)}, pod)
			noExecute := rtPlan(t, rtDS(), []*v1.Node{rtNode("a", rtNoExecute)}, pod)
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, noSchedule))
			require.Empty(t, noSchedule.Delete)
			require.Len(t, noExecute.Delete, 1)
			require.Equal(t, rtStatus(t, noSchedule), rtStatus(t, noExecute))
		}},
	})
}

func TestRulesUPD(t *testing.T) {
	h := rtHash(rtDS())
	rev := func(t *testing.T, ds *appsv1.DaemonSet, hash string, n int64) *appsv1.ControllerRevision {
		t.Helper()
		r, err := daemonset.NewRevision(ds, hash, n)
		require.NoError(t, err)
		return r
	}
	image := func(img string) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = img }
	}
	rtRun(t, []rtCase{
		{"UPD-18 the revision number of the current revision plays no part in the plan", func(t *testing.T) {
			ds := rtDS(rtRolling(1, 0))
			nodes := []*v1.Node{rtNode("a"), rtNode("b")}
			pods := []*v1.Pod{rtPod("pa", "a", "custom", rtReady(1)), rtPod("pb", "b", "older", rtReady(1))}
			old := rev(t, rtDS(image("v0")), "older", 99)
			low := rtPlan(t, ds, nodes, pods, rev(t, ds, "custom", 1), old)
			high := rtPlan(t, ds, nodes, pods, rev(t, ds, "custom", 142), old)
			require.Equal(t, "custom", low.RevisionHash)
			require.Equal(t, []string{"pb@b:" + string(daemonset.ReasonUpdateOldCandidate)}, rtDeletes(low))
			require.Equal(t, rtCounts{2, 2, 0, 2, 2, 0, 1}, rtStatus(t, low))
			require.Empty(t, cmp.Diff(low, high))
		}},
		{"UPD-20 a surge create is the ordinary daemon pod for its node", func(t *testing.T) {
			ds := rtDS(rtRolling(0, 1))
			res := rtPlan(t, ds, []*v1.Node{rtNode("a")}, []*v1.Pod{rtPod("o", "a", "old", rtReady(1))})
			require.True(t, res.RollingUpdate.Acted)
			require.Len(t, res.Create, 1)
			p, _ := daemonset.Compile(ds, rtOpts())
			require.Empty(t, cmp.Diff(p.NewPod("a"), res.Create[0].Pod))
			require.Equal(t, h, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
		}},
		{"UPD-20 rolling-update creates go through the burst cap", func(t *testing.T) {
			ds := rtDS(rtRolling(0, 3))
			nodes := []*v1.Node{rtNode("a"), rtNode("b"), rtNode("c")}
			pods := []*v1.Pod{rtPod("oa", "a", "old", rtReady(1)), rtPod("ob", "b", "old", rtReady(1)), rtPod("oc", "c", "old", rtReady(1))}
			uncapped := rtPlan(t, ds, nodes, pods)
			require.Len(t, uncapped.Create, 3)
			capped := rtPlanWith(t, daemonset.Options{Now: rtNow, BurstLimit: 2}, ds, nodes, pods)
			require.True(t, capped.RollingUpdate.Acted)
			require.Len(t, capped.Create, 2)
			require.Empty(t, capped.Delete)
		}},
		{"UPD-20 rolling-update deletes go through the burst cap", func(t *testing.T) {
			ds := rtDS(rtRolling(3, 0))
			nodes := []*v1.Node{rtNode("a"), rtNode("b"), rtNode("c")}
			pods := []*v1.Pod{rtPod("oa", "a", "old"), rtPod("ob", "b", "old"), rtPod("oc", "c", "old")}
			require.Len(t, rtPlan(t, ds, nodes, pods).Delete, 3)
			capped := rtPlanWith(t, daemonset.Options{Now: rtNow, BurstLimit: 2}, ds, nodes, pods)
			require.True(t, capped.RollingUpdate.Acted)
			require.Len(t, capped.Delete, 2)
			require.Empty(t, capped.Create)
		}},
		{"UPD-22 the plan reports no history clean-up: surplus old revisions are not deletions", func(t *testing.T) {
			ds := rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = new(int32) })
			revs := []*appsv1.ControllerRevision{rev(t, ds, h, 20)}
			for i := range 5 {
				img := fmt.Sprintf("v%d", i)
				revs = append(revs, rev(t, rtDS(image(img)), "h"+img, int64(i+1)))
			}
			res := rtPlan(t, ds, []*v1.Node{rtNode("a")}, nil, revs...)
			require.Equal(t, h, res.RevisionHash)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
		}},
		{"UPD-25 OnDelete status counts only updated pods as updated and deletes nothing", func(t *testing.T) {
			ds := rtDS(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "5"}
			})
			nodes := []*v1.Node{rtNode("a"), rtNode("b"), rtNode("c"), rtNode("d")}
			pods := []*v1.Pod{
				rtPod("pa", "a", "old", rtReady(1)), rtPod("pb", "b", "old", rtReady(1)), rtPod("pc", "c", h, rtReady(1)),
				rtPod("pd", "d", "old", rtReady(1), func(p *v1.Pod) { p.Labels["pod-template-generation"] = "5" }),
			}
			res := rtPlan(t, ds, nodes, pods)
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
			require.NotNil(t, res.RollingUpdate)
			require.False(t, res.RollingUpdate.Acted)
			require.Equal(t, daemonset.RollingReasonOnDelete, res.RollingUpdate.Reason)
			require.Equal(t, rtCounts{4, 4, 0, 4, 4, 0, 2}, rtStatus(t, res))
		}},
		{"UPD-26 the rolling update adopts and releases exactly what claiming did under OnDelete", func(t *testing.T) {
			nodes := []*v1.Node{rtNode("a"), rtNode("b")}
			pods := []*v1.Pod{
				rtPod("o", "a", "old", rtOrphan),
				rtPod("n", "b", h),
				rtPod("x", "gone", h, func(p *v1.Pod) { p.Labels = map[string]string{"app": "other"} }),
			}
			rolling := rtPlan(t, rtDS(rtRolling(1, 0)), nodes, pods)
			require.True(t, rolling.RollingUpdate.Acted)
			require.Equal(t, []string{"o@a:" + string(daemonset.ReasonUpdateOldUnavailable)}, rtDeletes(rolling))
			require.Equal(t, []string{"ns/o"}, rtRefs(rolling.Adopt))
			require.Equal(t, []string{"ns/x"}, rtRefs(rolling.Release))
			onDelete := rtPlan(t, rtDS(), nodes, pods)
			require.Empty(t, onDelete.Delete)
			require.Equal(t, rtRefs(onDelete.Adopt), rtRefs(rolling.Adopt))
			require.Equal(t, rtRefs(onDelete.Release), rtRefs(rolling.Release))
		}},
	})
}

func TestRulesSYNC(t *testing.T) {
	h := rtHash(rtDS())
	gone := func(p *v1.Pod) { p.OwnerReferences = []metav1.OwnerReference{rtControllerRef("gone", "uid-gone")} }
	cluster := func(t *testing.T, s daemonset.Snapshot) *daemonset.ClusterResult {
		t.Helper()
		before := rtCopy(nil, s)
		out, err := daemonset.PlanCluster(s, rtOpts())
		require.NoError(t, err)
		rtRequireUnchanged(t, before, nil, s)
		return out
	}
	rtRun(t, []rtCase{
		{"SYNC-1 a DaemonSet absent from the snapshot gets no plan and its pods are left alone", func(t *testing.T) {
			s := daemonset.Snapshot{
				DaemonSets: []*appsv1.DaemonSet{rtDS()},
				Nodes:      []*v1.Node{rtNode("a")},
				Pods: []*v1.Pod{
					rtPod("g", "a", h, gone),
					rtPod("u", "", h, gone, func(p *v1.Pod) { p.Labels["app"] = "gone" }),
				},
			}
			out := cluster(t, s)
			require.Len(t, out.DaemonSets, 1)
			res := out.DaemonSets[0]
			require.Equal(t, "ns/rt", res.Namespace+"/"+res.Name)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
			require.Empty(t, res.Adopt)
			require.Empty(t, res.Release)
		}},
		{"SYNC-1 a snapshot without DaemonSets plans nothing", func(t *testing.T) {
			out := cluster(t, daemonset.Snapshot{
				Nodes: []*v1.Node{rtNode("a")},
				Pods:  []*v1.Pod{rtPod("g", "a", h, gone), rtPod("o", "a", h, rtOrphan)},
			})
			require.Empty(t, out.DaemonSets)
		}},
	})
}
