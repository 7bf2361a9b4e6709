package controller

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claimRevisions sends the ControllerRevision writes that come first (UPD-14, OWN-12): the
// updates (missing hash labels, revision number bumps) and relabels while their
// resourceVersion is the snapshot's (D-15), then the adoptions and releases.
func (s *syncer) claimRevisions(w *daemonset.RevisionWrites) error {
	if w == nil {
		return nil
	}
	client := s.c.client.AppsV1().ControllerRevisions(s.ds.Namespace)
	for _, rev := range w.Update {
		if _, err := client.Update(s.ctx, rev, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	for _, r := range w.Relabel {
		if _, err := client.Patch(s.ctx, r.Name, types.MergePatchType, r.Patch(), metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	for _, ref := range w.Adopt {
		if err := s.canAdopt(); err != nil {
			return fmt.Errorf("can't adopt ControllerRevision %s: %w", ref.Name, err)
		}
		if _, err := client.Patch(s.ctx, ref.Name, types.StrategicMergePatchType, ref.AdoptPatch(s.ds), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for _, ref := range w.Release {
		_, err := client.Patch(s.ctx, ref.Name, types.StrategicMergePatchType, ref.ReleasePatch(s.ds), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
			return err
		}
	}
	return nil
}

// currentRevision sends, after the pod claims, the writes that settle the current revision
// (UPD-14): the pods a de-duplication relabels, the duplicates' deletion, and the creation of
// the current revision when none holds the template.
func (s *syncer) currentRevision(w *daemonset.RevisionWrites) error {
	if w == nil {
		return nil
	}
	pods := s.c.client.CoreV1().Pods(s.ds.Namespace)
	for _, r := range w.RelabelPods {
		p, err := pods.Patch(s.ctx, r.Name, types.MergePatchType, r.Patch(), metav1.PatchOptions{})
		if err != nil {
			return err
		}
		s.wrotePod(p)
	}
	client := s.c.client.AppsV1().ControllerRevisions(s.ds.Namespace)
	for _, ref := range w.Delete {
		if err := client.Delete(s.ctx, ref.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for _, rev := range w.Create {
		_, err := client.Create(s.ctx, rev, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// The cache is behind: a revision of that name holding this template is the one
			// this controller created; any other is a collision the next sync raises (UPD-21).
			got, getErr := client.Get(s.ctx, rev.Name, metav1.GetOptions{})
			if getErr == nil && string(got.Data.Raw) == string(rev.Data.Raw) {
				err = nil
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanupHistory deletes the revisions beyond revisionHistoryLimit that no pod uses (UPD-22),
// oldest first; the sync sends it only when every pod write succeeded.
func (s *syncer) cleanupHistory(w *daemonset.RevisionWrites) error {
	if w == nil {
		return nil
	}
	client := s.c.client.AppsV1().ControllerRevisions(s.ds.Namespace)
	for _, ref := range w.Cleanup {
		if err := client.Delete(s.ctx, ref.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// podWrites sends the creates of res, a plan made on snap at now, in slow-start batches (1, 2,
// 4, ...; a batch with a failure ends the series) and then its deletes, all at once. The expectations (SYNC-9) are the plan's,
// lowered by every create and delete the API server refused and every create not sent.
//
// The expectations and the pods created are the DaemonSet's state from before the first write,
// and each created pod joins it as its create returns, as upstream raises its expectations
// before it writes: a pod that turns terminating while later batches are still being sent is
// then one podTerminating knows, not one the expectations wait for until their timeout. A pod
// the informer delivers before its create has returned is counted by that event, as upstream
// counts creations by the informer event (see dsState.early). All are guarded by the
// controller's lock, which the pod handlers take.
func (s *syncer) podWrites(res *daemonset.Result, snap daemonset.Snapshot, now time.Time) error {
	if len(res.Create) == 0 && len(res.Delete) == 0 {
		return nil
	}
	exp := res.Expectations(snap, now)
	created := map[types.UID]bool{}
	st := s.c.stateOf(s.key)
	s.c.mu.Lock()
	st.exp, st.created, st.early = &exp, created, map[types.UID]earlySeen{}
	s.c.mu.Unlock()
	defer func() {
		s.c.mu.Lock()
		st.early = nil
		s.c.mu.Unlock()
	}()
	pods := s.c.client.CoreV1().Pods(s.ds.Namespace)
	var mu sync.Mutex // guards errs
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	sent := 0
	for batch := min(1, len(res.Create)); sent < len(res.Create); batch = min(2*batch, len(res.Create)-sent) {
		failed := len(errs)
		var wg sync.WaitGroup
		for _, cr := range res.Create[sent : sent+batch] {
			wg.Go(func() {
				p, err := pods.Create(s.ctx, cr.Pod, metav1.CreateOptions{})
				if err != nil {
					s.c.mu.Lock()
					exp.Creates--
					s.c.mu.Unlock()
					if !apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause) {
						s.c.recorder.Eventf(s.ds, v1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
						fail(err)
					}
					return
				}
				s.c.recorder.Eventf(s.ds, v1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", p.Name)
				s.c.mu.Lock()
				if st.early[p.UID] == earlyGone {
					exp.Creates-- // counted at its add event, taken back when it went
				} else {
					created[p.UID] = true
				}
				delete(st.early, p.UID)
				s.c.mu.Unlock()
				s.wrotePod(p)
			})
		}
		wg.Wait()
		sent += batch
		if len(errs) > failed {
			s.c.mu.Lock()
			exp.Creates -= len(res.Create) - sent // never sent, never expected
			s.c.mu.Unlock()
			break
		}
	}
	var wg sync.WaitGroup
	for _, d := range res.Delete {
		wg.Go(func() {
			err := pods.Delete(s.ctx, d.Name, metav1.DeleteOptions{})
			switch {
			case err == nil:
				s.c.recorder.Eventf(s.ds, v1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", d.Name)
			case !apierrors.IsNotFound(err): // a pod already gone counts as observed
				s.c.recorder.Eventf(s.ds, v1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
				s.c.mu.Lock()
				exp.Deletes = slices.DeleteFunc(exp.Deletes, func(r daemonset.ObjectRef) bool { return r.UID == d.UID && r.Name == d.Name })
				s.c.mu.Unlock()
				fail(err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
