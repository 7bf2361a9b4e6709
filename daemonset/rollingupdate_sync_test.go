package daemonset_test

// The rolling-update step inside a whole sync (UPD-*), through the public API. The step's own
// tables, on node states, are in the rollingupdate_*_test.go files of the package itself.

import (
	"fmt"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
)

func TestRollingUpdateRules(t *testing.T) {
	h := hashOf(rtDS())
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
			ds := rtDS(rolling(ios(1), ios(0)))
			nodes := []*v1.Node{node("a"), node("b")}
			pods := []*v1.Pod{rtPod("pa", "a", "custom", readyAt(1)), rtPod("pb", "b", "older", readyAt(1))}
			old := rev(t, rtDS(image("v0")), "older", 99)
			low := rtPlan(t, ds, nodes, pods, rev(t, ds, "custom", 1), old)
			high := rtPlan(t, ds, nodes, pods, rev(t, ds, "custom", 142), old)
			require.Equal(t, "custom", low.RevisionHash)
			require.Equal(t, []string{"pb@b:" + string(daemonset.ReasonUpdateOldCandidate)}, rtDeletes(low))
			require.Equal(t, rtCounts{2, 2, 0, 2, 2, 0, 1}, rtStatus(t, low))
			// Only the revision writes see it: the low one is raised above the old one (UPD-14).
			require.Len(t, low.Revisions.Update, 1)
			require.Equal(t, int64(100), low.Revisions.Update[0].Revision)
			require.Nil(t, high.Revisions)
			low.Revisions = nil
			require.Empty(t, cmp.Diff(low, high))
		}},
		{"UPD-20 a surge create is the ordinary daemon pod for its node", func(t *testing.T) {
			ds := rtDS(rolling(ios(0), ios(1)))
			res := rtPlan(t, ds, []*v1.Node{node("a")}, []*v1.Pod{rtPod("o", "a", "old", readyAt(1))})
			require.True(t, res.RollingUpdate.Acted)
			require.Len(t, res.Create, 1)
			p, _ := daemonset.Compile(ds, opts())
			require.Empty(t, cmp.Diff(p.NewPod("a"), res.Create[0].Pod))
			require.Equal(t, h, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
		}},
		{"UPD-20 rolling-update creates go through the burst cap", func(t *testing.T) {
			ds := rtDS(rolling(ios(0), ios(3)))
			nodes := []*v1.Node{node("a"), node("b"), node("c")}
			pods := []*v1.Pod{rtPod("oa", "a", "old", readyAt(1)), rtPod("ob", "b", "old", readyAt(1)), rtPod("oc", "c", "old", readyAt(1))}
			uncapped := rtPlan(t, ds, nodes, pods)
			require.Len(t, uncapped.Create, 3)
			capped := rtPlanWith(t, daemonset.Options{Version: v1363, Now: now1000, BurstLimit: 2}, ds, nodes, pods)
			require.True(t, capped.RollingUpdate.Acted)
			require.Len(t, capped.Create, 2)
			require.Empty(t, capped.Delete)
		}},
		{"UPD-20 rolling-update deletes go through the burst cap", func(t *testing.T) {
			ds := rtDS(rolling(ios(3), ios(0)))
			nodes := []*v1.Node{node("a"), node("b"), node("c")}
			pods := []*v1.Pod{rtPod("oa", "a", "old"), rtPod("ob", "b", "old"), rtPod("oc", "c", "old")}
			require.Len(t, rtPlan(t, ds, nodes, pods).Delete, 3)
			capped := rtPlanWith(t, daemonset.Options{Version: v1363, Now: now1000, BurstLimit: 2}, ds, nodes, pods)
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
			res := rtPlan(t, ds, []*v1.Node{node("a")}, nil, revs...)
			require.Equal(t, h, res.RevisionHash)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
		}},
		{"UPD-25 OnDelete status counts only updated pods as updated and deletes nothing", func(t *testing.T) {
			ds := rtDS(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "5"}
			})
			nodes := []*v1.Node{node("a"), node("b"), node("c"), node("d")}
			pods := []*v1.Pod{
				rtPod("pa", "a", "old", readyAt(1)), rtPod("pb", "b", "old", readyAt(1)), rtPod("pc", "c", h, readyAt(1)),
				rtPod("pd", "d", "old", readyAt(1), func(p *v1.Pod) { p.Labels["pod-template-generation"] = "5" }),
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
			nodes := []*v1.Node{node("a"), node("b")}
			pods := []*v1.Pod{
				rtPod("o", "a", "old", orphan),
				rtPod("n", "b", h),
				rtPod("x", "gone", h, func(p *v1.Pod) { p.Labels = map[string]string{"app": "other"} }),
			}
			rolling := rtPlan(t, rtDS(rolling(ios(1), ios(0))), nodes, pods)
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

// Review point (a), UPD-4: the rolling step's map holds every node of getNodesToDaemonPods (listed
// nodes that should not run but hold pods, and names missing from the node list whose pods are
// bound there), plus an empty entry per desired node without pods.
func TestUPD4RollingMapKeys(t *testing.T) {
	t.Parallel()
	noSurge := func(mu int) dsMod { return rolling(ios(mu), ios(0)) }
	old := func(p *v1.Pod) { oldHash(p); ready(p) }
	runScenarios(t, []scenario{
		{name: "UPD-4 UPD-8 an available old pod on a NoSchedule-tainted node (continue, not desired) is an update candidate",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old)},
			want: sum(nil, list("b:UpdateOldCandidate"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 an available old pod bound to a missing node is an update candidate too; one of the two goes, the first by node name (D-1)",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", old)},
			want: sum(nil, list("c:UpdateOldCandidate~"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 with maxUnavailable 2 both go",
			ds: newDS(noSurge(2)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", old)},
			want: sum(nil, list("b:UpdateOldCandidate", "c:UpdateOldCandidate"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 a missing node holding only a terminating bound pod is an entry with no pod: it spends the budget",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", terminating)},
			want: sum(nil, nil, st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-11 with surge an old pod bound to a missing node fails the step (nodeLister.Get)",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("a", "n0", ready), pod("c", "gone", old)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "UPD-2 DIFF-8 an unscheduled pod aimed at a missing node is deleted by the base diff, so the step does not run",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("u", "", unscheduledFor("gone"), old)},
			want: sum(nil, list("u:UnscheduledOnMissingNode"), st(1, 1, 1, 1, 1, 1, 0))},
	})
}

// S3: AllowsSurge (DIFF-9) resolves maxSurge against 1; the rolling step (UPD-5) resolves both
// budgets against desired.
func TestEachLayerResolvesMaxSurgeItsOwnWay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario
		rolling *daemonset.RollingUpdate
	}{
		{scenario: scenario{
			name: "DIFF-9 UPD-5 (audit S3a) desired 0 and maxSurge 50%: surge base diff, non-surge step with maxUnavailable 1",
			// n0 should not run but may continue (NoSchedule): not desired. Base diff (surge):
			// one running pod, no create. Step: maxSurge = ceil(50% of 0) = 0, so UPD-8 with
			// maxUnavailable 1 (no UPD-6 fallback at desired 0): o is an available old candidate.
			ds:    newDS(rolling(ios(1), iostr("50%"))),
			nodes: []*v1.Node{node("n0", noSchedule)},
			pods:  []*v1.Pod{pod("o", "n0", oldHash, readyAt(1))},
			want:  sum(nil, list("o:UpdateOldCandidate"), st(0, 0, 1, 0, 0, 0, 0))},
			rolling: &daemonset.RollingUpdate{Acted: true, MaxUnavailable: 1, MaxSurge: 0}},
		{scenario: scenario{
			name: "DIFF-9 UPD-5 UPD-6 (audit S3a) desired 0 and percentages: both budgets 0, no fallback, nothing happens",
			ds:   newDS(rolling(iostr("100%"), iostr("50%"))), nodes: []*v1.Node{node("n0", noSchedule)},
			pods: []*v1.Pod{pod("o", "n0", oldHash, readyAt(1))},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
			rolling: &daemonset.RollingUpdate{Acted: true}},
		{scenario: scenario{
			name: "DIFF-9 (audit S3b) maxSurge -1: the base diff uses the non-surge rule (DIFF-5) and deletes the younger pod",
			ds:   newDS(rolling(ios(0), ios(-1))), nodes: nodes(1),
			pods: []*v1.Pod{pod("y", "n0", oldHash, readyAt(1), created(1)), pod("x", "n0", created(2))},
			want: sum(nil, list("x:DuplicatePod"), st(1, 1, 0, 1, 0, 1, 0))},
			rolling: &daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxSurge: -1}},
		{scenario: scenario{
			name: "UPD-5 UPD-7 UPD-11 (audit S3b) maxSurge -1: the step runs the surge algorithm, creating only for unavailable old pods",
			// maxSurge -1 is not 0: surge algorithm; the candidate n0 is never recorded
			// (S = 0 >= -1) and n1's unavailable old pod gets its replacement budget-free. No
			// UPD-6 fallback: maxSurge is not 0.
			ds: newDS(rolling(ios(0), ios(-1))), nodes: nodes(2),
			pods: []*v1.Pod{pod("a", "n0", oldHash, readyAt(1)), pod("b", "n1", oldHash)},
			want: sum(list("n1"), nil, st(2, 2, 0, 1, 0, 1, 1))},
			rolling: &daemonset.RollingUpdate{Acted: true, MaxUnavailable: 0, MaxSurge: -1}},
		{scenario: scenario{
			name: "UPD-5 UPD-11 (audit S3b, F4) maxSurge -100%: ceil(-100% of 1) = -1 gives a non-surge base diff, -2 of desired 2 a surge step",
			ds:   newDS(rolling(ios(0), iostr("-100%"))), nodes: nodes(2),
			pods: []*v1.Pod{pod("a", "n0", oldHash, readyAt(1)), pod("b", "n1", oldHash)},
			want: sum(list("n1"), nil, st(2, 2, 0, 1, 0, 1, 1))},
			rolling: &daemonset.RollingUpdate{Acted: true, MaxUnavailable: 0, MaxSurge: -2}},
		{scenario: scenario{
			name: "DIFF-9 UPD-5 (audit S3c) maxSurge 1 with maxUnavailable nil: surge base diff keeps old Ready and new unavailable, the step fails",
			ds:   newDS(rolling(nil, ios(1))), nodes: nodes(1),
			pods: []*v1.Pod{pod("y", "n0", oldHash, readyAt(1), created(1)), pod("x", "n0", created(2))},
			want: sum(nil, nil, st(1, 1, 0, 1, 0, 1, 0))},
			rolling: &daemonset.RollingUpdate{Reason: "Error",
				Error:       "couldn't get unavailable numbers: invalid value for MaxUnavailable: nil value for IntOrString",
				BudgetError: "couldn't get unavailable numbers: invalid value for MaxUnavailable: nil value for IntOrString"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := tt.run(t)
			require.Equal(t, tt.rolling, res.RollingUpdate)
		})
	}
}

func TestPlanRollingUpdateReport(t *testing.T) {
	t.Parallel()
	const badMaxUnavailable = "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		pods []*v1.Pod
		want daemonset.RollingUpdate
	}{
		{name: "UPD-1 OnDelete never runs the step and has no budgets", ds: newDS(),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonOnDelete}},
		{name: "UPD-1 D-4 an empty strategy type is not defaulted and behaves like OnDelete",
			ds:   newDS(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{} }),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonOnDelete}},
		{name: "UPD-2 UPD-5 a non-empty base diff blocks the step, which reports the budgets it will use",
			ds:   newDS(rolling(iostr("50%"), ios(0))),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxUnavailable: 1}},
		{name: "UPD-2 UPD-5 with surge too", ds: newDS(rolling(ios(0), iostr("100%"))),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxSurge: 2}},
		{name: "UPD-2 UPD-6 both budgets 0 read as maxUnavailable 1 before the step too", ds: newDS(rolling(ios(0), ios(0))),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxUnavailable: 1}},
		{name: "UPD-2 UPD-5 budgets that do not resolve are reported while the base diff acts",
			ds:   newDS(rolling(iostr("1"), ios(0))),
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, BudgetError: badMaxUnavailable}},
		{name: "UPD-5 budgets that do not resolve stop the step", ds: newDS(rolling(iostr("1"), ios(0))),
			pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready)},
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonError, Error: badMaxUnavailable, BudgetError: badMaxUnavailable}},
		{name: "UPD-2 an empty base diff lets the step act", ds: newDS(rolling(ios(1), ios(0))),
			pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready)},
			want: daemonset.RollingUpdate{Acted: true, MaxUnavailable: 1}},
		{name: "UPD-11 a step that fails on a missing node reports its budgets", ds: newDS(rolling(ios(0), ios(1))),
			pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready), pod("p9", "n9", oldHash, ready)},
			want: daemonset.RollingUpdate{Reason: daemonset.RollingReasonError, MaxSurge: 1,
				Error: `couldn't get node for nodeName "n9": node "n9" not found`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(2), tt.pods, opts())
			require.NoError(t, err)
			require.NotNil(t, res.RollingUpdate)
			require.Equal(t, tt.want, *res.RollingUpdate)
		})
	}
}

// rollingUpdateScenarios are the Surprises of the rolling update, through the whole plan (UPD-*).
func rollingUpdateScenarios() []scenario {
	return []scenario{
		// Surprises of the rolling update, through the whole plan.
		{name: "Surprise-21 SCN-71 UPD-2 a non-empty base diff blocks the rolling update",
			surprises: []int{21}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready)},
			want: sum(list("n2"), nil, st(3, 2, 0, 2, 0, 2, 1))},
		{name: "Surprise-22 SCN-77 UPD-5 maxUnavailable 1% of 3 rounds up to one deletion",
			surprises: []int{22}, ds: newDS(rolling(iostr("1%"), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-22 SCN-78 UPD-6 maxUnavailable 0 with maxSurge 0 behaves like 1",
			surprises: []int{22}, ds: newDS(rolling(ios(0), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-23 SCN-75 UPD-8 unavailable old pods go without spending the budget",
			surprises: []int{23}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash), pod("p1", "n1", oldHash), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldUnavailable", "p1:UpdateOldUnavailable"), st(3, 3, 0, 1, 0, 1, 2))},
		{name: "Surprise-23 SCN-76 UPD-8 a node holding only a terminating pod spends the budget",
			surprises: []int{23}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready, terminating), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, nil, st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-24 SCN-72 UPD-9 D-1 which available old pod goes is a marked deterministic choice",
			surprises: []int{24}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p2", "n2", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p0", "n0", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-25 SCN-83 UPD-10 an old pod on a NoSchedule node is a deletion candidate",
			surprises: []int{25, 9}, ds: newDS(rolling(ios(1), ios(0))),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoSchedule)), node("n1"), node("n2")},
			pods:  []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want:  sum(nil, list("p0:UpdateOldCandidate~"), st(2, 2, 1, 2, 0, 2, 0))},
		{name: "Surprise-26 SCN-96 UPD-11 SYNC-6 with surge an old pod on a missing node fails the step, status stays",
			surprises: []int{26}, ds: newDS(rolling(ios(0), ios(1))), nodes: nodes(1),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p9", "n9", oldHash, ready)},
			want: sum(nil, nil, st(1, 1, 0, 1, 0, 1, 0))},
		{name: "Surprise-26 SCN-84 UPD-10 without surge the old pod on a missing node is just a candidate",
			surprises: []int{26}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(2),
			pods: []*v1.Pod{pod("p9", "n9", oldHash, ready), pod("p0", "n0", ready), pod("p1", "n1", ready)},
			want: sum(nil, list("p9:UpdateOldCandidate"), st(2, 2, 0, 2, 2, 2, 0))},
		{name: "Surprise-27 SCN-98 UPD-7 maxUnavailable and maxSurge both set runs the surge algorithm",
			surprises: []int{27}, ds: newDS(rolling(ios(2), ios(1))), nodes: nodes(4),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready), pod("p3", "n3", oldHash, ready)},
			want: sum(list("n0~"), nil, st(4, 4, 0, 4, 0, 4, 0))},
		{name: "Surprise-28 SCN-81 UPD-3 a matching pod-template-generation makes an old-hash pod updated",
			surprises: []int{28}, ds: newDS(rolling(ios(1), ios(0)), func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
			}), nodes: nodes(1),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready, func(p *v1.Pod) { p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = "3" })},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "Surprise-31 SCN-85 UPD-24 dropping surge mid-rollout deletes the newer, updated pod",
			surprises: []int{31}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1), ready), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("new:DuplicatePod"), st(1, 1, 0, 1, 0, 1, 0))},
	}
}

func TestRollingUpdateScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, rollingUpdateScenarios())
}
