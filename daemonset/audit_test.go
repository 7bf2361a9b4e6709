package daemonset_test

// Tests for the findings of the spec audit against the pinned v1.36.3 controller (F1, F5, F7,
// S2, S3, S6, S7, S10, S11, S12, S13). Each case names the rule and the finding; the expected
// plans were worked out by reading upstream (pkg/controller/daemon, pkg/controller,
// pkg/api/v1/pod), not by running this library.

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func runScenarios(t *testing.T, tests []scenario) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t)
		})
	}
}

func withEvents(s summary, events ...string) summary { s.Events = events; return s }
func withAdopt(s summary, names ...string) summary   { s.Adopt = names; return s }

func minReadySeconds(s int32) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = s }
}

func annotateGeneration(g string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: g}
	}
}

func genLabel(g string) podMod {
	return func(p *v1.Pod) { p.Labels[daemonset.LabelTemplateGeneration] = g }
}

func noHashLabel(p *v1.Pod) { delete(p.Labels, appsv1.DefaultDaemonSetUniqueLabelKey) }

var (
	noSchedule = taint("k", "v", v1.TaintEffectNoSchedule) // ELIG-4: shouldRun false, continue true
	noExecute  = taint("k", "v", v1.TaintEffectNoExecute)  // TAINT-5: neither flag
)

func TestAuditF1DIFF17ControlledFailedPodBeforeAdopted(t *testing.T) {
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
			nodes: nodes(1), pods: []*v1.Pod{pod("a", "n0", failed, orphan), pod("z", "n0", failed, terminating)},
			want: withAdopt(withEvents(sum(nil, list("a:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), "FailedDaemonPod default/a"), "a")},
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

func TestAuditF5DIFF8TerminalTerminatingPodsOnMissingNodes(t *testing.T) {
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

func TestAuditF7UPD21CollisionClaimsNothing(t *testing.T) {
	t.Parallel()
	ds := newDS(surgeDS)
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	// constructHistory fails before getNodesToDaemonPods: nothing is adopted, released,
	// deleted or created, and no status is written (UPD-21, D-10, audit F7).
	rev := revisionFor(t, other, hashOf(ds), 1)
	pods := []*v1.Pod{
		pod("orphan", "n0", orphan),                                     // would be adopted (OWN-4)
		pod("mismatch", "n0", podLabels(map[string]string{"app": "x"})), // would be released (OWN-3)
		pod("failed", "n1", phase(v1.PodFailed)),                        // would be deleted (DIFF-3)
		pod("stray", "", unscheduledFor("gone")),                        // would be deleted (DIFF-8)
	}
	p, _ := daemonset.Compile(ds, opts())
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(3), Pods: pods, Revisions: []*appsv1.ControllerRevision{rev}})
	want := &daemonset.Result{
		Namespace: "default", Name: "foo", Skipped: daemonset.SkipHashCollision,
		Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: []daemonset.PodRef{}, Release: []daemonset.PodRef{},
		CollisionCount: ptr[int32](1),
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
	}
}

// S2: the base diff's surge rule (DIFF-6) tells new from old by the hash label only; the rolling
// step (findUpdatedPodsOnNode, UPD-3) by hash OR pod-template-generation.
func TestAuditS2NewMeansHashInDIFF6ButHashOrGenerationInUPD3(t *testing.T) {
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

// S3: AllowsSurge (DIFF-9) resolves maxSurge against 1; the rolling step (UPD-5) resolves both
// budgets against desired.
func TestAuditS3EachLayerResolvesMaxSurgeItsOwnWay(t *testing.T) {
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
			rolling: &daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty}},
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
				Error: "couldn't get unavailable numbers: invalid value for MaxUnavailable: nil value for IntOrString"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := tt.run(t)
			require.Equal(t, tt.rolling, res.RollingUpdate)
		})
	}
}

func TestAuditS6StatusDetails(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "STAT-3 STAT-5 (audit S6) a desired node with only a terminating pod counts current; its stale Ready decides",
			nodes: nodes(1), pods: []*v1.Pod{pod("t", "n0", terminating, readyAt(1))},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "STAT-4 (audit S6) a NoSchedule node with only a terminating pod counts misscheduled",
			nodes: []*v1.Node{node("n0", noSchedule)}, pods: []*v1.Pod{pod("t", "n0", terminating, readyAt(1))},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-4 DIFF-4 (audit S6) a NoExecute node with only a terminating pod counts misscheduled, nothing deleted",
			nodes: []*v1.Node{node("n0", noExecute)}, pods: []*v1.Pod{pod("t", "n0", terminating)},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-3 STAT-5 (audit S6) of several terminating pods the oldest decides",
			nodes: nodes(1), pods: []*v1.Pod{pod("young", "n0", terminating, readyAt(1), created(5)), pod("old", "n0", terminating, oldHash, created(2))},
			want: sum(nil, nil, st(1, 1, 0, 0, 0, 0, 1))},
		{name: "STAT-3 OWN-9 (audit S6) an unscheduled pod aimed at a listed node counts current; without conditions it is not ready",
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "STAT-5 DIFF-7 (audit S6) an older unscheduled pod sorts after a bound one: the bound pod decides, the unscheduled one is the duplicate",
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"), readyAt(1), created(1)), pod("b", "n0", created(5))},
			want: sum(nil, list("u:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "STAT-4 (audit S6) an unscheduled pod aimed at a NoSchedule node counts misscheduled",
			nodes: []*v1.Node{node("n0", noSchedule)}, pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"))},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-4 ELIG-2 (audit S6) a node excluded by the template's nodeName that holds pods counts misscheduled",
			ds: newDS(withNodeName("n1")), nodes: nodes(2), pods: []*v1.Pod{pod("p", "n0", readyAt(1))},
			want: sum(list("n1"), list("p:NodeNotEligible"), st(1, 0, 1, 0, 0, 0, 1))},
	})
}

// emptyHashRevision is a claimed revision of ds that is current (UPD-16) and whose hash label is
// present but empty, so the sync's hash is "" (UPD-14, audit S7).
func emptyHashRevision(t *testing.T, ds *appsv1.DaemonSet, labels map[string]string) *appsv1.ControllerRevision {
	t.Helper()
	rev := revisionFor(t, ds, "", 1)
	rev.Labels = labels
	rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = ""
	return rev
}

func TestAuditS7S10POD3Labels(t *testing.T) {
	t.Parallel()
	t.Run("POD-3 (audit S7, S10) with an empty hash no hash label is set and a template one survives", func(t *testing.T) {
		t.Parallel()
		ds := newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "from-template"
		})
		p, _ := daemonset.Compile(ds, opts())
		res := p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{emptyHashRevision(t, ds, map[string]string{"app": "d"})}})
		require.Empty(t, res.Skipped)
		require.Equal(t, "", res.RevisionHash)
		require.Len(t, res.Create, 1)
		require.Equal(t, map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: "from-template"}, res.Create[0].Pod.Labels)
	})
	t.Run("POD-3 (audit S10) with a non-empty hash the hash label is set over a template one", func(t *testing.T) {
		t.Parallel()
		ds := newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "from-template"
		})
		res, err := daemonset.Plan(ds, nodes(1), nil, opts())
		require.NoError(t, err)
		require.NotEmpty(t, res.RevisionHash)
		require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	})

	tests := []struct {
		name       string
		annotation *string // nil: absent
		want       string  // the pod's pod-template-generation label; "" absent
	}{
		{name: "POD-3 (audit S10) strconv.ParseInt accepts a leading plus: +7 gives 7, over the template's label", annotation: ptr("+7"), want: "7"},
		{name: "POD-3 (audit S10) leading zeros are dropped: 007 gives 7", annotation: ptr("007"), want: "7"},
		{name: "POD-3 (audit S10) a negative generation is written as such", annotation: ptr("-3"), want: "-3"},
		{name: "POD-3 (audit S10) an absent annotation leaves the template's label", annotation: nil, want: "tmpl"},
		{name: "POD-3 (audit S10) an unparsable annotation leaves the template's label", annotation: ptr("seven"), want: "tmpl"},
		{name: "POD-3 (audit S10) an out-of-range annotation leaves the template's label", annotation: ptr("9223372036854775808"), want: "tmpl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels[daemonset.LabelTemplateGeneration] = "tmpl" })
			if tt.annotation != nil {
				annotateGeneration(*tt.annotation)(ds)
			}
			p, _ := daemonset.Compile(ds, opts())
			got := p.NewPod("n0").Labels[daemonset.LabelTemplateGeneration]
			require.Equal(t, tt.want, got)
			res, err := daemonset.Plan(ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Equal(t, tt.want, res.Create[0].Pod.Labels[daemonset.LabelTemplateGeneration])
		})
	}
}

func TestAuditS10POD3NoLabelsRefusesTheCreate(t *testing.T) {
	t.Parallel()
	// The selector matches the empty label set, the template has no labels and the current
	// revision's hash is "": the daemon pod has no labels and RealPodControl.createPods refuses
	// it ("unable to create pods, no labels"). Nothing is created; the deletions of the same
	// list still go (syncNodes submits them after the failed creates).
	empty := func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
		ds.Spec.Template.Labels = nil
	}
	ds := newDS(empty)
	rev := emptyHashRevision(t, ds, map[string]string{})
	pods := []*v1.Pod{pod("s", "n1", podLabels(map[string]string{}), phase(v1.PodSucceeded))}
	sc := scenario{ds: ds, nodes: nodes(2), pods: pods, revisions: []*appsv1.ControllerRevision{rev},
		want: withEvents(sum(nil, list("s:SucceededPod"), st(2, 1, 0, 0, 0, 0, 2)), "SucceededDaemonPod default/s")}
	res := sc.run(t)
	require.Equal(t, "", res.RevisionHash)
	require.Equal(t, &daemonset.RollingUpdate{Reason: daemonset.RollingReasonOnDelete}, res.RollingUpdate)

	// With a parsable generation annotation the pod has a label and is created.
	ds = newDS(empty, annotateGeneration("2"))
	rev = emptyHashRevision(t, ds, map[string]string{})
	p, _ := daemonset.Compile(ds, opts())
	res = p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{rev}})
	require.Len(t, res.Create, 1)
	require.Equal(t, map[string]string{daemonset.LabelTemplateGeneration: "2"}, res.Create[0].Pod.Labels)
}

func TestAuditS10RollingCreatesRefusedWithoutLabels(t *testing.T) {
	t.Parallel()
	// Surge step with hash "": pods without the hash label are new (DIFF-6, UPD-3 never
	// matches ""), so give the pods another hash; the unavailable old pod's replacement would be
	// created but has no labels. The step still acts; nothing is created.
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
		ds.Spec.Template.Labels = nil
	}, surgeDS)
	rev := emptyHashRevision(t, ds, map[string]string{})
	pods := []*v1.Pod{pod("o", "n0", podLabels(map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "old"}))}
	sc := scenario{ds: ds, nodes: nodes(1), pods: pods, revisions: []*appsv1.ControllerRevision{rev},
		want: sum(nil, nil, st(1, 1, 0, 0, 0, 0, 1))}
	res := sc.run(t)
	require.Equal(t, &daemonset.RollingUpdate{Acted: true, MaxSurge: 1}, res.RollingUpdate)
}

func TestAuditS7DIFF6EmptyHashPodsWithoutTheLabelAreNew(t *testing.T) {
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

func TestAuditS11UPD12NegativeMinReadySeconds(t *testing.T) {
	t.Parallel()
	// IsPodAvailable with minReadySeconds -10 at now = 1000: the == 0 shortcut does not apply,
	// so a Ready pod needs a non-zero lastTransitionTime, and is available when
	// lastTransitionTime - 10s <= now.
	tests := []struct {
		name      string
		ready     podMod
		available int32
	}{
		{name: "UPD-12 (audit S11) Ready without lastTransitionTime is not available", ready: readyAt(0), available: 0},
		{name: "UPD-12 (audit S11) Ready since 1005 is available (995 <= 1000)", ready: readyAt(1005), available: 1},
		{name: "UPD-12 (audit S11) Ready since 1010 is available at the boundary", ready: readyAt(1010), available: 1},
		{name: "UPD-12 (audit S11) Ready since 1011 is not available (1001 > 1000)", ready: readyAt(1011), available: 0},
		{name: "UPD-12 (audit S11) not Ready is never available", ready: func(*v1.Pod) {}, available: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(newDS(minReadySeconds(-10)), nodes(1), []*v1.Pod{pod("p", "n0", tt.ready)}, opts())
			require.NoError(t, err)
			require.Equal(t, tt.available, res.Status.NumberAvailable)
			require.NotEmpty(t, res.Invalid, "VAL-9: a negative minReadySeconds is invalid, still planned (VAL-22)")
		})
	}
}

func TestAuditS12BurstCapKeepsUpstreamListPriority(t *testing.T) {
	t.Parallel()
	capped := func(n int) *daemonset.Options { return &daemonset.Options{Now: now1000, BurstLimit: n} }
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
