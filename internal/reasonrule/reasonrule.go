// Package reasonrule carries package daemonset's table of reason codes (which rule gives each
// code, which list of a sync its actions are in, their burst-cap class) to the sibling packages
// that cite or classify actions, without making the table part of daemonset's public API. It
// holds no rule itself: the table is in daemonset/reason.go.
package reasonrule

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
	// Class is the burst-cap priority of the code's actions within their list (DIFF-10): whole
	// classes are kept in increasing order, class 0 first.
	Class int
}

// Of returns the entry of a reason code, and false for a code the table does not hold. Package
// daemonset sets it when it is initialised, so every package that imports daemonset, and so
// has codes to look up, finds it set; it is never changed afterwards.
var Of func(code string) (Entry, bool)
