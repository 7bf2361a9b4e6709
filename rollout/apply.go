package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Scheduler is the scheduler model of Apply and Simulate: whether a created daemon pod binds to
// the node it is meant for (POD-6 pins it there, so there is no other choice to make). target
// is nil when that node is not in the snapshot. A pod that does not bind stays Pending with
// condition PodScheduled False, reason Unschedulable, as a pod that does not fit would. It
// must not change pod or target: under Simulate, created pods share most of their objects.
type Scheduler func(pod *v1.Pod, target *v1.Node) bool

// bindToTarget is the default Scheduler: every pod binds to its node when the node exists.
func bindToTarget(_ *v1.Pod, target *v1.Node) bool { return target != nil }

// ApplyOptions are the inputs of Apply that are not API objects.
type ApplyOptions struct {
	// Now is the instant of the writes: creation and deletion timestamps. Required.
	Now time.Time
	// Scheduler binds created pods; nil binds every pod to its node when the node exists.
	Scheduler Scheduler
}

// Apply returns the snapshot after the writes of the plan res on s, as the API server, the
// scheduler and the controller's own writes leave it (ROLL-1, ROLL-2, ROLL-3, ROLL-4):
//
//   - the plan's revision writes (res.Revisions) are applied: revisions updated, adopted,
//     released, deleted and created, pods relabelled after a de-duplication;
//   - each deleted pod is deleted as the API server's pod strategy deletes it: a pod bound to
//     a node, not terminal, whose spec.terminationGracePeriodSeconds is set and not 0 gets
//     metadata.deletionTimestamp (now plus that period; 1 s when negative) and stays until its
//     kubelet removes it (Reap, or the kubelet model of Simulate); any other pod is removed at
//     once;
//   - adopted pods get the DaemonSet as controller, released pods lose it;
//   - each created pod gets a name from its generateName and a uid, both derived from the
//     inputs and unique in the snapshot, its creation timestamp, the API server's default
//     grace period (30 s) when its template sets none, and is bound by the Scheduler
//     (spec.nodeName set, phase Pending) or left Pending;
//   - the DaemonSet gets the plan's status and collision count.
//
// res must be a plan of a DaemonSet in s.DaemonSets. s is not modified; the result shares the
// objects Apply did not change with s. The error names what of res does not fit s: a DaemonSet
// missing from s, a delete, adoption or release of a pod s does not hold, a revision write on
// a revision s does not hold, a create of a revision s already holds.
func Apply(s daemonset.Snapshot, res *daemonset.Result, opts ApplyOptions) (daemonset.Snapshot, error) {
	if res == nil {
		return daemonset.Snapshot{}, field.Required(field.NewPath("result"), "a plan is needed")
	}
	if opts.Now.IsZero() {
		return daemonset.Snapshot{}, field.Required(field.NewPath("opts", "now"), "the instant of the writes is needed")
	}
	if errs := s.Check(); len(errs) > 0 {
		return daemonset.Snapshot{}, errlist.Aggregate(errs)
	}
	i := slices.IndexFunc(s.DaemonSets, func(ds *appsv1.DaemonSet) bool {
		return ds.Namespace == res.Namespace && ds.Name == res.Name
	})
	if i < 0 {
		return daemonset.Snapshot{}, field.NotFound(field.NewPath("daemonSets"), res.Namespace+"/"+res.Name)
	}
	w := newWorld(s, i)
	if _, err := w.apply(res, opts.Now, opts.Scheduler, true, false); err != nil {
		return daemonset.Snapshot{}, err
	}
	return w.snapshot(), nil
}

// applied is what one apply changed, for the kubelet model. Its lists are the world's
// (world.applied), reused by the next apply: a simulation applies a plan up to twice a sync.
type applied struct {
	created     []*v1.Pod // in the plan's order
	terminating []*v1.Pod // deleted gracefully
	removed     []*v1.Pod // deleted at once (before removal)
	actions     int
}

// apply writes res into w. writeStatus false leaves the DaemonSet's status as it is (the
// observed sync writes it after its last step).
//
// ownPods says that the plan's pods are the caller's to keep (a plan made for this apply
// alone), so they are not copied.
func (w *world) apply(res *daemonset.Result, now time.Time, sched Scheduler, writeStatus, ownPods bool) (applied, error) {
	out := applied{created: w.applied.created[:0], terminating: w.applied.terminating[:0], removed: w.applied.removed[:0]}
	if sched == nil {
		sched = bindToTarget
	}
	ds := w.ds()
	if err := w.applyRevisions(res); err != nil {
		return out, err
	}
	root := resultPath{}
	for i, d := range res.Delete {
		at, pod, ok := w.podAt(podKey{d.Namespace, d.Name})
		if !ok {
			return out, field.NotFound(root.Child("delete").Index(i), d.Namespace+"/"+d.Name)
		}
		if pod.DeletionTimestamp != nil {
			return out, field.Invalid(root.Child("delete").Index(i), d.Namespace+"/"+d.Name, "the pod is already being deleted")
		}
		// The API server's pod strategy: the pod's own grace period (the controller's delete
		// names none), 0 when unset, 1 when negative.
		grace := int64(0)
		if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
			grace = *g
			if grace < 0 {
				grace = 1
			}
		}
		terminal := pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded
		if pod.Spec.NodeName == "" || terminal || grace == 0 {
			w.removeAt(at)
			out.removed = append(out.removed, pod)
			continue
		}
		// Copy on write: the new object shares what it does not change with the old one, and
		// neither is modified again. The pod and the two fields it points to are one
		// allocation instead of three.
		cp := &deletedPod{pod: *pod, at: metav1.NewTime(now.Add(time.Duration(grace) * time.Second)), grace: grace}
		cp.pod.DeletionTimestamp = &cp.at
		cp.pod.DeletionGracePeriodSeconds = &cp.grace
		pod = &cp.pod
		w.replaceAt(at, pod)
		out.terminating = append(out.terminating, pod)
	}
	for i, ref := range res.Adopt {
		pod, ok := w.pod(podKey{ref.Namespace, ref.Name})
		if !ok {
			return out, field.NotFound(root.Child("adopt").Index(i), ref.Namespace+"/"+ref.Name)
		}
		cp := *pod
		cp.OwnerReferences = append(slices.Clip(pod.OwnerReferences), *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")))
		w.setPod(&cp)
	}
	for i, ref := range res.Release {
		pod, ok := w.pod(podKey{ref.Namespace, ref.Name})
		if !ok {
			return out, field.NotFound(root.Child("release").Index(i), ref.Namespace+"/"+ref.Name)
		}
		cp := *pod
		cp.OwnerReferences = slices.DeleteFunc(slices.Clone(pod.OwnerReferences), func(o metav1.OwnerReference) bool { return o.UID == ds.UID })
		w.setPod(&cp)
	}
	for i, c := range res.Create {
		if c.Pod == nil {
			return out, field.Required(root.Child("create").Index(i).Child("pod"), "the pod to create")
		}
		pod := c.Pod
		if !ownPods {
			pod = pod.DeepCopy()
		}
		if pod.Namespace == "" {
			pod.Namespace = ds.Namespace
		}
		if pod.Name == "" {
			pod.Name, pod.UID = w.newName(pod.Namespace, pod.GenerateName, c.Node, now)
		} else if _, taken := w.pod(keyOf(pod)); taken {
			return out, field.Duplicate(root.Child("create").Index(i).Child("pod", "metadata", "name"), pod.Namespace+"/"+pod.Name)
		}
		pod.CreationTimestamp = metav1.NewTime(now)
		parts := &createdParts{} // what the pod points to, in one allocation
		if pod.Spec.TerminationGracePeriodSeconds == nil {
			// The one pod default the model reads later: the API server stores 30 s.
			parts.grace = v1.DefaultTerminationGracePeriodSeconds
			pod.Spec.TerminationGracePeriodSeconds = &parts.grace
		}
		target, _ := w.node(c.Node)
		pod.Status = v1.PodStatus{Phase: v1.PodPending}
		if sched(pod, target) {
			pod.Spec.NodeName = c.Node
			parts.scheduled[0] = v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}
		} else {
			parts.scheduled[0] = v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse,
				Reason: v1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(now),
				Message: fmt.Sprintf("the scheduler model did not bind the pod to node %s", c.Node)}
		}
		pod.Status.Conditions = parts.scheduled[:]
		w.setPod(pod)
		out.created = append(out.created, pod)
	}
	out.actions = len(res.Create) + len(res.Delete) + len(res.Adopt) + len(res.Release)
	w.applied = out
	if writeStatus {
		w.writeStatus(res.Status)
	}
	if res.CollisionCount != nil {
		cp := *w.ds() // copy on write: spec and metadata are shared, never modified again
		c := *res.CollisionCount
		cp.Status.CollisionCount = &c
		w.setDS(&cp)
	}
	return out, nil
}

// deletedPod is a pod being deleted gracefully with the fields it points to.
type deletedPod struct {
	pod   v1.Pod
	at    metav1.Time
	grace int64
}

// createdParts are what apply adds to a created pod: its default grace period and its
// PodScheduled condition.
type createdParts struct {
	grace     int64
	scheduled [1]v1.PodCondition
}

// writeStatus writes st (nil: nothing) to the DaemonSet, keeping its collision count and
// conditions. As upstream's storeDaemonSetStatus, an equal status is not written. The new
// status shares nothing with st: its only references, the collision count and the
// conditions, are the DaemonSet's own, which nobody modifies. The object is copied unless
// it is the world's scratch object, which nobody else holds (a simulation writes the
// status about once a sync, and the DaemonSet is the largest object it would copy).
func (w *world) writeStatus(st *appsv1.DaemonSetStatus) {
	if st == nil {
		return
	}
	ds := w.ds()
	next := *st
	next.CollisionCount = ds.Status.CollisionCount
	next.Conditions = ds.Status.Conditions
	// Semantic equality holds a nil and an empty list equal; without conditions on either side
	// (a simulation's common case) it is not called (reflection, about 1% of a run).
	if counters(next) == counters(ds.Status) && (len(next.Conditions) == 0 && len(st.Conditions) == 0 ||
		equality.Semantic.DeepEqual(next.Conditions, st.Conditions)) {
		return
	}
	if ds == w.scratch {
		ds.Status = next
		w.dsVersion++
		return
	}
	cp := *ds // copy on write: spec and metadata are shared, never modified again
	cp.Status = next
	w.setDS(&cp)
}

// resultPath builds the field path of an apply error only when there is one: apply runs
// about once a sync.
type resultPath struct{}

func (resultPath) Child(name string) *field.Path { return field.NewPath("result", name) }

// counters are the fields of a status the sync computes.
func counters(s appsv1.DaemonSetStatus) [8]int64 {
	return [8]int64{s.ObservedGeneration, int64(s.DesiredNumberScheduled), int64(s.CurrentNumberScheduled),
		int64(s.NumberMisscheduled), int64(s.NumberReady), int64(s.UpdatedNumberScheduled),
		int64(s.NumberAvailable), int64(s.NumberUnavailable)}
}

// Reap returns s without the pods whose deletion timestamp is at or before now and whose node
// is Ready or gone: what the kubelets (and the pod garbage collector) have removed by then. A
// pod on a node that is not Ready stays, as its kubelet cannot confirm the deletion. s is not
// modified. The error reports a snapshot daemonset.Snapshot.Check rejects (a nil node or pod,
// a duplicate name).
func Reap(s daemonset.Snapshot, now time.Time) (daemonset.Snapshot, error) {
	if errs := s.Check(); len(errs) > 0 {
		return daemonset.Snapshot{}, errlist.Aggregate(errs)
	}
	ready := make(map[string]bool, len(s.Nodes))
	for _, n := range s.Nodes {
		ready[n.Name] = nodehealth.RunsPods(n)
	}
	out := s
	out.Pods = make([]*v1.Pod, 0, len(s.Pods))
	for _, p := range s.Pods {
		if p.DeletionTimestamp != nil && !p.DeletionTimestamp.After(now) {
			if r, exists := ready[p.Spec.NodeName]; !exists || r {
				continue
			}
		}
		out.Pods = append(out.Pods, p)
	}
	return out, nil
}
