package daemonset

import (
	"cmp"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/requeue"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Snapshot is what the controller's caches hold: every node, pod and ControllerRevision (and,
// for Snapshot.Plan, every DaemonSet). Nil entries are not allowed.
type Snapshot struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*v1.Node
	Pods       []*v1.Pod
	Revisions  []*appsv1.ControllerRevision
}

// Check reports what makes s inconsistent, something no informer cache can hold: nil entries,
// two nodes with one name, two pods, revisions or DaemonSets with one namespace/name. Paths are
// rooted at the snapshot ("nodes[3]"). [Plan], [Snapshot.Plan] and package rollout check their
// snapshot with it; a caller that builds snapshots by hand may check them first.
func (s Snapshot) Check() field.ErrorList {
	var errs field.ErrorList
	checkNamed(&errs, field.NewPath("daemonSets"), s.DaemonSets)
	checkNamed(&errs, field.NewPath("nodes"), s.Nodes)
	checkNamed(&errs, field.NewPath("pods"), s.Pods)
	checkNamed(&errs, field.NewPath("revisions"), s.Revisions)
	return errs
}

type namedObject interface {
	comparable
	GetNamespace() string
	GetName() string
}

func checkNamed[T namedObject](errs *field.ErrorList, fldPath *field.Path, objs []T) {
	var zero T
	if namesIncrease(objs) {
		// The API server lists objects sorted by namespace/name: such a list holds no two
		// objects of one name, which one pass proves without a map.
		for i, o := range objs {
			if o == zero {
				*errs = append(*errs, field.Required(fldPath.Index(i), "must not be nil"))
			}
		}
		return
	}
	// A struct key rather than "namespace/name" saves one string allocation per object.
	type identity struct{ namespace, name string }
	seen := make(map[identity]bool, len(objs))
	for i, o := range objs {
		if o == zero {
			*errs = append(*errs, field.Required(fldPath.Index(i), "must not be nil"))
			continue
		}
		key := identity{o.GetNamespace(), o.GetName()}
		if seen[key] {
			*errs = append(*errs, field.Duplicate(fldPath.Index(i), key.namespace+"/"+key.name))
		}
		seen[key] = true
	}
}

// namesIncrease reports whether the non-nil objects are in strictly increasing
// namespace/name order.
func namesIncrease[T namedObject](objs []T) bool {
	var zero, prev T
	for _, o := range objs {
		if o == zero {
			continue
		}
		if prev != zero && compareNames(prev.GetNamespace(), prev.GetName(), o.GetNamespace(), o.GetName()) >= 0 {
			return false
		}
		prev = o
	}
	return true
}

// Plan compiles ds and plans one sync on nodes and pods. The error reports an inconsistent
// snapshot (nil entries, duplicate node or pod names), never a controller decision; what API
// validation would reject in ds is reported in Result.Invalid instead. It panics on misuse
// (nil ds, zero opts.Now, negative opts.Workers).
//
// Plan sees no ControllerRevisions: the hash is computed fresh (D-6), Result.Revisions holds
// the create of the DaemonSet's first revision (revision number 1, UPD-14) and no other
// revision write in every sync that is not skipped (SYNC-3, SYNC-4, SYNC-5), and a hash
// collision (UPD-21) cannot be found. A controller whose cache holds
// revisions compiles once with [Compile] and calls [Planner.Plan] with a [Snapshot] that
// carries them.
func Plan(ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, opts Options) (*Result, error) {
	opts.Check()
	if ds == nil {
		panic("daemonset: nil DaemonSet")
	}
	s := Snapshot{Nodes: nodes, Pods: pods}
	if errs := s.Check(); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	p, _ := Compile(ds, opts)
	return p.Plan(s), nil
}

// Plan plans one sync on s (s.DaemonSets is ignored), following SYNC-2: the skip rules
// (SYNC-3, SYNC-4, SYNC-5), the current hash (UPD-14, UPD-21), claiming (OWN-*), the base
// diff (DIFF-*), the rolling-update step when the base diff is empty (UPD-2) and the status
// (STAT-*). s should pass [Snapshot.Check]; nil entries are skipped, and with duplicate names
// the plan is deterministic but not meaningful.
func (p *Planner) Plan(s Snapshot) *Result { return p.plan(s, nil, syncActs, nil) }

// PlanRequeues is [Planner.Plan] with the parts of the Result's RequeueAfter apart (SYNC-8):
// the failed-pod back-off's (DIFF-12, DIFF-17) before the minReadySeconds requeue of the
// status (STAT-15) is folded in. It is the bridge to package rollout, whose result type is
// internal (docs/decisions.md).
func (p *Planner) PlanRequeues(s Snapshot) (*Result, requeue.Parts) {
	var rq requeue.Parts
	res := p.plan(s, nil, syncActs, &rq)
	return res, rq
}

// PlanPending plans the sync upstream runs while the DaemonSet's expectations are not
// satisfied (SYNC-9: an earlier sync's creates or deletes are not yet observed, as
// [Expectations.Observed] and [Expectations.Expired] tell), on s as [Planner.Plan] does. As in
// v1.36's syncDaemonSet, that sync still settles the revision history before it checks the
// expectations, and then only computes and writes the status (STAT-13). So the Result holds
// only what that sync writes, and says so with Pending:
//
//   - the skip rules, a hash collision (UPD-21) and their results are those of Plan, since
//     upstream meets them before the expectations check;
//   - Revisions: the current revision's writes (UPD-14: labels, revision number,
//     de-duplication with its pod relabels, adoptions and releases, the create), never a
//     history clean-up (UPD-22 runs only after the pod writes, which this sync does not
//     reach);
//   - Adopt and Release: the pods the status update claims (OWN-*);
//   - Create and Delete are empty, RollingUpdate is nil and there are no Events (no base
//     diff, no rolling step);
//   - Status: the counters of STAT-1..STAT-12 with observedGeneration as stored (STAT-13);
//     StatusWrite that status, or nil when upstream writes none (STAT-9 with that
//     observedGeneration: the counters are the stored ones and the stored observedGeneration
//     is at least metadata.generation, so a generation not yet observed is written again on
//     every such sync);
//   - RequeueAfter: only the minReadySeconds requeue of the status update (STAT-15), never a
//     back-off's, since no Failed pod is looked at;
//   - Backoff: Options.Backoff carried through unchanged (the DaemonSet's live entries, as
//     Plan reports them), so that [UpdateBackoff] with this Result leaves the back-off as it
//     was, but for the entries that expire at Now.
//
// The expectations the sync waits for stay in force: [Result.Expectations] of this Result expects
// nothing, and must not replace them.
func (p *Planner) PlanPending(s Snapshot) *Result { return p.plan(s, nil, syncPending, nil) }

// syncKind says how far a sync goes once its revision history is settled.
type syncKind uint8

const (
	// syncActs is the one-sync model: expectations satisfied, the base diff, the rolling step,
	// the history clean-up and the status (SYNC-2).
	syncActs syncKind = iota
	// syncPending is the sync of unsatisfied expectations: the status only (SYNC-9, STAT-13).
	syncPending
)

// plan is Plan where cc, when non-nil, says how a cluster-wide plan shares contested pods
// (D-2): orphans it gives to another DaemonSet are reported as conflicts instead of adopted,
// and pods an older DaemonSet releases may be adopted. kind says whether the sync acts or
// only writes status (PlanPending). rq, when not nil, receives the parts of RequeueAfter
// (PlanRequeues).
func (p *Planner) plan(s Snapshot, cc *clusterClaims, kind syncKind, rq *requeue.Parts) *Result {
	res := p.newResult()
	if p.skip != "" {
		return p.skipped(res, p.skip)
	}
	rev := p.revision(s.Revisions, cc)
	if rev.collision {
		res = p.skipped(res, SkipHashCollision)
		next := int32(1)
		if c := p.ds.Status.CollisionCount; c != nil {
			next = *c + 1
		}
		res.CollisionCount = &next
		res.StatusWrite = p.collisionWrite(next)
		// The revision claims and labels come before the failed create (UPD-21).
		if !p.writesNothing(&rev, false) {
			res.Revisions = p.revisionWrites(rev, syncPods{}, false)
		}
		return res
	}
	hash := rev.hash
	res.RevisionHash = hash

	j := newJudge(p.ds, hash, p.opts)
	ix := newPodIndex(p, res, s.Nodes, s.Pods, cc, &j)
	if kind == syncPending {
		return p.pending(res, s, ix, rev)
	}

	// The outcome of every node, in one walk (SYNC-2): the base diff (DIFF-1..DIFF-17), the
	// status counters (STAT-1: the snapshot before acting) and the rolling update's per-node
	// map (UPD-4), which is dropped if the base diff turns out non-empty. The rest of the sync
	// folds these outcomes: no node or pod is read again.
	sc := ix.scratch
	rolling := p.ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType
	// The diff's lists grow in scratch space and are copied to the result at their final
	// size: appending 40,000 deletions straight to the result would allocate five times that.
	d := diffState{creates: sc.creates[:0], deletes: sc.deletes[:0], running: sc.running[:0],
		bo: newBackoffSync(p.ds, p.opts.Backoff, p.opts.Now)}
	w := p.walk(ix, &d, sc.states, rolling)
	sc.states = w.states // keep the (possibly regrown) array for the pool
	states, desired, counts := w.states, w.desired, w.counts
	baseEmpty := len(d.creates) == 0 && len(d.deletes) == 0

	sc.creates, sc.deletes, sc.running = d.creates, d.deletes, d.running
	slices.Sort(d.creates)
	refused := p.createRefused(hash)
	// failed says that manage or the rolling step returns an error, which skips the history
	// clean-up (UPD-22): a refused create (POD-3) or a rolling step that stops on an error.
	failed := refused && len(d.creates) > 0
	if !refused {
		creates := make([]Creation, len(d.creates))
		for i, n := range d.creates {
			creates[i] = Creation{Node: n, Reason: ReasonMissingPod}
		}
		res.Create = p.withPods(capCreates(creates, p.opts.burstCap(), baseDiffClass), hash)
	}
	res.Delete = slices.Clone(capDeletes(d.deletes, p.opts.burstCap(), baseDiffClass))
	if res.Delete == nil {
		res.Delete = []Deletion{}
	}
	slices.SortFunc(d.events, func(a, b Event) int {
		return cmp.Or(strings.Compare(a.Pod, b.Pod), strings.Compare(string(a.Reason), string(b.Reason)))
	})
	res.Events = append(res.Events, d.events...)

	// Rolling-update step (UPD-1, UPD-2).
	switch {
	case !rolling:
		res.RollingUpdate = &RollingUpdate{Reason: RollingReasonOnDelete}
	case !baseEmpty:
		ru := p.waitingStep(desired)
		res.RollingUpdate = &ru
	default:
		if !w.sorted {
			sortStates(states)
		}
		step := p.rollingUpdate(states, desired)
		report := step.report
		res.RollingUpdate = &report
		// The step's lists are its own and in node order (the order of states).
		if !refused {
			res.Create = append(res.Create, p.withPods(capCreates(step.creates, p.opts.burstCap(), rollingClass), hash)...)
		}
		failed = report.Error != "" || refused && len(step.creates) > 0
		res.Delete = append(res.Delete, capDeletes(step.deletes, p.opts.burstCap(), rollingClass)...)
		slices.SortFunc(res.Delete, compareDeletions)
	}

	if len(res.Adopt) > 0 && len(res.Delete) > 0 {
		// STAT-16: the status pass claims the cached orphans again; one this sync adopted
		// and deleted, and the API server removed at once, is not found and not counted.
		counts = ix.countsWithout(syncPods{res: res}.removedAtOnce())
	}
	if rq != nil {
		rq.Backoff = d.bo.requeue // before writeStatus folds in the minReadySeconds requeue
	}
	p.writeStatus(res, &counts, &d.bo, syncActs)
	ix.release(p)
	if !p.writesNothing(&rev, !failed) { // the common path builds nothing
		res.Revisions = p.revisionWrites(rev, syncPods{p: p, pods: s.Pods, cc: cc, res: res}, !failed)
	}
	return res
}

// pending finishes the plan of a sync made while expectations are pending (PlanPending): the
// status from the claimed pods, with observedGeneration as stored (STAT-13), and the current
// revision's writes without the history clean-up (UPD-22).
func (p *Planner) pending(res *Result, s Snapshot, ix *podIndex, rev revisionOutcome) *Result {
	res.Pending = true
	counts := ix.countsWithout(nil)
	bo := newBackoffSync(p.ds, p.opts.Backoff, p.opts.Now)
	p.writeStatus(res, &counts, &bo, syncPending)
	ix.release(p)
	if !p.writesNothing(&rev, false) {
		res.Revisions = p.revisionWrites(rev, syncPods{p: p, pods: s.Pods, res: res}, false)
	}
	return res
}

// withPods returns creates with the pods to submit, in a slice of their own. The burst cap
// (DIFF-10) has already cut the list, so a fresh 100,000-node cluster under the controller's
// cap of 250 builds 250 pods, not 100,000.
func (p *Planner) withPods(creates []Creation, hash string) []Creation {
	out := make([]Creation, len(creates))
	for i, c := range creates {
		c.Pod = p.newPod(c.Node, hash)
		out[i] = c
	}
	return out
}

// createRefused reports that every create of this sync fails before reaching the API server
// (POD-3, audit S10): with an empty hash (a current revision whose hash label is present but
// empty, UPD-14) and no other label (no template labels, no parsable template-generation
// annotation) the pod has no labels, and upstream's RealPodControl.createPods refuses it with
// "unable to create pods, no labels". syncNodes' slow start then stops after the first failed
// create. The library follows upstream: no Creation is reported, in the base diff or the rolling
// step, and the deletions of the same lists stand (syncNodes still submits them). No event is
// reported either, since upstream only logs the error. The base diff still counts as non-empty
// (UPD-2): upstream's manage returns the error and never reaches the rolling step.
func (p *Planner) createRefused(hash string) bool {
	return hash == "" && len(p.proto.Labels) == 0
}

// revision is currentRevision (UPD-14, UPD-15, UPD-21) with its common case cached: without
// any revision in the snapshot nothing can be claimed or collide, the hash is the template's
// own (D-6), computed once per Planner instead of once per plan, and revision 1 is created. cc
// is as for currentRevision.
func (p *Planner) revision(revisions []*appsv1.ControllerRevision, cc *clusterClaims) revisionOutcome {
	revisions = nonNil(revisions)
	if len(revisions) == 0 {
		hash := p.digest.hash()
		return revisionOutcome{hash: hash, name: p.ds.Name + "-" + hash, revision: 1, create: true}
	}
	return currentRevision(p.ds, revisions, p.sel, p.digest, cc)
}

// newResult returns a Result with its identity, the rendered validation errors and every
// list initialised, so that JSON shows [] rather than null.
func (p *Planner) newResult() *Result {
	res := &Result{
		Namespace: p.ds.Namespace,
		Name:      p.ds.Name,
		Create:    []Creation{},
		Delete:    []Deletion{},
		Adopt:     []ObjectRef{},
		Release:   []ObjectRef{},
	}
	for _, e := range p.errs {
		res.Invalid = append(res.Invalid, e.Error())
	}
	return res
}

// skipped fills res for a sync that does nothing (D-9, D-10, D-11). The SYNC-3 event carries the
// text syncDaemonSet records (D-8).
func (p *Planner) skipped(res *Result, rule Skip) *Result {
	res.Skipped = rule
	bo := newBackoffSync(p.ds, p.opts.Backoff, p.opts.Now)
	res.Backoff = bo.result() // carried: no Failed pod is looked at
	if rule == SkipSelectingAll {
		res.Events = append(res.Events, Event{Type: v1.EventTypeWarning, Reason: ReasonSelectingAll,
			Message: "This daemon set is selecting all pods. A non-empty selector is required."})
	}
	return res
}

// sortClaims sorts the adoptions, releases and conflicts recorded while indexing.
func sortClaims(res *Result) {
	byName := func(a, b ObjectRef) int {
		return compareNames(a.Namespace, a.Name, b.Namespace, b.Name)
	}
	slices.SortFunc(res.Adopt, byName)
	slices.SortFunc(res.Release, byName)
	slices.SortFunc(res.Conflicts, func(a, b Conflict) int {
		return compareNames(a.Namespace, a.Name, b.Namespace, b.Name)
	})
}

func nonNil[T comparable](objs []T) []T {
	var zero T
	if !slices.Contains(objs, zero) {
		return objs
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if o != zero {
			out = append(out, o)
		}
	}
	return out
}
