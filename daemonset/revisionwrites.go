package daemonset

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RevisionWrites are the ControllerRevision writes of one sync and the pod relabels that go
// with them (UPD-14, UPD-21, UPD-22, OWN-12). A controller sends them in this order: Update
// and Relabel, Adopt, Release; then the pod adoptions and releases; then RelabelPods, Delete and
// Create; then the pod creates (in slow-start batches) and the pod deletes, as syncNodes sends
// them; then, only when every pod write of the sync succeeded, Cleanup (as upstream cleans up
// history only after manage and the rolling step returned no error); then the status.
// Revisions no 1.36 controller writes (data that is not JSON, another controller's, equal or
// negative revision numbers) are handled as D-15 says: never an error, never a panic, nothing of
// the snapshot modified. Two steps differ from upstream's sequence (D-15): Update goes before the
// adoptions so that its resourceVersion, the snapshot's, is still current when it reaches the
// API server (an adoption patch would raise it); and the pod adoptions go before Create, where
// upstream claims pods after creating the revision, which differs only when the create fails (a
// plan that finds a collision, UPD-21, adopts no pod). Upstream claims pods before relabelling
// them in a de-duplication, as here. Each list is sorted as documented on its field, so equal
// snapshots give byte-equal plans.
type RevisionWrites struct {
	// Create holds the revision to POST when no claimed revision holds the current template
	// (UPD-14 step 5): NewRevision of the DaemonSet with the current hash and the next revision
	// number. At most one.
	Create []*appsv1.ControllerRevision `json:"create,omitempty"`
	// Update holds, by name, the claimed revisions to PUT, each as it is after the change with
	// the snapshot's resourceVersion: the hash label set to the revision's name where it was
	// missing (UPD-14 step 1) and, for the kept current revision, the revision number raised to
	// one more than the highest other claimed revision (step 4). Upstream sends the two changes
	// of one revision as two PUTs; here they are one object.
	Update []*appsv1.ControllerRevision `json:"update,omitempty"`
	// Delete lists, by name, the duplicates of the current revision to delete (UPD-14 step 3),
	// sent before the create and the pod writes.
	Delete []ObjectRef `json:"delete,omitempty"`
	// Cleanup lists the history clean-up (UPD-22): the old revisions beyond
	// revisionHistoryLimit that no pod with a node uses, lowest revision number first, then by
	// name. A controller deletes them last, after the pod writes, and not at all when one of
	// the sync's pod writes failed (upstream's manage or rolling step then returns an error
	// and the clean-up is not reached).
	Cleanup []ObjectRef `json:"cleanup,omitempty"`
	// Relabel lists, by name, the claimed revisions without the hash label whose data.raw is
	// not JSON (only a client writing protobuf can store one): a PUT of such a revision cannot
	// be encoded as JSON, so the label write that Update would carry (UPD-14 step 1) is given
	// as the JSON merge patch [Relabel.Patch] instead, sent with the updates (D-15).
	Relabel []Relabel `json:"relabel,omitempty"`
	// Adopt and Release list, by name, the revisions the claim adopts (an orphan the selector
	// matches) and releases (controlled, the selector no longer matching) (OWN-12). Their
	// patches are those of pods: [ObjectRef.AdoptPatch] and [ObjectRef.ReleasePatch].
	Adopt   []ObjectRef `json:"adopt,omitempty"`
	Release []ObjectRef `json:"release,omitempty"`
	// RelabelPods lists, by namespace and name, the pods a de-duplication relabels (UPD-14
	// step 3): every pod the sync claims whose hash label differs from the kept revision's,
	// old pods included. The body is [Relabel.Patch], a JSON merge patch.
	RelabelPods []Relabel `json:"relabelPods,omitempty"`
}

// ObjectRef names a pod or a ControllerRevision that a plan writes: one it adopts, releases or
// deletes ([Result.Adopt], [Result.Release], [RevisionWrites]).
type ObjectRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the object's metadata.uid in the snapshot, empty only when the snapshot's object
	// has none: the uid [ObjectRef.AdoptPatch] and [ObjectRef.ReleasePatch] carry as their
	// precondition (OWN-15).
	UID types.UID `json:"uid,omitempty"`
}

// Relabel is a pod or a claimed ControllerRevision whose controller-revision-hash label
// becomes Hash, sent as the JSON merge patch [Relabel.Patch]: a pod a de-duplication relabels
// ([RevisionWrites.RelabelPods]) or a revision without the label whose data is not JSON
// ([RevisionWrites.Relabel], D-15).
type Relabel struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	UID       types.UID `json:"uid,omitempty"`
	// ResourceVersion is, for a revision, the snapshot's: the patch's precondition, as it is
	// that of the PUT the revision would otherwise get. It is empty for a pod, which upstream
	// relabels without one.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Hash            string `json:"hash"`
}

// Patch returns the JSON merge patch (types.MergePatchType, "application/merge-patch+json")
// that sets the hash label of the object r names to r.Hash:
// {"metadata":{"labels":{"controller-revision-hash":hash},"resourceVersion":rv}}, the
// resourceVersion left out when r has none. For a pod it is the body upstream sends after a
// de-duplication (UPD-14 step 3). For a revision the API server refuses it (409) when the
// revision changed since the snapshot, as it would refuse the PUT.
func (r Relabel) Patch() []byte {
	meta := map[string]any{"labels": map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: r.Hash}}
	if r.ResourceVersion != "" {
		meta["resourceVersion"] = r.ResourceVersion
	}
	b, _ := json.Marshal(map[string]any{"metadata": meta})
	return b
}

// defaultRevisionHistoryLimit is the spec.revisionHistoryLimit the API server defaults to
// (WithDefaults); the plan uses it when the field is unset (a hand-written DaemonSet), where
// upstream would read a nil pointer.
const defaultRevisionHistoryLimit = 10

// writesNothing reports that rev needs no write, with or without a history clean-up: the
// common path of one current revision, decided before anything is built for the writes.
func (p *Planner) writesNothing(rev *revisionOutcome, cleanup bool) bool {
	return len(rev.adopt) == 0 && len(rev.release) == 0 && len(rev.unlabelled) == 0 && !rev.create &&
		len(rev.duplicates) == 0 && (rev.keep == nil || rev.keep.Revision >= rev.revision) &&
		(!cleanup || len(rev.old) <= p.historyLimit())
}

// revisionWrites returns the writes of rev (nil when there are none). sp holds the sync's pods
// (none for a sync that stops before claiming pods: UPD-21); cleanup says that the sync
// reaches the history clean-up (UPD-22: manage and the rolling step returned no error).
func (p *Planner) revisionWrites(rev revisionOutcome, sp syncPods, cleanup bool) *RevisionWrites {
	w := &RevisionWrites{Adopt: revisionRefs(rev.adopt), Release: revisionRefs(rev.release)}
	updates := map[string]*appsv1.ControllerRevision{}
	for _, r := range rev.unlabelled {
		if len(r.Data.Raw) > 0 && !json.Valid(r.Data.Raw) {
			// Its PUT could not be encoded as JSON: the label goes by a patch (D-15).
			w.Relabel = append(w.Relabel, Relabel{Namespace: r.Namespace, Name: r.Name, UID: r.UID,
				ResourceVersion: r.ResourceVersion, Hash: r.Name})
			continue
		}
		c := r.DeepCopy()
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = c.Name
		updates[c.Name] = c
	}
	slices.SortFunc(w.Relabel, func(a, b Relabel) int { return compareNames(a.Namespace, a.Name, b.Namespace, b.Name) })
	if rev.collision {
		// The create fails with AlreadyExists and the sync stops: the claim and the labels
		// were written before it (UPD-21).
		w.Update = sortedRevisions(updates)
		return w.orNil()
	}
	if rev.keep != nil && rev.keep.Revision < rev.revision {
		c := updates[rev.keep.Name]
		if c == nil {
			c = rev.keep.DeepCopy()
			updates[c.Name] = c
		}
		c.Revision = rev.revision
	}
	w.Update = sortedRevisions(updates)
	if len(rev.duplicates) > 0 {
		for pod := range sp.claimed {
			if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != rev.hash {
				w.RelabelPods = append(w.RelabelPods, Relabel{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Hash: rev.hash})
			}
		}
		slices.SortFunc(w.RelabelPods, func(a, b Relabel) int { return compareNames(a.Namespace, a.Name, b.Namespace, b.Name) })
		w.Delete = revisionRefs(rev.duplicates)
	}
	if rev.create {
		// The patch is the Planner's, computed once; the result gets its own copy.
		if patch, err := p.digest.patch(); err == nil {
			w.Create = []*appsv1.ControllerRevision{newRevision(p.ds, rev.hash, rev.revision, slices.Clone(patch))}
		}
	}
	if cleanup {
		w.Cleanup = p.historyCleanup(rev.old, sp)
	}
	return w.orNil()
}

// historyCleanup returns the old revisions UPD-22 deletes: beyond the history limit, lowest
// revision number first (then by name: upstream's sort is not stable, so ties fall in list
// order, which nothing fixes), skipping those whose hash label a claimed pod with a target node
// carries (terminal pods being deleted included; labels as in the snapshot; not the adopted
// pods this sync's deletes remove at once, syncPods.removedAtOnce). A revision that had no
// hash label is read with its name as label, as upstream labels it first.
func (p *Planner) historyCleanup(old []*appsv1.ControllerRevision, sp syncPods) []ObjectRef {
	toKill := len(old) - p.historyLimit()
	if toKill <= 0 {
		return nil
	}
	live := map[string]bool{}
	gone := sp.removedAtOnce()
	for pod := range sp.claimed {
		if _, ok := affinity.TargetNodeName(pod); !ok || gone(pod) {
			continue
		}
		if h := pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
			live[h] = true
		}
	}
	// old is sorted by revision number, then name.
	var out []ObjectRef
	for _, r := range old {
		if toKill == 0 {
			break
		}
		hash, ok := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if !ok {
			hash = r.Name
		}
		if live[hash] {
			continue
		}
		out = append(out, ObjectRef{Namespace: r.Namespace, Name: r.Name, UID: r.UID})
		toKill--
	}
	return out
}

// historyLimit is spec.revisionHistoryLimit, defaultRevisionHistoryLimit when unset; a
// negative limit (which validation rejects) keeps nothing, as upstream's arithmetic does.
func (p *Planner) historyLimit() int {
	if l := p.ds.Spec.RevisionHistoryLimit; l != nil {
		return int(max(*l, 0))
	}
	return defaultRevisionHistoryLimit
}

func (w *RevisionWrites) orNil() *RevisionWrites {
	if len(w.Create)+len(w.Update)+len(w.Relabel)+len(w.Delete)+len(w.Cleanup)+len(w.Adopt)+len(w.Release)+len(w.RelabelPods) == 0 {
		return nil
	}
	return w
}

func revisionRefs(rs []*appsv1.ControllerRevision) []ObjectRef {
	if len(rs) == 0 {
		return nil
	}
	out := make([]ObjectRef, len(rs))
	for i, r := range rs {
		out[i] = ObjectRef{Namespace: r.Namespace, Name: r.Name, UID: r.UID}
	}
	slices.SortFunc(out, func(a, b ObjectRef) int { return compareNames(a.Namespace, a.Name, b.Namespace, b.Name) })
	return out
}

func sortedRevisions(m map[string]*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	if len(m) == 0 {
		return nil
	}
	return slices.SortedFunc(maps.Values(m), func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
}

// syncPods is what the revision writes read of the sync's pods; nothing is built from it
// unless a de-duplication or a history clean-up needs it.
type syncPods struct {
	p    *Planner
	pods []*v1.Pod
	cc   *clusterClaims
	res  *Result
}

// claimed yields the pods the sync claims (OWN-2, OWN-4 and, cluster-wide, D-2): the ones it
// keeps and the ones it adopts.
func (sp syncPods) claimed(yield func(*v1.Pod) bool) {
	for _, pod := range sp.pods {
		if pod == nil {
			continue
		}
		switch sp.cc.classify(sp.p, pod) {
		case claimOwned:
		case claimAdopt:
			if _, lost := sp.cc.lostTo(pod); lost {
				continue
			}
		default:
			continue
		}
		if !yield(pod) {
			return
		}
	}
}

// removedAtOnce reports the pods sp.res adopts and deletes that the API server removes at once
// rather than gracefully (not bound to a node, terminal, or a grace period of 0 or unset; and no
// finalizer):
// the history clean-up claims pods again after the deletes, and such a pod's adoption then
// fails with NotFound, so it keeps no revision (UPD-22). The sets are built on first use.
func (sp syncPods) removedAtOnce() func(*v1.Pod) bool {
	var adopted, deleted map[ObjectRef]bool
	return func(pod *v1.Pod) bool {
		if adopted == nil {
			adopted, deleted = map[ObjectRef]bool{}, map[ObjectRef]bool{}
			if sp.res != nil {
				for _, r := range sp.res.Adopt {
					adopted[ObjectRef{Namespace: r.Namespace, Name: r.Name}] = true
				}
				for _, d := range sp.res.Delete {
					deleted[ObjectRef{Namespace: d.Namespace, Name: d.Name}] = true
				}
			}
		}
		ref := ObjectRef{Namespace: pod.Namespace, Name: pod.Name}
		return adopted[ref] && deleted[ref] && goesAtOnce(pod)
	}
}

// goesAtOnce reports whether the API server removes pod at once when the controller deletes
// it (naming no grace period), rather than marking it terminating: no finalizer, and not bound
// to a node, terminal, or a grace period of 0 or unset (which the pod strategy reads as 0).
func goesAtOnce(pod *v1.Pod) bool {
	if len(pod.Finalizers) > 0 {
		return false
	}
	g := pod.Spec.TerminationGracePeriodSeconds
	return pod.Spec.NodeName == "" || isTerminal(pod) || g == nil || *g == 0
}
