package rollout

import (
	"bytes"
	"slices"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeHistory returns revisions after the revision writes of one sync of ds (ROLL-4), the
// part of the whole sync that package daemonset does not plan yet, and the pods it relabels:
// when several revisions hold the current template, the one with the highest revision number
// (the last of them in revisions on a tie) is kept, every pod the sync claims (res: controlled
// and not released, or adopted) whose hash label differs from the kept revision's is
// relabelled with it, and the other duplicates are deleted. The revision holding the current
// template is then created (named <ds>-<hash>, numbered one above the newest old revision)
// or, if it exists but is not the newest, renumbered; then the oldest old revisions beyond
// spec.revisionHistoryLimit (10 when unset) whose hash no claimed pod with a target node
// carries (OWN-9; labels as read before the relabelling) are deleted. Revisions are matched
// by their data, as upstream's constructHistory does; only revisions ds controls are
// considered. The slices and the objects they held are not modified; relabelled pods are
// copies.
//
// It stands in for the revision writes of the whole-sync plan; when that plan reports them,
// Apply applies the plan's writes instead.
func writeHistory(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, pods []*v1.Pod, res *daemonset.Result) ([]*appsv1.ControllerRevision, []*v1.Pod, error) {
	hash := res.RevisionHash
	patch, err := daemonset.RevisionPatch(ds)
	if err != nil {
		return nil, nil, err
	}
	var cur *appsv1.ControllerRevision
	curIndex := -1
	var old, dups []*appsv1.ControllerRevision
	for i, r := range revisions {
		ref := metav1.GetControllerOf(r)
		if r.Namespace != ds.Namespace || ref == nil || ref.UID != ds.UID {
			continue
		}
		if bytes.Equal(r.Data.Raw, patch) {
			if cur != nil && r.Revision < cur.Revision {
				dups = append(dups, r)
				continue
			}
			if cur != nil {
				dups = append(dups, cur)
			}
			cur, curIndex = r, i
			continue
		}
		old = append(old, r)
	}
	claimed := claimedPods(ds, pods, res)
	var relabelled []*v1.Pod
	out := revisions
	if len(dups) > 0 {
		keep, ok := cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if !ok {
			keep = cur.Name // constructHistory labels a revision with its name first
		}
		for _, p := range claimed {
			if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != keep {
				c := p.DeepCopy()
				if c.Labels == nil {
					c.Labels = map[string]string{}
				}
				c.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = keep
				relabelled = append(relabelled, c)
			}
		}
		out = slices.DeleteFunc(slices.Clone(revisions), func(r *appsv1.ControllerRevision) bool { return slices.Contains(dups, r) })
		curIndex = slices.Index(out, cur)
	}
	next := int64(1)
	for _, r := range old {
		next = max(next, r.Revision+1)
	}
	switch {
	case cur == nil:
		rev, err := daemonset.NewRevision(ds, hash, next)
		if err != nil {
			return nil, nil, err
		}
		if slices.ContainsFunc(revisions, func(r *appsv1.ControllerRevision) bool {
			return r.Namespace == rev.Namespace && r.Name == rev.Name
		}) {
			// A revision of that name holds another template: the hash collision the plan
			// reports (UPD-21); nothing to write here.
			return revisions, nil, nil
		}
		out = append(slices.Clip(revisions), rev)
	case cur.Revision < next:
		c := cur.DeepCopy()
		c.Revision = next
		if len(dups) == 0 {
			out = slices.Clone(revisions)
		}
		out[curIndex] = c
	}
	limit := 10
	if l := ds.Spec.RevisionHistoryLimit; l != nil {
		limit = int(max(*l, 0))
	}
	toKill := len(old) - limit
	if toKill <= 0 {
		return out, relabelled, nil
	}
	live := map[string]bool{}
	for _, p := range claimed {
		if _, ok := affinity.TargetNodeName(p); !ok {
			continue // cleanupHistory reads the pods grouped by target node
		}
		if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
			live[h] = true
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
		return out, relabelled, nil
	}
	kept := make([]*appsv1.ControllerRevision, 0, len(out)-len(dead))
	for _, r := range out {
		if !dead[r] {
			kept = append(kept, r)
		}
	}
	return kept, relabelled, nil
}

// claimedPods are the pods of ds after the claims of res (daemonset.Claims), in the order of
// pods.
func claimedPods(ds *appsv1.DaemonSet, pods []*v1.Pod, res *daemonset.Result) []*v1.Pod {
	claims := daemonset.Claims(ds, res)
	var out []*v1.Pod
	for _, p := range pods {
		if claims(p) {
			out = append(out, p)
		}
	}
	return out
}
