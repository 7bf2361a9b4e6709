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
	got, err := s.Plan(opts())
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
	ref := daemonset.ObjectRef{Namespace: "default", Name: "p"}
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
			require.Equal(t, []daemonset.ObjectRef{ref}, plans["old"].Release)
			for name, r := range plans {
				switch {
				case name == tc.adopter:
					require.Equal(t, []daemonset.ObjectRef{ref}, r.Adopt, name)
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

// d2Revision is a ControllerRevision of namespace default holding like's current template
// (UPD-16), labelled app=label and with the hash label hash, controlled by owner (nil: an
// orphan).
func d2Revision(t *testing.T, name string, like, owner *appsv1.DaemonSet, label, hash string) *appsv1.ControllerRevision {
	t.Helper()
	r, err := daemonset.NewRevision(like, hash, 1)
	require.NoError(t, err)
	r.Name, r.UID = name, types.UID("uid-"+name)
	r.Labels = map[string]string{"app": label, appsv1.DefaultDaemonSetUniqueLabelKey: hash}
	r.OwnerReferences = nil
	if owner != nil {
		r.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", owner.Name, owner.UID, true)}
	}
	return r
}

// TestPlanClusterD2OrphanRevisionAdoptedOnce: an orphan ControllerRevision that several
// DaemonSets select goes to the first in D-2 order (OWN-12); the others see another
// controller's revision, so the younger one does not take its hash but creates its own
// <name>-<hash> (UPD-14 step 5).
func TestPlanClusterD2OrphanRevisionAdoptedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		dss     []*appsv1.DaemonSet
		adopter string
	}{
		{name: "the oldest adopts", dss: []*appsv1.DaemonSet{d2DS("old", 10, "a"), d2DS("young", 20, "a")}, adopter: "old"},
		{name: "listed the other way round", dss: []*appsv1.DaemonSet{d2DS("young", 20, "a"), d2DS("old", 10, "a")}, adopter: "old"},
		{name: "equal ages: namespace/name decides", dss: []*appsv1.DaemonSet{d2DS("b", 10, "a"), d2DS("a", 10, "a")}, adopter: "a"},
		{name: "a skipped DaemonSet adopts nothing", dss: []*appsv1.DaemonSet{
			func() *appsv1.DaemonSet {
				ds := d2DS("old", 10, "a")
				ds.DeletionTimestamp = &metav1.Time{Time: now1000}
				return ds
			}(), d2DS("young", 20, "a")}, adopter: "young"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rev := d2Revision(t, "shared-h1", tc.dss[0], nil, "a", "h1")
			plans := planClusterByName(t, daemonset.Snapshot{DaemonSets: tc.dss, Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{rev}})
			for _, ds := range tc.dss {
				r := plans[ds.Name]
				if r.Skipped != "" {
					continue
				}
				if ds.Name == tc.adopter {
					require.Equal(t, "h1", r.RevisionHash, ds.Name)
					require.Equal(t, []daemonset.ObjectRef{{Namespace: "default", Name: "shared-h1", UID: "uid-shared-h1"}}, r.Revisions.Adopt, ds.Name)
					require.Empty(t, r.Revisions.Create, ds.Name)
					continue
				}
				hash := v1363.ComputeHash(&ds.Spec.Template, nil)
				require.Equal(t, hash, r.RevisionHash, "%s: another controller's revision is not its own", ds.Name)
				require.NotNil(t, r.Revisions, ds.Name)
				require.Empty(t, r.Revisions.Adopt, ds.Name)
				require.Len(t, r.Revisions.Create, 1, ds.Name)
				require.Equal(t, ds.Name+"-"+hash, r.Revisions.Create[0].Name)
			}
		})
	}
}

// TestPlanClusterD2ReleasedRevisionAdopted: a revision an older DaemonSet releases (OWN-12) is
// an orphan for the DaemonSets visited after it, and the first whose selector matches adopts it
// and, its data being that DaemonSet's template, takes its hash (D-2); one visited before the
// release does not.
func TestPlanClusterD2ReleasedRevisionAdopted(t *testing.T) {
	t.Parallel()
	old := d2DS("old", 10, "a")
	ref := []daemonset.ObjectRef{{Namespace: "default", Name: "r-h2", UID: "uid-r-h2"}}
	for _, tc := range []struct {
		name    string
		other   *appsv1.DaemonSet
		adopted bool
	}{
		{name: "visited after the release", other: d2DS("young", 20, "b"), adopted: true},
		{name: "visited before the release", other: d2DS("older", 5, "b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rev := d2Revision(t, "r-h2", tc.other, old, "b", "h2")
			plans := planClusterByName(t, daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{old, tc.other}, Nodes: nodes(1),
				Revisions: []*appsv1.ControllerRevision{rev}})
			require.Equal(t, ref, plans["old"].Revisions.Release)
			r := plans[tc.other.Name]
			if !tc.adopted {
				require.Empty(t, r.Revisions.Adopt)
				require.Equal(t, v1363.ComputeHash(&tc.other.Spec.Template, nil), r.RevisionHash)
				return
			}
			require.Equal(t, ref, r.Revisions.Adopt)
			require.Equal(t, "h2", r.RevisionHash)
			require.Empty(t, r.Revisions.Create)
		})
	}
}
