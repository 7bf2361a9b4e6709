package daemonset_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonsched/daemonsched/daemonset"
)

func withUID(uid types.UID) podMod { return func(p *v1.Pod) { p.UID = uid } }

// TestPlanCarriesPodUIDs: every adoption, release, base-diff deletion and rolling-update
// deletion names the snapshot pod's metadata.uid, so that a controller can send the patches
// and the delete preconditions without searching the snapshot again; a pod without uid gives
// an empty one.
func TestPlanCarriesPodUIDs(t *testing.T) {
	ds := newDS(rolling(ios(1), nil))
	hash := hashOf(ds)
	pods := []*v1.Pod{
		pod("adopt-me", "n0", orphan, hashLabel(hash), withUID("u-adopt"), ready),
		pod("release-me", "n1", podLabels(map[string]string{"app": "other"}), withUID("u-release")),
		pod("dup-a", "n2", hashLabel(hash), withUID("u-dup-a"), created(1), ready),
		pod("dup-b", "n2", hashLabel(hash), withUID("u-dup-b"), created(2), ready),
		pod("no-uid", "gone", unscheduledFor("gone")),
	}
	res, err := daemonset.Plan(ds, nodes(3), pods, opts())
	if err != nil {
		t.Fatal(err)
	}
	byName := cmpopts.SortSlices(func(a, b daemonset.ObjectRef) bool { return a.Name < b.Name })
	if d := cmp.Diff([]daemonset.ObjectRef{{Namespace: "default", Name: "adopt-me", UID: "u-adopt"}}, res.Adopt, byName); d != "" {
		t.Errorf("adopt (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]daemonset.ObjectRef{{Namespace: "default", Name: "release-me", UID: "u-release"}}, res.Release, byName); d != "" {
		t.Errorf("release (-want +got):\n%s", d)
	}
	uids := map[string]types.UID{}
	for _, d := range res.Delete {
		uids[d.Name] = d.UID
	}
	if d := cmp.Diff(map[string]types.UID{"dup-b": "u-dup-b", "no-uid": ""}, uids); d != "" {
		t.Errorf("delete uids (-want +got):\n%s", d)
	}

	// The rolling step's deletions (UPD-9) carry the uid too.
	old := []*v1.Pod{pod("old", "n0", oldHash, withUID("u-old"), ready)}
	res, err = daemonset.Plan(ds, nodes(1), old, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Delete) != 1 || res.Delete[0].UID != "u-old" || res.Delete[0].Reason != daemonset.ReasonUpdateOldCandidate {
		t.Errorf("rolling deletion %+v, want old with uid u-old", res.Delete)
	}
}

// TestClusterConflictCarriesUID: an orphan an older DaemonSet adopts is reported to the
// younger one with its uid (D-2).
func TestClusterConflictCarriesUID(t *testing.T) {
	older := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID = "a-older", "uid-a"
		ds.CreationTimestamp = metav1.Unix(1, 0)
	})
	younger := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID = "b-younger", "uid-b"
		ds.CreationTimestamp = metav1.Unix(2, 0)
	})
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{older, younger}, Nodes: nodes(1),
		Pods: []*v1.Pod{pod("o", "n0", orphan, withUID("u-o"))}}
	res, err := s.Plan(opts())
	if err != nil {
		t.Fatal(err)
	}
	got := res.DaemonSets[1].Conflicts
	want := []daemonset.Conflict{{Namespace: "default", Name: "o", UID: "u-o", AdoptedBy: "default/a-older"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("conflicts (-want +got):\n%s", d)
	}
	if a := res.DaemonSets[0].Adopt; len(a) != 1 || a[0].UID != "u-o" {
		t.Errorf("adopt %+v", a)
	}
}
