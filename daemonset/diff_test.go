package daemonset_test

// The base diff (DIFF-*): which pods are deleted and which nodes get a create, before any
// rolling update.

import (
	"fmt"
	"testing"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDiffRules(t *testing.T) {
	h := hashOf(rtDS())
	rtRun(t, []rtCase{
		{"DIFF-1 every node of the node list is visited once, in any input order", func(t *testing.T) {
			nodes := []*v1.Node{node("c"), node("a"), node("b", withTaints(dedicatedNoSchedule))}
			res := rtPlan(t, rtDS(), nodes, nil)
			require.Equal(t, []string{"a", "c"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{2, 0, 0, 0, 0, 2, 0}, rtStatus(t, res))
		}},
		{"DIFF-1 pods grouped under node names missing from the node list are handled after the nodes", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), opts())
			unscheduled := p.NewPod("gone")
			unscheduled.Name = "u"
			pods := []*v1.Pod{unscheduled, rtPod("bound", "gone2", h), rtPod("ok", "a", h)}
			res := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b")}, pods)
			require.Equal(t, []string{"b"}, rtCreateNodes(res))
			require.Equal(t, []string{"u@gone:" + string(daemonset.ReasonUnscheduledOnMissingNode)}, rtDeletes(res))
			require.Equal(t, rtCounts{2, 1, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"DIFF-14 without surge a node with only a failed pod gets its delete and no create", func(t *testing.T) {
			for _, ds := range []*appsv1.DaemonSet{rtDS(), rtDS(rolling(ios(1), ios(0)))} {
				res := rtPlan(t, ds, []*v1.Node{node("a")}, []*v1.Pod{rtPod("f", "a", h, phase(v1.PodFailed))})
				require.Empty(t, res.Create)
				require.Equal(t, []string{"f@a:" + string(daemonset.ReasonFailedPod)}, rtDeletes(res))
			}
		}},
		{"DIFF-14 with surge the same node gets a delete and a create in one base diff", func(t *testing.T) {
			res := rtPlan(t, rtDS(rolling(ios(0), ios(1))), []*v1.Node{node("a")}, []*v1.Pod{rtPod("s", "a", h, phase(v1.PodSucceeded))})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{"s@a:" + string(daemonset.ReasonSucceededPod)}, rtDeletes(res))
		}},
		{"DIFF-14 without surge a node with a running and a failed pod only deletes", func(t *testing.T) {
			pods := []*v1.Pod{rtPod("f", "a", h, phase(v1.PodFailed)), rtPod("r", "a", h)}
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, pods)
			require.Empty(t, res.Create)
			require.Equal(t, []string{"f@a:" + string(daemonset.ReasonFailedPod)}, rtDeletes(res))
		}},
	})
}

// diffScenarios are the scenarios of the base diff: failed, succeeded, terminating and duplicate
// pods, missing nodes, the burst cap and the surge rules (DIFF-*).
func diffScenarios() []scenario {
	var (
		bigNodes      = numberedNodes("n", 300)
		missingPods   []*v1.Pod
		missingDelete []string
	)
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("u%03d", i)
		missingPods = append(missingPods, pod(name, "", unscheduledFor(fmt.Sprintf("m%03d", i))))
		if i < 250 {
			missingDelete = append(missingDelete, name+":UnscheduledOnMissingNode~")
		}
	}
	var firstCapped []string
	for _, n := range sortedNames("n", 300)[:250] {
		firstCapped = append(firstCapped, n+"~")
	}

	return []scenario{
		// Failed, succeeded, terminating, duplicates, missing nodes.
		{name: "SCN-40 DIFF-5 STAT-3 a lone failed pod is deleted now and replaced only later", surprises: []int{1},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: withEvents(sum(nil, list("p0:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("p0")...)},
		{name: "SCN-41 DIFF-6 with surge a lone failed pod is deleted and replaced in one sync", surprises: []int{1},
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: withEvents(sum(list("n0"), list("p0:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("p0")...)},
		{name: "SCN-42 DIFF-3 DIFF-5 the failed pod and all but the oldest running pod go",
			nodes: nodes(1), pods: []*v1.Pod{pod("f", "n0", phase(v1.PodFailed)), pod("r10", "n0", created(10)), pod("r20", "n0", created(20)), pod("r30", "n0", created(30))},
			want: withEvents(sum(nil, list("f:FailedPod", "r20:DuplicatePod", "r30:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("f")...)},
		{name: "SCN-43 DIFF-3 a lone succeeded pod is deleted with a Normal event, no create", surprises: []int{1},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodSucceeded))},
			want: withEvents(sum(nil, list("p0:SucceededPod"), st(1, 1, 0, 0, 1, 0, 1)), "SucceededDaemonPod default/p0")},
		{name: "SCN-44 OWN-10 a terminating succeeded pod is invisible: the node gets a create", surprises: []int{5},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodSucceeded), terminating)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-45 DIFF-3 STAT-3 a terminating running pod blocks creation and counts as current, ready, available", surprises: []int{4},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", ready, terminating)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-46 DIFF-6 with surge a terminating pod does not block the create",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", ready, terminating)},
			want: sum(list("n0"), nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-47 DIFF-7 equal timestamps keep the smallest name",
			nodes: nodes(1), pods: []*v1.Pod{pod("zeta", "n0"), pod("alpha", "n0"), pod("mid", "n0")},
			want: sum(nil, list("mid:DuplicatePod", "zeta:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-48 DIFF-7 an older pending pod beats a newer running ready one", surprises: []int{2},
			nodes: nodes(1), pods: []*v1.Pod{pod("old", "n0", created(1), phase(v1.PodPending)), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("new:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-49 DIFF-7 STAT-5 a scheduled pod beats an older unscheduled ready one", surprises: []int{2},
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"), created(1), ready), pod("s", "n0", created(2))},
			want: sum(nil, list("u:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-50 STAT-5 a failed oldest pod hides a ready younger one", surprises: []int{3},
			nodes: nodes(1), pods: []*v1.Pod{pod("f", "n0", created(10), phase(v1.PodFailed)), pod("r", "n0", created(20), ready)},
			want: withEvents(sum(nil, list("f:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("f")...)},
		{name: "SCN-51 DIFF-8 an unscheduled pod aimed at a missing node is deleted", surprises: []int{20},
			nodes: nodes(1), pods: []*v1.Pod{pod("u9", "", unscheduledFor("n9")), pod("u0", "", unscheduledFor("n0"))},
			want: sum(nil, list("u9:UnscheduledOnMissingNode"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-52 DIFF-8 a terminating unscheduled pod aimed at a missing node is deleted again", surprises: []int{4, 20},
			nodes: nodes(1), pods: []*v1.Pod{pod("u9", "", unscheduledFor("n9"), terminating)},
			want: sum(list("n0"), list("u9:UnscheduledOnMissingNode"), st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-53 DIFF-8 STAT-7 a bound pod on a missing node is left alone and counted nowhere", surprises: []int{20},
			nodes: nodes(1), pods: []*v1.Pod{pod("s9", "n9"), pod("p0", "n0")},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-54 OWN-9 an owned pod without a target node is ignored",
			nodes: nodes(1), pods: []*v1.Pod{pod("x", "")},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-55 DIFF-4 a failed pod on a NoExecute node is deleted as ineligible without event",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))}, pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},

		// Burst.
		{name: "SCN-69 DIFF-10 D-1 the cap keeps the first 250 creates by node name, marked", nodes: bigNodes, opts: &capped250,
			want: sum(firstCapped, nil, st(300, 0, 0, 0, 0, 0, 300))},
		{name: "SCN-69 DIFF-10 uncapped, every create is reported", nodes: bigNodes, opts: &uncapped,
			want: sum(sortedNames("n", 300), nil, st(300, 0, 0, 0, 0, 0, 300))},
		{name: "SCN-70 DIFF-10 D-1 creates and deletes are capped separately", nodes: nodes(1), pods: missingPods, opts: &capped250,
			want: sum(list("n0"), missingDelete, st(1, 0, 0, 0, 0, 0, 1))},

		// Surge duplicates.
		{name: "SCN-89 DIFF-6 with surge an available new pod replaces the old one in the base diff",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1), ready), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("old:SurgeNewAvailable"), st(1, 1, 0, 1, 0, 1, 0))},
		{name: "SCN-90 DIFF-6 with surge an old pod that is not ready goes at once",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1)), pod("new", "n0", created(2))},
			want: sum(nil, list("old:SurgeOldNotReady"), st(1, 1, 0, 0, 0, 0, 1))},
		{name: "SCN-97 DIFF-6 extra old and new pods go, the oldest of each kind stay",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("o1", "n0", oldHash, created(1), ready), pod("o2", "n0", oldHash, created(2), ready),
				pod("n3", "n0", created(3)), pod("n4", "n0", created(4))},
			want: sum(nil, list("n4:DuplicatePod", "o2:DuplicatePod"), st(1, 1, 0, 1, 0, 1, 0))},
		{name: "Surprise-28 DIFF-6 the surge duplicate rule reads the hash only, not the generation",
			surprises: []int{28}, ds: newDS(surgeDS, func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
			}), nodes: nodes(1),
			pods: []*v1.Pod{
				pod("a", "n0", oldHash, created(1), ready, func(p *v1.Pod) { p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = "3" }),
				pod("b", "n0", oldHash, created(2), ready, func(p *v1.Pod) { p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = "3" }),
			},
			want: sum(nil, list("b:DuplicatePod"), st(1, 1, 0, 1, 1, 1, 0))},
	}
}

func TestDiffScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, diffScenarios())
}

// D-8, DIFF-3, SYNC-3: the events carry the reason, type and message that podsShouldBeOnNode and
// syncDaemonSet pass to the event recorder.
func TestEventMessagesAreUpstreams(t *testing.T) {
	t.Parallel()
	res, err := daemonset.Plan(newDS(), nodes(2), []*v1.Pod{
		pod("f", "n0", phase(v1.PodFailed)),
		pod("s", "n1", phase(v1.PodSucceeded)),
	}, opts())
	require.NoError(t, err)
	want := []daemonset.Event{
		{Type: v1.EventTypeWarning, Reason: daemonset.ReasonFailedDaemonPod, Pod: "default/f", Node: "n0",
			Message: "Found failed daemon pod default/f on node n0, will try to kill it"},
		{Type: v1.EventTypeNormal, Reason: daemonset.ReasonSucceededDaemonPod, Pod: "default/s", Node: "n1",
			Message: "Found succeeded daemon pod default/s on node n1, will try to delete it"},
	}
	if diff := cmp.Diff(want, res.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	all := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })
	res, err = daemonset.Plan(all, nodes(1), nil, opts())
	require.NoError(t, err)
	want = []daemonset.Event{{Type: v1.EventTypeWarning, Reason: daemonset.ReasonSelectingAll,
		Message: "This daemon set is selecting all pods. A non-empty selector is required."}}
	if diff := cmp.Diff(want, res.Events); diff != "" {
		t.Errorf("SYNC-3 events (-want +got):\n%s", diff)
	}
}

func TestDIFF17ControlledFailedPodBeforeAdopted(t *testing.T) {
	t.Parallel()
	failed := phase(v1.PodFailed)
	runScenarios(t, []scenario{
		{name: "DIFF-17 (audit F1) a controlled Failed pod goes before an adopted one with a smaller name, unmarked",
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", failed, orphan), pod("z", "n0", failed)},
			want: withAdopt(withEvents(sum(nil, list("z:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/z"), "a")},
		{name: "DIFF-17 (audit F1) among two controlled Failed pods the smaller name goes, marked; the adopted one never",
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", failed, orphan), pod("y", "n0", failed), pod("x", "n0", failed)},
			want: withAdopt(withEvents(sum(nil, list("x:FailedPod~"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/x"), "a")},
		{name: "DIFF-17 (audit F1) without a controlled Failed pod an adopted one goes, marked among the adopted",
			nodes: nodes(1), pods: []*v1.Pod{pod("b", "n0", failed, orphan), pod("a", "n0", failed, orphan), pod("c", "n0")},
			want: withAdopt(withEvents(sum(nil, list("a:FailedPod~"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/a"), "a", "b")},
		{name: "DIFF-17 (audit F1) a terminating controlled Failed pod is no candidate, so the adopted one goes, unmarked",
			// The status then counts neither: a is removed at once (STAT-16), z is terminal
			// and terminating (STAT-7's grouping leaves it out).
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", failed, orphan), pod("z", "n0", failed, terminating)},
			want: withAdopt(withEvents(sum(nil, list("a:FailedPod"), st(1, 0, 0, 0, 0, 0, 1)), "FailedDaemonPod default/a"), "a")},
		// DIFF-4 deletes every pod and DIFF-5/DIFF-6 sort by DIFF-7 first: the visiting order
		// changes nothing there (audit F1, checked in podsShouldBeOnNode).
		{name: "DIFF-5 (audit F1) the survivor is the oldest by DIFF-7 whether controlled or adopted",
			nodes: nodes(1), pods: []*v1.Pod{pod("z", "n0", created(5)), pod("a", "n0", created(9), orphan), pod("m", "n0", created(2), orphan)},
			want: withAdopt(sum(nil, list("a:DuplicatePod", "z:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1)), "a", "m")},
		// S13: a backed-off Failed pod is neither running nor deleted, so with surge the node
		// still gets its create (DIFF-6, len(daemonPodsRunning) == 0 && shouldRun).
		{name: "DIFF-17 DIFF-6 (audit S13, F1) with surge two Failed pods: the controlled one goes and the node gets a create",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", failed, orphan), pod("b", "n0", failed)},
			want: withAdopt(withEvents(sum(list("n0"), list("b:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/b"), "a")},
		{name: "DIFF-17 DIFF-6 (audit S13) with surge two controlled Failed pods: one goes, marked, and the node gets a create",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("f2", "n0", failed), pod("f1", "n0", failed)},
			want: withEvents(sum(list("n0"), list("f1:FailedPod~"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/f1")},
	})
}

func TestPlanDIFF17OneFailedPodPerNode(t *testing.T) {
	t.Parallel()
	tests := []scenario{
		{name: "DIFF-17 D-1 of two failed pods only the first by name goes, marked",
			nodes: nodes(1), pods: []*v1.Pod{pod("f2", "n0", phase(v1.PodFailed)), pod("f1", "n0", phase(v1.PodFailed), created(9))},
			want: func() summary {
				s := sum(nil, list("f1:FailedPod~"), st(1, 1, 0, 0, 1, 0, 1))
				s.Events = list("FailedDaemonPod default/f1")
				return s
			}()},
		{name: "DIFF-17 succeeded pods have no back-off and all go",
			nodes: nodes(1), pods: []*v1.Pod{pod("s1", "n0", phase(v1.PodSucceeded)), pod("s2", "n0", phase(v1.PodSucceeded))},
			want: func() summary {
				s := sum(nil, list("s1:SucceededPod", "s2:SucceededPod"), st(1, 1, 0, 0, 1, 0, 1))
				s.Events = list("SucceededDaemonPod default/s1", "SucceededDaemonPod default/s2")
				return s
			}()},
		{name: "DIFF-17 DIFF-6 with surge a node of failed pods loses one and gets a create",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("f1", "n0", phase(v1.PodFailed)), pod("f2", "n0", phase(v1.PodFailed))},
			want: func() summary {
				s := sum(list("n0"), list("f1:FailedPod~"), st(1, 1, 0, 0, 1, 0, 1))
				s.Events = list("FailedDaemonPod default/f1")
				return s
			}()},
		{name: "DIFF-17 a single failed pod per node is not marked, each node loses one",
			nodes: nodes(2), pods: []*v1.Pod{pod("a", "n0", phase(v1.PodFailed)), pod("b", "n1", phase(v1.PodFailed))},
			want: func() summary {
				s := sum(nil, list("a:FailedPod", "b:FailedPod"), st(2, 2, 0, 0, 2, 0, 2))
				s.Events = list("FailedDaemonPod default/a", "FailedDaemonPod default/b")
				return s
			}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t)
		})
	}
}

func TestDIFF8TerminalTerminatingPodsOnMissingNodes(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "DIFF-8 OWN-10 (audit F5) an unscheduled pod on a missing node that is Failed and terminating is not deleted",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0"), pod("f", "", unscheduledFor("gone"), phase(v1.PodFailed), terminating)},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "DIFF-8 OWN-10 (audit F5) nor one that is Succeeded and terminating",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0"), pod("s", "", unscheduledFor("gone"), phase(v1.PodSucceeded), terminating)},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "DIFF-8 (audit F5) a running terminating unscheduled pod on a missing node is deleted",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0"), pod("r", "", unscheduledFor("gone"), terminating)},
			want: sum(nil, list("r:UnscheduledOnMissingNode"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "DIFF-8 (audit F5) a Failed unscheduled pod on a missing node that is not terminating is deleted",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0"), pod("f", "", unscheduledFor("gone"), phase(v1.PodFailed))},
			want: sum(nil, list("f:UnscheduledOnMissingNode"), st(1, 1, 0, 0, 1, 0, 1))},
	})
}

// S2: the base diff's surge rule (DIFF-6) tells new from old by the hash label only; the rolling
// step (findUpdatedPodsOnNode, UPD-3) by hash OR pod-template-generation.
func TestNewMeansHashInDIFF6ButHashOrGenerationInUPD3(t *testing.T) {
	t.Parallel()
	ds := func(mods ...dsMod) *appsv1.DaemonSet {
		return newDS(append([]dsMod{rolling(ios(0), ios(1)), annotateGeneration("3"), minReadySeconds(100)}, mods...)...)
	}
	runScenarios(t, []scenario{
		// DIFF-6: X is the oldest pod with the hash, Y the oldest without; Y is Ready and X is
		// available, so Y goes as SurgeNewAvailable. The base diff is not empty: no rolling step.
		{name: "DIFF-6 (audit S2) X current hash and Y old hash with the current generation, both available: Y goes",
			ds: ds(), nodes: nodes(1),
			pods: []*v1.Pod{pod("x", "n0", readyAt(1), created(2)), pod("y", "n0", oldHash, genLabel("3"), readyAt(1), created(1))},
			want: sum(nil, list("y:SurgeNewAvailable"), st(1, 1, 0, 1, 1, 1, 0))},
		// X Ready but not yet available (ready since 950, minReadySeconds 100): DIFF-6 keeps
		// both. The rolling step then sees two updated pods on n0 (ok false): S += 1 and n0's
		// availability is not counted, so A = 1 (z on n2) and A - desired = 0: the ineligible z
		// stays. Reading Y as old (hash only) would give A = 2 and delete z.
		{name: "UPD-3 UPD-11 (audit S2) the rolling step counts X and Y as two new pods: surge spent, availability not counted",
			ds: ds(), nodes: []*v1.Node{node("n0"), node("n2", noSchedule)},
			pods: []*v1.Pod{
				pod("x", "n0", readyAt(950), created(2)),
				pod("y", "n0", oldHash, genLabel("3"), readyAt(1), created(1)),
				pod("z", "n2", oldHash, readyAt(1)),
			},
			// Status: n0's oldest pod is y: Ready, available, updated by generation (STAT-5);
			// n2 holds a pod but should not run: misscheduled.
			want: sum(nil, nil, st(1, 1, 1, 1, 1, 1, 0))},
		// Same, plus n1 with an available old pod: S = 1 = maxSurge, so no surge create.
		{name: "UPD-3 UPD-11 (audit S2) the doubled node spends the whole surge budget",
			ds: ds(), nodes: []*v1.Node{node("n0"), node("n1")},
			pods: []*v1.Pod{
				pod("x", "n0", readyAt(950), created(2)),
				pod("y", "n0", oldHash, genLabel("3"), readyAt(1), created(1)),
				pod("o", "n1", oldHash, readyAt(1)),
			},
			want: sum(nil, nil, st(2, 2, 0, 2, 1, 2, 0))},
	})
	res, err := daemonset.Plan(ds(), []*v1.Node{node("n0"), node("n1")}, []*v1.Pod{
		pod("x", "n0", readyAt(950), created(2)),
		pod("y", "n0", oldHash, genLabel("3"), readyAt(1), created(1)),
		pod("o", "n1", oldHash, readyAt(1)),
	}, opts())
	require.NoError(t, err)
	require.Equal(t, &daemonset.RollingUpdate{Acted: true, MaxUnavailable: 0, MaxSurge: 1}, res.RollingUpdate)
}

func TestDIFF6EmptyHashPodsWithoutTheLabelAreNew(t *testing.T) {
	t.Parallel()
	// DIFF-6 compares pod.Labels[hash key] == hash: with hash "" every pod without the label is
	// "new". a is the oldest new pod, a2 a second new one (deleted), b the oldest old one: Ready,
	// while a is not available, so both a and b stay. UPD-3 is not consulted (base diff).
	ds := newDS(surgeDS)
	rev := emptyHashRevision(t, ds, map[string]string{"app": "d"})
	pods := []*v1.Pod{
		pod("a", "n0", noHashLabel, created(1)),
		pod("a2", "n0", noHashLabel, created(2)),
		pod("b", "n0", oldHash, readyAt(1), created(3)),
	}
	runScenarios(t, []scenario{{
		name: "DIFF-6 (audit S7) with an empty hash, pods without the hash label are new",
		ds:   ds, nodes: nodes(1), pods: pods, revisions: []*appsv1.ControllerRevision{rev},
		// Status: a is the oldest pod: not Ready; UPD-3 with hash "" and no generation: not updated.
		want: sum(nil, list("a2:DuplicatePod"), st(1, 1, 0, 0, 0, 0, 1)),
	}})
}

func TestBurstCapKeepsUpstreamListPriority(t *testing.T) {
	t.Parallel()
	capped := func(n int) *daemonset.Options { return &daemonset.Options{Version: v1363, Now: now1000, BurstLimit: n} }
	oldAvail := func(name, node string) *v1.Pod { return pod(name, node, oldHash, readyAt(1)) }
	oldUnavail := func(name, node string) *v1.Pod { return pod(name, node, oldHash) }
	fourOld := []*v1.Pod{oldAvail("p0", "n0"), oldAvail("p1", "n1"), oldUnavail("p2", "n2"), oldUnavail("p3", "n3")}
	runScenarios(t, []scenario{
		// UPD-8 lists allowedReplacementPods (p2, p3) before the candidates: mu 3, U 2, one
		// candidate taken (marked, of two). Cap 2: the two budget-free deletions, whole.
		{name: "DIFF-10 UPD-8 (audit S12) cap 2: budget-free deletions before the candidate",
			ds: newDS(rolling(ios(3), nil)), nodes: nodes(4), pods: fourOld, opts: capped(2),
			want: sum(nil, list("p2:UpdateOldUnavailable", "p3:UpdateOldUnavailable"), st(4, 4, 0, 2, 0, 2, 2))},
		{name: "DIFF-10 UPD-8 (audit S12) cap 1: one budget-free deletion, marked",
			ds: newDS(rolling(ios(3), nil)), nodes: nodes(4), pods: fourOld, opts: capped(1),
			want: sum(nil, list("p2:UpdateOldUnavailable~"), st(4, 4, 0, 2, 0, 2, 2))},
		{name: "DIFF-10 UPD-8 (audit S12) cap 3 with mu 4: both budget-free, then one of the two candidates, marked",
			ds: newDS(rolling(ios(4), nil)), nodes: nodes(4), pods: fourOld, opts: capped(3),
			want: sum(nil, list("p0:UpdateOldCandidate~", "p2:UpdateOldUnavailable", "p3:UpdateOldUnavailable"), st(4, 4, 0, 2, 0, 2, 2))},
		{name: "DIFF-10 UPD-8 (audit S12) uncapped the same plan takes both candidates, unmarked",
			ds: newDS(rolling(ios(4), nil)), nodes: nodes(4), pods: fourOld,
			want: sum(nil, list("p0:UpdateOldCandidate", "p1:UpdateOldCandidate", "p2:UpdateOldUnavailable", "p3:UpdateOldUnavailable"), st(4, 4, 0, 2, 0, 2, 2))},
		// UPD-11 lists allowedNewNodes before candidateNewNodes.
		{name: "DIFF-10 UPD-11 (audit S12) cap 1: the allowed node's create before the surge candidate's",
			ds: newDS(surgeDS), nodes: nodes(2), pods: []*v1.Pod{oldAvail("a", "n0"), oldUnavail("b", "n1")}, opts: capped(1),
			want: sum(list("n1"), nil, st(2, 2, 0, 1, 0, 1, 1))},
		// UPD-11 lists oldPodsToDelete before shouldNotRunPodsToDelete.
		// UPD-11 lists oldPodsToDelete before shouldNotRunPodsToDelete. On a listed node DIFF-6
		// already deletes an old pod whose new pod is available (audit S4), so the replaced pair
		// is bound to the missing node zz (DIFF-8 leaves bound pods alone; "old and new" entries
		// need no node lookup, audit S12).
		{name: "DIFF-10 UPD-11 (audit S12) cap 1: a replaced old pod before an ineligible excess one",
			ds: newDS(surgeDS), nodes: []*v1.Node{node("n0", noSchedule), node("n1")},
			pods: []*v1.Pod{oldAvail("a", "n0"), pod("b", "n1", readyAt(1)), oldAvail("c", "zz"), pod("d", "zz", readyAt(1))},
			opts: capped(1),
			// A = a + b + c = 3, desired 1: a is an ineligible excess deletion (class 1, whole:
			// unmarked uncapped); c is replaced by the available d (class 0).
			want: sum(nil, list("c:SurgeReplaced"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "DIFF-10 UPD-11 (audit S12) the same plan uncapped",
			ds: newDS(surgeDS), nodes: []*v1.Node{node("n0", noSchedule), node("n1")},
			pods: []*v1.Pod{oldAvail("a", "n0"), pod("b", "n1", readyAt(1)), oldAvail("c", "zz"), pod("d", "zz", readyAt(1))},
			want: sum(nil, list("a:SurgeIneligibleExcess", "c:SurgeReplaced"), st(1, 1, 1, 1, 1, 1, 0))},
		// podsShouldBeOnNode visits a node's pods in claim order (controlled, then adopted)
		// and lists its terminal pods before its duplicates (audit F1); the cap cuts there.
		{name: "DIFF-10 DIFF-3 (audit S12, F1) cap 1 inside one node: a controlled Succeeded pod before an adopted one",
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", orphan, phase(v1.PodSucceeded)), pod("z", "n0", phase(v1.PodSucceeded))},
			opts: capped(1),
			want: withAdopt(withEvents(sum(nil, list("z:SucceededPod~"), st(1, 1, 0, 0, 1, 0, 1)),
				"SucceededDaemonPod default/a", "SucceededDaemonPod default/z"), "a")},
		{name: "DIFF-10 DIFF-3 DIFF-5 (audit S12) cap 1 inside one node: a terminal pod before a duplicate",
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0"), pod("b", "n0"), pod("z", "n0", phase(v1.PodSucceeded))},
			opts: capped(1),
			want: withEvents(sum(nil, list("z:SucceededPod~"), st(1, 1, 0, 0, 1, 0, 1)), "SucceededDaemonPod default/z")},
		{name: "DIFF-10 DIFF-4 (audit S12, F1) cap 1 inside one node: a controlled pod before an adopted one",
			nodes: []*v1.Node{node("n0", noExecute)}, pods: []*v1.Pod{pod("a", "n0", orphan), pod("z", "n0")},
			opts: capped(1),
			want: withAdopt(sum(nil, list("z:NodeNotEligible~"), st(0, 0, 1, 0, 0, 0, 0)), "a")},
		// manage appends getUnscheduledPodsWithoutNode after every node-visited deletion.
		{name: "DIFF-10 DIFF-8 (audit S12) cap 1: a node-visited deletion before an unscheduled pod on a missing node",
			nodes: []*v1.Node{node("z", noExecute)}, pods: []*v1.Pod{pod("pz", "z"), pod("pa", "", unscheduledFor("a"))},
			opts: capped(1),
			want: sum(nil, list("pz:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
	})
}

// TestPlanDIFF10ZeroBurstLimitIsTheControllers: a zero Options.BurstLimit caps each list at
// the controller's 250 (DIFF-10, D-18), as BurstReplicas does; a negative one reports the whole
// diff.
func TestPlanDIFF10ZeroBurstLimitIsTheControllers(t *testing.T) {
	t.Parallel()
	s := daemonset.Snapshot{Nodes: numberedNodes("n", 300)}
	tests := []struct {
		name       string
		burstLimit int
		want       int
	}{
		{name: "DIFF-10 D-18 zero caps at the controller's 250", burstLimit: 0, want: daemonset.DefaultBurstLimit},
		{name: "DIFF-10 D-18 NoBurstLimit reports every create", burstLimit: daemonset.NoBurstLimit, want: 300},
		{name: "DIFF-10 D-18 any negative value reports every create", burstLimit: -7, want: 300},
		{name: "DIFF-10 D-18 a positive limit caps there", burstLimit: 299, want: 299},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, errs := daemonset.Compile(newDS(), daemonset.Options{Now: now1000, BurstLimit: tt.burstLimit})
			require.Empty(t, errs)
			res := p.Plan(s)
			require.Len(t, res.Create, tt.want)
			require.Equal(t, tt.want < 300, res.Create[0].Interchangeable)
		})
	}
}

// TestPlanDIFF10CappedCreatesCarryTheirPods: the burst cap cuts the create list before the
// pods are built, and every create kept still carries the full pod, bound to its node (POD-6)
// with the current hash (POD-3).
func TestPlanDIFF10CappedCreatesCarryTheirPods(t *testing.T) {
	t.Parallel()
	p, _ := daemonset.Compile(newDS(), daemonset.Options{Version: v1363, Now: now1000, BurstLimit: 25})
	res := p.Plan(daemonset.Snapshot{Nodes: numberedNodes("n", 60)})
	require.Len(t, res.Create, 25)
	for _, c := range res.Create {
		require.NotNil(t, c.Pod, "create on %s", c.Node)
		require.True(t, c.Interchangeable, "create on %s", c.Node)
		target, ok := affinity.TargetNodeName(c.Pod)
		require.True(t, ok)
		require.Equal(t, c.Node, target)
		require.Equal(t, res.RevisionHash, c.Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
		require.Equal(t, p.NewPod(c.Node).Spec, c.Pod.Spec)
	}
}
