package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/tools/cache"
)

// dsState is what the controller remembers about one DaemonSet between syncs: the expectations
// of its last pod writes and the resource versions of its writes, which the informers must have
// reached before the DaemonSet is planned again (as v1.36's StaleControllerConsistencyDaemonSet).
type dsState struct {
	exp     *daemonset.Expectations // of the last sync that wrote pods; nil once observed
	created map[types.UID]bool      // the pods that sync created, while exp waits for them
	// early holds, while a sync's creates are in flight, the pods of this DaemonSet the caches
	// showed before their create returned: earlyLive once seen live (upstream's addPod counted
	// the creation), earlyGone once then seen terminating or gone (and deletePod took it back).
	early map[types.UID]earlySeen
	dsRV  string // the DaemonSet's resourceVersion after our last status write
	podRV string // the highest resourceVersion our pod writes returned
}

// errNotObserved asks for a requeue: the caches have not yet seen the controller's own writes.
var errNotObserved = errors.New("the caches have not yet observed the last writes")

// Sync runs one sync of the DaemonSet named by key (namespace/name) and returns when the
// DaemonSet should be synced again with no event (0: not before an event). An error means the
// sync should be retried with the queue's rate limit.
func (c *Controller) Sync(ctx context.Context, key string) (time.Duration, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil // a malformed key never syncs
	}
	ds, err := c.dsLister.DaemonSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		delete(c.state, key)
		c.mu.Unlock()
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	begin := time.Now()
	if c.waitOwnWrites && !c.caughtUp(key, ds) {
		return 0, fmt.Errorf("DaemonSet %s: %w", key, errNotObserved)
	}
	snap, err := c.snapshot(ns)
	if err != nil {
		return 0, err
	}
	now := c.now()
	c.mu.Lock()
	backoff := c.backoff // UpdateBackoff returns a new slice: this one is never written again
	c.mu.Unlock()
	p, invalid := daemonset.Compile(ds, daemonset.Options{Now: now, Version: c.version, FeatureGates: c.gates, BurstLimit: BurstReplicas, Backoff: backoff})
	if len(invalid) > 0 {
		logger(ctx).V(2).Info("DaemonSet fails validation; it is acted on as stored", "daemonset", key, "errors", invalid.ToAggregate())
	}
	// Until the creates and deletes of an earlier sync are observed (SYNC-9), the sync only
	// settles the revisions, claims pods and writes the status: PlanPending gives that sync.
	res := p.Plan
	if !c.expectationsMet(key, snap, now) {
		res = p.PlanPending
	}
	s := &syncer{c: c, ctx: ctx, key: key, ds: ds, p: p, snap: snap, res: res(snap), now: now}
	after, err := s.run()
	if c.trace != nil {
		s.trace.Key, s.trace.DaemonSet, s.trace.Start, s.trace.Now = key, ds, snap, now
		s.trace.Backoff, s.trace.Pending = backoff, s.res.Pending
		s.trace.Begin, s.trace.End = begin, time.Now()
		c.trace(s.trace)
	}
	return after, err
}

// earlySeen is what the caches showed of a pod before its create returned (dsState.early).
type earlySeen int8

const (
	earlyLive earlySeen = iota + 1
	earlyGone
)

// expectationsMet reports whether the caches show the creates and deletes of key's last sync
// that wrote pods, or upstream's timeout has passed (SYNC-9). Observed once is observed: later
// deletions do not undo it.
func (c *Controller) expectationsMet(key string, snap daemonset.Snapshot, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[key]
	if st == nil || st.exp == nil {
		return true
	}
	if st.exp.Observed(snap) || st.exp.Expired(now) {
		st.exp, st.created = nil, nil
		return true
	}
	return false
}

func (c *Controller) snapshot(ns string) (daemonset.Snapshot, error) {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	pods, err := c.pods.Pods(ns).List(labels.Everything())
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	revs, err := c.revs.ControllerRevisions(ns).List(labels.Everything())
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	return daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs}, nil
}

// caughtUp reports whether the caches hold the controller's last writes for key.
func (c *Controller) caughtUp(key string, ds *appsv1.DaemonSet) bool {
	c.mu.Lock()
	st := c.state[key]
	c.mu.Unlock()
	if st == nil {
		return true
	}
	if st.dsRV != "" && rvBefore(ds.ResourceVersion, st.dsRV) {
		return false
	}
	return st.podRV == "" || !rvBefore(c.podInf.LastSyncResourceVersion(), st.podRV)
}

// rvBefore reports whether resource version a is older than b; versions that do not compare
// (not from one etcd) are taken as caught up.
func rvBefore(a, b string) bool {
	n, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && n < 0
}

func (c *Controller) stateOf(key string) *dsState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[key]
	if st == nil {
		st = &dsState{}
		c.state[key] = st
	}
	return st
}

// syncer holds one sync: the DaemonSet as cached, the snapshot and the plan.
type syncer struct {
	c    *Controller
	ctx  context.Context
	key  string
	ds   *appsv1.DaemonSet
	p    *daemonset.Planner // ds compiled at now
	snap daemonset.Snapshot
	res  *daemonset.Result
	now  time.Time

	trace SyncTrace // what Options.Trace is told; Rechecked, Observed, Rolled and Mid as the sync goes

	fresh    *appsv1.DaemonSet // the DaemonSet re-read before adopting, once per sync
	freshErr error
}

// run sends the plan's writes in the order RevisionWrites documents, which is the v1.36
// controller's (SYNC-2) but for D-15: revision updates and claims, pod claims, the current
// revision (relabelled pods, duplicates deleted, created), then pod creates in slow-start
// batches, pod deletes, the rolling-update step when the base diff's writes are already in the
// caches (rollAfterBaseDiff) and, when all of those succeeded, the history clean-up; then the
// status the caches show at that point (finalStatus), with events along the way. A plan made
// while expectations are pending (Result.Pending) has no pod creates or deletes, no rolling
// step, no clean-up and no events, its status keeps the stored observedGeneration, its back-off
// is the one given and its requeue only minReadySeconds': it is sent the same way.
func (s *syncer) run() (time.Duration, error) {
	res, c := s.res, s.c
	switch res.Skipped {
	case "":
	case daemonset.SkipHashCollision:
		// The revision claims and labels come before the create that collides (UPD-21).
		if err := s.claimRevisions(res.Revisions); err != nil {
			return 0, fmt.Errorf("DaemonSet %s: revisions: %w", s.key, err)
		}
		return 0, s.bumpCollisionCount()
	case daemonset.SkipInvalidSelector:
		return 0, fmt.Errorf("DaemonSet %s: its selector does not convert (SYNC-5)", s.key)
	default:
		s.events(res)
		return 0, nil
	}
	if err := s.claimRevisions(res.Revisions); err != nil {
		return 0, fmt.Errorf("DaemonSet %s: revisions: %w", s.key, err)
	}
	claimErr := s.claimPods(res)
	if err := s.currentRevision(res.Revisions); err != nil {
		return 0, fmt.Errorf("DaemonSet %s: revisions: %w", s.key, err)
	}

	if claimErr != nil {
		// Upstream's status sync claims the pods again, and returns before writing when
		// that fails: a status counted over claims the API server refused is not sent.
		return 0, claimErr
	}
	c.mu.Lock()
	c.backoff = daemonset.UpdateBackoff(c.backoff, res, s.now)
	c.mu.Unlock()
	err := s.podWrites(res, s.snap, s.now)
	if err == nil {
		err = s.rollAfterBaseDiff()
	}
	if err == nil {
		err = s.cleanupHistory(res.Revisions)
	}
	s.events(res)
	status, after, statusErr := s.finalStatus()
	if statusErr == nil {
		statusErr = s.writeStatus(status)
	}
	return after, errors.Join(err, statusErr)
}

// refreshed returns the snapshot the caches show now, with the node list the sync started
// from: upstream's rolling step and status list the pods again but keep the sync's nodes.
func (s *syncer) refreshed() (daemonset.Snapshot, error) {
	fresh, err := s.c.snapshot(s.ds.Namespace)
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	fresh.Nodes = s.snap.Nodes
	return fresh, nil
}

// planner returns the sync's Planner at the clock's current time and with the back-off in force.
func (s *syncer) planner() (*daemonset.Planner, time.Time) {
	now := s.c.now()
	s.c.mu.Lock()
	backoff := s.c.backoff
	s.c.mu.Unlock()
	return s.p.At(now, backoff), now
}

// rollAfterBaseDiff runs the rolling-update step in the same sync as a base diff that wrote
// pods, as v1.36's updateDaemonSet does (the observed sync of ROLL-7): it checks the expectations again after
// manage and, when the caches already show every create and delete of the base diff, plans the
// step on the pods the caches show then (with the sync's nodes) and sends it. When the caches
// are behind, the step waits for the next sync, as upstream's does.
func (s *syncer) rollAfterBaseDiff() error {
	res := s.res
	if res.Pending || res.RollingUpdate == nil || res.RollingUpdate.Reason != daemonset.RollingReasonBaseDiffNotEmpty ||
		len(res.Create)+len(res.Delete) == 0 {
		return nil
	}
	fresh, err := s.refreshed()
	if err != nil {
		return err
	}
	p, now := s.planner()
	s.trace.Rechecked, s.trace.Mid = true, fresh
	if !s.c.expectationsMet(s.key, fresh, now) {
		return nil
	}
	s.trace.Observed = true
	res2 := p.Plan(fresh)
	// The step acts only on a base diff now empty; a revision hash that differs would mean a
	// cache that moved to another template, which this sync did not plan for.
	if res2.Skipped != "" || res2.RevisionHash != res.RevisionHash || res2.RollingUpdate == nil || !res2.RollingUpdate.Acted {
		return nil
	}
	s.trace.Rolled = true
	// Upstream's rolling step claims the pods again before it lists them.
	if err := s.claimPods(res2); err != nil {
		return err
	}
	return s.podWrites(res2, fresh, now)
}

// finalStatus plans the status on the pods the caches show after the sync's pod writes, as
// upstream's updateDaemonSetStatus lists them again: it counts the pods just created that the
// pod informer already holds. The requeue is the sync's plan's (failed-pod back-off), or the
// final status's minReadySeconds requeue when that comes first.
func (s *syncer) finalStatus() (*appsv1.DaemonSetStatus, time.Duration, error) {
	res := s.res
	after := res.RequeueAfter.Duration
	fresh, err := s.refreshed()
	if err != nil {
		return nil, after, err
	}
	p, _ := s.planner()
	final := p.Plan
	if res.Pending {
		final = p.PlanPending
	}
	got := final(fresh)
	if got.Skipped != "" || got.RevisionHash != res.RevisionHash {
		return res.StatusWrite, after, nil
	}
	if d := got.RequeueAfter.Duration; d > 0 && (after == 0 || d < after) {
		after = d
	}
	return got.StatusWrite, after, nil
}

// canAdopt re-reads the DaemonSet from the API server before the first adoption of a sync, as
// upstream does: a DaemonSet that was deleted or replaced adopts nothing.
func (s *syncer) canAdopt() error {
	if s.fresh == nil && s.freshErr == nil {
		s.fresh, s.freshErr = s.c.client.AppsV1().DaemonSets(s.ds.Namespace).Get(s.ctx, s.ds.Name, metav1.GetOptions{})
		switch {
		case s.freshErr != nil:
		case s.fresh.UID != s.ds.UID:
			s.freshErr = fmt.Errorf("DaemonSet %s was replaced (uid %s, want %s)", s.key, s.fresh.UID, s.ds.UID)
		case s.fresh.DeletionTimestamp != nil:
			s.freshErr = fmt.Errorf("DaemonSet %s is being deleted", s.key)
		}
	}
	return s.freshErr
}

// claimPods sends the adoptions and releases of pods (OWN-*), strategic-merge patches carrying
// the pod's uid as a precondition. A pod gone, or replaced under the same name, is not an error.
func (s *syncer) claimPods(res *daemonset.Result) error {
	pods := s.c.client.CoreV1().Pods(s.ds.Namespace)
	var errs []error
	for _, ref := range res.Adopt {
		if err := s.canAdopt(); err != nil {
			return fmt.Errorf("can't adopt pod %s/%s: %w", ref.Namespace, ref.Name, err)
		}
		p, err := pods.Patch(s.ctx, ref.Name, types.StrategicMergePatchType, ref.AdoptPatch(s.ds), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		s.wrotePod(p)
	}
	for _, ref := range res.Release {
		p, err := pods.Patch(s.ctx, ref.Name, types.StrategicMergePatchType, ref.ReleasePatch(s.ds), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
			errs = append(errs, err)
		}
		s.wrotePod(p)
	}
	return errors.Join(errs...)
}

// wrotePod remembers the resourceVersion of a pod the controller wrote.
func (s *syncer) wrotePod(p *v1.Pod) {
	if p == nil || p.ResourceVersion == "" {
		return
	}
	st := s.c.stateOf(s.key)
	s.c.mu.Lock()
	if st.podRV == "" || rvBefore(st.podRV, p.ResourceVersion) {
		st.podRV = p.ResourceVersion
	}
	s.c.mu.Unlock()
}

// events records the plan's events (D-8) on the DaemonSet.
func (s *syncer) events(res *daemonset.Result) {
	for _, ev := range res.Events {
		s.c.recorder.Event(s.ds, ev.Type, string(ev.Reason), ev.Message)
	}
}

// writeStatus sends st with UpdateStatus and retries once on failure with the DaemonSet read
// again, as upstream does. Only the counters and observedGeneration are the sync's; the rest
// of the status (collisionCount, conditions) is kept from the object written to.
func (s *syncer) writeStatus(st *appsv1.DaemonSetStatus) error {
	if st == nil {
		return nil
	}
	client := s.c.client.AppsV1().DaemonSets(s.ds.Namespace)
	toUpdate := s.ds.DeepCopy()
	var err error
	for try := 0; ; try++ {
		cc, conds, gen := toUpdate.Status.CollisionCount, toUpdate.Status.Conditions, toUpdate.Status.ObservedGeneration
		toUpdate.Status = *st.DeepCopy()
		toUpdate.Status.CollisionCount, toUpdate.Status.Conditions = cc, conds
		if s.res.Pending {
			// A pending sync does not raise observedGeneration: it keeps the one stored,
			// re-read with the object on a retry.
			toUpdate.Status.ObservedGeneration = gen
		}
		var out *appsv1.DaemonSet
		if out, err = client.UpdateStatus(s.ctx, toUpdate, metav1.UpdateOptions{}); err == nil {
			st := s.c.stateOf(s.key)
			s.c.mu.Lock()
			st.dsRV = out.ResourceVersion
			s.c.mu.Unlock()
			return nil
		}
		if try == 1 {
			return fmt.Errorf("DaemonSet %s: status: %w", s.key, err)
		}
		if toUpdate, err = client.Get(s.ctx, s.ds.Name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("DaemonSet %s: status: %w", s.key, err)
		}
	}
}

// bumpCollisionCount raises status.collisionCount after a hash collision (UPD-21), unless the
// cached count was stale, and always asks for a retry.
func (s *syncer) bumpCollisionCount() error {
	client := s.c.client.AppsV1().DaemonSets(s.ds.Namespace)
	cur, err := client.Get(s.ctx, s.ds.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(cur.Status.CollisionCount, s.ds.Status.CollisionCount) {
		return fmt.Errorf("DaemonSet %s: stale collisionCount; retrying", s.key)
	}
	cur.Status.CollisionCount = s.res.CollisionCount
	if _, err := client.UpdateStatus(s.ctx, cur, metav1.UpdateOptions{}); err != nil {
		return err
	}
	return fmt.Errorf("DaemonSet %s: hash collision; collisionCount raised to %d (UPD-21)", s.key, *s.res.CollisionCount)
}
