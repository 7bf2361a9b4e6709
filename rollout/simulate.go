package rollout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// item kinds of the event queue.
type itemKind uint8

const (
	itemSync itemKind = iota
	itemStart
	itemRemove
	itemEvent
	itemRequeue // the DaemonSet's waiting entry falling due (sim.waiting); stale when moved earlier
)

// pending is something to happen at a time: a sync, a pod's start or removal, an event.
type pending struct {
	at    time.Time
	kind  itemKind
	pod   podKey
	epoch uint64 // the node's kubelet epoch when scheduled; stale items are dropped
	event int    // index into Options.Events
	// own is the pod object itself when the simulation just created it (applyStep).
	own *v1.Pod
}

// slot is the pod of a queued item: its name, and for a pod the simulation created, the
// object and the world's exposure count when it was made (see private).
type slot struct {
	key  podKey
	own  *v1.Pod
	made uint64
}

// sim is one simulation's state.
type sim struct {
	opts    Options
	w       *world
	q       queue
	seq     uint64
	rng     *rand.Rand
	now     time.Time
	backoff []daemonset.BackoffEntry // the failed-pod back-off in force (ROLL-6, DIFF-12)
	fates   map[podKey]Fate
	traj    *Trajectory
	version uint64 // bumped by every change of w
	memo    *daemonset.Result
	memoAt  struct {
		version uint64
		now     time.Time
	}
	// The planner of the current DaemonSet, kept while its key holds.
	planner    *daemonset.Planner
	plannerKey plannerKey
	compiles   int    // the DaemonSets compiled: at most one per sync (tests)
	spec       uint64 // bumped when the DaemonSet's spec or collision count changes
	// The pods of queued items, by slot; free lists the slots not in use.
	slots []slot
	free  []int32
	// inc re-plans only touched nodes (ROLL-12); nil when not built (incTried: or not possible).
	inc      *tracked
	incTried bool
	noInc    bool // tests compare against whole-snapshot plans
	// waiting is the time, as an offset from Options.Start, of the DaemonSet's one waiting
	// entry in the controller's delaying queue (addAfter); 0: none, since an entry is always
	// due after Start.
	waiting int64
	// resyncAt is the offset from Options.Start of the informers' next resync (Options.Resync);
	// 0: none modelled. Kept beside the queue rather than in it, so that a queue holding
	// nothing else reads as idle.
	resyncAt int64
	// synced is the world's version after the last sync, and syncedAt when that sync ran: a
	// resync would plan that cluster again (settled).
	synced   uint64
	syncedAt time.Time
	// idle says the simulation ended at the horizon with nothing queued but the next resync.
	idle bool
	// syncAt is the time, as an offset from Options.Start, of the queued itemSync, kept
	// beside the queue (-1: none). Every sync that writes queues one at its own time, and
	// an itemSync does nothing but ask for a sync at its time, so the queue's heap need not
	// order them: they were about half of its pushes and pops. Another itemSync at a
	// different time while one waits goes into the queue.
	syncAt int64
}

type plannerKey struct {
	spec     uint64
	observed int64
	now      time.Time
}

// plannerFor returns the Planner of the current DaemonSet at sm.now, compiled again only when
// what it reads changed: the spec, the collision count, the observed generation, and the
// clock when minReadySeconds makes availability depend on it.
func (sm *sim) plannerFor() *daemonset.Planner {
	ds := sm.w.ds()
	key := plannerKey{spec: sm.spec, observed: ds.Status.ObservedGeneration}
	if ds.Spec.MinReadySeconds != 0 || sm.planner == nil {
		key.now = sm.now
	}
	if sm.planner != nil && key == sm.plannerKey {
		return sm.planner
	}
	sm.planner, _ = daemonset.Compile(sm.w.sharedDS(), sm.opts.planOptions(sm.now))
	sm.compiles++
	sm.plannerKey = key
	return sm.planner
}

// invalidate drops what depends on the DaemonSet or the node list.
func (sm *sim) invalidate(spec bool) {
	if spec {
		sm.spec++
		sm.w.specVersion++
	}
	sm.dropTracked()
	sm.incTried = false
}

// dropTracked forgets the incremental state.
func (sm *sim) dropTracked() {
	if sm.inc != nil {
		sm.inc.drop()
		sm.inc = nil
	}
}

// Simulate runs the DaemonSet controller for ds over s on a virtual clock (ROLL-5, ROLL-7): it
// syncs when the controller would (a pod of ds added, changed or deleted, a node event, its
// own status write, the minReadySeconds requeues, the failed-pod back-off, the informers'
// resync when opts.Resync sets its period), applies each sync
// with Apply, lets the kubelet model start and stop pods, and plays opts.Events. It stops when
// nothing more would happen, at opts.Horizon or after opts.MaxSyncs syncs. ds replaces the
// DaemonSet of its namespace/name in s, or joins it.
//
// The error reports bad input, with field paths: no DaemonSet, no nodes, an inconsistent
// snapshot, a negative delay, fractions that are not fractions, a zero Start, or a plan that
// does not fit the snapshot. Same inputs, same trajectory.
func Simulate(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts Options) (*Trajectory, error) {
	sm, err := newSim(s, ds, opts)
	if err != nil {
		return nil, err
	}
	return sm.run()
}

func newSim(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts Options) (*sim, error) {
	if errs := checkOptions(opts, s, ds); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	if errs := s.Check(); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	if opts.Horizon == 0 {
		opts.Horizon = 24 * time.Hour
	}
	if opts.MaxSyncs == 0 {
		opts.MaxSyncs = 1_000_000
	}
	dss := slices.Clone(s.DaemonSets)
	i := slices.IndexFunc(dss, func(d *appsv1.DaemonSet) bool { return d.Namespace == ds.Namespace && d.Name == ds.Name })
	if i < 0 {
		dss = append(dss, ds)
		i = len(dss) - 1
	} else {
		dss[i] = ds
	}
	s.DaemonSets = dss
	sm := &sim{
		opts:  opts,
		w:     newWorld(s, i),
		noInc: opts.noIncremental,
		rng:   rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		now:   opts.Start,
		fates: map[podKey]Fate{},
		traj:  &Trajectory{Start: opts.Start, LastChange: opts.Start},
		// Only read: UpdateBackoff returns a new slice.
		backoff: opts.backoff,
	}
	sm.syncAt = -1
	sm.w.touched = func(e *nodeEntry) {
		if sm.inc != nil {
			sm.inc.touch(e)
		}
	}
	sm.push(pending{at: opts.Start, kind: itemSync})
	sm.resyncAt = int64(opts.Resync)
	for j, e := range opts.Events {
		sm.push(pending{at: opts.Start.Add(e.After), kind: itemEvent, event: j})
	}
	// Pods already on their way: existing pods that are not Ready and not stuck start after a
	// start-up delay from now; terminating ones go after their termination delay.
	for _, p := range sm.w.pods {
		if !sm.opts.Version.IsControlledBy(p, ds) {
			continue
		}
		sm.scheduleExisting(p)
	}
	return sm, nil
}

// push queues p. The queue's items hold no pointers (the garbage collector neither scans the
// queue nor runs write barriers as it is reordered): the time is an offset from
// Options.Start, the pod a slot of sm.slots.
func (sm *sim) push(p pending) {
	if p.kind == itemSync {
		if off := int64(p.at.Sub(sm.opts.Start)); sm.syncAt < 0 || sm.syncAt == off {
			sm.syncAt = off
			return
		}
	}
	sm.seq++
	it := item{at: int64(p.at.Sub(sm.opts.Start)), seq: sm.seq, kind: p.kind, epoch: p.epoch, event: int32(p.event), slot: -1}
	if p.kind == itemStart || p.kind == itemRemove {
		if n := len(sm.free); n > 0 {
			it.slot = sm.free[n-1]
			sm.free = sm.free[:n-1]
		} else {
			it.slot = int32(len(sm.slots))
			sm.slots = append(sm.slots, slot{})
		}
		sm.slots[it.slot] = slot{key: p.pod, own: p.own, made: sm.w.exposures}
	}
	sm.q.push(it)
}

// addAfter is the controller's AddAfter of its DaemonSet's key after d (enqueueDaemonSetAfter),
// as client-go's delaying queue keeps it: the key has one waiting entry at most, which a
// sooner AddAfter moves earlier and a later one leaves where it is; when it falls due the key
// joins the queue and the entry is gone. An immediate sync (an itemSync at sm.now, the Add of
// an event) neither cancels nor satisfies it. d <= 0 asks for nothing: a Result's RequeueAfter
// is zero when it has no requeue.
func (sm *sim) addAfter(d time.Duration) {
	if d <= 0 {
		return
	}
	at := sm.now.Add(d)
	off := int64(at.Sub(sm.opts.Start))
	if sm.waiting != 0 && sm.waiting <= off {
		return
	}
	// An entry moved earlier leaves its item queued: it is stale when it pops (run).
	sm.waiting = off
	sm.push(pending{at: at, kind: itemRequeue})
}

// podOf returns the pod of a popped item and frees its slot.
func (sm *sim) podOf(it item) slot {
	s := sm.slots[it.slot]
	sm.slots[it.slot] = slot{}
	sm.free = append(sm.free, it.slot)
	return s
}

// private reports whether p, the world's pod of s, is still the object the simulation created
// and nobody but the world has seen it since (no snapshot given out): then it may be changed
// in place rather than copied.
func (sm *sim) private(s slot, p *v1.Pod) bool {
	return s.own != nil && s.own == p && s.made == sm.w.exposures
}

func (sm *sim) changed() {
	sm.version++
	sm.traj.LastChange = sm.now
}

func (sm *sim) run() (*Trajectory, error) {
	end := int64(sm.opts.Horizon)
	syncsAtNow := 0
	now := int64(-1)
	for len(sm.q) > 0 || sm.syncAt >= 0 || sm.resyncAt != 0 {
		if len(sm.q) > 0 && sm.q[0].kind == itemRequeue && sm.q[0].at != sm.waiting {
			// The entry moved earlier, was due and is gone: nothing happens then, and the
			// clock does not move for it (EndTime is the last instant something happened).
			sm.q.pop()
			continue
		}
		first, queued := sm.first()
		var next int64
		resync := false
		switch {
		case !queued:
			// Nothing is queued but the informers' next resync.
			if sm.settled() {
				return sm.finish(true), nil
			}
			next, resync = sm.resyncAt, true
		case sm.resyncAt != 0 && sm.resyncAt <= first:
			next, resync = sm.resyncAt, true
		default:
			next = first
		}
		if next > end {
			sm.idle = !queued
			sm.now = sm.opts.Start.Add(sm.opts.Horizon)
			return sm.finish(false), nil
		}
		if next != now {
			syncsAtNow = 0
		}
		now = next
		sm.now = sm.opts.Start.Add(time.Duration(now))
		// A resync runs the DaemonSet informer's update handler, which queues the DaemonSet
		// (updateDaemonset compares nothing); the pod, node and revision handlers ignore an
		// update whose old and new objects are the same (updatePod and updateHistory by
		// resourceVersion, updateNode by labels and taints).
		wantSync := resync
		if resync {
			sm.resyncAt += int64(sm.opts.Resync)
		}
		for len(sm.q) > 0 && sm.q[0].at == now {
			it := sm.q.pop()
			switch it.kind {
			case itemSync:
				wantSync = true
				continue
			case itemRequeue:
				if it.at == sm.waiting { // else stale, as above
					sm.waiting = 0
					wantSync = true
				}
				continue
			}
			if sm.handle(it) {
				wantSync = true
			}
		}
		if sm.syncAt == now {
			sm.syncAt = -1
			wantSync = true
		}
		if !wantSync {
			continue
		}
		if len(sm.traj.Steps) >= sm.opts.MaxSyncs {
			return sm.finish(false), nil
		}
		syncsAtNow++
		if syncsAtNow > 10_000 {
			return nil, fmt.Errorf("no steady state at %s: more than 10000 syncs at one instant", sm.now.Format(time.RFC3339))
		}
		if err := sm.sync(); err != nil {
			return nil, fmt.Errorf("sync at %s: %w", sm.now.Format(time.RFC3339), err)
		}
		sm.synced, sm.syncedAt = sm.version, sm.now
	}
	return sm.finish(true), nil
}

// first returns the time of the first thing queued, an item or the itemSync beside the queue
// (syncAt), and false when nothing is.
func (sm *sim) first() (int64, bool) {
	switch {
	case len(sm.q) == 0:
		return sm.syncAt, sm.syncAt >= 0
	case sm.syncAt >= 0:
		return min(sm.q[0].at, sm.syncAt), true
	}
	return sm.q[0].at, true
}

// settled reports whether a resync, with nothing else queued, would find nothing new to do:
// the cluster is as the last sync planned it, and no Ready pod of the DaemonSet was still
// waiting out minReadySeconds then, the one thing the mere passing of time changes in a plan
// without a requeue of its own (STAT-15 queues one only while numberReady and numberAvailable
// differ, and the status counts one pod per node).
func (sm *sim) settled() bool {
	if sm.version != sm.synced {
		return false
	}
	ds := sm.w.ds()
	if ds.Spec.MinReadySeconds == 0 {
		return true
	}
	v := sm.opts.Version
	for _, p := range sm.w.pods {
		if daemonset.IsPodReady(p) && !v.IsPodAvailable(p, ds.Spec.MinReadySeconds, sm.syncedAt) && v.IsControlledBy(p, ds) {
			return false
		}
	}
	return true
}

// nextResync returns when the informers' next resync comes, and false when none is modelled.
func (sm *sim) nextResync() (time.Time, bool) {
	return sm.opts.Start.Add(time.Duration(sm.resyncAt)), sm.resyncAt != 0
}

func (sm *sim) finish(quiescent bool) *Trajectory {
	sm.traj.End = sm.w.exported()
	sm.traj.EndTime = sm.now
	sm.traj.Quiescent = quiescent
	return sm.traj
}
