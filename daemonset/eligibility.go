package daemonset

import (
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/taints"
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

// Eligibility decides node (ELIG-*): template nodeName (ELIG-2), then node selector and
// required node affinity (ELIG-3), then taints against the merged tolerations (ELIG-4). It
// depends on the template and the node only (ELIG-8) and allocates nothing.
func (p *Planner) Eligibility(node *v1.Node) Eligibility {
	if p.nodeName != "" && p.nodeName != node.Name {
		return Eligibility{Reason: ReasonNodeNameMismatch}
	}
	if !p.req.Matches(node) {
		// The node selector is checked first (AFF-12); looking at it again only on failure
		// saves one label lookup per eligible node.
		if _, ok := p.firstNodeSelectorMismatch(node); ok {
			return Eligibility{Reason: ReasonNodeSelectorMismatch}
		}
		return Eligibility{Reason: ReasonNodeAffinityMismatch}
	}
	t, ok := p.tols.FirstUntolerated(node.Spec.Taints, taints.NoSchedule|taints.NoExecute)
	if !ok {
		return Eligibility{ShouldRun: true, ShouldContinueRunning: true}
	}
	if t.Effect == v1.TaintEffectNoExecute {
		return Eligibility{Reason: ReasonNoExecuteTaintNotTolerated, Taint: t}
	}
	// The first untolerated taint is NoSchedule; a later NoExecute one still evicts (TAINT-5).
	if ne, ok := p.tols.FirstUntolerated(node.Spec.Taints, taints.NoExecute); ok {
		return Eligibility{Reason: ReasonNoExecuteTaintNotTolerated, Taint: ne}
	}
	return Eligibility{ShouldContinueRunning: true, Reason: ReasonTaintNotTolerated, Taint: t}
}

// firstNodeSelectorMismatch returns the index in p.nodeSelector (key order) of the first entry
// node fails (NSEL-2).
func (p *Planner) firstNodeSelectorMismatch(node *v1.Node) (int, bool) {
	for i, kv := range p.nodeSelector {
		if v, ok := node.Labels[kv.key]; !ok || v != kv.value {
			return i, true
		}
	}
	return 0, false
}

// Explanation is the evidence behind an Eligibility, for people: the failing affinity term and
// requirement with the node's actual value, the untolerated taint, or the template nodeName.
type Explanation struct {
	Eligibility
	Node string

	// TemplateNodeName is spec.template.spec.nodeName when it names another node (ELIG-2).
	TemplateNodeName string
	// NodeSelector is the first spec.nodeSelector entry, in key order, that the node fails.
	NodeSelector *LabelMismatch
	// Terms explains, for ReasonNodeAffinityMismatch, why each required node affinity term
	// fails (AFF-15). Nil otherwise.
	Terms []TermMismatch
}

// LabelMismatch is a label the node lacks or carries with another value.
type LabelMismatch struct {
	Key     string
	Want    string
	Value   string // the node's value; meaningful only when Present
	Present bool
}

// TermMismatch says why one required node affinity term does not match a node.
type TermMismatch struct {
	// Term is the index in nodeSelectorTerms.
	Term int
	// Empty is true for a term with no requirement at all, which never matches (AFF-4).
	Empty bool
	// Field is true when Requirement is a matchFields entry, false for matchExpressions.
	Field bool
	// Index is the position of Requirement in its list; -1 when no single requirement fails
	// on its own (the term is then malformed as a whole, AFF-8).
	Index       int
	Requirement v1.NodeSelectorRequirement
	// Value and Present are what the node holds for the requirement's key: the label value,
	// or the node name for matchFields metadata.name.
	Value   string
	Present bool
}

// Explain decides node like Eligibility, which it always agrees with, and keeps the evidence.
// It may allocate.
func (p *Planner) Explain(node *v1.Node) Explanation {
	e := Explanation{Eligibility: p.Eligibility(node), Node: node.Name}
	switch e.Reason {
	case ReasonNodeNameMismatch:
		e.TemplateNodeName = p.nodeName
	case ReasonNodeSelectorMismatch:
		i, _ := p.firstNodeSelectorMismatch(node)
		kv := p.nodeSelector[i]
		v, ok := node.Labels[kv.key]
		e.NodeSelector = &LabelMismatch{Key: kv.key, Want: kv.value, Value: v, Present: ok}
	case ReasonNodeAffinityMismatch:
		e.Terms = p.explainTerms(node)
	}
	return e
}

// explainTerms evaluates every required term, and every requirement of a failing term, on
// its own through the affinity package, so that explanations use exactly the matching code
// of the hot path.
func (p *Planner) explainTerms(node *v1.Node) []TermMismatch {
	na := p.ds.Spec.Template.Spec.Affinity
	if na == nil || na.NodeAffinity == nil || na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return []TermMismatch{}
	}
	terms := na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	out := []TermMismatch{}
	for i, term := range terms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			out = append(out, TermMismatch{Term: i, Empty: true, Index: -1})
			continue
		}
		if termMatches(node, term) {
			continue
		}
		m := TermMismatch{Term: i, Index: -1}
		for j, r := range term.MatchExpressions {
			if !termMatches(node, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{r}}) {
				v, ok := node.Labels[r.Key]
				m = TermMismatch{Term: i, Index: j, Requirement: r, Value: v, Present: ok}
				break
			}
		}
		if m.Index < 0 {
			for j, r := range term.MatchFields {
				if !termMatches(node, v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{r}}) {
					v, ok := "", false
					if r.Key == "metadata.name" {
						v, ok = node.Name, true
					}
					m = TermMismatch{Term: i, Field: true, Index: j, Requirement: r, Value: v, Present: ok}
					break
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// termMatches evaluates one node selector term alone, without the node selector.
func termMatches(node *v1.Node, term v1.NodeSelectorTerm) bool {
	spec := &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{term}},
	}}}
	return affinity.Compile(spec, nil).Matches(node)
}

// String renders the explanation in plain words, one sentence per finding.
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
		fmt.Fprintf(&b, " The template's spec.nodeName is %q.", e.TemplateNodeName)
	case ReasonNodeSelectorMismatch:
		m := e.NodeSelector
		if m.Present {
			fmt.Fprintf(&b, " nodeSelector %s=%q: the node's label has value %q.", m.Key, m.Want, m.Value)
		} else {
			fmt.Fprintf(&b, " nodeSelector %s=%q: the node has no such label.", m.Key, m.Want)
		}
	case ReasonNodeAffinityMismatch:
		if len(e.Terms) == 0 {
			b.WriteString(" The required node affinity has no terms, so it matches no node.")
		}
		for _, t := range e.Terms {
			switch {
			case t.Empty:
				fmt.Fprintf(&b, " Term %d is empty and matches no node.", t.Term)
			case t.Index < 0:
				fmt.Fprintf(&b, " Term %d does not match.", t.Term)
			default:
				list := "matchExpressions"
				if t.Field {
					list = "matchFields"
				}
				r := t.Requirement
				fmt.Fprintf(&b, " Term %d: %s[%d] %s %s %v fails", t.Term, list, t.Index, r.Key, r.Operator, r.Values)
				if t.Present {
					fmt.Fprintf(&b, " (node value %q).", t.Value)
				} else {
					b.WriteString(" (the node has no such label).")
				}
			}
		}
	case ReasonTaintNotTolerated, ReasonNoExecuteTaintNotTolerated:
		fmt.Fprintf(&b, " Taint %s is not tolerated.", e.Taint.ToString())
	}
	return b.String()
}
