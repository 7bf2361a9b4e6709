package rollout

import (
	"bytes"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeHistory returns revisions after the revision writes of one sync of ds (ROLL-4), the
// part of the whole sync that package daemonset does not plan yet: the revision holding the
// current template is created (named <ds>-<hash>, numbered one above the newest old revision)
// or, if it exists but is not the newest, renumbered; then the oldest old revisions beyond
// spec.revisionHistoryLimit (10 when unset) whose hash no pod of ds carries are deleted.
// Revisions are matched by their data, as upstream's constructHistory does; only revisions
// ds controls are considered. The slice and the objects it held are not modified.
//
// It stands in for the revision writes of the whole-sync plan; when that plan reports them,
// Apply applies the plan's writes instead.
func writeHistory(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, pods []*v1.Pod, hash string) ([]*appsv1.ControllerRevision, error) {
	patch, err := daemonset.RevisionPatch(ds)
	if err != nil {
		return nil, err
	}
	var cur *appsv1.ControllerRevision
	curIndex := -1
	var old []*appsv1.ControllerRevision
	for i, r := range revisions {
		ref := metav1.GetControllerOf(r)
		if r.Namespace != ds.Namespace || ref == nil || ref.UID != ds.UID {
			continue
		}
		if bytes.Equal(r.Data.Raw, patch) && (cur == nil || r.Revision > cur.Revision) {
			if cur != nil {
				old = append(old, cur)
			}
			cur, curIndex = r, i
			continue
		}
		old = append(old, r)
	}
	next := int64(1)
	for _, r := range old {
		next = max(next, r.Revision+1)
	}
	out := revisions
	switch {
	case cur == nil:
		rev, err := daemonset.NewRevision(ds, hash, next)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(revisions, func(r *appsv1.ControllerRevision) bool {
			return r.Namespace == rev.Namespace && r.Name == rev.Name
		}) {
			// A revision of that name holds another template: the hash collision the plan
			// reports (UPD-21); nothing to write here.
			return revisions, nil
		}
		out = append(slices.Clip(revisions), rev)
	case cur.Revision < next:
		c := cur.DeepCopy()
		c.Revision = next
		out = slices.Clone(revisions)
		out[curIndex] = c
	}
	limit := 10
	if l := ds.Spec.RevisionHistoryLimit; l != nil {
		limit = int(max(*l, 0))
	}
	toKill := len(old) - limit
	if toKill <= 0 {
		return out, nil
	}
	live := map[string]bool{}
	for _, p := range pods {
		if isControlledBy(p, ds) {
			if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
				live[h] = true
			}
		}
	}
	slices.SortStableFunc(old, func(a, b *appsv1.ControllerRevision) int {
		switch {
		case a.Revision < b.Revision:
			return -1
		case a.Revision > b.Revision:
			return 1
		}
		return 0
	})
	dead := map[*appsv1.ControllerRevision]bool{}
	for _, r := range old {
		if toKill == 0 {
			break
		}
		if live[r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] {
			continue
		}
		dead[r] = true
		toKill--
	}
	if len(dead) == 0 {
		return out, nil
	}
	kept := make([]*appsv1.ControllerRevision, 0, len(out)-len(dead))
	for _, r := range out {
		if !dead[r] {
			kept = append(kept, r)
		}
	}
	return kept, nil
}
