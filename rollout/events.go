package rollout

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
)

// scheduleExisting gives a pod of the starting snapshot its kubelet events.
func (sm *sim) scheduleExisting(p *v1.Pod) {
	n, ok := sm.w.node(p.Spec.NodeName)
	if !ok || !nodehealth.RunsPods(n) {
		return
	}
	if p.DeletionTimestamp != nil {
		sm.scheduleRemoval(p)
		return
	}
	if p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded || daemonset.IsPodReady(p) || stuckReason(p) != "" {
		return
	}
	sm.push(pending{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: sm.w.epoch(p.Spec.NodeName)})
}

func (sm *sim) scheduleRemoval(p *v1.Pod) {
	d := sm.opts.Kubelet.Termination.draw(sm.rng)
	if p.DeletionTimestamp != nil {
		d = min(d, max(p.DeletionTimestamp.Sub(sm.now), 0))
	}
	sm.push(pending{at: sm.now.Add(d), kind: itemRemove, pod: keyOf(p), epoch: sm.w.epoch(p.Spec.NodeName)})
}

// handle applies one kubelet or cluster event and reports whether it triggers a sync.
func (sm *sim) handle(it item) bool {
	ds := sm.w.ds()
	switch it.kind {
	case itemStart:
		s := sm.podOf(it)
		key := s.key
		i, p, ok := sm.w.podAt(key)
		if !ok || p.DeletionTimestamp != nil || it.epoch != sm.w.epoch(p.Spec.NodeName) {
			return false
		}
		np, old := p, p
		var before v1.Pod
		if sm.private(s, p) {
			// Nobody else holds it: no copy on the heap, only of the pod as the pod update
			// handler saw it (start replaces the status, never modifies it).
			before = *p
			old = &before
			start(p, sm.fate(key), sm.now)
		} else {
			np = started(p, sm.fate(key), sm.now)
		}
		sm.w.replaceAt(i, np)
		sm.changed()
		sm.addAfter(sm.opts.Version.PodUpdateRequeue(ds, old, np)) // updatePod's requeue (SYNC-8)
		return sm.opts.Version.IsControlledBy(np, ds)
	case itemRemove:
		key := sm.podOf(it).key
		i, p, ok := sm.w.podAt(key)
		if !ok || it.epoch != sm.w.epoch(p.Spec.NodeName) {
			return false
		}
		sm.w.removeAt(i)
		delete(sm.fates, key)
		sm.changed()
		return sm.opts.Version.IsControlledBy(p, ds)
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
		sm.w.entry(e.Node).epoch++
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
				sm.push(pending{at: sm.now.Add(sm.opts.Kubelet.Startup.draw(sm.rng)), kind: itemStart, pod: keyOf(p), epoch: sm.w.epoch(e.Node)})
			}
		}
	case EventNodeAdded:
		sm.w.setNode(e.NewNode)
		sm.w.entry(e.NewNode.Name).epoch++
	case EventNodeRemoved:
		if !sm.w.removeNode(e.Node) {
			return false
		}
		sm.w.entry(e.Node).epoch++
		for _, p := range slices.Clone(sm.w.pods) {
			if p.Spec.NodeName == e.Node {
				sm.w.removePod(keyOf(p))
			}
		}
	case EventDaemonSetUpdated:
		next := e.DaemonSet.DeepCopy()
		next.Status = sm.w.ds().Status
		sm.w.setDS(next)
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
