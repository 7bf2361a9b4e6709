package daemonset_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// revisionFor returns a ControllerRevision owned by ds whose data matches ds's template
// (UPD-16), labelled with hash.
func revisionFor(t *testing.T, ds *appsv1.DaemonSet, hash string, number int64) *appsv1.ControllerRevision {
	t.Helper()
	raw, err := json.Marshal(ds)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(raw, &obj))
	tmpl := obj["spec"].(map[string]any)["template"].(map[string]any)
	tmpl["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
	require.NoError(t, err)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace,
			Labels:          map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{ownedBy("DaemonSet", ds.Name, ds.UID, true)},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: number,
	}
}

func TestRevisionSCN104MatchingRevisionLabel(t *testing.T) {
	t.Parallel()
	ds := newDS()
	p, _ := daemonset.Compile(ds, opts())
	rev := revisionFor(t, ds, "custom", 1)
	revBefore := rev.DeepCopy()
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{rev}})
	if diff := cmp.Diff(revBefore, rev); diff != "" {
		t.Errorf("revision mutated (-before +after):\n%s", diff)
	}
	require.Equal(t, "custom", res.RevisionHash)
	require.Len(t, res.Create, 1)
	require.Equal(t, "custom", res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionD6WithoutRevisionsTheHashIsFresh(t *testing.T) {
	t.Parallel()
	ds := newDS()
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.Equal(t, daemonset.ComputeHash(&ds.Spec.Template, nil), res.RevisionHash)
	require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionSCN105CollisionCount(t *testing.T) {
	t.Parallel()
	plain, err := daemonset.Plan(newDS(), nodes(1), nil, opts())
	require.NoError(t, err)
	withZero, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr[int32](0) }), nodes(1), nil, opts())
	require.NoError(t, err)
	withOne, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr[int32](1) }), nodes(1), nil, opts())
	require.NoError(t, err)
	require.NotEqual(t, plain.RevisionHash, withOne.RevisionHash, "UPD-15: collisionCount changes the hash")
	require.NotEqual(t, plain.RevisionHash, withZero.RevisionHash, "Surprise 30: collisionCount 0 differs from none")
	require.Equal(t, withOne.RevisionHash, withOne.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionSCN106EmptyTolerationsChangeTheRawHash(t *testing.T) {
	t.Parallel()
	absent := newDS()
	empty := newDS(tolerations())
	empty.Spec.Template.Spec.Tolerations = []v1.Toleration{}
	require.NotEqual(t, hashOf(absent), hashOf(empty), "UPD-17: [] and nil hash differently")
	empty.Spec.Template.Spec.Tolerations = nil
	require.Equal(t, hashOf(absent), hashOf(empty), "UPD-17: equal once normalised to nil")
}

func TestRevisionSCN107StrategyChangesKeepTheHash(t *testing.T) {
	t.Parallel()
	before := newDS()
	after := newDS(rolling(ios(1), ios(0)), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 30 })
	require.Equal(t, hashOf(before), hashOf(after))
	// The pods of the OnDelete DaemonSet are current for the RollingUpdate one: no rollout.
	sc := scenario{ds: after, nodes: nodes(2), pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready)},
		want: sum(nil, nil, st(2, 2, 0, 2, 2, 2, 0))}
	sc.run(t)
}

func TestPlanD10HashCollision(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr[int32](2) })
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	// A revision named foo-<hash of ds> whose data is another template (UPD-21).
	rev := revisionFor(t, other, hashOf(ds), 1)
	p, _ := daemonset.Compile(ds, opts())
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(2), Pods: []*v1.Pod{pod("o", "n0", orphan)}, Revisions: []*appsv1.ControllerRevision{rev}})
	want := &daemonset.Result{
		Namespace: "default", Name: "foo", Skipped: daemonset.SkipHashCollision,
		Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: []daemonset.PodRef{}, Release: []daemonset.PodRef{},
		CollisionCount: ptr[int32](3),
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
	}
}

func TestPlanD11SkippedPlanJSON(t *testing.T) {
	t.Parallel()
	res, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }), nodes(1), nil, opts())
	require.NoError(t, err)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	got := string(raw)
	for _, want := range []string{`"status":null`, `"revisionHash":""`, `"skipped":"SYNC-3"`, `"create":[]`, `"delete":[]`, `"adopt":[]`, `"release":[]`, `"reason":"SelectingAll"`} {
		require.Contains(t, got, want)
	}
}

func TestPlanD11EmptyListsAreArrays(t *testing.T) {
	t.Parallel()
	res, err := daemonset.Plan(newDS(), nil, nil, opts())
	require.NoError(t, err)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	for _, want := range []string{`"create":[]`, `"delete":[]`, `"adopt":[]`, `"release":[]`, `"status":{`} {
		require.Contains(t, string(raw), want)
	}
}

func TestStatusSCN102ObservedGeneration(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Generation = 5
		ds.Status.ObservedGeneration = 2
		ds.Status.CollisionCount = ptr[int32](4)
		ds.Status.Conditions = []appsv1.DaemonSetCondition{{Type: "X", Status: v1.ConditionTrue}}
	})
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.EqualValues(t, 5, res.Status.ObservedGeneration)
	// STAT-11: collisionCount and conditions are carried over untouched.
	require.Equal(t, ptr[int32](4), res.Status.CollisionCount)
	if diff := cmp.Diff(ds.Status.Conditions, res.Status.Conditions); diff != "" {
		t.Errorf("conditions mismatch (-want +got):\n%s", diff)
	}
}

func TestStatusSurprise32ObservedGenerationAfterFailedStep(t *testing.T) {
	t.Parallel()
	// SCN-96: the surge step fails on an old pod bound to a missing node (UPD-11, SYNC-6).
	ds := newDS(rolling(ios(0), ios(1)), func(ds *appsv1.DaemonSet) { ds.Generation = 7 })
	res, err := daemonset.Plan(ds, nodes(1), []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p9", "n9", oldHash, ready)}, opts())
	require.NoError(t, err)
	require.NotNil(t, res.RollingUpdate)
	require.False(t, res.RollingUpdate.Acted)
	require.Equal(t, daemonset.RollingReasonError, res.RollingUpdate.Reason)
	require.NotEmpty(t, res.RollingUpdate.Error)
	require.EqualValues(t, 7, res.Status.ObservedGeneration)
}

func TestPlanRollingUpdateReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		pods       []*v1.Pod
		wantReason daemonset.RollingReason
		wantActed  bool
	}{
		{name: "UPD-1 OnDelete never runs the step", ds: newDS(), wantReason: daemonset.RollingReasonOnDelete},
		{name: "UPD-1 D-4 an empty strategy type is not defaulted and behaves like OnDelete",
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{} }), wantReason: daemonset.RollingReasonOnDelete},
		{name: "UPD-2 a non-empty base diff blocks the step", ds: newDS(rolling(ios(1), ios(0))), wantReason: daemonset.RollingReasonBaseDiffNotEmpty},
		{name: "UPD-2 an empty base diff lets the step act", ds: newDS(rolling(ios(1), ios(0))),
			pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready)}, wantActed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(2), tt.pods, opts())
			require.NoError(t, err)
			require.NotNil(t, res.RollingUpdate)
			require.Equal(t, tt.wantReason, res.RollingUpdate.Reason)
			require.Equal(t, tt.wantActed, res.RollingUpdate.Acted)
		})
	}
}

func TestPlanD4ObjectsAsStored(t *testing.T) {
	t.Parallel()
	// An undefaulted DaemonSet (empty strategy type) keeps its old pods; the defaulted copy
	// (RollingUpdate, maxUnavailable 1) replaces one of them.
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{}
		ds.Spec.RevisionHistoryLimit = nil
	})
	pods := []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready)}
	raw, err := daemonset.Plan(ds, nodes(2), pods, opts())
	require.NoError(t, err)
	require.Empty(t, raw.Delete)
	defaulted, err := daemonset.Plan(daemonset.WithDefaults(ds), nodes(2), pods, opts())
	require.NoError(t, err)
	require.Len(t, defaulted.Delete, 1)
}

func TestPlanD5MissingIdentityFields(t *testing.T) {
	t.Parallel()
	// An empty uid compares like any other string, and a missing creationTimestamp is the
	// zero time, which sorts first (DIFF-7).
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.UID = "" })
	pods := []*v1.Pod{
		pod("stamped", "n0", owners(ownedBy("DaemonSet", "foo", "", true))),
		pod("unstamped", "n0", owners(ownedBy("DaemonSet", "foo", "", true)), func(p *v1.Pod) { p.CreationTimestamp = metav1.Time{} }),
		pod("other-uid", "n1"),
	}
	sc := scenario{ds: ds, nodes: nodes(2), pods: pods,
		want: sum(list("n1"), list("stamped:DuplicatePod"), st(2, 1, 0, 0, 1, 0, 2))}
	sc.run(t)
}

func TestPlanSurprise17NilSelectorInvalid(t *testing.T) {
	t.Parallel()
	// VAL-2: a nil selector is reported as a template-label mismatch, not as required; the
	// plan is still the controller's (VAL-22).
	res, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }), nodes(1), nil, opts())
	require.NoError(t, err)
	require.NotEmpty(t, res.Invalid)
	require.True(t, strings.Contains(strings.Join(res.Invalid, "\n"), "spec.template.metadata.labels"), "got %q", res.Invalid)
	require.Len(t, res.Create, 1)
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

func TestPlanInconsistentSnapshot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		nodes   []*v1.Node
		pods    []*v1.Pod
		wantErr string
	}{
		{name: "a nil node is an error", nodes: []*v1.Node{nil}, wantErr: "nodes[0]"},
		{name: "two nodes with one name are an error", nodes: []*v1.Node{node("a"), node("a")}, wantErr: "nodes[1]"},
		{name: "a nil pod is an error", pods: []*v1.Pod{nil}, wantErr: "pods[0]"},
		{name: "two pods with one namespace/name are an error", pods: []*v1.Pod{pod("p", "a"), pod("p", "b")}, wantErr: "pods[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := daemonset.Plan(newDS(), tt.nodes, tt.pods, opts())
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestCheckSnapshot pins every error CheckSnapshot reports, in index order, whether a list
// comes in the API server's order (proved free of duplicates in one pass) or not (a map).
func TestCheckSnapshot(t *testing.T) {
	t.Parallel()
	inNS := func(ns string, p *v1.Pod) *v1.Pod { p.Namespace = ns; return p }
	tests := []struct {
		name string
		s    daemonset.Snapshot
		want []string
	}{
		{name: "sorted nodes and pods are consistent", s: daemonset.Snapshot{
			Nodes: []*v1.Node{node("a"), node("b")}, Pods: []*v1.Pod{pod("p", "a"), pod("q", "b")}}},
		{name: "unsorted distinct nodes and pods are consistent", s: daemonset.Snapshot{
			Nodes: []*v1.Node{node("b"), node("a")}, Pods: []*v1.Pod{pod("q", "a"), pod("p", "b")}}},
		{name: "one pod name in two namespaces is consistent", s: daemonset.Snapshot{
			Pods: []*v1.Pod{inNS("x", pod("p", "a")), inNS("a", pod("p", "a"))}}},
		{name: "nil entries in a sorted list are reported at their index", s: daemonset.Snapshot{
			Nodes: []*v1.Node{node("a"), nil, node("b"), nil}},
			want: []string{"nodes[1]: Required value: must not be nil", "nodes[3]: Required value: must not be nil"}},
		{name: "a duplicate next to its twin is reported at the second", s: daemonset.Snapshot{
			Nodes: []*v1.Node{node("a"), node("b"), node("b")}},
			want: []string{`nodes[2]: Duplicate value: "/b"`}},
		{name: "duplicates and nil entries of an unsorted list come in index order", s: daemonset.Snapshot{
			Pods: []*v1.Pod{pod("q", "a"), nil, pod("p", "a"), pod("q", "b"), pod("p", "c")}},
			want: []string{"pods[1]: Required value: must not be nil", `pods[3]: Duplicate value: "` + pod("q", "a").Namespace + `/q"`,
				`pods[4]: Duplicate value: "` + pod("q", "a").Namespace + `/p"`}},
		{name: "every list is checked", s: daemonset.Snapshot{
			DaemonSets: []*appsv1.DaemonSet{nil}, Revisions: []*appsv1.ControllerRevision{nil}},
			want: []string{"daemonSets[0]: Required value: must not be nil", "revisions[0]: Required value: must not be nil"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range daemonset.CheckSnapshot(tt.s) {
				got = append(got, e.Error())
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// TestPlanDIFF10CappedCreatesCarryTheirPods: the burst cap cuts the create list before the
// pods are built, and every create kept still carries the full pod, bound to its node (POD-6)
// with the current hash (POD-3).
func TestPlanDIFF10CappedCreatesCarryTheirPods(t *testing.T) {
	t.Parallel()
	p, _ := daemonset.Compile(newDS(), daemonset.Options{Now: now1000, BurstLimit: 25})
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

func TestPlanMisusePanics(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "daemonset: Options.Now is zero", func() { _, _ = daemonset.Plan(newDS(), nil, nil, daemonset.Options{}) })
	require.PanicsWithValue(t, "daemonset: negative Options.BurstLimit", func() {
		_, _ = daemonset.Compile(newDS(), daemonset.Options{Now: now1000, BurstLimit: -1})
	})
	require.PanicsWithValue(t, "daemonset: nil DaemonSet", func() { _, _ = daemonset.Compile(nil, opts()) })
	require.PanicsWithValue(t, "daemonset: negative Options.Workers", func() {
		_, _ = daemonset.Compile(newDS(), daemonset.Options{Now: now1000, Workers: -1})
	})
	require.PanicsWithValue(t, "daemonset: negative Options.Workers", func() {
		_, _ = daemonset.PlanCluster(daemonset.Snapshot{}, daemonset.Options{Now: now1000, Workers: -1})
	})
	p, _ := daemonset.Compile(newDS(), opts())
	require.PanicsWithValue(t, "daemonset: Eligibility called with a nil node", func() { p.Eligibility(nil) })
	require.PanicsWithValue(t, "daemonset: Eligibility called with a nil node", func() { p.Explain(nil) })
}

func TestPlanClusterD2D12OldestDaemonSetAdopts(t *testing.T) {
	t.Parallel()
	older := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID, ds.CreationTimestamp = "zz-old", "uid-old", metav1.Unix(10, 0)
	})
	younger := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID, ds.CreationTimestamp = "aa-young", "uid-young", metav1.Unix(20, 0)
	})
	twin := newDS(func(ds *appsv1.DaemonSet) { // same age as older: namespace/name decides
		ds.Name, ds.UID, ds.CreationTimestamp = "zz-twin", "uid-twin", metav1.Unix(10, 0)
	})
	deleting := newDS(func(ds *appsv1.DaemonSet) { // would not adopt (SYNC-4), so not in the race
		ds.Name, ds.UID, ds.CreationTimestamp = "a-deleting", "uid-del", metav1.Unix(1, 0)
		ds.DeletionTimestamp = ptr(metav1.Unix(30, 0))
	})
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{younger, twin, deleting, older},
		Nodes:      nodes(1),
		Pods:       []*v1.Pod{pod("o", "n0", orphan)},
	}
	before := deepPods(s.Pods)
	got, err := daemonset.PlanCluster(s, opts())
	require.NoError(t, err)
	if diff := cmp.Diff(before, s.Pods); diff != "" {
		t.Errorf("pods mutated (-before +after):\n%s", diff)
	}
	var names []string
	byName := map[string]*daemonset.Result{}
	for _, r := range got.DaemonSets {
		names = append(names, r.Name)
		byName[r.Name] = r
	}
	require.Equal(t, []string{"a-deleting", "aa-young", "zz-old", "zz-twin"}, names)
	require.Equal(t, []daemonset.PodRef{{Namespace: "default", Name: "o"}}, byName["zz-old"].Adopt)
	require.Empty(t, byName["zz-old"].Create)
	lost := []daemonset.Conflict{{Namespace: "default", Name: "o", AdoptedBy: "default/zz-old"}}
	for _, n := range []string{"aa-young", "zz-twin"} {
		require.Empty(t, byName[n].Adopt, n)
		require.Equal(t, lost, byName[n].Conflicts, n)
		require.Len(t, byName[n].Create, 1, "%s: the lost orphan does not fill the node", n)
	}
	require.Equal(t, daemonset.SkipBeingDeleted, byName["a-deleting"].Skipped)

	// D-2: the single-DaemonSet plan sees no rival and adopts.
	single, err := daemonset.Plan(younger, s.Nodes, s.Pods, opts())
	require.NoError(t, err)
	require.Equal(t, []daemonset.PodRef{{Namespace: "default", Name: "o"}}, single.Adopt)
}

func TestPlanClusterInconsistentSnapshot(t *testing.T) {
	t.Parallel()
	_, err := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS(), newDS()}}, opts())
	require.ErrorContains(t, err, "daemonSets[1]")
}
