package daemonset

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// podLess is the survivor order of DIFF-7 (upstream podByCreationTimestampAndPhase, where
// phase plays no part): scheduled pods first, then earlier creationTimestamp, then smaller
// name. Readiness, phase and hash are never consulted.
func podCompare(a, b *v1.Pod) int {
	as, bs := a.Spec.NodeName != "", b.Spec.NodeName != ""
	switch {
	case as && !bs:
		return -1
	case !as && bs:
		return 1
	}
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func compareDaemonPods(a, b daemonPod) int { return podCompare(a.pod, b.pod) }

// diffState accumulates the base diff over all nodes (DIFF-1). running is scratch space
// reused from node to node so that the walk allocates only for its output. bo is the sync's
// failed-pod back-off (DIFF-12); its zero value means none in force.
type diffState struct {
	creates []string // node names
	deletes []Deletion
	events  []Event
	running []daemonPod
	bo      backoffSync
}

// diffNode reconciles one node of the node list (DIFF-2..DIFF-6, DIFF-17). pods are the
// node's grouped pods in DIFF-7 order.
func diffNode(d *diffState, node string, e eligBits, pods []daemonPod, surge bool) {
	switch {
	case e.shouldRun() && len(pods) == 0:
		d.creates = append(d.creates, node) // DIFF-2
	case e.shouldContinueRunning():
		diffContinuing(d, node, e, pods, surge)
	case len(pods) > 0:
		// DIFF-4: neither flag; every pod not already terminating goes, without event.
		start := len(d.deletes)
		for _, dp := range pods {
			if !dp.facts.has(factTerminating) {
				d.deletes = append(d.deletes, deletion(dp.pod, node, ReasonNodeNotEligible))
			}
		}
		sortClaimOrder(d.deletes[start:], pods)
	}
}

// diffContinuing is DIFF-3 with DIFF-5 or DIFF-6 on a node where pods may keep running.
func diffContinuing(d *diffState, node string, e eligBits, pods []daemonPod, surge bool) {
	// DIFF-17: deleting one Failed pod puts the node in back-off at once, so at most one
	// Failed pod per node goes per sync and the others are neither deleted nor running. Upstream
	// takes the first Failed pod in the order the claimed pods were listed (audit F1):
	// FilterPodsByOwner looks up the pods this DaemonSet already controls before the namespace's
	// orphans, and ClaimPods keeps that order, so a Failed pod adopted in this sync is deleted
	// only when no already-controlled Failed pod is on the node. Within each of the two
	// look-ups the order is an informer set's, i.e. random: D-1 takes the smallest
	// namespace/name and marks the choice when another Failed pod of the same group was
	// equally likely.
	failed, nFailed, nAll := firstFailed(pods)
	if failed != nil {
		// DIFF-12: a node in back-off keeps its Failed pods this sync, and the DaemonSet is
		// queued again after the entry's delay (SYNC-8). Otherwise the deletion renews the
		// back-off, and any other Failed pod of the node meets it at once (DIFF-17), which
		// queues the DaemonSet again after the new delay.
		if delay, held := d.bo.held(node); held {
			failed = nil
			d.bo.requeueAfter(delay)
		} else if delay := d.bo.next(node); nAll > 1 {
			d.bo.requeueAfter(delay)
		}
	}
	running := d.running[:0]
	start := len(d.deletes)
	for _, dp := range pods {
		pod := dp.pod
		switch {
		case dp.facts.has(factTerminating):
			// Terminating: never deleted again, never running (DIFF-3).
		case dp.facts.has(factFailed):
			if pod == failed {
				del := deletion(pod, node, ReasonFailedPod)
				del.Interchangeable = nFailed > 1
				d.deletes = append(d.deletes, del)
				// The event text is the one podsShouldBeOnNode records (D-8).
				d.events = append(d.events, Event{Type: v1.EventTypeWarning, Reason: ReasonFailedDaemonPod,
					Pod: pod.Namespace + "/" + pod.Name, Node: node,
					Message: "Found failed daemon pod " + pod.Namespace + "/" + pod.Name + " on node " + node + ", will try to kill it"})
			}
		case dp.facts.has(factSucceeded):
			d.deletes = append(d.deletes, deletion(pod, node, ReasonSucceededPod))
			d.events = append(d.events, Event{Type: v1.EventTypeNormal, Reason: ReasonSucceededDaemonPod,
				Pod: pod.Namespace + "/" + pod.Name, Node: node,
				Message: "Found succeeded daemon pod " + pod.Namespace + "/" + pod.Name + " on node " + node + ", will try to delete it"})
		default:
			running = append(running, dp)
		}
	}
	d.running = running[:0]
	sortClaimOrder(d.deletes[start:], pods) // the DIFF-3 deletions, in visiting order

	if !surge {
		// DIFF-5: keep the first in DIFF-7 order; never create here in this sync.
		for _, dp := range running[min(1, len(running)):] {
			d.deletes = append(d.deletes, deletion(dp.pod, node, ReasonDuplicatePod))
		}
		return
	}
	// DIFF-6.
	if len(running) == 0 {
		if e.shouldRun() {
			d.creates = append(d.creates, node)
		}
		return
	}
	var newest, oldest *daemonPod // the oldest pod with the current hash, the oldest without
	for k := range running {
		dp := &running[k]
		if dp.facts.has(factHashLabel) {
			if newest == nil {
				newest = dp
				continue
			}
		} else if oldest == nil {
			oldest = dp
			continue
		}
		d.deletes = append(d.deletes, deletion(dp.pod, node, ReasonDuplicatePod))
	}
	if newest != nil && oldest != nil {
		switch {
		case !oldest.facts.has(factReady):
			d.deletes = append(d.deletes, deletion(oldest.pod, node, ReasonSurgeOldNotReady))
		case newest.facts.has(factAvailable):
			d.deletes = append(d.deletes, deletion(oldest.pod, node, ReasonSurgeNewAvailable))
		}
	}
}

// firstFailed returns the non-terminating Failed pod of pods that DIFF-17 deletes (audit F1):
// already-controlled pods before orphans adopted in this sync, then the smallest
// namespace/name (D-1), how many Failed pods of that pod's group were candidates, and how
// many non-terminating Failed pods the node holds.
func firstFailed(pods []daemonPod) (failed *v1.Pod, n, all int) {
	failedControlled := false
	for _, dp := range pods {
		if dp.facts.has(factTerminating) || !dp.facts.has(factFailed) {
			continue
		}
		all++
		pod, controlled := dp.pod, dp.facts.has(factControlled)
		switch {
		case failed == nil || controlled && !failedControlled:
			failed, failedControlled, n = pod, controlled, 1
		case controlled != failedControlled:
			// An adopted orphan while a controlled Failed pod is known: never first.
		default:
			n++
			if comparePodNames(pod, failed) < 0 {
				failed = pod
			}
		}
	}
	return failed, n, all
}

// diffMissing handles the pods grouped under a node name absent from the node list (DIFF-8):
// unscheduled ones (aimed only through affinity) are deleted, even when terminating; bound
// ones are left to pod garbage collection. "Even when terminating" holds for non-terminal pods
// only (audit F5): a terminal pod that is terminating is never grouped (OWN-10, upstream
// getNodesToDaemonPods with includeDeletedTerminal false), so it never reaches this loop.
func diffMissing(d *diffState, g nodeGroup) {
	start := len(d.deletes)
	for _, dp := range g.pods {
		if !dp.facts.has(factScheduled) {
			d.deletes = append(d.deletes, deletion(dp.pod, g.name, ReasonUnscheduledOnMissingNode))
		}
	}
	sortClaimOrder(d.deletes[start:], g.pods)
}

// sortClaimOrder puts deletions found while visiting one node's pods (DIFF-3, DIFF-4, DIFF-8) in
// the order upstream visits them, which is the claim order (audit F1): pods already controlled
// by this DaemonSet before orphans adopted in this sync, each group in random order upstream and
// in namespace/name order here (D-1). The order matters only when the burst cap (DIFF-10) cuts
// through one node's deletions. pods holds the node's grouped pods, every one claimed.
func sortClaimOrder(dels []Deletion, pods []daemonPod) {
	if len(dels) < 2 {
		return
	}
	adopted := func(del Deletion) int {
		for _, dp := range pods {
			if dp.pod.Name == del.Name && dp.pod.Namespace == del.Namespace {
				if !dp.facts.has(factControlled) {
					return 1
				}
				return 0
			}
		}
		return 0
	}
	slices.SortFunc(dels, func(a, b Deletion) int {
		return cmp.Or(cmp.Compare(adopted(a), adopted(b)), compareDeletions(a, b))
	})
}

func deletion(pod *v1.Pod, node string, r Reason) Deletion {
	return Deletion{Namespace: pod.Namespace, Name: pod.Name, Node: node, Reason: r, UID: pod.UID}
}

func comparePodNames(a, b *v1.Pod) int {
	return compareNames(a.Namespace, a.Name, b.Namespace, b.Name)
}

// The burst cap (DIFF-10) keeps the first limit entries of each action list upstream submits.
// Those lists are built in priority classes (audit S12): the base diff's deletes list every
// node-visited deletion before the unscheduled pods of missing nodes (manage appends
// getUnscheduledPodsWithoutNode last); the rolling step lists its budget-free actions (old pods
// not available, replaced old pods, allowed nodes) before its budgeted candidates. Within a class
// upstream's order is the node cache's or a map's, i.e. random, and D-1 takes node name order.
// So the cap keeps whole classes in priority order and cuts only inside the class where the
// limit falls; the entries kept from that class are marked Interchangeable (D-1). Entries of
// classes kept whole keep their own mark.

// The two named values of Options.BurstLimit (DIFF-10, D-18).
const (
	// DefaultBurstLimit is the controller's BurstReplicas (pkg/controller/daemon:
	// NewDaemonSetsController passes 250, kube-controller-manager has no flag for it): the cap a
	// zero Options.BurstLimit means.
	DefaultBurstLimit = 250
	// NoBurstLimit, as Options.BurstLimit (any negative value does), reports the whole diff: no
	// controller submits it in one sync, but a test suite comparing plans may want it.
	NoBurstLimit = -1
)

// burstCap is the cap in force under o: DefaultBurstLimit for a zero BurstLimit, 0 (the
// internal "none" of capCreates, capDeletes and the budget passes) for a negative one.
func (o Options) burstCap() int {
	switch {
	case o.BurstLimit == 0:
		return DefaultBurstLimit
	case o.BurstLimit < 0:
		return 0
	}
	return o.BurstLimit
}

// capCreates applies the burst cap to creates, sorted by node, whose class is given by class
// (0 first). A limit of 0 keeps them all. The result is sorted by node.
func capCreates(creates []Creation, limit int, class func(Reason) int) []Creation {
	if limit == 0 || len(creates) <= limit {
		return creates
	}
	creates = capByClass(creates, limit, func(c *Creation) (int, string, *bool) {
		return class(c.Reason), c.Node, &c.Interchangeable
	})
	slices.SortFunc(creates, func(a, b Creation) int { return strings.Compare(a.Node, b.Node) })
	return creates
}

// capDeletes applies the burst cap to deletes: by class (0 first), then node name, keeping the
// order in which one node's deletions were emitted (upstream lists a node's deletions together,
// in the order podsShouldBeOnNode finds them). The result is sorted by namespace/name as Result
// documents.
func capDeletes(deletes []Deletion, limit int, class func(Reason) int) []Deletion {
	if limit > 0 && len(deletes) > limit {
		deletes = capByClass(deletes, limit, func(d *Deletion) (int, string, *bool) {
			return class(d.Reason), d.Node, &d.Interchangeable
		})
	}
	slices.SortFunc(deletes, compareDeletions)
	return deletes
}

// capByClass keeps the first limit of actions (more than limit) in class, then node order,
// stable, and marks the kept actions of the class where the limit falls Interchangeable. key
// gives an action's class, node and Interchangeable mark.
//
// The keys are read once into a ranking, which is sorted in their place: a comparison that
// called key on copies of two actions made each copy escape, an allocation per comparison.
func capByClass[T any](actions []T, limit int, key func(*T) (class int, node string, mark *bool)) []T {
	type rank struct {
		class int
		node  string
		i     int
	}
	order := make([]rank, len(actions))
	classes, inOrder := 0, true // inOrder: each class's actions are in node order
	last := [2]string{}
	for i := range actions {
		c, n, _ := key(&actions[i])
		order[i] = rank{c, n, i}
		switch {
		case c < 0 || c >= len(last):
			inOrder = false
		case classes&(1<<c) != 0 && n < last[c]:
			inOrder = false
		default:
			classes |= 1 << c
			last[c] = n
		}
	}
	if inOrder {
		// The lists of a plan hold two classes, each in node order (the rolling step emits
		// in node order): a stable partition by class orders them without comparing names,
		// which at 10,000 candidates under a cap of 250 is most of the cap's cost.
		slices.SortStableFunc(order, func(a, b rank) int { return cmp.Compare(a.class, b.class) })
	} else {
		slices.SortStableFunc(order, func(a, b rank) int {
			return cmp.Or(cmp.Compare(a.class, b.class), strings.Compare(a.node, b.node))
		})
	}
	cut := order[limit].class
	kept := make([]T, limit)
	for k, r := range order[:limit] {
		kept[k] = actions[r.i]
		if r.class == cut {
			_, _, mark := key(&kept[k])
			*mark = true
		}
	}
	return kept
}

// baseDiffClass is the cap priority of a base-diff action (the table in internal/reasonrule): DIFF-8 deletions come
// last.
func baseDiffClass(r Reason) int {
	e, _ := reasonEntry(r)
	return e.Class
}

// rollingClass is the cap priority of a rolling-step action (the table in internal/reasonrule): budgeted candidates
// come after the budget-free actions.
func rollingClass(r Reason) int {
	e, _ := reasonEntry(r)
	return e.Class
}

// compareNames orders namespace/name pairs. The namespaces of one plan are nearly always
// equal, and often the same string, so the names decide without a second byte-wise
// comparison per call (a fifth of a 40,000-deletion plan's sort).
func compareNames(aNamespace, aName, bNamespace, bName string) int {
	if aNamespace != bNamespace {
		return strings.Compare(aNamespace, bNamespace)
	}
	return strings.Compare(aName, bName)
}

func compareDeletions(a, b Deletion) int {
	return compareNames(a.Namespace, a.Name, b.Namespace, b.Name)
}
