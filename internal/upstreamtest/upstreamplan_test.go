package upstreamtest

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// upstreamRevisionWrites builds the plan's revision writes from the objects of upstream's
// revision actions (UPD-14, UPD-22, OWN-12), given the snapshot's revisions and pods (for the
// uids and resourceVersions upstream's bodies do not carry). A revision delete is a
// de-duplication (Delete) when it is sent before the sync's first pod write and the revision's
// data is that of a snapshot revision upstream did not delete (the one it kept, whose hash label
// is returned as kept); otherwise it is the history clean-up (Cleanup). Relabel (the merge patch of a revision whose data is not
// JSON) cannot be read here: the fake clientset's revisions are all JSON, so upstream sends a
// PUT and the library's Relabel is kept. It returns nil when upstream wrote no revision.
func upstreamRevisionWrites(t *testing.T, actions []clienttesting.Action, revs []*appsv1.ControllerRevision, pods []*v1.Pod, lib *daemonset.RevisionWrites) (w *daemonset.RevisionWrites, kept string) {
	t.Helper()
	byName := map[string]*appsv1.ControllerRevision{}
	for _, r := range revs {
		byName[r.Name] = r
	}
	podUID := map[string]types.UID{}
	for _, p := range pods {
		podUID[p.Namespace+"/"+p.Name] = p.UID
	}
	ref := func(ns, name string) daemonset.ObjectRef {
		var uid types.UID
		if r := byName[name]; r != nil && r.Namespace == ns {
			uid = r.UID
		}
		return daemonset.ObjectRef{Namespace: ns, Name: name, UID: uid}
	}
	out := &daemonset.RevisionWrites{}
	var updates []*appsv1.ControllerRevision
	updated := map[string]int{}
	podWritten, any := false, false
	var deletes []daemonset.ObjectRef
	var deletePodWritten []bool
	for _, a := range actions {
		ns := a.GetNamespace()
		switch {
		case a.Matches("create", "pods"), a.Matches("delete", "pods"):
			podWritten = true
		case a.Matches("create", "controllerrevisions"):
			r := a.(clienttesting.CreateAction).GetObject().(*appsv1.ControllerRevision)
			if byName[r.Name] == nil { // otherwise AlreadyExists: reused or a collision
				out.Create = append(out.Create, r.DeepCopy())
				any = true
			}
		case a.Matches("update", "controllerrevisions"):
			r := a.(clienttesting.UpdateAction).GetObject().(*appsv1.ControllerRevision).DeepCopy()
			// The plan's update carries the snapshot's resourceVersion (D-15): upstream's
			// second PUT of one revision carries the first's.
			if old := byName[r.Name]; old != nil {
				r.ResourceVersion = old.ResourceVersion
			}
			if i, ok := updated[r.Name]; ok {
				updates[i] = r
			} else {
				updated[r.Name] = len(updates)
				updates = append(updates, r)
			}
			any = true
		case a.Matches("delete", "controllerrevisions"):
			deletes = append(deletes, ref(ns, a.(clienttesting.DeleteAction).GetName()))
			deletePodWritten = append(deletePodWritten, podWritten)
			any = true
		case a.Matches("patch", "controllerrevisions"):
			p := a.(clienttesting.PatchAction)
			if p.GetPatchType() == types.MergePatchType {
				continue // a Relabel: see above
			}
			if strings.Contains(string(p.GetPatch()), `"$patch":"delete"`) {
				out.Release = append(out.Release, ref(ns, p.GetName()))
			} else {
				out.Adopt = append(out.Adopt, ref(ns, p.GetName()))
			}
			any = true
		case a.Matches("patch", "pods"):
			p := a.(clienttesting.PatchAction)
			hash, ok := relabelHash(t, p)
			if !ok {
				continue // adoption and release
			}
			out.RelabelPods = append(out.RelabelPods, daemonset.Relabel{Namespace: ns, Name: p.GetName(),
				UID: podUID[ns+"/"+p.GetName()], Hash: hash})
			any = true
		}
	}
	out.Update = updates
	deleted := map[string]bool{}
	for _, d := range deletes {
		deleted[d.Name] = true
	}
	for i, d := range deletes {
		twin := ""
		if old := byName[d.Name]; old != nil && !deletePodWritten[i] {
			for _, r := range revs {
				if !deleted[r.Name] && r.Namespace == old.Namespace && string(r.Data.Raw) == string(old.Data.Raw) {
					twin = r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
				}
			}
		}
		if twin == "" {
			out.Cleanup = append(out.Cleanup, d)
		} else {
			out.Delete = append(out.Delete, d)
			kept = twin
		}
	}
	// Each claim of the sync adopts or releases again what the caches still show unchanged.
	out.Adopt, out.Release = compactRefs(out.Adopt), compactRefs(out.Release)
	if lib != nil && len(lib.Relabel) > 0 {
		out.Relabel = lib.Relabel
		any = true
	}
	if !any {
		return nil, kept
	}
	return out, kept
}

func compactRefs(in []daemonset.ObjectRef) []daemonset.ObjectRef {
	var out []daemonset.ObjectRef
	seen := map[string]bool{}
	for _, r := range in {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	return out
}

// upstreamRevisionHash is the hash upstream's sync works with (UPD-14, UPD-15): the hash label
// of the pods it created, else of the revision it created, else the label it relabelled pods
// with (the revision a de-duplication kept), else that of the revision whose number it raised.
// With none of these written, upstream's hash cannot be read from its actions, and ok is false.
func upstreamRevisionHash(up upstreamWrites, w *daemonset.RevisionWrites, kept string) (hash string, ok bool) {
	for _, p := range up.create {
		if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
			return h, true
		}
	}
	if w == nil {
		return "", false
	}
	for _, r := range w.Create {
		return r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], true
	}
	for _, r := range w.RelabelPods {
		return r.Hash, true
	}
	if kept != "" {
		return kept, true
	}
	var top *appsv1.ControllerRevision
	for _, r := range w.Update {
		if top == nil || r.Revision > top.Revision {
			top = r
		}
	}
	if top != nil {
		return top.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], true
	}
	return "", false
}

// upstreamStatusWrite is the status upstream's sync sends with UpdateStatus (STAT-10), nil when
// it sent none. The update that raises status.collisionCount on a hash collision (UPD-21) is
// not it: that one is sent before any pod write and changes nothing of ds's status but the
// raised collisionCount.
func upstreamStatusWrite(actions []clienttesting.Action, ds *appsv1.DaemonSet) *appsv1.DaemonSetStatus {
	var out *appsv1.DaemonSetStatus
	podWritten := false
	for _, a := range actions {
		switch {
		case a.Matches("create", "pods"), a.Matches("delete", "pods"):
			podWritten = true
		case a.Matches("update", "daemonsets") && a.GetSubresource() == "status":
			st := a.(clienttesting.UpdateAction).GetObject().(*appsv1.DaemonSet).Status
			if !podWritten && isCollisionUpdate(ds.Status, st) {
				continue
			}
			out = st.DeepCopy()
		}
	}
	return out
}

// isCollisionUpdate says whether status after is status before with only collisionCount raised.
func isCollisionUpdate(before, after appsv1.DaemonSetStatus) bool {
	var b, a int32
	if before.CollisionCount != nil {
		b = *before.CollisionCount
	}
	if after.CollisionCount != nil {
		a = *after.CollisionCount
	}
	if a <= b {
		return false
	}
	before.CollisionCount, after.CollisionCount = nil, nil
	return reflect.DeepEqual(before, after)
}

// TestIsCollisionUpdate pins what upstreamStatusWrite leaves out as the UPD-21 collision update:
// collisionCount raised and nothing else changed.
func TestIsCollisionUpdate(t *testing.T) {
	one, two := int32(1), int32(2)
	for _, tc := range []struct {
		name          string
		before, after appsv1.DaemonSetStatus
		want          bool
	}{
		{"UPD-21 raised from none", appsv1.DaemonSetStatus{}, appsv1.DaemonSetStatus{CollisionCount: &one}, true},
		{"UPD-21 raised from one", appsv1.DaemonSetStatus{CollisionCount: &one}, appsv1.DaemonSetStatus{CollisionCount: &two}, true},
		{"STAT-10 unchanged count", appsv1.DaemonSetStatus{CollisionCount: &one}, appsv1.DaemonSetStatus{CollisionCount: &one}, false},
		{"STAT-10 other field changed too", appsv1.DaemonSetStatus{}, appsv1.DaemonSetStatus{CollisionCount: &one, NumberReady: 1}, false},
	} {
		if got := isCollisionUpdate(tc.before, tc.after); got != tc.want {
			t.Errorf("%s: isCollisionUpdate = %v, want %v", tc.name, got, tc.want)
		}
	}
}
