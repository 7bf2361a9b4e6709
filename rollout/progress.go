package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
	"github.com/daemonsched/daemonsched/schedule"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// State is the answer of Progress.
type State string

const (
	// StateComplete: the next sync does nothing and every node that should run the daemon
	// runs an available pod of the current template.
	StateComplete State = "Complete"
	// StateProgressing: the controller will act, or pods are on their way (starting, waiting
	// out minReadySeconds, terminating).
	StateProgressing State = "Progressing"
	// StateStuck: nothing more will happen by itself; Blocking names the nodes and why.
	StateStuck State = "Stuck"
)

// BlockReason says why a node holds a rollout up.
type BlockReason string

const (
	// Stuck: these do not resolve by themselves.
	BlockPodNeverReady   BlockReason = "PodNeverReady"      // a pod waits in CrashLoopBackOff, ErrImagePull, ...
	BlockNodeNotReady    BlockReason = "NodeNotReady"       // the node's kubelet does not report
	BlockUnschedulable   BlockReason = "Unschedulable"      // the scheduler refused the pod: PodScheduled False, reason Unschedulable
	BlockOnDelete        BlockReason = "OnDelete"           // OnDelete: old pods stay until someone deletes them
	BlockBudgetZero      BlockReason = "BudgetZero"         // maxUnavailable and maxSurge both resolve to 0
	BlockRollingError    BlockReason = "RollingUpdateError" // the rolling step fails (UPD-5, UPD-11)
	BlockSyncSkipped     BlockReason = "SyncSkipped"        // the controller skips every sync (SYNC-3, SYNC-4, SYNC-5)
	BlockCreateNotServed BlockReason = "CreateRefused"      // the node needs a pod the controller does not create

	// Waiting: these resolve by themselves.
	WaitPodStarting   BlockReason = "PodStarting"      // a new pod is not Ready yet
	WaitMinReady      BlockReason = "MinReadySeconds"  // Ready, not yet available
	WaitTerminating   BlockReason = "Terminating"      // a deleted pod has not gone yet
	WaitBudget        BlockReason = "WaitingForBudget" // an old pod waits for the update budget
	WaitControllerAct BlockReason = "ControllerActs"   // the next sync acts on this node
)

// Blocker is one node that holds the rollout up.
type Blocker struct {
	Node    string      `json:"node"`
	Pod     string      `json:"pod,omitempty"` // namespace/name
	Reason  BlockReason `json:"reason"`
	Message string      `json:"message,omitempty"`
}

// Report is the answer of Progress for one DaemonSet.
type Report struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	State     State  `json:"state"`
	Message   string `json:"message"`
	// Generation and ObservedGeneration are the DaemonSet's; GenerationObserved says that the
	// controller has synced this generation (ROLL-9). It informs, it does not decide: the state
	// comes from the nodes and pods.
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observedGeneration"`
	GenerationObserved bool   `json:"generationObserved"`
	RevisionHash       string `json:"revisionHash,omitempty"`
	// Desired, UpToDate and Available are computed from the nodes and pods (STAT-*), not read
	// from status.
	Desired   int `json:"desired"`
	UpToDate  int `json:"upToDate"`
	Available int `json:"available"`
	// Actions counts what the next sync creates, deletes, adopts and releases.
	Actions int `json:"actions"`
	// Blocking lists the nodes that will not progress by themselves, Waiting those that will
	// (but for the budget), both sorted by node; WaitingForBudget counts the nodes whose old pod
	// waits for the update budget.
	Blocking         []Blocker `json:"blocking,omitempty"`
	Waiting          []Blocker `json:"waiting,omitempty"`
	WaitingForBudget int       `json:"waitingForBudget,omitempty"`
}

// ProgressOptions are the inputs of Progress that are not API objects.
type ProgressOptions struct {
	// Now is the instant availability is judged at (minReadySeconds). Required.
	Now time.Time
	// Workers is passed to the plan (daemonset.Options.Workers).
	Workers int
	// Version is the Kubernetes release whose controller and availability rule judge
	// (daemonset.Options.Version; VER-3, VER-4); the zero Version is the default release.
	Version daemonset.Version
	// FeatureGates sets feature gates over the release's defaults, as
	// daemonset.Options.FeatureGates (the Lt and Gt toleration operators, TAINT-10); nil keeps
	// the defaults. A gate the release does not know panics, as in daemonset.Compile.
	FeatureGates daemonset.FeatureGates
}

// Progress says whether the rollout of ds in s is complete, progressing or stuck (ROLL-8),
// from the DaemonSet, the nodes, the pods and the revisions, never from status counters that
// may be stale. It plans the next sync: Complete when that sync does nothing and every node
// that should run the daemon runs an available pod of the current revision; otherwise each
// node that is not done is classified, and the rollout is Stuck when the plan does nothing and
// no node is still on its way (a pod starting, waiting out minReadySeconds or terminating).
// s should pass daemonset.Snapshot.Check; nil entries are skipped.
func Progress(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts ProgressOptions) (*Report, error) {
	if ds == nil {
		return nil, field.Required(field.NewPath("daemonSet"), "the DaemonSet whose rollout to judge")
	}
	if opts.Now.IsZero() {
		return nil, field.Required(field.NewPath("opts", "now"), "the instant availability is judged at")
	}
	if opts.Workers < 0 {
		return nil, field.Invalid(field.NewPath("opts", "workers"), opts.Workers, "must not be negative")
	}
	p, _ := daemonset.Compile(ds, daemonset.Options{Now: opts.Now, Workers: opts.Workers, Version: opts.Version, FeatureGates: opts.FeatureGates})
	res := p.Plan(s)
	r := &Report{
		Namespace: ds.Namespace, Name: ds.Name,
		Generation: ds.Generation, ObservedGeneration: ds.Status.ObservedGeneration,
		GenerationObserved: ds.Status.ObservedGeneration >= ds.Generation,
		RevisionHash:       res.RevisionHash,
		Actions:            len(res.Create) + len(res.Delete) + len(res.Adopt) + len(res.Release),
	}
	if res.Skipped != "" {
		if res.Skipped == daemonset.SkipHashCollision {
			r.State, r.Message = StateProgressing, "the next sync raises status.collisionCount after a hash collision (UPD-21), then rolls out"
			return r, nil
		}
		r.State = StateStuck
		r.Message = fmt.Sprintf("the controller skips every sync of this DaemonSet (%s)", res.Skipped)
		r.Blocking = []Blocker{{Reason: BlockSyncSkipped, Message: string(res.Skipped)}}
		return r, nil
	}
	st := res.Status
	r.Desired, r.UpToDate, r.Available = int(st.DesiredNumberScheduled), int(st.UpdatedNumberScheduled), int(st.NumberAvailable)
	if r.Actions == 0 && r.UpToDate == r.Desired && r.Available == r.Desired {
		r.State = StateComplete
		r.Message = fmt.Sprintf("%d of %d nodes run an available pod of revision %s", r.Available, r.Desired, res.RevisionHash)
		return r, nil
	}
	walkNodes(r, p, s, res, opts.Now)
	switch {
	case r.Actions > 0:
		r.State = StateProgressing
		r.Message = fmt.Sprintf("the next sync acts: %d to create, %d to delete, %d to adopt, %d to release",
			len(res.Create), len(res.Delete), len(res.Adopt), len(res.Release))
	case len(r.Waiting) > 0:
		r.State = StateProgressing
		r.Message = fmt.Sprintf("%d of %d up to date, %d available; pods are on their way", r.UpToDate, r.Desired, r.Available)
	default:
		r.State = StateStuck
		if len(r.Blocking) == 0 {
			r.Blocking = append(r.Blocking, Blocker{Reason: BlockCreateNotServed, Message: "the next sync does nothing, yet the rollout is not complete"})
		}
		r.Message = fmt.Sprintf("%d of %d up to date, %d available; blocked on %d node(s)", r.UpToDate, r.Desired, r.Available, len(r.Blocking))
	}
	return r, nil
}

// walkNodes classifies every node that is not done.
func walkNodes(r *Report, p *daemonset.Planner, s daemonset.Snapshot, res *daemonset.Result, now time.Time) {
	ds := p.DaemonSet()
	// The pods of each node as linked lists over pod indices: no allocation per node.
	ix := make(map[string]int32, len(s.Nodes))
	for i, n := range s.Nodes {
		if n != nil {
			ix[n.Name] = int32(i)
		}
	}
	first := make([]int32, len(s.Nodes))
	for i := range first {
		first[i] = -1
	}
	next := make([]int32, len(s.Pods))
	for i := len(s.Pods) - 1; i >= 0; i-- { // backwards, so that each list is in input order
		pod := s.Pods[i]
		if pod == nil || !p.Version().IsControlledBy(pod, ds) {
			continue
		}
		node, _ := affinity.TargetNodeName(pod)
		if n, ok := ix[node]; ok {
			next[i], first[n] = first[n], int32(i)
		}
	}
	acting := make([]bool, len(s.Nodes))
	for _, c := range res.Create {
		if n, ok := ix[c.Node]; ok {
			acting[n] = true
		}
	}
	for _, d := range res.Delete {
		if n, ok := ix[d.Node]; ok {
			acting[n] = true
		}
	}
	// What the scheduler would say of a pod on a node (SCHED-*), with the pods indexed by node
	// on first use: only nodes with a pod to create or an unbound one ask.
	var bound map[string][]*v1.Pod
	sopts := schedule.Options{Version: p.Version(), FeatureGates: p.FeatureGates()} // the release's filters (SCHED-5)
	verdict := func(pod *v1.Pod, n *v1.Node) schedule.Verdict {
		if bound == nil {
			bound = schedule.PodsByNode(s.Pods)
			sopts.PriorityClasses = schedule.PriorityClassesOf(s.Pods)
		}
		return schedule.Compile(pod, sopts).Fit(n, bound[n.Name])
	}
	creates := make([]bool, len(s.Nodes))
	for _, c := range res.Create {
		if n, ok := ix[c.Node]; ok {
			creates[n] = true
		}
	}
	onDelete := ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType
	ru := res.RollingUpdate
	// A node is listed once (ROLL-8): a deleted pod and a live one, or several deleted pods,
	// give several classifications, and the node takes one: the first that is on its way
	// (so the state is as if all were listed), else the first stuck one, else the budget.
	type class struct {
		b    Blocker
		rank int // 0 on its way, 1 stuck, 2 waiting for the budget
	}
	var node string
	var best class
	found := false
	add := func(b Blocker, stuck bool) {
		c := class{b: b, rank: 0}
		switch {
		case stuck:
			c.rank = 1
		case b.Reason == WaitBudget:
			c.rank = 2
		}
		if !found || c.rank < best.rank {
			best, found = c, true
		}
	}
	flush := func() {
		if !found {
			return
		}
		found = false
		best.b.Node = node
		switch best.rank {
		case 1:
			r.Blocking = append(r.Blocking, best.b)
		case 2:
			r.WaitingForBudget++
		default:
			r.Waiting = append(r.Waiting, best.b)
		}
	}
	for ni, n := range s.Nodes {
		if n == nil {
			continue
		}
		e := p.Eligibility(n)
		if !e.ShouldRun && first[ni] < 0 {
			continue
		}
		node = n.Name
		if acting[ni] {
			b := Blocker{Reason: WaitControllerAct}
			if creates[ni] {
				if v := verdict(p.NewPod(n.Name), n); !v.Fits() {
					b.Message = "the next sync creates a pod the scheduler would leave Pending: " + v.String()
				}
			}
			add(b, false)
			flush()
			continue
		}
		ready := nodehealth.RunsPods(n)
		var curBuf, oldBuf [2]*v1.Pod
		current, old := curBuf[:0], oldBuf[:0]
		terminating := false
		for k := first[ni]; k >= 0; k = next[k] {
			pod := s.Pods[k]
			if pod.DeletionTimestamp != nil {
				terminating = true
				ref := pod.Namespace + "/" + pod.Name
				if !ready {
					add(Blocker{Pod: ref, Reason: BlockNodeNotReady, Message: "a deleted pod cannot go while its node is not Ready"}, true)
				} else {
					add(Blocker{Pod: ref, Reason: WaitTerminating}, false)
				}
				continue
			}
			if daemonset.IsPodUpdated(ds, res.RevisionHash, pod) {
				current = append(current, pod)
			} else {
				old = append(old, pod)
			}
		}
		switch {
		case len(current) > 0:
			// A node that should not run the pod but keeps one (ELIG-4) still counts against
			// the budget while that pod is unavailable.
			pod := current[0]
			ref := pod.Namespace + "/" + pod.Name
			switch {
			case p.Version().IsPodAvailable(pod, ds.Spec.MinReadySeconds, now):
				if len(old) > 0 {
					add(Blocker{Pod: ref, Reason: WaitBudget, Message: "an old pod remains beside the new one"}, false)
				}
			case daemonset.IsPodReady(pod):
				add(Blocker{Pod: ref, Reason: WaitMinReady}, false)
			case !ready:
				add(Blocker{Pod: ref, Reason: BlockNodeNotReady, Message: "the node's kubelet does not report, so the pod cannot turn Ready"}, true)
			case pod.Spec.NodeName == "" && unschedulable(pod):
				msg := "the scheduler reports the pod Unschedulable"
				if v := verdict(pod, n); !v.Fits() {
					msg += ": " + v.String()
				}
				add(Blocker{Pod: ref, Reason: BlockUnschedulable, Message: msg}, true)
			case pod.Spec.NodeName == "" && !verdict(pod, n).Fits():
				// Not yet refused, but the filters will (SCHED-*): stuck unless preemption
				// makes room.
				v := verdict(pod, n)
				if v.Preemption != nil && v.Preemption.Possible {
					add(Blocker{Pod: ref, Reason: WaitPodStarting, Message: "the scheduler will preempt: " + v.String()}, false)
				} else {
					add(Blocker{Pod: ref, Reason: BlockUnschedulable, Message: "the scheduler would leave it Pending: " + v.String()}, true)
				}
			case stuckReason(pod) != "":
				add(Blocker{Pod: ref, Reason: BlockPodNeverReady, Message: "container waiting: " + stuckReason(pod)}, true)
			default:
				add(Blocker{Pod: ref, Reason: WaitPodStarting}, false)
			}
		case !e.ShouldRun:
			// Old pods the node may keep (ELIG-4) and that the plan leaves alone.
		case len(old) > 0:
			ref := old[0].Namespace + "/" + old[0].Name
			switch {
			case onDelete:
				add(Blocker{Pod: ref, Reason: BlockOnDelete, Message: "updateStrategy OnDelete: the old pod stays until it is deleted"}, true)
			case ru != nil && ru.Error != "":
				add(Blocker{Pod: ref, Reason: BlockRollingError, Message: ru.Error}, true)
			case ru != nil && ru.BudgetError != "":
				// The base diff comes first, and the step will then fail (UPD-5).
				add(Blocker{Pod: ref, Reason: BlockRollingError, Message: ru.BudgetError}, true)
			case ru != nil && ru.MaxUnavailable == 0 && ru.MaxSurge == 0:
				add(Blocker{Pod: ref, Reason: BlockBudgetZero, Message: "maxUnavailable and maxSurge both resolve to 0"}, true)
			case !ready:
				add(Blocker{Pod: ref, Reason: BlockNodeNotReady, Message: "the node's kubelet does not report"}, true)
			default:
				msg := "the update budget is in use"
				if ru != nil {
					msg = fmt.Sprintf("the update budget (maxUnavailable %d, maxSurge %d) is in use", ru.MaxUnavailable, ru.MaxSurge)
				}
				add(Blocker{Pod: ref, Reason: WaitBudget, Message: msg}, false)
			}
		case terminating:
			// Without surge the controller creates no pod beside a terminating one (DIFF-5): the node
			// waits for the deleted pod, classified above.
		default:
			add(Blocker{Reason: BlockCreateNotServed, Message: "the node should run a pod and has none, yet the next sync creates none"}, true)
		}
		flush()
	}
	byNodeName := func(a, b Blocker) int { return strings.Compare(a.Node, b.Node) }
	slices.SortStableFunc(r.Blocking, byNodeName)
	slices.SortStableFunc(r.Waiting, byNodeName)
}

// unschedulable reports whether the scheduler refused p: its PodScheduled condition is False
// with reason Unschedulable. An unbound pod without that verdict is still on its way.
func unschedulable(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
		}
	}
	return false
}

// stuckReasons are the container waiting reasons from which a pod does not recover by itself.
var stuckReasons = map[string]bool{
	"CrashLoopBackOff": true, "ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "ErrImageNeverPull": true,
	"RunContainerError": true,
}

// stuckReason returns the first such reason among pod's containers, or "".
func stuckReason(p *v1.Pod) string {
	for _, list := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, c := range list {
			if w := c.State.Waiting; w != nil && stuckReasons[w.Reason] {
				return w.Reason
			}
		}
	}
	return ""
}
