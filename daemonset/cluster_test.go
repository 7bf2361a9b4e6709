package daemonset_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonsched/daemonsched/daemonset"
)

// d2DS is a DaemonSet of namespace default created at sec selecting app=sel, its template
// labelled app=sel.
func d2DS(name string, sec int64, sel string) *appsv1.DaemonSet {
	return newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID, ds.CreationTimestamp = name, types.UID("uid-"+name), metav1.Unix(sec, 0)
		ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": sel}}
		ds.Spec.Template.Labels = map[string]string{"app": sel}
	})
}

// releasedPod is a pod on n0 controlled by owner whose labels are app=label.
func releasedPod(owner *appsv1.DaemonSet, label string) *v1.Pod {
	return pod("p", "n0", func(p *v1.Pod) {
		p.Labels = map[string]string{"app": label}
		p.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", owner.Name, owner.UID, true)}
	})
}

func planClusterByName(t *testing.T, s daemonset.Snapshot) map[string]*daemonset.Result {
	t.Helper()
	before := deepPods(s.Pods)
	got, err := daemonset.PlanCluster(s, opts())
	require.NoError(t, err)
	if diff := cmp.Diff(before, s.Pods); diff != "" {
		t.Fatalf("pods mutated (-before +after):\n%s", diff)
	}
	out := map[string]*daemonset.Result{}
	for _, r := range got.DaemonSets {
		out[r.Name] = r
	}
	return out
}

// TestPlanClusterD2ReleasedPodAdopted: a pod an older DaemonSet releases is an orphan for the
// DaemonSets visited after it; the first whose selector matches adopts it and plans with it as
// its own pod (D-2).
func TestPlanClusterD2ReleasedPodAdopted(t *testing.T) {
	t.Parallel()
	ref := daemonset.PodRef{Namespace: "default", Name: "p"}
	for _, tc := range []struct {
		name string
		dss  []*appsv1.DaemonSet
		// adopter is the DaemonSet that adopts, "" for none; conflicts those that report the
		// conflict.
		adopter   string
		conflicts []string
	}{
		{name: "the younger DaemonSet adopts",
			dss: []*appsv1.DaemonSet{d2DS("old", 10, "a"), d2DS("young", 20, "b")}, adopter: "young"},
		{name: "an older DaemonSet visited before the release does not adopt",
			dss: []*appsv1.DaemonSet{d2DS("older", 5, "b"), d2DS("old", 10, "a")}},
		{name: "two candidates: the first in order wins, the other reports a conflict",
			dss:     []*appsv1.DaemonSet{d2DS("old", 10, "a"), d2DS("zz-second", 20, "b"), d2DS("aa-third", 30, "b")},
			adopter: "zz-second", conflicts: []string{"aa-third"}},
		{name: "equal ages: namespace/name decides the order",
			dss:     []*appsv1.DaemonSet{d2DS("old", 10, "a"), d2DS("b-second", 20, "b"), d2DS("a-first", 20, "b")},
			adopter: "a-first", conflicts: []string{"b-second"}},
		{name: "only those after the release, the earlier one neither adopts nor conflicts",
			dss:     []*appsv1.DaemonSet{d2DS("older", 5, "b"), d2DS("old", 10, "a"), d2DS("young", 20, "b")},
			adopter: "young"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var releaser *appsv1.DaemonSet
			for _, ds := range tc.dss {
				if ds.Name == "old" {
					releaser = ds
				}
			}
			s := daemonset.Snapshot{DaemonSets: tc.dss, Nodes: nodes(1), Pods: []*v1.Pod{releasedPod(releaser, "b")}}
			plans := planClusterByName(t, s)
			require.Equal(t, []daemonset.PodRef{ref}, plans["old"].Release)
			for name, r := range plans {
				switch {
				case name == tc.adopter:
					require.Equal(t, []daemonset.PodRef{ref}, r.Adopt, name)
					require.Empty(t, r.Create, "%s: the adopted pod runs on its node", name)
					require.Equal(t, int32(1), r.Status.CurrentNumberScheduled, name)
				case name == "old":
					require.Empty(t, r.Adopt)
				default:
					require.Empty(t, r.Adopt, name)
					require.Len(t, r.Create, 1, "%s: a pod it does not get does not fill the node", name)
				}
				want := []daemonset.Conflict(nil)
				for _, c := range tc.conflicts {
					if c == name {
						want = []daemonset.Conflict{{Namespace: "default", Name: "p", AdoptedBy: "default/" + tc.adopter}}
					}
				}
				require.Equal(t, want, r.Conflicts, name)
			}
		})
	}
}

// TestPlanClusterD2ReleaseNeedsAClaimingSync: a DaemonSet whose sync is skipped (SYNC-4)
// releases nothing, so nobody adopts its pod, and an adopter must select it and not be deleting
// it (OWN-4).
func TestPlanClusterD2ReleaseNeedsAClaimingSync(t *testing.T) {
	t.Parallel()
	deleting := d2DS("old", 10, "a")
	deleting.DeletionTimestamp = &metav1.Time{Time: now1000}
	plans := planClusterByName(t, daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{deleting, d2DS("young", 20, "b")},
		Nodes:      nodes(1), Pods: []*v1.Pod{releasedPod(deleting, "b")},
	})
	require.Equal(t, daemonset.SkipBeingDeleted, plans["old"].Skipped)
	require.Empty(t, plans["young"].Adopt)

	old := d2DS("old", 10, "a")
	terminating := releasedPod(old, "b")
	terminating.DeletionTimestamp = &metav1.Time{Time: now1000}
	plans = planClusterByName(t, daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{old, d2DS("young", 20, "b")},
		Nodes:      nodes(1), Pods: []*v1.Pod{terminating},
	})
	require.Len(t, plans["old"].Release, 1)
	require.Empty(t, plans["young"].Adopt, "a pod being deleted is not adopted")
}
