// Package reasonrule is the one table of the reason codes of package daemonset: which rule gives
// each code, which list of a sync its actions are in, and their burst-cap class. daemonset's burst
// cap, rollout and conformance all read it here, so no sibling classifies a code on its own, and
// the table stays out of daemonset's public API. The codes are daemonset.Reason values written as
// strings; daemonset/reason_internal_test.go checks that the table holds each of them exactly once
// and that docs/ agrees with it.
package reasonrule

import "iter"

// Step says which list of a sync the actions of a reason are in.
type Step uint8

const (
	// None: the reason explains a node's eligibility or names an event; it is on no action.
	None Step = iota
	// Base: the node-by-node reconcile, the base diff (DIFF-*).
	Base
	// Rolling: the rolling-update step (UPD-8, UPD-11), which acts only on an empty base diff.
	Rolling
)

// Entry is what daemonset's table says about one reason code.
type Entry struct {
	// Rule is the ID of the rule in docs/ that gives the code.
	Rule string
	// Budget is the rule under which a budget picks which of the code's candidates one sync
	// takes (UPD-9, UPD-23), or "" when the sync takes every action of the code.
	Budget string
	// Step is the list of a sync the code's actions are in.
	Step Step
	// Replaces says that the code's deletions remove a pod of an old revision as part of the
	// update, whichever list they are in: the rolling step's, and the base diff's removal of an
	// old pod beside its surge replacement (DIFF-6). rollout's forecast counts them as replaced.
	Replaces bool
	// Class is the burst-cap priority of the code's actions within their list (DIFF-10): whole
	// classes are kept in increasing order, class 0 first.
	Class int
}

// table holds every code once. A scan of its 23 entries costs tens of nanoseconds and allocates
// nothing; it runs once per action only where the burst cap cuts a list.
var table = [...]struct {
	code string
	Entry
}{
	{"NodeNameMismatch", Entry{Rule: "ELIG-2"}},
	{"NodeSelectorMismatch", Entry{Rule: "NSEL-2"}},
	{"NodeAffinityMismatch", Entry{Rule: "AFF-3"}},
	{"TaintNotTolerated", Entry{Rule: "ELIG-4"}},
	{"NoExecuteTaintNotTolerated", Entry{Rule: "TAINT-5"}},

	{"MissingPod", Entry{Rule: "DIFF-2", Step: Base}},
	// A Failed pod is deleted by the phase branch of podsShouldBeOnNode (DIFF-3); DIFF-17 only
	// says how many of a node's Failed pods one sync deletes, and which.
	{"FailedPod", Entry{Rule: "DIFF-3", Step: Base}},
	{"SucceededPod", Entry{Rule: "DIFF-3", Step: Base}},
	{"NodeNotEligible", Entry{Rule: "DIFF-4", Step: Base}},
	{"DuplicatePod", Entry{Rule: "DIFF-5", Step: Base}},
	{"SurgeOldNotReady", Entry{Rule: "DIFF-6", Step: Base, Replaces: true}},
	{"SurgeNewAvailable", Entry{Rule: "DIFF-6", Step: Base, Replaces: true}},
	// Upstream's manage appends the unscheduled pods of missing nodes after every node-visited
	// deletion, so the burst cap reaches them last.
	{"UnscheduledOnMissingNode", Entry{Rule: "DIFF-8", Step: Base, Class: 1}},

	// The rolling step lists its budget-free actions before its budgeted candidates (upstream's
	// rollingUpdate appends candidatePodsToDelete, shouldNotRunPodsToDelete and
	// candidateNewNodes last), so the burst cap reaches the candidates last.
	{"UpdateOldUnavailable", Entry{Rule: "UPD-8", Step: Rolling, Replaces: true}},
	{"UpdateOldCandidate", Entry{Rule: "UPD-8", Budget: "UPD-9", Step: Rolling, Class: 1, Replaces: true}},
	{"SurgeOldUnavailable", Entry{Rule: "UPD-11", Step: Rolling}},
	{"SurgeOldUnavailableIneligible", Entry{Rule: "UPD-11", Step: Rolling, Replaces: true}},
	{"SurgeReplaced", Entry{Rule: "UPD-11", Step: Rolling, Replaces: true}},
	{"SurgeCandidate", Entry{Rule: "UPD-11", Budget: "UPD-23", Step: Rolling, Class: 1}},
	{"SurgeIneligibleExcess", Entry{Rule: "UPD-11", Budget: "UPD-23", Step: Rolling, Class: 1, Replaces: true}},

	{"FailedDaemonPod", Entry{Rule: "DIFF-3"}},
	{"SucceededDaemonPod", Entry{Rule: "DIFF-3"}},
	{"SelectingAll", Entry{Rule: "SYNC-3"}},
}

// Of returns the entry of a reason code, and false for a code the table does not hold.
func Of(code string) (Entry, bool) {
	for i := range table {
		if table[i].code == code {
			return table[i].Entry, true
		}
	}
	return Entry{}, false
}

// All yields every code of the table with its entry, in the table's order.
func All() iter.Seq2[string, Entry] {
	return func(yield func(string, Entry) bool) {
		for i := range table {
			if !yield(table[i].code, table[i].Entry) {
				return
			}
		}
	}
}
