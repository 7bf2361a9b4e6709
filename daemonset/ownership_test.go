package daemonset_test

// Claiming pods (OWN-*): which pods a DaemonSet sees, adopts and releases.

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

func TestOwnershipRules(t *testing.T) {
	h := hashOf(rtDS())
	other := ownedBy("DaemonSet", "other", "uid-other", true)
	mine := ownedBy("DaemonSet", "rt", "uid-rt", true)
	no := false
	notController := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "uid-cm", Controller: &no}
	owners := func(refs ...metav1.OwnerReference) func(*v1.Pod) {
		return func(p *v1.Pod) { p.OwnerReferences = refs }
	}
	rtRun(t, []rtCase{
		{"OWN-7 the first controller reference decides when this DaemonSet's comes first", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, []*v1.Pod{rtPod("p", "a", h, owners(mine, other))})
			require.Empty(t, res.Create)
			require.Empty(t, res.Adopt)
			require.Equal(t, rtCounts{1, 1, 0, 0, 0, 1, 1}, rtStatus(t, res))
		}},
		{"OWN-7 the first controller reference decides: another controller first makes the pod invisible", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, []*v1.Pod{rtPod("p", "a", h, owners(other, mine))})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Adopt)
			require.Empty(t, res.Release)
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
		{"OWN-7 references without controller: true before the first controller one are skipped", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, []*v1.Pod{rtPod("p", "a", h, owners(notController, mine, other))})
			require.Empty(t, res.Create)
			require.Empty(t, res.Adopt)
			require.Equal(t, int32(1), res.Status.CurrentNumberScheduled)
		}},
		{"OWN-8 an adopted old pod replaced by the rolling update is reported as adopted once", func(t *testing.T) {
			pods := []*v1.Pod{rtPod("o", "a", "old", orphan), rtPod("n", "b", h)}
			res := rtPlan(t, rtDS(rolling(ios(1), ios(0))), []*v1.Node{node("a"), node("b")}, pods)
			require.True(t, res.RollingUpdate.Acted)
			require.Equal(t, []string{"ns/o"}, rtRefs(res.Adopt))
			require.Equal(t, []string{"o@a:" + string(daemonset.ReasonUpdateOldUnavailable)}, rtDeletes(res))
			// Without a grace period the API server removes it at once, and the status pass's
			// second claim does not find it (STAT-16); with one it stays, terminating, and counts.
			require.Equal(t, rtCounts{2, 1, 0, 0, 0, 2, 1}, rtStatus(t, res))
			pods[0].Spec.TerminationGracePeriodSeconds = ptr.To[int64](30)
			res = rtPlan(t, rtDS(rolling(ios(1), ios(0))), []*v1.Node{node("a"), node("b")}, pods)
			require.Equal(t, rtCounts{2, 2, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"OWN-8 a released pod is reported once and no step claims it again", func(t *testing.T) {
			stray := rtPod("x", "a", h, func(p *v1.Pod) { p.Labels = map[string]string{"app": "other"} })
			res := rtPlan(t, rtDS(rolling(ios(1), ios(1))), []*v1.Node{node("a")}, []*v1.Pod{stray})
			require.Equal(t, []string{"ns/x"}, rtRefs(res.Release))
			require.Empty(t, res.Adopt)
			require.Empty(t, res.Delete)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
	})
}

// Review points (d), (f): FilterPodsByOwner looks pods up by the index key
// namespace/kind/name/uid of their first controller reference (apiVersion is not part of it) and
// only in the DaemonSet's namespace; ClaimObject then compares the uid.
func TestOWNControllerReferenceKeys(t *testing.T) {
	t.Parallel()
	ref := func(apiVersion, kind, name, uid string) podMod {
		return owners(metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: ptr.To(true)})
	}
	runScenarios(t, []scenario{
		{name: "OWN-1 a controller reference of apiVersion extensions/v1beta1, kind DaemonSet, same name and uid is this DaemonSet's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("extensions/v1beta1", "DaemonSet", "foo", "uid-foo"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "OWN-1 nor does an unknown group matter",
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

// ownershipScenarios are the scenarios of claiming pods: adoption, release, invisible pods (OWN-*).
func ownershipScenarios() []scenario {
	return []scenario{
		// Ownership.
		{name: "SCN-56 OWN-4 a matching orphan is adopted and fills its node",
			nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: withAdopt(sum(list("n1"), nil, st(2, 1, 0, 0, 1, 0, 2)), "o0")},
		{name: "SCN-57 OWN-4 a terminating orphan is not adopted", surprises: []int{19},
			nodes: nodes(1), pods: []*v1.Pod{pod("o0", "n0", orphan, terminating)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-58 OWN-3 an owned pod whose labels no longer match is released and replaced",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", podLabels(map[string]string{"app": "other"}))},
			want: withRelease(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "p0")},
		{name: "SCN-59 OWN-1 a pod controlled by another DaemonSet is invisible",
			nodes: nodes(1), pods: []*v1.Pod{pod("b0", "n0", owners(ownedBy("DaemonSet", "bar", "uid-bar", true)))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-60 OWN-1 a controller reference with the DaemonSet's uid but kind ReplicaSet is invisible", surprises: []int{18},
			nodes: nodes(1), pods: []*v1.Pod{pod("r0", "n0", owners(ownedBy("ReplicaSet", "foo", "uid-foo", true)))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-61 OWN-1 a matching orphan in another namespace is invisible",
			nodes: nodes(1), pods: []*v1.Pod{pod("o0", "n0", orphan, namespace("other"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-62 OWN-6 a non-controller reference to the DaemonSet leaves an orphan, which is adopted", surprises: []int{18},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", owners(ownedBy("DaemonSet", "foo", "uid-foo", false)))},
			want: withAdopt(sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1)), "p0")},
		{name: "SCN-63 OWN-5 OWN-9 an orphan without a target node is adopted and otherwise ignored", surprises: []int{19},
			nodes: nodes(1), pods: []*v1.Pod{pod("o", "", orphan)},
			want: withAdopt(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "o")},
	}
}

func TestOwnershipScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, ownershipScenarios())
}

// TestIsControlledBy pins the exported controller check: namespace, then the first controller
// reference's kind, name and uid (OWN-1, OWN-7); apiVersion, labels and the selector do not
// matter.
func TestIsControlledBy(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "foo", UID: "uid-foo"}}
	tests := []struct {
		name string
		mod  podMod
		want bool
	}{
		{"OWN-1 the controller reference names ds", func(*v1.Pod) {}, true},
		{"OWN-1 any apiVersion", owners(metav1.OwnerReference{APIVersion: "extensions/v1beta1", Kind: "DaemonSet", Name: "foo", UID: "uid-foo", Controller: ptr.To(true)}), true},
		{"OWN-1 labels do not matter", podLabels(map[string]string{"app": "other"}), true},
		{"OWN-1 another namespace", namespace("other"), false},
		{"OWN-1 another kind", owners(ownedBy("daemonset", "foo", "uid-foo", true)), false},
		{"OWN-1 another name", owners(ownedBy("DaemonSet", "bar", "uid-foo", true)), false},
		{"OWN-1 another uid", owners(ownedBy("DaemonSet", "foo", "uid-bar", true)), false},
		{"OWN-1 an owner that is not the controller", owners(ownedBy("DaemonSet", "foo", "uid-foo", false)), false},
		{"OWN-7 only the first controller reference counts", owners(ownedBy("DaemonSet", "bar", "uid-bar", true), ownedBy("DaemonSet", "foo", "uid-foo", true)), false},
		{"OWN-1 an orphan", orphan, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, daemonset.NewestVersion().IsControlledBy(pod("p", "n0", tt.mod), ds))
		})
	}
}
