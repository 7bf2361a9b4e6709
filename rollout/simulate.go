package rollout

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SyncModel says when a sync sees its own writes (docs/sync-models.md).
type SyncModel int

const (
	// SyncObserved: the sync's writes are observed in time (ROLL-7): the base diff, then the
	// rolling-update step planned on the state after it, then the status of the state after
	// both. What the live controller usually does; the default of Simulate.
	SyncObserved SyncModel = iota
	// SyncUnobserved: the plan of package daemonset: the rolling step waits for a sync whose
	// base diff is empty (UPD-2) and the status counts the state before the sync (STAT-1).
	SyncUnobserved
)

func (m SyncModel) String() string {
	if m == SyncUnobserved {
		return "unobserved"
	}
	return "observed"
}

// EventType is a change Simulate makes to the cluster at a given time.
type EventType string

const (
	// EventNodeNotReady: the node stops reporting: condition Ready False, the not-ready taints
	// (NoSchedule and NoExecute) added, its pods marked not Ready, its kubelet stopped.
	EventNodeNotReady EventType = "NodeNotReady"
	// EventNodeReady: the node is back: condition and taints cleared, its pods restart
	// (a new start-up delay), its terminating pods go.
	EventNodeReady EventType = "NodeReady"
	// EventNodeAdded: Node joins the cluster (replacing a node of that name).
	EventNodeAdded EventType = "NodeAdded"
	// EventNodeRemoved: the node leaves; the pod garbage collector removes its pods.
	EventNodeRemoved EventType = "NodeRemoved"
	// EventDaemonSetUpdated: DaemonSet replaces the simulated DaemonSet's metadata and spec
	// (a template change, say); its status is kept.
	EventDaemonSetUpdated EventType = "DaemonSetUpdated"
)

// Event is a change at After from the start of the simulation.
type Event struct {
	After     time.Duration
	Type      EventType
	Node      string            // NodeNotReady, NodeReady, NodeRemoved
	NewNode   *v1.Node          // NodeAdded
	DaemonSet *appsv1.DaemonSet // DaemonSetUpdated
}

// Options are the inputs of Simulate that are not API objects.
type Options struct {
	// Start is the virtual clock's start. Required.
	Start time.Time
	// Seed seeds every random draw: the same seed gives the same trajectory.
	Seed uint64
	// Kubelet is the kubelet model.
	Kubelet Kubelet
	// Model is the sync model; the default is SyncObserved.
	Model SyncModel
	// BurstLimit caps each action list as the controller's BurstReplicas; 0 means 250.
	BurstLimit int
	// Horizon ends the simulation that long after Start; 0 means 24 hours.
	Horizon time.Duration
	// MaxSyncs ends the simulation after that many syncs; 0 means 1,000,000.
	MaxSyncs int
	// Events are changes at given times, applied in order of time, then of the slice.
	Events []Event
	// Scheduler binds created pods; nil means BindToTarget.
	Scheduler Scheduler
	// Workers is passed to every plan (daemonset.Options.Workers).
	Workers int
	// noIncremental makes every plan a whole-snapshot plan (tests compare the two).
	noIncremental bool

	// AfterSync, when set, is called after every sync with the step and the cluster as the
	// sync left it; the snapshot's slices are valid only during the call.
	AfterSync func(step Step, s daemonset.Snapshot)
}

// Step is one sync of the simulation.
type Step struct {
	At time.Time `json:"at"`
	// Create lists the nodes that got a pod, Delete the pods deleted, in the order of the plan(s).
	Create []string             `json:"create"`
	Delete []daemonset.Deletion `json:"delete"`
	// Adopt and Release count the pods adopted and released.
	Adopt   int `json:"adopt,omitempty"`
	Release int `json:"release,omitempty"`
	// RollingActed says that the rolling-update step ran (UPD-2); with SyncObserved it may run
	// after a non-empty base diff in the same sync.
	RollingActed bool `json:"rollingActed"`
	// HeldBack counts failed-pod deletions the back-off held back (ROLL-6).
	HeldBack int `json:"heldBack,omitempty"`
	// Status is the status the sync wrote.
	Status appsv1.DaemonSetStatus `json:"status"`
}

// Acted reports whether the sync created, deleted, adopted or released a pod.
func (s Step) Acted() bool { return len(s.Create)+len(s.Delete)+s.Adopt+s.Release > 0 }

// Trajectory is a simulation's outcome.
type Trajectory struct {
	Start time.Time
	// Steps are every sync, in order.
	Steps []Step
	// End is the cluster when the simulation ended, at EndTime.
	End     daemonset.Snapshot
	EndTime time.Time
	// LastChange is the last instant something changed: a write, a kubelet or node event.
	LastChange time.Time
	// Quiescent is true when the simulation ended because nothing more would happen; false
	// when Horizon or MaxSyncs ended it.
	Quiescent bool
}

// Acting returns the steps that acted, in order.
func (t *Trajectory) Acting() []Step {
	var out []Step
	for _, s := range t.Steps {
		if s.Acted() {
			out = append(out, s)
		}
	}
	return out
}

// item kinds of the event queue.
type itemKind uint8

const (
	itemSync itemKind = iota
	itemStart
	itemRemove
	itemEvent
)

type item struct {
	at    time.Time
	seq   uint64
	kind  itemKind
	pod   podKey
	epoch uint64 // the node's kubelet epoch when scheduled; stale items are dropped
	event int    // index into Options.Events
}

type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if c := q[i].at.Compare(q[j].at); c != 0 {
		return c < 0
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// sim is one simulation's state.
type sim struct {
	opts    Options
	w       *world
	q       queue
	seq     uint64
	rng     *rand.Rand
	now     time.Time
	backoff *Backoff
	fates   map[podKey]Fate
	epochs  map[string]uint64 // per node
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
	spec       uint64 // bumped when the DaemonSet's spec or collision count changes
	// inc re-plans only touched nodes (ROLL-12); nil when not built (incTried: or not possible).
	inc      *incremental
	incTried bool
	noInc    bool // tests compare against whole-snapshot plans
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
	sm.planner, _ = daemonset.Compile(ds, daemonset.Options{Now: sm.now, BurstLimit: sm.opts.BurstLimit, Workers: sm.opts.Workers})
	sm.plannerKey = key
	return sm.planner
}

// invalidate drops what depends on the DaemonSet or the node list.
func (sm *sim) invalidate(spec bool) {
	if spec {
		sm.spec++
		sm.w.specVersion++
	}
	sm.inc, sm.incTried = nil, false
}

// Simulate runs the DaemonSet controller for ds over s on a virtual clock (ROLL-5, ROLL-7): it
// syncs when the controller would (a pod of ds added, changed or deleted, a node event, its
// own status write, the minReadySeconds requeues, the failed-pod back-off), applies each sync
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

func checkOptions(opts Options, s daemonset.Snapshot, ds *appsv1.DaemonSet) field.ErrorList {
	var errs field.ErrorList
	root := field.NewPath("opts")
	if ds == nil {
		errs = append(errs, field.Required(field.NewPath("daemonSet"), "the DaemonSet to simulate"))
	}
	if len(s.Nodes) == 0 {
		errs = append(errs, field.Required(field.NewPath("nodes"), "no nodes, so nothing would ever run or roll out"))
	}
	if opts.Start.IsZero() {
		errs = append(errs, field.Required(root.Child("start"), "the virtual clock's start"))
	}
	errs = append(errs, opts.Kubelet.validate(root.Child("kubelet"))...)
	if opts.BurstLimit < 0 {
		errs = append(errs, field.Invalid(root.Child("burstLimit"), opts.BurstLimit, "must not be negative"))
	}
	if opts.Horizon < 0 {
		errs = append(errs, field.Invalid(root.Child("horizon"), opts.Horizon.String(), "must not be negative"))
	}
	if opts.MaxSyncs < 0 {
		errs = append(errs, field.Invalid(root.Child("maxSyncs"), opts.MaxSyncs, "must not be negative"))
	}
	if opts.Workers < 0 {
		errs = append(errs, field.Invalid(root.Child("workers"), opts.Workers, "must not be negative"))
	}
	for i, e := range opts.Events {
		p := root.Child("events").Index(i)
		if e.After < 0 {
			errs = append(errs, field.Invalid(p.Child("after"), e.After.String(), "must not be negative"))
		}
		switch e.Type {
		case EventNodeNotReady, EventNodeReady, EventNodeRemoved:
			if e.Node == "" {
				errs = append(errs, field.Required(p.Child("node"), "the node of a "+string(e.Type)+" event"))
			}
		case EventNodeAdded:
			if e.NewNode == nil || e.NewNode.Name == "" {
				errs = append(errs, field.Required(p.Child("newNode"), "a named node"))
			}
		case EventDaemonSetUpdated:
			if e.DaemonSet == nil {
				errs = append(errs, field.Required(p.Child("daemonSet"), "the updated DaemonSet"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("type"), e.Type, []EventType{
				EventNodeNotReady, EventNodeReady, EventNodeAdded, EventNodeRemoved, EventDaemonSetUpdated}))
		}
	}
	return errs
}

func newSim(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts Options) (*sim, error) {
	if errs := checkOptions(opts, s, ds); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if errs := daemonset.CheckSnapshot(s); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if opts.BurstLimit == 0 {
		opts.BurstLimit = 250
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
		opts:    opts,
		w:       newWorld(s, i),
		noInc:   opts.noIncremental,
		rng:     rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		now:     opts.Start,
		backoff: NewBackoff(time.Second, 15*time.Minute),
		fates:   map[podKey]Fate{},
		epochs:  map[string]uint64{},
		traj:    &Trajectory{Start: opts.Start, LastChange: opts.Start},
	}
	sm.w.touched = func(node string) {
		if sm.inc != nil {
			sm.inc.touch(node)
		}
	}
	sm.push(item{at: opts.Start, kind: itemSync})
	for j, e := range opts.Events {
		sm.push(item{at: opts.Start.Add(e.After), kind: itemEvent, event: j})
	}
	// Pods already on their way: existing pods that are not Ready and not stuck start after a
	// start-up delay from now; terminating ones go after their termination delay.
	for _, p := range sm.w.pods {
		if !isControlledBy(p, ds) {
			continue
		}
		sm.scheduleExisting(p)
	}
	return sm, nil
}

func (sm *sim) push(it item) {
	sm.seq++
	it.seq = sm.seq
	heap.Push(&sm.q, it)
}

func (sm *sim) changed() {
	sm.version++
	sm.traj.LastChange = sm.now
}

// scheduleExisting gives a pod of the starting snapshot its kubelet events.
func (sm *sim) scheduleExisting(p *v1.Pod) {
	n, ok := sm.w.node(p.Spec.NodeName)
	if !ok || !nodeReady(n) {
		return
	}
	if p.DeletionTimestamp != nil {
		sm.scheduleRemoval(p)
		return
	}
	if p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded || podReady(p) || stuckReason(p) != "" {
		return
	}
	sm.fates[keyOf(p)] = FateReady
	sm.push(item{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: sm.epochs[p.Spec.NodeName]})
}

func (sm *sim) scheduleRemoval(p *v1.Pod) {
	d := sm.opts.Kubelet.Termination.draw(sm.rng)
	if p.DeletionTimestamp != nil {
		d = min(d, max(p.DeletionTimestamp.Sub(sm.now), 0))
	}
	sm.push(item{at: sm.now.Add(d), kind: itemRemove, pod: keyOf(p), epoch: sm.epochs[p.Spec.NodeName]})
}

func (sm *sim) run() (*Trajectory, error) {
	end := sm.opts.Start.Add(sm.opts.Horizon)
	syncsAtNow := 0
	for sm.q.Len() > 0 {
		next := sm.q[0].at
		if next.After(end) {
			sm.now = end
			return sm.finish(false), nil
		}
		if !next.Equal(sm.now) {
			syncsAtNow = 0
		}
		sm.now = next
		wantSync := false
		for sm.q.Len() > 0 && sm.q[0].at.Equal(sm.now) {
			it := heap.Pop(&sm.q).(item)
			if it.kind == itemSync {
				wantSync = true
				continue
			}
			if sm.handle(it) {
				wantSync = true
			}
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
	}
	return sm.finish(true), nil
}

func (sm *sim) finish(quiescent bool) *Trajectory {
	sm.traj.End = sm.w.exported()
	sm.traj.EndTime = sm.now
	sm.traj.Quiescent = quiescent
	return sm.traj
}

// handle applies one kubelet or cluster event and reports whether it triggers a sync.
func (sm *sim) handle(it item) bool {
	ds := sm.w.ds()
	switch it.kind {
	case itemStart:
		p, ok := sm.w.pod(it.pod)
		if !ok || p.DeletionTimestamp != nil || it.epoch != sm.epochs[p.Spec.NodeName] {
			return false
		}
		np := started(p, sm.fates[it.pod], sm.now)
		sm.w.setPod(np)
		sm.changed()
		if podReady(np) && ds.Spec.MinReadySeconds > 0 {
			sm.push(item{at: sm.now.Add(time.Duration(ds.Spec.MinReadySeconds)*time.Second + time.Second), kind: itemSync})
		}
		return isControlledBy(np, ds)
	case itemRemove:
		p, ok := sm.w.pod(it.pod)
		if !ok || it.epoch != sm.epochs[p.Spec.NodeName] {
			return false
		}
		sm.w.removePod(it.pod)
		delete(sm.fates, it.pod)
		sm.changed()
		return isControlledBy(p, ds)
	case itemEvent:
		return sm.event(sm.opts.Events[it.event])
	}
	return false
}

func (sm *sim) event(e Event) bool {
	sm.changed()
	sm.invalidate(e.Type == EventDaemonSetUpdated)
	switch e.Type {
	case EventNodeNotReady, EventNodeReady:
		n, ok := sm.w.node(e.Node)
		if !ok {
			return false
		}
		sm.epochs[e.Node]++
		ready := e.Type == EventNodeReady
		sm.w.setNode(withReadiness(n, ready, sm.now))
		for _, p := range slices.Clone(sm.w.pods) {
			if p.Spec.NodeName != e.Node {
				continue
			}
			switch {
			case !ready:
				sm.w.setPod(markNotReady(p, sm.now))
			case p.DeletionTimestamp != nil:
				sm.scheduleRemoval(p)
			case p.Status.Phase != v1.PodFailed && p.Status.Phase != v1.PodSucceeded:
				if _, ok := sm.fates[keyOf(p)]; !ok {
					sm.fates[keyOf(p)] = FateReady
				}
				sm.push(item{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: sm.epochs[e.Node]})
			}
		}
	case EventNodeAdded:
		sm.w.setNode(e.NewNode)
		sm.epochs[e.NewNode.Name]++
	case EventNodeRemoved:
		if !sm.w.removeNode(e.Node) {
			return false
		}
		sm.epochs[e.Node]++
		for _, p := range slices.Clone(sm.w.pods) {
			if p.Spec.NodeName == e.Node {
				sm.w.removePod(keyOf(p))
			}
		}
	case EventDaemonSetUpdated:
		next := e.DaemonSet.DeepCopy()
		next.Status = sm.w.ds().Status
		sm.w.daemonSet[sm.w.dsIndex] = next
	}
	return true
}

// The taints the node lifecycle controller puts on a node that is not Ready.
var notReadyTaints = []v1.Taint{
	{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute},
}

func withReadiness(n *v1.Node, ready bool, now time.Time) *v1.Node {
	n = n.DeepCopy()
	status := v1.ConditionFalse
	if ready {
		status = v1.ConditionTrue
	}
	cond := v1.NodeCondition{Type: v1.NodeReady, Status: status, LastTransitionTime: metavNow(now), LastHeartbeatTime: metavNow(now)}
	if i := slices.IndexFunc(n.Status.Conditions, func(c v1.NodeCondition) bool { return c.Type == v1.NodeReady }); i >= 0 {
		n.Status.Conditions[i] = cond
	} else {
		n.Status.Conditions = append(n.Status.Conditions, cond)
	}
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t v1.Taint) bool { return t.Key == v1.TaintNodeNotReady })
	if !ready {
		for _, t := range notReadyTaints {
			t.TimeAdded = new(metavNow(now))
			n.Spec.Taints = append(n.Spec.Taints, t)
		}
	}
	return n
}

// sync runs one sync of the controller at sm.now under the sync model.
func (sm *sim) sync() error {
	ds := sm.w.ds()
	p := sm.plannerFor()
	res := sm.plan(p)
	step := Step{At: sm.now}
	res = sm.holdBack(res, &step)
	observed := sm.opts.Model == SyncObserved
	acted, err := sm.applyStep(res, &step, !observed)
	if err != nil {
		return err
	}
	if observed && res.Skipped == "" {
		if ru := res.RollingUpdate; ru != nil && ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty && acted {
			// The live controller sees its own writes before the rolling step (ROLL-7).
			res2 := sm.plan(p)
			if res2.RollingUpdate != nil && res2.RollingUpdate.Acted {
				if _, err := sm.applyStep(res2, &step, false); err != nil {
					return err
				}
			}
		}
		final := sm.plan(p)
		if final.Status != nil {
			sm.w.writeStatus(final.Status)
			res = final
		}
	}
	if res.RollingUpdate != nil && res.RollingUpdate.Acted {
		step.RollingActed = true
	}
	if !equalCount(ds.Status.CollisionCount, sm.w.ds().Status.CollisionCount) {
		sm.invalidate(true)
	}
	if st := sm.w.ds().Status; res.Status != nil {
		step.Status = st
		if sm.w.ds() != ds { // a status write replaces the object (copy on write)
			sm.changed()
			sm.push(item{at: sm.now, kind: itemSync}) // the DaemonSet's update event
		}
		if m := ds.Spec.MinReadySeconds; m > 0 && st.NumberReady != st.NumberAvailable {
			sm.push(item{at: sm.now.Add(time.Duration(m) * time.Second), kind: itemSync})
		}
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
	switch {
	case sm.inc != nil:
		var stale bool
		if res, stale = sm.inc.plan(sm.w); stale {
			sm.invalidate(false)
		}
	case !sm.noInc && !sm.incTried:
		res = p.Plan(sm.w.snapshot())
		var retry bool
		sm.inc, retry = newIncremental(sm.w, p, res, sm.opts.BurstLimit, sm.now)
		sm.incTried = !retry
	}
	if res == nil {
		res = p.Plan(sm.w.snapshot())
	}
	sm.memo = res
	sm.memoAt.version, sm.memoAt.now = sm.version, sm.now
	return res
}

// holdBack drops the deletions of failed pods that the back-off holds back (ROLL-6) and
// requeues the sync for when it ends.
func (sm *sim) holdBack(res *daemonset.Result, step *Step) *daemonset.Result {
	if !slices.ContainsFunc(res.Delete, func(d daemonset.Deletion) bool { return d.Reason == daemonset.ReasonFailedPod }) {
		return res
	}
	ds := sm.w.ds()
	out := *res
	out.Delete = make([]daemonset.Deletion, 0, len(res.Delete))
	for _, d := range res.Delete {
		if d.Reason == daemonset.ReasonFailedPod {
			key := backoffKey(ds, d.Node)
			if in, delay := sm.backoff.InBackoff(key, sm.now); in {
				step.HeldBack++
				sm.push(item{at: sm.now.Add(delay), kind: itemSync})
				continue
			}
			sm.backoff.Next(key, sm.now)
		}
		out.Delete = append(out.Delete, d)
	}
	return &out
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
		if n, ok := sm.w.node(p.Spec.NodeName); !ok || !nodeReady(n) {
			continue
		}
		sm.fates[keyOf(p)] = sm.opts.Kubelet.fate(p, sm.rng)
		sm.push(item{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: sm.epochs[p.Spec.NodeName]})
	}
	for _, p := range a.terminating {
		if n, ok := sm.w.node(p.Spec.NodeName); ok && nodeReady(n) {
			sm.scheduleRemoval(p)
		}
	}
	if a.actions > 0 {
		sm.push(item{at: sm.now, kind: itemSync}) // the watch events of the writes
	}
	return a.actions > 0, nil
}

func equalCount(a, b *int32) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
