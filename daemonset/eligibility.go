package daemonset

import (
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	v1 "k8s.io/api/core/v1"
)

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

// The fixed answers of Eligibility. Returning a copy of a stored value makes the compiler write
// the result with the same 16-byte moves the caller reads it with; building it in place
// (zeroing, then byte stores for the two booleans) made the caller's copy wait on a failed
// store-to-load forward, measured at several ns per call.
var (
	eligible             = Eligibility{ShouldRun: true, ShouldContinueRunning: true}
	nodeNameMismatch     = Eligibility{Reason: ReasonNodeNameMismatch}
	nodeSelectorMismatch = Eligibility{Reason: ReasonNodeSelectorMismatch}
	nodeAffinityMismatch = Eligibility{Reason: ReasonNodeAffinityMismatch}
)

// Eligibility decides node (ELIG-*): template nodeName (ELIG-2), then node selector and
// required node affinity (ELIG-3), then taints against the merged tolerations (ELIG-4). It
// depends on the template and the node only (ELIG-8) and allocates nothing. Eligibility panics
// if node is nil.
func (p *Planner) Eligibility(node *v1.Node) Eligibility {
	if node == nil {
		panic("daemonset: Eligibility called with a nil node")
	}
	if p.nodeName != "" && p.nodeName != node.Name {
		return nodeNameMismatch
	}
	// One walk decides the placement and names the failing half (AFF-12: the node selector
	// first), so a mismatch costs no label lookup twice.
	switch p.req.Evaluate(node) {
	case affinity.NodeSelectorMismatch:
		return nodeSelectorMismatch
	case affinity.AffinityMismatch:
		return nodeAffinityMismatch
	}
	ts := node.Spec.Taints
	if len(ts) == 0 {
		return eligible
	}
	placement, eviction := p.tols.Untolerated(ts)
	return eligible.WithUntolerated(ts, placement, eviction)
}

// WithUntolerated returns the node's Eligibility when placement alone answered placed (ELIG-2,
// ELIG-3) and the node's taints are taints: the one statement of ELIG-4 and TAINT-5, which
// [Planner.Eligibility] and package fleet's memoized decisions both use. When placed does not
// run the pod it is the answer, whatever the taints. placement and eviction are the indices in
// taints that [taints.Tolerations.Untolerated] returns (-1 for none); only the taint at
// eviction, when there is one, and otherwise the taint at placement, is read. It allocates
// nothing.
func (placed Eligibility) WithUntolerated(taints []v1.Taint, placement, eviction int) Eligibility {
	switch {
	case !placed.ShouldRun || placement < 0:
		return placed
	case eviction >= 0:
		// The first untolerated taint is NoExecute, or it is NoSchedule and a later NoExecute
		// one still evicts (TAINT-5).
		return Eligibility{Reason: ReasonNoExecuteTaintNotTolerated, Taint: taints[eviction]}
	default:
		return Eligibility{ShouldContinueRunning: true, Reason: ReasonTaintNotTolerated, Taint: taints[placement]}
	}
}

// Explanation is the evidence behind an Eligibility, for people: the failing affinity term and
// requirement with the node's actual value, the untolerated taint, or the template nodeName.
type Explanation struct {
	Eligibility
	Node string

	// TemplateNodeName is spec.template.spec.nodeName when it names another node (ELIG-2).
	TemplateNodeName string
	// Placement explains ReasonNodeSelectorMismatch and ReasonNodeAffinityMismatch: the first
	// failing nodeSelector entry in key order with the node's value, or for every required
	// term its first failing requirement, its parse errors, or that it is empty (AFF-15). It
	// is nil for other reasons.
	Placement *affinity.Explanation
}

// Explain decides node like Eligibility, which it always agrees with, and keeps the evidence.
// It may allocate. Explain panics if node is nil.
func (p *Planner) Explain(node *v1.Node) Explanation {
	e := Explanation{Eligibility: p.Eligibility(node), Node: node.Name}
	switch e.Reason {
	case ReasonNodeNameMismatch:
		e.TemplateNodeName = p.nodeName
	case ReasonNodeSelectorMismatch, ReasonNodeAffinityMismatch:
		x := p.req.Explain(node)
		e.Placement = &x
	}
	return e
}

// String renders the explanation in plain words, one sentence per finding, one finding per
// line: the verdict first, then the evidence.
func (e Explanation) String() string {
	var b strings.Builder
	switch {
	case e.ShouldRun:
		fmt.Fprintf(&b, "node %s should run the daemon pod.", e.Node)
		return b.String()
	case e.ShouldContinueRunning:
		fmt.Fprintf(&b, "node %s gets no new daemon pod, but an existing one may keep running (%s).", e.Node, e.Reason)
	default:
		fmt.Fprintf(&b, "node %s should not run the daemon pod (%s).", e.Node, e.Reason)
	}
	switch e.Reason {
	case ReasonNodeNameMismatch:
		fmt.Fprintf(&b, "\nThe template's spec.nodeName is %q.", e.TemplateNodeName)
	case ReasonNodeSelectorMismatch, ReasonNodeAffinityMismatch:
		if e.Placement != nil {
			x := e.Placement
			switch {
			case x.Outcome == affinity.NodeSelectorMismatch:
				fmt.Fprintf(&b, "\n%s.", upperFirst(x.String()))
			case len(x.Terms) == 0:
				b.WriteString("\nThe required node affinity has no node selector terms, so it matches no node.")
			default:
				b.WriteString("\nNo required node affinity term matches the node.")
				for _, t := range x.Terms {
					fmt.Fprintf(&b, "\n%s.", upperFirst(t.String()))
				}
			}
		}
	case ReasonTaintNotTolerated, ReasonNoExecuteTaintNotTolerated:
		fmt.Fprintf(&b, "\nTaint %s is not tolerated.", e.Taint.ToString())
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
