package daemonset

import "github.com/daemonsched/daemonsched/internal/reasonrule"

// Reason is a stable machine code that says why a node is left out, or why a pod is created or
// deleted. Codes are CamelCase and never renamed once released; reason_test.go lists them all.
type Reason string

// The reason codes, by what carries them: an Eligibility, a Creation, a Deletion or an Event.
const (
	// Eligibility reasons (ELIG-2..ELIG-6): why a node should not run, or not keep, a daemon
	// pod.
	//
	// ReasonNodeNameMismatch: the template names another node in spec.nodeName (ELIG-2).
	ReasonNodeNameMismatch Reason = "NodeNameMismatch"
	// ReasonNodeSelectorMismatch: the node fails spec.nodeSelector (NSEL-2).
	ReasonNodeSelectorMismatch Reason = "NodeSelectorMismatch"
	// ReasonNodeAffinityMismatch: no required node affinity term matches the node (AFF-3).
	ReasonNodeAffinityMismatch Reason = "NodeAffinityMismatch"
	// ReasonTaintNotTolerated: an untolerated NoSchedule taint blocks new pods, existing pods
	// may stay (ELIG-4).
	ReasonTaintNotTolerated Reason = "TaintNotTolerated"
	// ReasonNoExecuteTaintNotTolerated: an untolerated NoExecute taint blocks new pods and
	// evicts existing ones (TAINT-5).
	ReasonNoExecuteTaintNotTolerated Reason = "NoExecuteTaintNotTolerated"

	// Create reasons.
	//
	// ReasonMissingPod: the node should run a daemon pod and has none running (DIFF-2, DIFF-6).
	ReasonMissingPod Reason = "MissingPod"
	// ReasonSurgeOldUnavailable: rolling update with surge, the node's old pod is not available,
	// so its replacement is created without spending the surge budget (UPD-11).
	ReasonSurgeOldUnavailable Reason = "SurgeOldUnavailable"
	// ReasonSurgeCandidate: rolling update with surge, a new pod beside an available old one,
	// within maxSurge (UPD-11).
	ReasonSurgeCandidate Reason = "SurgeCandidate"

	// Delete reasons (DIFF-16).
	ReasonNodeNotEligible          Reason = "NodeNotEligible"          // DIFF-4
	ReasonFailedPod                Reason = "FailedPod"                // DIFF-3
	ReasonSucceededPod             Reason = "SucceededPod"             // DIFF-3
	ReasonDuplicatePod             Reason = "DuplicatePod"             // DIFF-5, DIFF-6
	ReasonSurgeOldNotReady         Reason = "SurgeOldNotReady"         // DIFF-6
	ReasonSurgeNewAvailable        Reason = "SurgeNewAvailable"        // DIFF-6
	ReasonUnscheduledOnMissingNode Reason = "UnscheduledOnMissingNode" // DIFF-8

	ReasonUpdateOldUnavailable          Reason = "UpdateOldUnavailable"          // UPD-8
	ReasonUpdateOldCandidate            Reason = "UpdateOldCandidate"            // UPD-8
	ReasonSurgeOldUnavailableIneligible Reason = "SurgeOldUnavailableIneligible" // UPD-11
	ReasonSurgeReplaced                 Reason = "SurgeReplaced"                 // UPD-11
	ReasonSurgeIneligibleExcess         Reason = "SurgeIneligibleExcess"         // UPD-11

	// Event reasons the controller would emit (D-8).
	ReasonFailedDaemonPod    Reason = "FailedDaemonPod"
	ReasonSucceededDaemonPod Reason = "SucceededDaemonPod"
	ReasonSelectingAll       Reason = "SelectingAll"
)

// reasonEntry returns r's entry in the table of reason codes (internal/reasonrule), and false
// for a code the package does not emit.
func reasonEntry(r Reason) (reasonrule.Entry, bool) { return reasonrule.Of(string(r)) }

// Skip names the rule under which a sync does nothing at all ([Result.Skipped], D-9, D-10,
// D-11). Its values are the rule IDs of the specification, kept as they are because they are
// part of the JSON contract; reason_test.go lists them all.
type Skip string

const (
	// SkipSelectingAll: the selector is empty and would select every pod; the controller
	// emits a SelectingAll event and does nothing (SYNC-3).
	SkipSelectingAll Skip = "SYNC-3"
	// SkipBeingDeleted: the DaemonSet has a deletion timestamp (SYNC-4).
	SkipBeingDeleted Skip = "SYNC-4"
	// SkipInvalidSelector: the selector does not convert, so the sync fails before any pod
	// work (SYNC-5).
	SkipInvalidSelector Skip = "SYNC-5"
	// SkipHashCollision: a ControllerRevision of the current hash holds another template; the
	// sync only raises status.collisionCount (UPD-21).
	SkipHashCollision Skip = "UPD-21"
)

// RollingReason says why the rolling-update step of a sync did not act
// ([RollingUpdate.Reason]); reason_test.go lists them all.
type RollingReason string

const (
	// RollingReasonOnDelete: the update strategy is OnDelete, so pods are replaced only when
	// someone deletes them (UPD-1).
	RollingReasonOnDelete RollingReason = "OnDelete"
	// RollingReasonBaseDiffNotEmpty: the sync creates or deletes pods outside the rolling
	// update, and the step waits for the next sync (UPD-2).
	RollingReasonBaseDiffNotEmpty RollingReason = "BaseDiffNotEmpty"
	// RollingReasonError: the step stopped on the controller's error, given in
	// [RollingUpdate.Error] (UPD-5, UPD-11).
	RollingReasonError RollingReason = "Error"
)
