package rollout

import (
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
)

// One sync of the simulated controller: the plan, the failed-pod back-off, and the writes.

// sync runs one sync of the controller at sm.now under the sync model.
func (sm *sim) sync() error {
	ds := sm.w.ds()
	collisions, writes := ds.Status.CollisionCount, sm.w.dsVersion
	p := sm.plannerFor()
	planned := sm.plan(p)
	step := Step{At: sm.now}
	res, backoffRequeue := sm.backedOff(p, planned, &step)
	observed := sm.opts.Model == SyncObserved
	if !observed {
		backoffRequeue = 0 // res's RequeueAfter, queued below, holds it
	}
	acted, err := sm.applyStep(res, &step, !observed)
	if err != nil {
		return err
	}
	if observed && res.Skipped == "" {
		if ru := res.RollingUpdate; ru != nil && ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty && acted {
			// The live controller sees its own writes before the rolling step (ROLL-7).
			res2, _ := sm.backedOff(p, sm.plan(p), nil)
			if res2.RollingUpdate != nil && res2.RollingUpdate.Acted {
				if _, err := sm.applyStep(res2, &step, false); err != nil {
					return err
				}
			}
		}
		final, _ := sm.backedOff(p, sm.plan(p), nil)
		if final.Status != nil {
			sm.w.writeStatus(final.Status)
			res = final
		}
	}
	if res.RollingUpdate != nil && res.RollingUpdate.Acted {
		step.RollingActed = true
	}
	if !equalCount(collisions, sm.w.ds().Status.CollisionCount) {
		sm.invalidate(true)
	}
	if res.Status != nil {
		step.Status = sm.w.ds().Status
		if sm.w.dsVersion != writes { // the status or the collision count was written
			sm.changed()
			sm.push(pending{at: sm.now, kind: itemSync}) // the DaemonSet's update event
		}
	}
	// The sync's requeues (SYNC-8): the failed-pod back-off's from the plan that held Failed
	// pods back (DIFF-12, DIFF-17), asked for while upstream walks the nodes
	// (podsShouldBeOnNode) whatever status it writes later, and the minReadySeconds one
	// (STAT-15) from the plan whose status the sync wrote. Under SyncUnobserved both are res's
	// RequeueAfter.
	sm.addAfter(backoffRequeue)
	sm.addAfter(res.RequeueAfter.Duration)
	if len(sm.traj.Steps) == cap(sm.traj.Steps) {
		// Double: append grows large slices by a quarter, which allocates about five times
		// the final list over a long run.
		sm.traj.Steps = slices.Grow(sm.traj.Steps, max(len(sm.traj.Steps), 64))
	}
	sm.traj.Steps = append(sm.traj.Steps, step)
	if sm.opts.AfterSync != nil {
		sm.opts.AfterSync(step, sm.w.snapshot())
	}
	return nil
}

// plan plans the world as it is, reusing the last plan when nothing changed since.
func (sm *sim) plan(p *daemonset.Planner) *daemonset.Result {
	if sm.memo != nil && sm.memoAt.version == sm.version && sm.memoAt.now.Equal(sm.now) {
		return sm.memo
	}
	var res *daemonset.Result
	if sm.inc != nil && !sm.inc.fits(p, sm) {
		// The DaemonSet's Planner changed beyond what the Tracker's plans show: track afresh.
		sm.dropTracked()
		sm.incTried = false
	}
	switch {
	case sm.inc != nil:
		var ok bool
		if res, ok = sm.inc.plan(); !ok {
			sm.dropTracked()
			sm.incTried = true // until a node or DaemonSet event (invalidate)
		}
	case !sm.noInc && !sm.incTried:
		// The Tracker's first plan is the whole snapshot's (daemonset: TestTrackerFoldsAsPlan),
		// so a whole-snapshot plan is made only where there is no Tracker or it cannot fold.
		if sm.inc = sm.track(p); sm.inc != nil {
			res, _ = sm.inc.plan()
			break
		}
		res = p.Plan(sm.w.snapshot())
		// A sync that writes revisions is followed by one that does not: try again then.
		sm.incTried = res.Revisions == nil
	}
	if res == nil {
		res = p.Plan(sm.w.snapshot())
	}
	sm.memo = res
	sm.memoAt.version, sm.memoAt.now = sm.version, sm.now
	return res
}

// backedOff returns the plan of the sync with the failed-pod back-off in force (ROLL-6): res,
// planned without it, when it deletes no Failed pod (no node has one it could delete, so the
// back-off changes nothing), else the whole-snapshot plan with sm.backoff, whose back-off after
// the sync becomes sm.backoff; and that plan's back-off requeue (DIFF-12, DIFF-17) apart from
// its minReadySeconds one (daemonset's PlanRequeues), 0 when res is returned. step, when not
// nil, counts the Failed-pod deletions the back-off held back. The caller queues the plan's
// requeue (addAfter).
func (sm *sim) backedOff(p *daemonset.Planner, res *daemonset.Result, step *Step) (*daemonset.Result, time.Duration) {
	free := failedDeletes(res)
	if free == 0 {
		return res, 0
	}
	full, rq := p.At(sm.now, sm.backoff).PlanRequeues(sm.w.snapshot())
	if step != nil {
		step.HeldBack += free - failedDeletes(full)
	}
	sm.backoff = daemonset.UpdateBackoff(sm.backoff, full, sm.now)
	return full, rq.Backoff
}

func failedDeletes(res *daemonset.Result) int {
	n := 0
	for _, d := range res.Delete {
		if d.Reason == daemonset.ReasonFailedPod {
			n++
		}
	}
	return n
}

// applyStep applies res, records it in step and gives the kubelet model its pods.
func (sm *sim) applyStep(res *daemonset.Result, step *Step, writeStatus bool) (bool, error) {
	// A plan is applied once; its pods are fresh objects (daemonset's Result), so the world
	// keeps them.
	a, err := sm.w.apply(res, sm.now, sm.opts.Scheduler, writeStatus, true)
	if err != nil {
		return false, err
	}
	if a.actions == 0 {
		return false, nil
	}
	sm.changed()
	if len(res.Create) > 0 {
		step.Create = slices.Grow(step.Create, len(res.Create))
	}
	for _, c := range res.Create {
		step.Create = append(step.Create, c.Node)
	}
	step.Delete = append(step.Delete, res.Delete...)
	step.Adopt += len(res.Adopt)
	step.Release += len(res.Release)
	for _, p := range a.created {
		if p.Spec.NodeName == "" {
			continue
		}
		e := sm.w.byNode[p.Spec.NodeName]
		if e == nil || e.node == nil || !nodehealth.RunsPods(e.node) {
			continue
		}
		if f := sm.opts.Kubelet.fate(p, sm.rng); f != FateReady {
			sm.fates[keyOf(p)] = f
		}
		sm.push(pending{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: e.epoch, own: p})
	}
	for _, p := range a.terminating {
		if n, ok := sm.w.node(p.Spec.NodeName); ok && nodehealth.RunsPods(n) {
			sm.scheduleRemoval(p)
		}
	}
	if a.actions > 0 {
		sm.push(pending{at: sm.now, kind: itemSync}) // the watch events of the writes
	}
	return a.actions > 0, nil
}

func equalCount(a, b *int32) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
