package daemonset_test

// A second review of the plan against the pinned v1.36.3 controller, function by function
// (pkg/controller/daemon daemon_controller.go and update.go, pkg/controller controller_utils.go
// and controller_ref_manager.go). Each case names the rule and the upstream function its
// expectation was read from; none was derived by running this library.

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// D-8, DIFF-3, SYNC-3: the events carry the reason, type and message that podsShouldBeOnNode and
// syncDaemonSet pass to the event recorder.
func TestReviewEventMessagesAreUpstreams(t *testing.T) {
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

// STAT-8, STAT-9: storeDaemonSetStatus writes nothing when the seven counters equal the stored
// ones and the stored observedGeneration is at least metadata.generation; the DaemonSet then
// keeps its stored observedGeneration, even one above metadata.generation. Once anything is
// written, observedGeneration becomes metadata.generation.
func TestReviewSTAT9ObservedGenerationWhenNothingIsWritten(t *testing.T) {
	t.Parallel()
	stored := func(observed int64, desired int32) dsMod {
		return func(ds *appsv1.DaemonSet) {
			ds.Generation = 3
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed,
				DesiredNumberScheduled: desired, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1,
				NumberUnavailable: 1}
		}
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want int64
	}{
		{name: "STAT-9 counters equal and stored observedGeneration above generation: nothing written, 5 stays", ds: newDS(stored(5, 1)), want: 5},
		{name: "STAT-9 counters equal and stored observedGeneration equal to generation: 3", ds: newDS(stored(3, 1)), want: 3},
		{name: "STAT-8 counters equal but stored observedGeneration below generation: written, 3", ds: newDS(stored(2, 1)), want: 3},
		{name: "STAT-8 a counter differs: written with generation 3 even though 5 was stored", ds: newDS(stored(5, 2)), want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(1), []*v1.Pod{pod("p", "n0")}, opts())
			require.NoError(t, err)
			require.NotNil(t, res.Status)
			require.Equal(t, tt.want, res.Status.ObservedGeneration)
		})
	}
}

// POD-1: getPodsPrefix uses "<name>-" unless that prefix fails pod-name validation as a
// prefix (apimachinery NameIsDNSSubdomain with prefix true, which masks the trailing dash by
// dropping the last two characters and appending "a"); then the bare name. Only a name that API
// validation rejects (VAL-22: planned as stored) can take the fallback.
func TestReviewPOD1GenerateNameFallback(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, ds, want string }{
		{name: "POD-1 a valid name gets the dash", ds: "foo", want: "foo-"},
		{name: "POD-1 a one-character name gets the dash", ds: "a", want: "a-"},
		{name: "POD-1 an upper-case name fails as a prefix: the bare name", ds: "Foo", want: "Foo"},
		{name: "POD-1 an underscore fails as a prefix: the bare name", ds: "foo_bar", want: "foo_bar"},
		{name: "POD-1 a name ending in a dot passes once its last character is masked: the dash", ds: "foo.", want: "foo.-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) { ds.Name = tt.ds })
			res, err := daemonset.Plan(ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Len(t, res.Create, 1)
			require.Equal(t, tt.want, res.Create[0].Pod.GenerateName)
			p, _ := daemonset.Compile(ds, opts())
			require.Equal(t, tt.want, p.NewPod("n0").GenerateName)
		})
	}
}

// Review point (c): a snapshot no informer cache can hold (nil entries, two nodes or two pods
// with one name) is an error for Plan and for PlanCluster alike.
func TestReviewInconsistentSnapshotIsAnErrorEverywhere(t *testing.T) {
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
			_, errCluster := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS()}, Nodes: tt.nodes, Pods: tt.pods}, opts())
			require.Error(t, errCluster)
			require.Equal(t, err.Error(), errCluster.Error())
		})
	}
	_, err := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS(), nil}}, opts())
	require.Error(t, err)
}

// Review points (d), (f): FilterPodsByOwner looks pods up by the index key
// namespace/kind/name/uid of their first controller reference (apiVersion is not part of it) and
// only in the DaemonSet's namespace; ClaimObject then compares the uid.
func TestReviewOWNControllerReferenceKeys(t *testing.T) {
	t.Parallel()
	ref := func(apiVersion, kind, name, uid string) podMod {
		return owners(metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: ptr(true)})
	}
	runScenarios(t, []scenario{
		{name: "OWN-2 (d) a controller reference of apiVersion extensions/v1beta1, kind DaemonSet, same name and uid is this DaemonSet's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("extensions/v1beta1", "DaemonSet", "foo", "uid-foo"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "OWN-2 (d) nor does an unknown group matter",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("example.com/v9", "DaemonSet", "foo", "uid-foo"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "OWN-1 kind is compared exactly: daemonset in lower case is someone else's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("apps/v1", "daemonset", "foo", "uid-foo"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "OWN-1 the name is part of the key: same uid under another name is someone else's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("apps/v1", "DaemonSet", "bar", "uid-foo"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "OWN-3 (d) a non-matching pod under the extensions/v1beta1 reference is released",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("extensions/v1beta1", "DaemonSet", "foo", "uid-foo"), podLabels(map[string]string{"app": "x"}))},
			want: withRelease(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "p")},
		{name: "OWN-1 (f) a pod in another namespace with this DaemonSet's controller reference is invisible: not claimed, released, deleted or counted",
			nodes: nodes(2), pods: []*v1.Pod{
				pod("p", "n0", namespace("other")),
				pod("q", "n1", namespace("other"), podLabels(map[string]string{"app": "x"})),
				pod("r", "", namespace("other"), unscheduledFor("gone")),
			},
			want: sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "OWN-4 (f) an orphan in another namespace is not adopted",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", namespace("other"), orphan)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
	})
}

func withRelease(s summary, names ...string) summary { s.Release = names; return s }

// Review point (e), STAT-10, D-10, D-11: under every skip no status is written, so the plan
// has none and observedGeneration is not raised.
func TestReviewSkippedWritesNoStatus(t *testing.T) {
	t.Parallel()
	collide := newDS(surgeDS, func(ds *appsv1.DaemonSet) { ds.Generation = 7 })
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		revisions []*appsv1.ControllerRevision
		skip      string
	}{
		{name: "SYNC-3 selecting all", skip: daemonset.SkipSelectingAll,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.Spec.Selector = &metav1.LabelSelector{} })},
		{name: "SYNC-4 being deleted", skip: daemonset.SkipBeingDeleted,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.DeletionTimestamp = ptr(metav1.Unix(5, 0)) })},
		{name: "SYNC-5 invalid selector", skip: daemonset.SkipInvalidSelector,
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Generation = 7
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bad"}}}
			})},
		{name: "UPD-21 hash collision", skip: daemonset.SkipHashCollision, ds: collide,
			revisions: []*appsv1.ControllerRevision{revisionFor(t, other, hashOf(collide), 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := daemonset.Compile(tt.ds, opts())
			res := p.Plan(daemonset.Snapshot{Nodes: nodes(2), Pods: []*v1.Pod{pod("p", "n0", orphan)}, Revisions: tt.revisions})
			require.Equal(t, tt.skip, res.Skipped)
			require.Nil(t, res.Status)
			require.Empty(t, res.RevisionHash)
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
			require.Empty(t, res.Adopt)
		})
	}
}

// Review point (a), UPD-4: the rolling step's map holds every node of getNodesToDaemonPods (listed
// nodes that should not run but hold pods, and names missing from the node list whose pods are
// bound there), plus an empty entry per desired node without pods.
func TestReviewUPD4RollingMapKeys(t *testing.T) {
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
