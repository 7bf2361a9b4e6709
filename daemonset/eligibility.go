package daemonset

import v1 "k8s.io/api/core/v1"

// Eligibility is the controller's two answers for one node (ELIG-1) and why.
type Eligibility struct {
	ShouldRun             bool
	ShouldContinueRunning bool
	// Reason is empty when ShouldRun is true, else the first failing check (ELIG-6).
	Reason Reason
	// Taint is the untolerated taint behind ReasonTaintNotTolerated and
	// ReasonNoExecuteTaintNotTolerated (TAINT-9).
	Taint v1.Taint
}

// Eligibility decides node (ELIG-*). It allocates nothing.
func (p *Planner) Eligibility(node *v1.Node) Eligibility { panic("daemonset: not implemented yet") }

// Explanation is the evidence behind an Eligibility, for people: the failing affinity term and
// requirement with the node's actual value, the untolerated taint, or the template nodeName.
type Explanation struct {
	Eligibility
	Node string
}

// Explain decides node like Eligibility, which it always agrees with, and keeps the evidence.
// It may allocate.
func (p *Planner) Explain(node *v1.Node) Explanation { panic("daemonset: not implemented yet") }

// String renders the explanation in plain words, one sentence per finding.
func (e Explanation) String() string { panic("daemonset: not implemented yet") }
