// Package choice describes the freedom the v1.36 controller has in one sync of one DaemonSet:
// every order in which it could submit its creates and deletes, which of several candidates it
// could pick, and how the status it writes depends on the picks (D-1, STAT-16). Package
// daemonset computes these choice sets from the per-node outcomes of its sync, the one place
// of every rule they follow; package conformance judges a candidate plan with them and stores
// them in its corpus. The types stay out of daemonset's public API (docs/decisions.md, "The
// verifier's choice sets are internal"): a controller, a simulator or a test suite asks
// daemonset for the plan and conformance for the verdict, and neither names them.
//
// The types are parameterised by the action types, C for a create and D for a delete
// (daemonset.Creation and daemonset.Deletion), because the package that defines those imports
// this one. Their JSON form is the "orders" of a conformance corpus case
// (conformance/testdata/case.schema.json); field names and tags never change.
package choice

// Orders describes every plan the controller could produce in one sync, where daemonset's Plan
// gives one of them (D-1). The controller submits two lists, creates and deletes; each is a
// sequence of priority classes (DIFF-10), and the burst cap keeps a prefix of the whole list.
// Inside a class the order is random (a node cache's or a map's), and some classes take only
// some of their groups (UPD-9, UPD-23).
//
// Every action of the sync appears in exactly one part of one group. The lists are uncapped:
// BurstLimit says where the controller cuts them.
type Orders[C, D any] struct {
	// BurstLimit is daemonset's Options.BurstLimit: 0 is the controller's 250, a negative
	// value keeps every list whole.
	BurstLimit int `json:"burstLimit,omitempty"`
	// Phase says which part of the sync acts.
	Phase   Phase               `json:"phase"`
	Creates []ActionClass[C, D] `json:"creates"`
	Deletes []ActionClass[C, D] `json:"deletes"`
	// Status lists the nodes whose counters depend on the deletions picked (STAT-16); see
	// StatusWith. Absent when the status is the same whatever the controller picks.
	Status []StatusNode `json:"status,omitempty"`
}

// Phase is the part of a sync whose actions an [Orders] describes. Its values are the strings
// of the wire format.
type Phase string

const (
	// PhaseNone: nothing acts. The sync is skipped (SYNC-3, SYNC-4, SYNC-5, UPD-21), or its
	// base diff is empty and, for a RollingUpdate DaemonSet, the rolling step does not act.
	PhaseNone Phase = "none"
	// PhaseBase: the actions are the base diff's (DIFF-*).
	PhaseBase Phase = "base"
	// PhaseRolling: the actions are the rolling-update step's (UPD-2).
	PhaseRolling Phase = "rolling"
)

// ActionClass is one priority class of a list: every action of an earlier class is submitted
// before any action of a later one (DIFF-10, audit S12). Its groups come in random order.
type ActionClass[C, D any] struct {
	// Rule is the rule under which the class takes Take of its groups (UPD-9, UPD-23); empty
	// when every group is taken.
	Rule string `json:"rule,omitempty"`
	// Take is how many groups the controller takes; len(Groups) unless Rule is set.
	Take   int                 `json:"take"`
	Groups []ActionGroup[C, D] `json:"groups"`
}

// ActionGroup is the actions one node contributes to a list, submitted one after another
// (podsShouldBeOnNode emits a node's deletions together). Its parts come in order.
type ActionGroup[C, D any] struct {
	Node  string             `json:"node"`
	Parts []ActionPart[C, D] `json:"parts"`
}

// ActionPart is a set of actions submitted together in random order: all of Creates or
// Deletes, and exactly one of OneOf when it is not empty (DIFF-17: the first Failed pod in the
// claim order, which is random within already-controlled pods and within adopted ones). A part
// holds creates or deletes, never both.
type ActionPart[C, D any] struct {
	Creates []C `json:"creates,omitempty"`
	Deletes []D `json:"deletes,omitempty"`
	OneOf   []D `json:"oneOf,omitempty"`
}
