package selector

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/internal/decimal"
	"github.com/daemonsched/daemonsched/internal/labeltext"
)

// Operator is one requirement operator. Each operator is a distinct bit, so that operators
// combine into an [Operators] set. The zero Operator is no operator at all.
type Operator uint8

// The requirement operators of Kubernetes label and node selectors. Their names are the API
// spellings, which are exact and case-sensitive (SEL-6).
const (
	// In holds when the label is present and its value is one of the requirement's values.
	In Operator = 1 << iota
	// NotIn holds when the label is absent or its value is none of the requirement's values.
	NotIn
	// Exists holds when the label is present, whatever its value.
	Exists
	// DoesNotExist holds when the label is absent.
	DoesNotExist
	// Gt holds when the label is present, its value parses as a base-10 int64, and it is
	// greater than the requirement's single integer (AFF-7). Node selectors only.
	Gt
	// Lt is Gt with "less than" (AFF-7). Node selectors only.
	Lt
)

// Operators is a set of operators. A requirement constructor takes the set its caller accepts,
// so label selectors reject Gt and Lt (SEL-6) while node selectors accept them (AFF-7).
type Operators uint8

const (
	// LabelSelectorOperators are the operators of a metav1.LabelSelector (SEL-5, SEL-6).
	LabelSelectorOperators = Operators(In | NotIn | Exists | DoesNotExist)
	// NodeSelectorOperators are the operators of a v1.NodeSelectorRequirement in
	// matchExpressions (AFF-6, AFF-7).
	NodeSelectorOperators = LabelSelectorOperators | Operators(Gt|Lt)
)

var operatorNames = [...]struct {
	op   Operator
	name string
}{
	{In, "In"},
	{NotIn, "NotIn"},
	{Exists, "Exists"},
	{DoesNotExist, "DoesNotExist"},
	{Gt, "Gt"},
	{Lt, "Lt"},
}

// String returns the API spelling of o ("In", "Gt", ...), or "Operator(n)" for a value that is
// not a single known operator.
func (o Operator) String() string {
	for _, n := range operatorNames {
		if n.op == o {
			return n.name
		}
	}
	return "Operator(" + strconv.Itoa(int(o)) + ")"
}

// parseOperator returns the operator spelled exactly s (case-sensitive, SEL-6) and whether s
// names one.
func parseOperator(s string) (Operator, bool) {
	for _, n := range operatorNames {
		if n.name == s {
			return n.op, true
		}
	}
	return 0, false
}

// has reports whether op is in the set.
func (s Operators) has(op Operator) bool {
	return op != 0 && Operators(op)&s == Operators(op)
}

// names returns the API spellings of the operators in s, in declaration order.
func (s Operators) names() []string {
	var out []string
	for _, n := range operatorNames {
		if s.has(n.op) {
			out = append(out, n.name)
		}
	}
	return out
}

// Requirement is one compiled selector requirement: a key, an operator and its values, as in
// a metav1.LabelSelectorRequirement, a matchLabels entry (In with one value) or a
// v1.NodeSelectorRequirement in matchExpressions. It is immutable and safe for concurrent
// use. The zero Requirement matches nothing.
type Requirement struct {
	key    string
	op     Operator
	values []string
	// bound is the integer of a Gt or Lt requirement, parsed once by NewRequirement (AFF-7)
	// instead of on every match as upstream's labels.Requirement does.
	bound int64
	// sigs holds, for an In or NotIn requirement with two values of one length, the
	// signature of each value (see signature): a value can equal values[i] only if its
	// signature is sigs[i], so the match compares bytes only for the candidates whose length
	// and last byte agree. Nil when the lengths alone tell the values apart: the plain scan
	// compares lengths first.
	sigs []uint32
}

// newSetRequirement builds an In or NotIn requirement of values, which it keeps.
func newSetRequirement(key string, op Operator, values []string) Requirement {
	r := Requirement{key: key, op: op, values: values}
	if sharesLength(values) {
		r.sigs = make([]uint32, len(values))
		for i, v := range values {
			r.sigs[i] = signature(v)
		}
	}
	return r
}

// sharesLength reports whether two of values have the same length.
func sharesLength(values []string) bool {
	for i := range values {
		for j := range i {
			if len(values[i]) == len(values[j]) {
				return true
			}
		}
	}
	return false
}

// signature packs the length and the last byte of s: equal strings have equal signatures,
// and values of one set (zones, instance types) mostly differ in one or the other. The empty
// string's signature is 0, which no other string has: the length is capped at 0xffffff, so
// that no length wraps to 0. (Values that long never get here: NewRequirement rejects values
// that are not valid label values, at most 63 bytes.)
func signature(s string) uint32 {
	if s == "" {
		return 0
	}
	return uint32(min(len(s), 0xffffff))<<8 | uint32(s[len(s)-1])
}

// has reports whether value is one of r.values, exactly.
func (r *Requirement) has(value string) bool {
	if r.sigs == nil {
		for _, v := range r.values {
			if v == value {
				return true
			}
		}
		return false
	}
	sig := signature(value)
	for i, g := range r.sigs {
		if g == sig && r.values[i] == value {
			return true
		}
	}
	return false
}

// NewRequirement validates and compiles one requirement. operator is the API spelling, as a
// string or as the API's own type (metav1.LabelSelectorOperator, v1.NodeSelectorOperator),
// which an Invalid operator error then carries as its value, as API validation does; it must
// name an operator in allowed. The checks are those of apimachinery's labels.NewRequirement
// (SEL-7, AFF-7, AFF-8): the key must be a label key (SEL-8); In and NotIn need at least one
// value; Exists and DoesNotExist take none; Gt and Lt take exactly one value that parses as a
// base-10 int64; every value must be a label value (SEL-9). Errors are reported under fldPath
// with the paths and types of API validation (VAL-4, VAL-18): Invalid .operator, Required or
// Forbidden .values, Invalid .key, Invalid .values[j]. values is copied, never kept.
func NewRequirement[O ~string](key string, operator O, values []string, allowed Operators, fldPath *field.Path) (Requirement, field.ErrorList) {
	var errs field.ErrorList
	var bound int64 // the Gt or Lt operand
	op, known := parseOperator(string(operator))
	valuesPath := fldPath.Child("values")
	switch {
	case !known || !allowed.has(op):
		errs = append(errs, field.Invalid(fldPath.Child("operator"), operator,
			"not a valid selector operator, must be one of "+strings.Join(allowed.names(), ", ")))
	case op == In || op == NotIn:
		if len(values) == 0 {
			errs = append(errs, field.Required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case op == Exists || op == DoesNotExist:
		if len(values) > 0 {
			errs = append(errs, field.Forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case op == Gt || op == Lt:
		if len(values) != 1 {
			errs = append(errs, field.Required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
		for j, v := range values {
			n, ok := decimal.ParseInt64(v)
			if !ok {
				errs = append(errs, field.Invalid(valuesPath.Index(j), v, "for 'Gt', 'Lt' operators, the value must be a base-10 integer"))
			}
			bound = n // with no error there is exactly one value
		}
	}
	for _, msg := range content.IsLabelKey(key) {
		errs = append(errs, field.Invalid(fldPath.Child("key"), key, msg).WithOrigin("format=k8s-label-key"))
	}
	for j, v := range values {
		if plainLabelValue(v) {
			continue
		}
		for _, msg := range content.IsLabelValue(v) {
			errs = append(errs, field.Invalid(valuesPath.Index(j), v, msg))
		}
	}
	if len(errs) > 0 {
		return Requirement{}, errs
	}
	if op == In || op == NotIn {
		return newSetRequirement(key, op, slices.Clone(values)), nil
	}
	return Requirement{key: key, op: op, values: slices.Clone(values), bound: bound}, nil
}

// plainLabelValue reports whether v is a label value by the test of apimachinery's
// content.IsLabelValue (at most 63 bytes of (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?)
// without its regular expression, which took 1.8 µs a value: a template of 4,000 NotIn
// requirements of 50 values each spent most of its 100 ms compile there (issue 25, F5).
// A false answer is only a cue to ask content.IsLabelValue, for its messages; the
// differential test TestPlainLabelValueAgreesWithIsLabelValue holds the two together.
func plainLabelValue(v string) bool {
	if len(v) > 63 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '-' || c == '_' || c == '.') && i > 0 && i < len(v)-1:
		default:
			return false
		}
	}
	return true
}

// Key returns the label key the requirement tests.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator (zero for the zero Requirement).
func (r Requirement) Operator() Operator { return r.op }

// Values returns a copy of the requirement's values, in the order given.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Bound returns the integer a Gt or Lt requirement compares label values with, as
// [NewRequirement] parsed it (AFF-7: "016" is 16); ok is false for the other
// operators. Code that reasons about the requirement reads the bound here rather than
// parsing Values again.
func (r Requirement) Bound() (n int64, ok bool) { return r.bound, r.op == Gt || r.op == Lt }

// Matches reports whether labels satisfy the requirement (SEL-4, SEL-5, AFF-6, AFF-7). A nil
// map is an empty label set. It allocates nothing. The pointer receiver saves copying the
// Requirement (about 80 bytes) on every call of a hot loop (measured: a five-requirement selector went
// from 71 to 53 ns per match).
func (r *Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	return r.matchesValue(v, ok)
}

// matchesValue reports whether a label whose value is value (meaningful only when present)
// satisfies the requirement. It allocates nothing.
func (r *Requirement) matchesValue(value string, present bool) bool {
	switch r.op {
	case In:
		return present && r.has(value)
	case NotIn:
		return !present || !r.has(value)
	case Exists:
		return present
	case DoesNotExist:
		return !present
	case Gt, Lt:
		if !present {
			return false
		}
		// Node label values are parsed as upstream does at match time: strconv.ParseInt
		// base 10, so "016" is 16 and "+5" is 5 (AFF-7). decimal.ParseInt64 does the same without
		// allocating the *strconv.NumError that ParseInt builds for every non-numeric label.
		n, ok := decimal.ParseInt64(value)
		if !ok {
			return false
		}
		if r.op == Gt {
			return n > r.bound
		}
		return n < r.bound
	default:
		return false
	}
}

// String renders the requirement in plain words, such as `zone In ["a", "b"]` or `gpu Exists`.
func (r Requirement) String() string { return labeltext.Requirement(r.key, r.op.String(), r.values) }
