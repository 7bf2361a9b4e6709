package daemonset_test

// Syncs that do nothing (SYNC-*): the skip rules and their plan.

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestSyncRules(t *testing.T) {
	h := hashOf(rtDS())
	gone := func(p *v1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "gone", "uid-gone", true)}
	}
	cluster := func(t *testing.T, s daemonset.Snapshot) *daemonset.ClusterResult {
		t.Helper()
		before := rtCopy(nil, s)
		out, err := s.Plan(opts())
		require.NoError(t, err)
		rtRequireUnchanged(t, before, nil, s)
		return out
	}
	rtRun(t, []rtCase{
		{"SYNC-1 a DaemonSet absent from the snapshot gets no plan and its pods are left alone", func(t *testing.T) {
			s := daemonset.Snapshot{
				DaemonSets: []*appsv1.DaemonSet{rtDS()},
				Nodes:      []*v1.Node{node("a")},
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
				Nodes: []*v1.Node{node("a")},
				Pods:  []*v1.Pod{rtPod("g", "a", h, gone), rtPod("o", "a", h, orphan)},
			})
			require.Empty(t, out.DaemonSets)
		}},
	})
}

// Review point (e), STAT-10, D-10, D-11: under every skip no status is written, so the plan
// has none and observedGeneration is not raised.
func TestSkippedWritesNoStatus(t *testing.T) {
	t.Parallel()
	collide := newDS(surgeDS, func(ds *appsv1.DaemonSet) { ds.Generation = 7 })
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		revisions []*appsv1.ControllerRevision
		skip      daemonset.Skip
	}{
		{name: "SYNC-3 selecting all", skip: daemonset.SkipSelectingAll,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.Spec.Selector = &metav1.LabelSelector{} })},
		{name: "SYNC-4 being deleted", skip: daemonset.SkipBeingDeleted,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.DeletionTimestamp = ptr.To(metav1.Unix(5, 0)) })},
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

// Review point (b), SYNC-2, UPD-21, D-2, D-10: constructHistory fails before getDaemonPods, so a
// DaemonSet whose sync stops on a hash collision adopts nothing; in a cluster-wide plan an orphan
// both select goes to the younger DaemonSet, without a conflict, even though the colliding one is
// older.
func TestSYNC2CollidingDaemonSetAdoptsNothingClusterWide(t *testing.T) {
	t.Parallel()
	older := newDS(func(ds *appsv1.DaemonSet) { ds.CreationTimestamp = metav1.Unix(1, 0) })
	younger := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID, ds.CreationTimestamp = "bar", "uid-bar", metav1.Unix(2, 0)
	})
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{older, younger},
		Nodes:      nodes(1),
		Pods:       []*v1.Pod{pod("o", "n0", orphan)},
		Revisions:  []*appsv1.ControllerRevision{revisionFor(t, other, hashOf(older), 1)},
	}
	got, err := s.Plan(opts())
	require.NoError(t, err)
	require.Len(t, got.DaemonSets, 2)
	bar, foo := got.DaemonSets[0], got.DaemonSets[1]
	require.Equal(t, daemonset.SkipHashCollision, foo.Skipped)
	require.Empty(t, foo.Adopt)
	require.Empty(t, foo.Conflicts)
	require.Empty(t, bar.Skipped)
	require.Equal(t, []daemonset.ObjectRef{{Namespace: "default", Name: "o"}}, bar.Adopt)
	require.Empty(t, bar.Conflicts)
	require.Empty(t, bar.Create)
}

// syncScenarios are the scenarios of syncs that do nothing (SYNC-*, SEL-1, SEL-2).
func syncScenarios() []scenario {
	return []scenario{
		{name: "SCN-64 SYNC-4 D-9 a DaemonSet being deleted gets nothing, not even status",
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = ptr.To(metav1.Unix(5, 0)) }), nodes: nodes(2),
			want: skipped(daemonset.SkipBeingDeleted)},
		{name: "SCN-65 SYNC-3 D-8 D-9 the empty selector {} does nothing but warn",
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }), nodes: nodes(2),
			pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: skipped(daemonset.SkipSelectingAll, "SelectingAll")},
		{name: "SCN-66 SYNC-3 SEL-2 matchLabels {} bypasses the guard and adopts every orphan", surprises: []int{16},
			ds:    newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}} }),
			nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan, podLabels(map[string]string{"x": "y"}))},
			want: withAdopt(sum(list("n1"), nil, st(2, 1, 0, 0, 0, 0, 2)), "o0")},
		{name: "SCN-67 SEL-1 a nil selector releases every owned pod", surprises: []int{16},
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }), nodes: nodes(2), pods: []*v1.Pod{pod("p0", "n0")},
			want: withRelease(sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2)), "p0")},
		{name: "SCN-68 SEL-6 SYNC-5 D-9 an unconvertible selector stops the whole sync", surprises: []int{15},
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Gt", Values: []string{"1"}}}}
			}), nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: skipped(daemonset.SkipInvalidSelector)},
	}
}

func TestSyncScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, syncScenarios())
}
