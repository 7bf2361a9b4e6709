package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Result is the plan of one sync of one DaemonSet. Its JSON form is the oracle contract
// documented in the README; every slice is sorted so that equal snapshots give byte-equal plans.
type Result struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// RevisionHash is the controller-revision-hash the created pods carry (UPD-14, UPD-15).
	// Empty when Skipped is set (D-11).
	RevisionHash string `json:"revisionHash"`
	// Skipped names the rule under which the sync does nothing, one of the Skip constants
	// (D-9, D-10, D-11). Empty otherwise.
	Skipped Skip `json:"skipped,omitempty"`
	// Pending is true for the plan of a sync made while expectations are pending
	// ([Planner.PlanPending]; SYNC-9, STAT-13): it holds only what that sync writes, the
	// revision writes without the clean-up, the pod claims and the status with
	// observedGeneration as stored; no creates, deletes, rolling step or events, RequeueAfter
	// only for minReadySeconds and Backoff carried unchanged. False for every other plan.
	Pending bool `json:"pending,omitempty"`

	Create  []Creation  `json:"create"`  // sorted by node
	Delete  []Deletion  `json:"delete"`  // sorted by namespace, name
	Adopt   []ObjectRef `json:"adopt"`   // sorted by namespace, name
	Release []ObjectRef `json:"release"` // sorted by namespace, name

	// RollingUpdate says what the rolling-update step did (issue 4); nil under Skipped and
	// in a Pending plan, whose sync has no rolling step.
	RollingUpdate *RollingUpdate `json:"rollingUpdate,omitempty"`

	// Status is the status the sync writes (STAT-*); nil under Skipped (D-11). In a Pending
	// plan its observedGeneration is the stored one (STAT-13).
	Status *appsv1.DaemonSetStatus `json:"status"`

	// Revisions are the ControllerRevision writes of the sync and the pod relabels that go
	// with them (UPD-14, UPD-21, UPD-22); nil when the sync writes no revision.
	Revisions *RevisionWrites `json:"revisions,omitempty"`

	// CollisionCount is the status.collisionCount the sync writes when it finds a hash
	// collision (UPD-21, D-10); nil otherwise.
	CollisionCount *int32 `json:"collisionCount,omitempty"`

	// StatusWrite is the whole status the controller sends with UpdateStatus in this sync, nil
	// when it writes none (STAT-9: the counters and observedGeneration are already stored;
	// STAT-10: the sync does nothing). It is Status when written (observedGeneration raised,
	// or as stored in a Pending plan, STAT-13; collisionCount and conditions as stored,
	// STAT-14) and, under a hash collision (UPD-21),
	// the stored status with the raised collisionCount. Read-only: it may share memory with
	// Status.
	StatusWrite *appsv1.DaemonSetStatus `json:"statusWrite,omitempty"`

	// Backoff is this DaemonSet's failed-pod back-off after the sync (DIFF-12): the live
	// entries of Options.Backoff with its uid, and those this sync's Failed-pod deletions wrote
	// in their place; sorted by generation and node; nil when none. [UpdateBackoff] merges it
	// into a controller's state. A Pending plan deletes no Failed pod: its Backoff is the live
	// entries carried, and UpdateBackoff with it changes nothing but expiry.
	Backoff []BackoffEntry `json:"backoff,omitempty"`

	// RequeueAfter is the smallest delay after which the controller queues the DaemonSet again
	// without any event (SYNC-8): a Failed pod held back by the back-off (DIFF-12, DIFF-17) or
	// ready pods not yet available under minReadySeconds (STAT-15); in a Pending plan only the
	// latter, as upstream's sync then looks at no Failed pod. Zero when none; in JSON a
	// duration string ("1s"), absent when zero.
	RequeueAfter metav1.Duration `json:"requeueAfter,omitzero"`

	// Events are the events the controller would emit, as explanations (D-8), sorted.
	Events []Event `json:"events,omitempty"`

	// Conflicts lists, in a cluster-wide plan, the orphans this DaemonSet's selector matches
	// but that an older DaemonSet adopts (D-2); sorted by namespace, name. An explanation, not
	// an action.
	Conflicts []Conflict `json:"conflicts,omitempty"`

	// Invalid lists, rendered, what API validation would reject in the DaemonSet (VAL-*). The
	// plan is still the controller's answer for the object as stored (VAL-22, D-4).
	Invalid []string `json:"invalid,omitempty"`
}

// Creation is one daemon pod to create.
type Creation struct {
	Node   string `json:"node"`
	Reason Reason `json:"reason"`
	// Interchangeable marks a create chosen among equal candidates (D-1): compare counts, not
	// identities, with other implementations.
	Interchangeable bool `json:"interchangeable,omitempty"`
	// Pod is the object the controller submits (POD-*), with metadata.namespace set (D-3). Like
	// the controller's, it has no apiVersion and kind (TypeMeta is empty): client-go's typed
	// clients fill them in when they encode the request, and a comparison with a pod built or
	// read through client-go does not trip on them. The CLI's JSON adds apiVersion v1 and kind
	// Pod, for kubectl create -f.
	Pod *v1.Pod `json:"pod"`
}

// Deletion is one pod to delete.
type Deletion struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	Node            string `json:"node"`
	Reason          Reason `json:"reason"`
	Interchangeable bool   `json:"interchangeable,omitempty"`
	// UID is the pod's metadata.uid in the snapshot, empty only when the snapshot's pod has
	// none. Upstream deletes by name alone; a controller may send it as the delete's
	// precondition (metav1.Preconditions.UID), which never deletes a pod re-created under the
	// same name (OWN-15).
	UID types.UID `json:"uid,omitempty"`
}

// Conflict is an orphan that several DaemonSets would adopt (D-2).
type Conflict struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the pod's metadata.uid in the snapshot (empty when it has none).
	UID types.UID `json:"uid,omitempty"`
	// AdoptedBy is the namespace/name of the DaemonSet that adopts the pod.
	AdoptedBy string `json:"adoptedBy"`
}

// Event is an event the controller would emit (D-8).
type Event struct {
	Type    string `json:"type"` // Normal or Warning
	Reason  Reason `json:"reason"`
	Pod     string `json:"pod,omitempty"` // namespace/name
	Node    string `json:"node,omitempty"`
	Message string `json:"message,omitempty"`
}

// RollingUpdate reports the rolling-update step of one sync (UPD-*).
type RollingUpdate struct {
	// Acted is true when the step ran (RollingUpdate strategy, base diff empty, no error).
	Acted bool `json:"acted"`
	// Reason says why the step did not act, one of the RollingReason constants; empty when it
	// acted.
	Reason RollingReason `json:"reason,omitempty"`
	// Error is the upstream error that stopped the step (UPD-5, UPD-11), if any.
	Error string `json:"error,omitempty"`
	// MaxUnavailable and MaxSurge are the budgets resolved against this sync's desired count
	// (UPD-5, UPD-6) whenever the strategy is RollingUpdate, whatever the step did: also when
	// the base diff came first (UPD-2) or the step failed on a missing node (UPD-11). They are
	// 0 under OnDelete and when the budgets do not resolve (BudgetError).
	MaxUnavailable int `json:"maxUnavailable"`
	MaxSurge       int `json:"maxSurge"`
	// BudgetError is upstream's error when the budgets do not resolve (UPD-5): the step fails
	// with it (then Error holds the same text) or, when the base diff comes first, will fail
	// with it once the base diff is done. Empty when they resolve.
	BudgetError string `json:"budgetError,omitempty"`
}

// ClusterResult is the plan of every DaemonSet of a snapshot (D-2, D-12).
type ClusterResult struct {
	DaemonSets []*Result `json:"daemonSets"` // sorted by namespace, name
}
