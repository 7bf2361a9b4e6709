package controller

// This file stands in for the issue-11 library API (docs: /work/prompts/api11.md) until it lands
// on main: revision writes, write-ready patches, the status write, back-off and expectations.
// Each function has the name and shape the library will offer, so that switching means deleting
// this file and calling daemonset.X instead.

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// objectRef names an object (daemonset.ObjectRef).
type objectRef struct {
	Namespace, Name string
	UID             types.UID
}

// podRelabel is a pod to relabel after a de-duplication (daemonset.PodRelabel).
type podRelabel struct {
	Namespace, Name string
	UID             types.UID
	Hash            string
}

// revisionWrites is daemonset.RevisionWrites.
type revisionWrites struct {
	Create      []*appsv1.ControllerRevision
	Update      []*appsv1.ControllerRevision
	Delete      []objectRef
	Adopt       []objectRef
	Release     []objectRef
	RelabelPods []podRelabel
}

// planRevisions derives the ControllerRevision writes of the sync res plans for ds, as the
// v1.36 controller's history handling does them (UPD-14, UPD-22).
func planRevisions(ds *appsv1.DaemonSet, s daemonset.Snapshot, res *daemonset.Result) *revisionWrites {
	if res.Skipped != "" {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil
	}
	patch, err := daemonset.RevisionPatch(ds)
	if err != nil {
		return nil
	}
	w := &revisionWrites{}
	var current, old []*appsv1.ControllerRevision
	for _, r := range s.Revisions {
		if r.Namespace != ds.Namespace {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(r)
		matches := sel.Matches(labels.Set(r.Labels))
		switch {
		case ref != nil && ref.UID != ds.UID:
			continue
		case ref != nil && !matches:
			w.Release = append(w.Release, objectRef{r.Namespace, r.Name, r.UID})
			continue
		case ref == nil && (!matches || r.DeletionTimestamp != nil):
			continue
		case ref == nil:
			w.Adopt = append(w.Adopt, objectRef{r.Namespace, r.Name, r.UID})
		}
		if _, ok := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			r = r.DeepCopy()
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = r.Name
			w.Update = append(w.Update, r)
		}
		if string(r.Data.Raw) == string(patch) {
			current = append(current, r)
		} else {
			old = append(old, r)
		}
	}
	next := int64(1)
	for _, r := range old {
		next = max(next, r.Revision+1)
	}
	var keep *appsv1.ControllerRevision
	for _, r := range current {
		if r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == res.RevisionHash && (keep == nil || r.Revision > keep.Revision) {
			keep = r
		}
	}
	if keep == nil {
		if exists := slices.ContainsFunc(s.Revisions, func(r *appsv1.ControllerRevision) bool {
			return r.Namespace == ds.Namespace && r.Name == ds.Name+"-"+res.RevisionHash
		}); !exists {
			if rev, err := daemonset.NewRevision(ds, res.RevisionHash, next); err == nil {
				w.Create = append(w.Create, rev)
			}
		}
	} else {
		for _, r := range current {
			if r != keep {
				w.Delete = append(w.Delete, objectRef{r.Namespace, r.Name, r.UID})
			}
		}
		if len(current) > 1 {
			claims := daemonset.Claims(ds, res)
			for _, p := range s.Pods {
				if claims(p) && p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != res.RevisionHash {
					w.RelabelPods = append(w.RelabelPods, podRelabel{p.Namespace, p.Name, p.UID, res.RevisionHash})
				}
			}
		}
		if keep.Revision < next {
			bumped := keep.DeepCopy()
			if i := slices.IndexFunc(w.Update, func(u *appsv1.ControllerRevision) bool { return u.Name == keep.Name }); i >= 0 {
				bumped, w.Update = w.Update[i], slices.Delete(w.Update, i, i+1)
			}
			bumped.Revision = next
			w.Update = append(w.Update, bumped)
		}
	}
	// History clean-up: the oldest revisions beyond revisionHistoryLimit that no pod uses.
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	if kill := len(old) - limit; kill > 0 {
		live, claims := map[string]bool{}, daemonset.Claims(ds, res)
		for _, p := range s.Pods {
			if claims(p) {
				live[p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] = true
			}
		}
		slices.SortStableFunc(old, func(a, b *appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
		for _, r := range old {
			if kill == 0 {
				break
			}
			if h := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" && live[h] {
				continue
			}
			w.Delete = append(w.Delete, objectRef{r.Namespace, r.Name, r.UID})
			kill--
		}
	}
	if len(w.Create)+len(w.Update)+len(w.Delete)+len(w.Adopt)+len(w.Release)+len(w.RelabelPods) == 0 {
		return nil
	}
	return w
}

// adoptPatch is daemonset.AdoptPatch: the strategic-merge patch that makes ds the controller of
// the object whose uid is uid.
func adoptPatch(ds *appsv1.DaemonSet, uid types.UID) []byte {
	ref := metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []metav1.OwnerReference{*ref}, "uid": uid}})
	return b
}

// releasePatch is daemonset.ReleasePatch: the strategic-merge patch that removes ds's owner
// reference from the object whose uid is uid.
func releasePatch(ds *appsv1.DaemonSet, uid types.UID) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []map[string]string{{"$patch": "delete", "uid": string(ds.UID)}}, "uid": uid}})
	return b
}

// relabelPatch is daemonset.RelabelPatch: a JSON merge patch setting the hash label.
func relabelPatch(hash string) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash}}})
	return b
}

// statusWrite is Result.StatusWrite: the status to send, or nil when the stored one already
// says it (STAT-9). Without updateObservedGen the stored observedGeneration is kept, as upstream
// does while expectations are pending.
func statusWrite(ds *appsv1.DaemonSet, res *daemonset.Result, updateObservedGen bool) *appsv1.DaemonSetStatus {
	if res.Status == nil {
		return nil
	}
	old, st := &ds.Status, res.Status.DeepCopy()
	if old.DesiredNumberScheduled == st.DesiredNumberScheduled && old.CurrentNumberScheduled == st.CurrentNumberScheduled &&
		old.NumberMisscheduled == st.NumberMisscheduled && old.NumberReady == st.NumberReady &&
		old.UpdatedNumberScheduled == st.UpdatedNumberScheduled && old.NumberAvailable == st.NumberAvailable &&
		old.NumberUnavailable == st.NumberUnavailable && old.ObservedGeneration >= ds.Generation {
		return nil
	}
	if !updateObservedGen {
		st.ObservedGeneration = old.ObservedGeneration
	}
	return st
}

// requeueAfter is Result.RequeueAfter: minReadySeconds when some ready pod is not yet available.
func requeueAfter(ds *appsv1.DaemonSet, res *daemonset.Result) time.Duration {
	if res.Status != nil && ds.Spec.MinReadySeconds > 0 && res.Status.NumberReady != res.Status.NumberAvailable {
		return time.Duration(ds.Spec.MinReadySeconds) * time.Second
	}
	return 0
}

// expectations is daemonset.Expectations: the pods a sync created (by uid) and deleted.
type expectations struct {
	created, deleted map[types.UID]bool
	at               time.Time
}

// observed reports whether pods show every create and delete: created pods are listed or
// known to be gone already (gone holds the uids of pods whose deletion the informer reported),
// deleted ones are not listed or are terminating. After five minutes the expectations lapse, as
// upstream's do.
func (e *expectations) observed(pods []*v1.Pod, gone map[types.UID]time.Time, now time.Time) bool {
	if e == nil || now.Sub(e.at) > 5*time.Minute {
		return true
	}
	seen := 0
	for _, p := range pods {
		if e.created[p.UID] {
			seen++
		}
		if e.deleted[p.UID] && p.DeletionTimestamp == nil {
			return false
		}
	}
	for uid := range e.created {
		if _, ok := gone[uid]; ok {
			seen++
		}
	}
	return seen >= len(e.created)
}

// backoffEntry is daemonset.BackoffEntry: the failed-pod back-off of one DaemonSet generation
// on one node (1 s doubling to 15 min).
type backoffEntry struct {
	DaemonSetUID types.UID
	Generation   int64
	Node         string
	Delay        time.Duration
	Last         time.Time
}

const backoffInitial, backoffMax = time.Second, 15 * time.Minute

// holdBack removes from res the failed-pod deletions that back-off holds and returns the delay
// after which the DaemonSet should be synced again, and the state after this sync (DIFF-17).
func holdBack(state []backoffEntry, ds *appsv1.DaemonSet, res *daemonset.Result, now time.Time) ([]backoffEntry, time.Duration) {
	out := slices.DeleteFunc(slices.Clone(state), func(e backoffEntry) bool { return now.Sub(e.Last) > 2*backoffMax })
	var after time.Duration
	keep := res.Delete[:0:0]
	for _, d := range res.Delete {
		if d.Reason != daemonset.ReasonFailedPod {
			keep = append(keep, d)
			continue
		}
		i := slices.IndexFunc(out, func(e backoffEntry) bool {
			return e.DaemonSetUID == ds.UID && e.Generation == ds.Status.ObservedGeneration && e.Node == d.Node
		})
		if i >= 0 && now.Sub(out[i].Last) < out[i].Delay {
			if after == 0 || out[i].Delay < after {
				after = out[i].Delay
			}
			res.Events = slices.DeleteFunc(res.Events, func(ev daemonset.Event) bool { return ev.Pod == d.Namespace+"/"+d.Name })
			continue
		}
		if i < 0 {
			out = append(out, backoffEntry{ds.UID, ds.Status.ObservedGeneration, d.Node, backoffInitial, now})
		} else {
			out[i].Delay, out[i].Last = min(2*out[i].Delay, backoffMax), now
		}
		keep = append(keep, d)
	}
	res.Delete = keep
	return out, after
}
