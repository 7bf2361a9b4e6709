package affinity

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/selector"
)

// Term is one term of a [Required]'s node affinity that can match some node, for a caller that
// decides placement on classes of nodes rather than on nodes (package fleet compiles templates
// with it), so that it reads the terms as [Required.Matches] does instead of parsing them
// again. It is immutable and safe for concurrent use.
type Term struct {
	t *term
}

// Terms returns the terms of the required node affinity that can match some node, in input
// order, and whether r has a required node affinity at all (AFF-1). Empty terms (AFF-4) and
// terms that did not parse (AFF-8) are left out, as they match no node; with ok true and no
// term, no node matches (AFF-2). A nil *Required has no required node affinity.
func (r *Required) Terms() (terms []Term, ok bool) {
	if r == nil || !r.hasAffinity {
		return nil, false
	}
	for i := range r.terms {
		if r.terms[i].errs == nil {
			terms = append(terms, Term{&r.terms[i]})
		}
	}
	return terms, true
}

// Expressions returns the term's matchExpressions as requirements on node labels, each of which
// must hold (AFF-5..AFF-7). The slice is shared: do not modify it.
func (t Term) Expressions() []selector.Requirement { return t.t.exprs }

// ReadsFields reports whether the term has matchFields requirements.
func (t Term) ReadsFields() bool { return len(t.t.fields) > 0 }

// FieldsMatch reports whether the term's matchFields requirements hold for a node named name,
// which is not empty: metadata.name is the name, any other key reads as "" (AFF-9). A node
// without a name skips them (AFF-10).
func (t Term) FieldsMatch(name string) bool {
	for j := range t.t.fields {
		if !t.t.fields[j].holds(name) {
			return false
		}
	}
	return true
}

// AppendNames appends to dst the node names the term's matchFields compare a node's name with
// (the values of its metadata.name requirements, AFF-9), in input order, and returns the
// extended slice. [Term.FieldsMatch] answers alike for every name that is not among them, so a
// caller deciding on classes of names need tell apart only these and one other name.
func (t Term) AppendNames(dst []string) []string {
	for j := range t.t.fields {
		if f := &t.t.fields[j]; f.key == metav1.ObjectNameField {
			dst = append(dst, f.value)
		}
	}
	return dst
}
