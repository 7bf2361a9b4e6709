package upstreamtest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubernetes/pkg/controller"
)

// revisionPatches records the patches a ControllerRevisionControllerRefManager sends.
type revisionPatches struct{ patches [][]byte }

func (r *revisionPatches) PatchControllerRevision(_ context.Context, _, _ string, data []byte) error {
	r.patches = append(r.patches, data)
	return nil
}

var daemonSetKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// patchCases are DaemonSets and object uids of every shape the JSON encoding treats apart:
// plain, empty, quotes, HTML-escaped characters, non-ASCII, control characters.
var patchCases = []struct {
	name, dsUID, objUID string
}{
	{"agent", "7f1c5a2e-0000-4000-8000-000000000001", "0b9d7c36-1111-4111-8111-111111111111"},
	{"a", "", ""},
	{"x-y.z", `uid"with\quotes`, "<pod>&uid"},
	{"dämon", "uïd-\u2028", "\x01\x7f"},
}

// TestAdoptAndReleasePatchesAreUpstreams compares AdoptPatch and ReleasePatch byte for byte
// with the patches v1.36.3's controller-ref managers send, for pods and for
// ControllerRevisions (OWN-3, OWN-4, UPD-19, UPD-20).
func TestAdoptAndReleasePatchesAreUpstreams(t *testing.T) {
	ctx := context.Background()
	for _, c := range patchCases {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: "ns", UID: types.UID(c.dsUID)}}
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: types.UID(c.objUID)}}
		rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: types.UID(c.objUID)}}

		pods := &controller.FakePodControl{}
		pm := controller.NewPodControllerRefManager(pods, ds, labels.Everything(), daemonSetKind, nil)
		if err := pm.AdoptPod(ctx, pod); err != nil {
			t.Fatal(err)
		}
		if err := pm.ReleasePod(ctx, pod); err != nil {
			t.Fatal(err)
		}
		revs := &revisionPatches{}
		rm := controller.NewControllerRevisionControllerRefManager(revs, ds, labels.Everything(), daemonSetKind, nil)
		if err := rm.AdoptControllerRevision(ctx, rev); err != nil {
			t.Fatal(err)
		}
		if err := rm.ReleaseControllerRevision(ctx, rev); err != nil {
			t.Fatal(err)
		}
		adopt, release := daemonset.ObjectRef{UID: types.UID(c.objUID)}.AdoptPatch(ds), daemonset.ObjectRef{UID: types.UID(c.objUID)}.ReleasePatch(ds)
		for i, want := range [][]byte{pods.Patches[0], revs.patches[0]} {
			if string(adopt) != string(want) {
				t.Errorf("%q: AdoptPatch\n got %s\nwant %s (object %d)", c.name, adopt, want, i)
			}
		}
		for i, want := range [][]byte{pods.Patches[1], revs.patches[1]} {
			if string(release) != string(want) {
				t.Errorf("%q: ReleasePatch\n got %s\nwant %s (object %d)", c.name, release, want, i)
			}
		}
	}
}

// TestOwnerPatchesApplied applies the patches with apimachinery's strategic merge patch, as the
// API server does: adopting an orphan that has another, non-controller owner adds the
// DaemonSet as controller beside it; releasing removes exactly the DaemonSet's reference.
func TestOwnerPatchesApplied(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "ds-uid"}}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}
	orphan := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "pod-uid",
		OwnerReferences: []metav1.OwnerReference{other}}}

	adopted := applyPatch(t, orphan, daemonset.ObjectRef{UID: "pod-uid"}.AdoptPatch(ds))
	yes := true
	// The patch's reference merges by uid and comes first; the other owner stays.
	wantOwners := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid",
		Controller: &yes, BlockOwnerDeletion: &yes}, other}
	if d := cmp.Diff(wantOwners, adopted.OwnerReferences); d != "" {
		t.Errorf("owners after adoption (-want +got):\n%s", d)
	}
	if adopted.UID != "pod-uid" {
		t.Errorf("uid after adoption %q", adopted.UID)
	}

	released := applyPatch(t, adopted, daemonset.ObjectRef{UID: "pod-uid"}.ReleasePatch(ds))
	if d := cmp.Diff([]metav1.OwnerReference{other}, released.OwnerReferences); d != "" {
		t.Errorf("owners after release (-want +got):\n%s", d)
	}
	// The uid in the body is the precondition: applied to another object of the same name it
	// would rewrite metadata.uid, which the API server refuses as a conflict.
	stranger := orphan.DeepCopy()
	stranger.UID = "someone-else"
	if got := applyPatch(t, stranger, daemonset.ObjectRef{UID: "pod-uid"}.AdoptPatch(ds)); got.UID == stranger.UID {
		t.Errorf("the patch does not carry the precondition uid")
	}
}

func applyPatch(t *testing.T, pod *v1.Pod, patch []byte) *v1.Pod {
	t.Helper()
	orig, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	out, err := strategicpatch.StrategicMergePatch(orig, patch, &v1.Pod{})
	if err != nil {
		t.Fatalf("applying %s: %v", patch, err)
	}
	var got v1.Pod
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return &got
}
