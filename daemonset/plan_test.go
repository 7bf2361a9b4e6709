package daemonset_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

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

// Review point (c): a snapshot no informer cache can hold (nil entries, two nodes or two pods
// with one name) is an error for Plan and for Snapshot.Plan alike.
func TestInconsistentSnapshotIsAnErrorEverywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		nodes []*v1.Node
		pods  []*v1.Pod
	}{
		{name: "two nodes with one name", nodes: []*v1.Node{node("n0"), node("n0")}},
		{name: "a nil node", nodes: []*v1.Node{node("n0"), nil}},
		{name: "two pods with one namespace/name", nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0"), pod("p", "n1")}},
		{name: "a nil pod", nodes: nodes(1), pods: []*v1.Pod{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := daemonset.Plan(newDS(), tt.nodes, tt.pods, opts())
			require.Error(t, err)
			_, errCluster := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS()}, Nodes: tt.nodes, Pods: tt.pods}.Plan(opts())
			require.Error(t, errCluster)
			require.Equal(t, err.Error(), errCluster.Error())
		})
	}
	_, err := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS(), nil}}.Plan(opts())
	require.Error(t, err)
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
			for _, e := range tt.s.Check() {
				got = append(got, e.Error())
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPlanMisusePanics(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "daemonset: Options.Now is zero", func() { _, _ = daemonset.Plan(newDS(), nil, nil, daemonset.Options{Version: v1363}) })
	require.PanicsWithValue(t, "daemonset: nil DaemonSet", func() { _, _ = daemonset.Compile(nil, opts()) })
	require.PanicsWithValue(t, "daemonset: negative Options.Workers", func() {
		_, _ = daemonset.Compile(newDS(), daemonset.Options{Version: v1363, Now: now1000, Workers: -1})
	})
	require.PanicsWithValue(t, "daemonset: negative Options.Workers", func() {
		_, _ = daemonset.Snapshot{}.Plan(daemonset.Options{Version: v1363, Now: now1000, Workers: -1})
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
		ds.DeletionTimestamp = ptr.To(metav1.Unix(30, 0))
	})
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{younger, twin, deleting, older},
		Nodes:      nodes(1),
		Pods:       []*v1.Pod{pod("o", "n0", orphan)},
	}
	before := deepPods(s.Pods)
	got, err := s.Plan(opts())
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
	require.Equal(t, []daemonset.ObjectRef{{Namespace: "default", Name: "o"}}, byName["zz-old"].Adopt)
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
	require.Equal(t, []daemonset.ObjectRef{{Namespace: "default", Name: "o"}}, single.Adopt)
}

func TestPlanClusterInconsistentSnapshot(t *testing.T) {
	t.Parallel()
	_, err := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS(), newDS()}}.Plan(opts())
	require.ErrorContains(t, err, "daemonSets[1]")
}

// The one-call Plan sees no ControllerRevisions (D-6): every sync it does not skip creates the
// first revision and writes no other, while Planner.Plan on a Snapshot holding that revision
// writes none.
func TestPlanSeesNoRevisions(t *testing.T) {
	t.Parallel()
	ds := newDS()
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.NotNil(t, res.Revisions)
	want, err := daemonset.NewRevision(ds, res.RevisionHash, 1)
	require.NoError(t, err)
	if diff := cmp.Diff(&daemonset.RevisionWrites{Create: []*appsv1.ControllerRevision{want}}, res.Revisions); diff != "" {
		t.Errorf("Plan().Revisions mismatch (-want +got):\n%s", diff)
	}

	p, errs := daemonset.Compile(ds, opts())
	require.Empty(t, errs)
	again := p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{want}})
	require.Equal(t, res.RevisionHash, again.RevisionHash)
	require.Nil(t, again.Revisions)

	deleting := newDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = &metav1.Time{} })
	skipped, err := daemonset.Plan(deleting, nodes(1), nil, opts())
	require.NoError(t, err)
	require.Equal(t, daemonset.SkipBeingDeleted, skipped.Skipped)
	require.Nil(t, skipped.Revisions)
}

// TestPlanErrorIsBounded: an inconsistent snapshot of many problems is one error of at most
// 100 of them, then their count, in index order (issue 25, F14): apimachinery's aggregate
// words the whole list, in time quadratic in its length.
func TestPlanErrorIsBounded(t *testing.T) {
	t.Parallel()
	nodes := make([]*v1.Node, 5000) // every node nil
	_, err := daemonset.Plan(newDS(), nodes, nil, daemonset.Options{Now: now1000})
	require.Error(t, err)
	msg := err.Error()
	require.True(t, strings.HasSuffix(msg, ", ... and 4900 more]"), "error ends %q", msg[max(0, len(msg)-60):])
	require.Less(t, len(msg), 100*200, "error of %d bytes", len(msg))
	require.True(t, strings.HasPrefix(msg, "[nodes[0]"), "error starts %q", msg[:min(len(msg), 60)])
}

// TestPlanRequeuesSplitsTheBackoff: PlanRequeues is Plan, and its parts keep the failed-pod
// back-off's requeue (DIFF-12, DIFF-17) apart from the minReadySeconds one of the status
// (STAT-15), which RequeueAfter folds into one minimum (SYNC-8). On n0 a pod Ready since 995
// is not available under minReadySeconds 10 at 1000; on n1 a Failed pod is held by the
// back-off for 60 s, or deleted when no entry holds it.
func TestPlanRequeuesSplitsTheBackoff(t *testing.T) {
	t.Parallel()
	held := []daemonset.BackoffEntry{{DaemonSetUID: "uid-foo", Node: "n1",
		Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(now1000)}}
	tests := []struct {
		name             string
		minReady         int32
		backoff          []daemonset.BackoffEntry
		wantRequeueAfter time.Duration
		wantBackoff      time.Duration
	}{
		{name: "held Failed pod under minReadySeconds keeps the back-off's 60s apart from the status's 10s (SYNC-8, STAT-15, DIFF-12)",
			minReady: 10, backoff: held, wantRequeueAfter: 10 * time.Second, wantBackoff: time.Minute},
		{name: "held Failed pod without minReadySeconds: both are the back-off's (DIFF-17)",
			backoff: held, wantRequeueAfter: time.Minute, wantBackoff: time.Minute},
		{name: "Failed pod deleted under minReadySeconds: no back-off part (DIFF-12)",
			minReady: 10, wantRequeueAfter: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(minReadySeconds(tt.minReady))
			ns := nodes(2)
			pods := []*v1.Pod{pod("p0", "n0", readyAt(995)), pod("p1", "n1", phase(v1.PodFailed))}
			dsCopy, nsCopy, podsCopy := ds.DeepCopy(), deepNodes(ns), deepPods(pods)
			p, errs := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now1000, Backoff: tt.backoff})
			require.Empty(t, errs)
			s := daemonset.Snapshot{Nodes: ns, Pods: pods}
			got, parts := p.PlanRequeues(s)
			requireUnmutated(t, dsCopy, ds, nsCopy, ns, podsCopy, pods)
			if diff := cmp.Diff(p.Plan(s), got); diff != "" {
				t.Errorf("PlanRequeues() plan differs from Plan() (-Plan +PlanRequeues):\n%s", diff)
			}
			require.Equal(t, tt.wantRequeueAfter, got.RequeueAfter.Duration, "RequeueAfter")
			require.Equal(t, tt.wantBackoff, parts.Backoff, "the back-off's part")
		})
	}
}
