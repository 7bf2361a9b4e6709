package daemonset

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// revisionPatch returns the bytes a ControllerRevision of ds stores in data.raw at release v,
// which are also what decides whether a revision is current (UPD-16): the JSON object
// {"spec":{"template":T}} where T is ds.Spec.Template as JSON with the extra key
// "$patch":"replace", every object's keys sorted and integers written as integers. Only the
// template matters, so nothing else of ds changes the bytes.
//
// As in pkg/controller/daemon getPatch, the JSON is decoded with apimachinery's json package
// (which keeps integers integral) and encoded again with encoding/json. The template is encoded
// on its own rather than as part of the whole object: encoding/json writes a nested value
// exactly as it writes it alone, so the bytes are the same. The error is that of encoding/json;
// no value of the k8s.io/api types makes it fail.
//
// The one difference between releases in these bytes is the template's zero
// metadata.creationTimestamp (VER-12), written as the release's own types write it whatever
// k8s.io/api is linked.
func revisionPatch(ds *appsv1.DaemonSet, v Version) ([]byte, error) {
	raw, err := json.Marshal(&ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := utiljson.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	for _, meta := range templateMetas(template) {
		writeZeroCreationTimestamp(meta, v)
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// templateMetas returns the object metadata a pod template's JSON holds: the template's own and
// each ephemeral volume's claim template's, the two places a PodTemplateSpec embeds ObjectMeta.
func templateMetas(template map[string]any) []map[string]any {
	var metas []map[string]any
	if meta, ok := template["metadata"].(map[string]any); ok {
		metas = append(metas, meta)
	}
	spec, _ := template["spec"].(map[string]any)
	volumes, _ := spec["volumes"].([]any)
	for _, vol := range volumes {
		vol, _ := vol.(map[string]any)
		eph, _ := vol["ephemeral"].(map[string]any)
		claim, _ := eph["volumeClaimTemplate"].(map[string]any)
		if meta, ok := claim["metadata"].(map[string]any); ok {
			metas = append(metas, meta)
		}
	}
	return metas
}

// writeZeroCreationTimestamp makes the JSON of an object's metadata say a zero creation time as
// release v's types do (VER-12): until 1.33, metav1.ObjectMeta's creationTimestamp is only
// omitempty, which leaves a struct in, so a zero one is written "creationTimestamp":null; from
// 1.34 (apimachinery v0.34) it is also omitzero and left out. meta is the object's metadata as
// encoding/json wrote it with the linked types, either way; a creation time that is set is
// written by every release alike and left as it is.
func writeZeroCreationTimestamp(meta map[string]any, v Version) {
	ts, set := meta["creationTimestamp"]
	switch {
	case v.AtLeast(1, 34, 0) && set && ts == nil:
		delete(meta, "creationTimestamp")
	case !v.AtLeast(1, 34, 0) && !set:
		meta["creationTimestamp"] = nil
	}
}

// NewRevision returns the ControllerRevision the controller of the newest release creates for
// ds when none is current: [Version.NewRevision] at [NewestVersion].
func NewRevision(ds *appsv1.DaemonSet, hash string, revision int64) (*appsv1.ControllerRevision, error) {
	if ds == nil {
		panic("daemonset: NewRevision: nil DaemonSet")
	}
	return NewestVersion().NewRevision(ds, hash, revision)
}

// NewRevision returns the ControllerRevision release v's controller creates for ds when none is
// current (pkg/controller/daemon snapshot; UPD-14 step 5): named <ds name>-<hash> in ds's
// namespace, labelled with the template labels plus controller-revision-hash, annotated with
// ds's annotations, controlled by ds (apps/v1 DaemonSet, blockOwnerDeletion), holding
// the given revision number and, in data.raw, the bytes that decide whether a revision is
// current at v (UPD-16): {"spec":{"template":T}}, T being ds.Spec.Template as JSON with the
// extra key "$patch":"replace", every object's keys sorted and integers written as integers,
// and a zero creation time written as v's types write it (VER-12); nothing else of ds changes
// them. hash is normally [Version.ComputeHash] of the template and status.collisionCount. The
// maps are copies: changing the result never changes ds. The error is that of encoding/json,
// which no value of the k8s.io/api types makes fail. NewRevision panics if ds is nil; the zero
// Version is the newest release.
func (v Version) NewRevision(ds *appsv1.DaemonSet, hash string, revision int64) (*appsv1.ControllerRevision, error) {
	if ds == nil {
		panic("daemonset: Version.NewRevision: nil DaemonSet")
	}
	patch, err := revisionPatch(ds, v.OrNewest())
	if err != nil {
		return nil, err
	}
	return newRevision(ds, hash, revision, patch), nil
}

// newRevision is NewRevision with the revision patch given.
func newRevision(ds *appsv1.DaemonSet, hash string, revision int64, patch []byte) *appsv1.ControllerRevision {
	labels := maps.Clone(ds.Spec.Template.Labels)
	if labels == nil {
		labels = make(map[string]string, 1)
	}
	labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ds.Name + "-" + hash,
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     maps.Clone(ds.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: revision,
	}
}

// templateDigest is what a DaemonSet's revisions are compared with: its template's revision
// patch (UPD-16) and hash (UPD-15). Both encode the whole template, so each is computed on
// first use and kept: a Planner holds one for all its plans.
type templateDigest struct {
	patch func() ([]byte, error)
	hash  func() string
}

func newTemplateDigest(ds *appsv1.DaemonSet, version Version) templateDigest {
	return templateDigest{
		patch: sync.OnceValues(func() ([]byte, error) { return revisionPatch(ds, version) }),
		hash: sync.OnceValue(func() string {
			return version.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		}),
	}
}

// revisionOutcome is the result of choosing the current revision (UPD-14, D-6, D-10).
type revisionOutcome struct {
	hash string
	// collision is true when a revision named <ds>-<hash> exists with other data (UPD-21).
	collision bool
	// name is the current revision's name: the existing one's, or <ds>-<hash> for the revision
	// the controller would create (or reuse) this sync.
	name string
	// revision is the number the current revision carries after this sync: its own, bumped to
	// one more than the highest other claimed revision if lower (UPD-14 step 4), or that number
	// for a new revision (step 5).
	revision int64
	// create is true when no revision of that name exists: the controller creates one.
	create bool
	// old are the claimed revisions that are not current, by revision number then name; they
	// are the candidates of history clean-up (UPD-22).
	old []*appsv1.ControllerRevision
	// duplicates are the other current claimed revisions, which the controller deletes after
	// relabelling pods to the kept one's hash (UPD-14 step 3), by name.
	duplicates []*appsv1.ControllerRevision
	// keep is the kept current revision as stored, nil when none is claimed.
	keep *appsv1.ControllerRevision
	// adopt and release are the revisions the claim adopts and releases (OWN-12), in snapshot
	// order; unlabelled are the claimed ones without the hash label (UPD-14 step 1).
	adopt, release, unlabelled []*appsv1.ControllerRevision
}

// currentRevision claims the revisions of ds (OWN-12) and returns the current hash (UPD-14;
// UPD-15 when none matches). sel is the compiled DaemonSet selector; a nil sel matches nothing.
// Nil entries of revisions are skipped. Nothing is mutated: where the controller would write
// the missing hash label onto a claimed revision (UPD-14 step 1), the revision's name is used as
// its hash instead.
//
// When no claimed revision is current, the controller creates <ds>-<hash>; if any revision of
// that name exists in the namespace, claimed or not (the controller asks the API server, not its
// claimed set), it is reused when its data matches and is otherwise a collision (UPD-21, D-10).
// A reused revision's hash is its controller-revision-hash label as stored, even if missing
// (then the hash is empty), as in pkg/controller/daemon syncDaemonSet. cc, non-nil in a
// cluster-wide plan, says which revisions an earlier DaemonSet adopts or releases (D-2).
func currentRevision(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, sel *selector.Selector, digest templateDigest, cc *clusterClaims) revisionOutcome {
	// A patch that cannot be built matches nothing; it cannot happen with the k8s.io/api types.
	patch, patchErr := digest.patch()
	matches := func(r *appsv1.ControllerRevision) bool {
		return patchErr == nil && string(r.Data.Raw) == string(patch)
	}

	var current, old, adopt, release, unlabelled []*appsv1.ControllerRevision
	for _, r := range revisions {
		if r == nil {
			continue
		}
		switch cc.classifyRevision(ds, r, sel) {
		case claimIgnore:
			continue
		case claimRelease:
			release = append(release, r)
			continue
		case claimAdopt:
			adopt = append(adopt, r)
		}
		if _, ok := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			unlabelled = append(unlabelled, r)
		}
		if matches(r) {
			current = append(current, r)
		} else {
			old = append(old, r)
		}
	}
	slices.SortFunc(old, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Revision, b.Revision), strings.Compare(a.Name, b.Name))
	})
	next := int64(1)
	for _, r := range old {
		next = max(next, r.Revision+1)
	}

	if len(current) > 0 {
		// Highest revision wins; among equals upstream keeps the last one listed, which is
		// arbitrary, so the smallest name is kept instead (D-1).
		slices.SortFunc(current, func(a, b *appsv1.ControllerRevision) int {
			return cmp.Or(cmp.Compare(b.Revision, a.Revision), strings.Compare(a.Name, b.Name))
		})
		keep := current[0]
		hash, ok := keep.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if !ok {
			hash = keep.Name
		}
		dups := current[1:]
		slices.SortFunc(dups, func(a, b *appsv1.ControllerRevision) int { return strings.Compare(a.Name, b.Name) })
		return revisionOutcome{
			hash:       hash,
			name:       keep.Name,
			revision:   max(keep.Revision, next),
			old:        old,
			duplicates: dups,
			keep:       keep,
			adopt:      adopt, release: release, unlabelled: unlabelled,
		}
	}

	hash := digest.hash()
	out := revisionOutcome{hash: hash, name: ds.Name + "-" + hash, revision: next, create: true, old: old,
		adopt: adopt, release: release, unlabelled: unlabelled}
	for _, r := range revisions {
		if r == nil || r.Namespace != ds.Namespace || r.Name != out.name {
			continue
		}
		out.create = false
		if !matches(r) {
			out.collision = true
			return out
		}
		// The controller continues with the revision it found, as it is stored.
		out.hash = r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		out.revision = r.Revision
		return out
	}
	return out
}

// classifyRevision applies OWN-12 to one revision, as the controller's ControllerRefManager
// does for ControllerRevisions: it must be in ds's namespace; if it has a controller reference
// carrying another uid it is another controller's (ignored; kind and name are not checked);
// with ds's uid it is owned when the selector matches its labels and released otherwise; an
// orphan is adopted when the selector matches and it is not being deleted. A DaemonSet being
// deleted is never planned (SYNC-4), so its rule for adoption is not needed here.
func classifyRevision(ds *appsv1.DaemonSet, r *appsv1.ControllerRevision, sel *selector.Selector) claimKind {
	if r.Namespace != ds.Namespace {
		return claimIgnore
	}
	if ref := metav1.GetControllerOfNoCopy(r); ref != nil {
		switch {
		case ref.UID != ds.UID:
			return claimIgnore
		case sel.Matches(r.Labels):
			return claimOwned
		}
		return claimRelease
	}
	if r.DeletionTimestamp == nil && sel.Matches(r.Labels) {
		return claimAdopt
	}
	return claimIgnore
}
