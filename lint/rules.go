package lint

// Severity says how sure a finding is to hurt: SeverityError when the rollout or the pod will
// stall as the spec stands, SeverityWarning when it may be intended (a DaemonSet meant for nodes
// that do not exist yet) or only hurts later (no rollback).
type Severity string

// The severities, most severe first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// AtLeast reports whether s is as severe as min or more; an unknown severity is below both.
func (s Severity) AtLeast(min Severity) bool { return s.rank() >= min.rank() }

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// Rule is one check: its stable ID (docs/rules/lint.md), its stable CamelCase name, the
// severity of its findings, whether it needs the cluster's nodes, and one line saying what it
// finds.
type Rule struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Severity     Severity `json:"severity"`
	NeedsCluster bool     `json:"needsCluster"`
	Summary      string   `json:"summary"`
}

// The rule IDs. An ID is never renumbered nor reused (docs/README.md).
const (
	RuleHostPortWithSurge         = "LINT-1"
	RuleBudgetUsedByDownNodes     = "LINT-2"
	RuleTaintNotTolerated         = "LINT-3"
	RulePlacementMatchesNoNode    = "LINT-4"
	RuleOverlappingSelector       = "LINT-5"
	RuleRequestsExceedAllocatable = "LINT-6"
	RuleNoPriorityClass           = "LINT-7"
	RuleNoRevisionHistory         = "LINT-8"
	RuleHostPortInUse             = "LINT-11"
	RuleNodeFeatureMissing        = "LINT-12"
)

// rules is every rule, in ID order.
var rules = [...]Rule{
	{RuleHostPortWithSurge, "HostPortWithSurge", SeverityError, false,
		"a host port with maxSurge > 0: the surge pod can never bind beside the old one"},
	{RuleBudgetUsedByDownNodes, "BudgetUsedByDownNodes", SeverityError, true,
		"maxUnavailable at or below the number of target nodes that are NotReady or unreachable: the rollout deadlocks"},
	{RuleTaintNotTolerated, "TaintNotTolerated", SeverityWarning, true,
		"nodes the placement targets carry a taint the pod does not tolerate"},
	{RulePlacementMatchesNoNode, "PlacementMatchesNoNode", SeverityWarning, true,
		"the nodeName, nodeSelector or required node affinity matches no node"},
	{RuleOverlappingSelector, "OverlappingSelector", SeverityWarning, false,
		"the selector matches the pods of another DaemonSet of the namespace: they fight over orphaned pods and revisions"},
	{RuleRequestsExceedAllocatable, "RequestsExceedAllocatable", SeverityError, true,
		"the pod requests more than an eligible node can ever allocate"},
	{RuleNoPriorityClass, "NoPriorityClass", SeverityWarning, true,
		"no priorityClassName, and the pod does not fit in the free capacity of an eligible node"},
	{RuleNoRevisionHistory, "NoRevisionHistory", SeverityWarning, false,
		"revisionHistoryLimit 0: no revision to roll back to"},
	{RuleHostPortInUse, "HostPortInUse", SeverityError, true,
		"another pod holds the pod's host port on an eligible node: the scheduler leaves it Pending there"},
	{RuleNodeFeatureMissing, "NodeFeatureMissing", SeverityError, true,
		"the pod needs a node feature an eligible node does not declare: the scheduler leaves it Pending there"},
}

// Rules returns every rule, in the order of their numbers (LINT-1 first). The slice is the caller's.
func Rules() []Rule { return append([]Rule(nil), rules[:]...) }

// rule returns the rule with id, which must be one of the Rule constants.
func rule(id string) Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	panic("lint: unknown rule " + id)
}
