package selector_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

// Small alphabets, so that random cases collide often and reach the edges: empty strings,
// prefixed keys, invalid keys and values, numbers with leading zeros and signs.
var (
	genKeys = []string{
		"a", "b", "zone", "example.com/a", "example.com/b", "", "/a", "a/", "a/b/c", "Example.com/a",
		"-a", "a_b", "A", "metadata.name", "cpus",
	}
	genValues = []string{"", "a", "b", "A", "1", "016", "-1", "a b", "x-", "abc", "8"}
	genOps    = []metav1.LabelSelectorOperator{
		metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists,
		metav1.LabelSelectorOpDoesNotExist, "Gt", "Lt", "in", "",
	}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomSelector draws a selector; about one in ten is nil and one in ten has no requirements.
func randomSelector(r *rand.Rand) *metav1.LabelSelector {
	switch r.IntN(10) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	}
	ls := &metav1.LabelSelector{}
	if n := r.IntN(4); n > 0 || r.IntN(2) == 0 {
		ls.MatchLabels = map[string]string{}
		for range n {
			ls.MatchLabels[pick(r, genKeys)] = pick(r, genValues)
		}
	}
	for range r.IntN(4) {
		e := metav1.LabelSelectorRequirement{Key: pick(r, genKeys), Operator: pick(r, genOps)}
		for range r.IntN(4) {
			e.Values = append(e.Values, pick(r, genValues))
		}
		ls.MatchExpressions = append(ls.MatchExpressions, e)
	}
	// Most random selectors are invalid; bias some towards validity so matching is exercised.
	if r.IntN(2) == 0 {
		sanitize(ls)
	}
	return ls
}

// sanitize turns ls into a valid selector in place, keeping its shape.
func sanitize(ls *metav1.LabelSelector) {
	valid := func(s string) bool { return s == "a" || s == "b" || s == "zone" || s == "example.com/a" }
	for k, v := range ls.MatchLabels {
		if !valid(k) || (v != "" && !valid(v)) {
			delete(ls.MatchLabels, k)
		}
	}
	for i := range ls.MatchExpressions {
		e := &ls.MatchExpressions[i]
		if !valid(e.Key) {
			e.Key = "a"
		}
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			e.Values = slices.DeleteFunc(e.Values, func(v string) bool { return v != "" && !valid(v) })
			if len(e.Values) == 0 {
				e.Values = []string{"a"}
			}
		default:
			e.Operator = metav1.LabelSelectorOpExists
			e.Values = nil
		}
	}
}

// randomLabels draws a label set from the same alphabets; sometimes nil.
func randomLabels(r *rand.Rand) map[string]string {
	if r.IntN(8) == 0 {
		return nil
	}
	m := map[string]string{}
	for range r.IntN(5) {
		m[pick(r, genKeys)] = pick(r, genValues)
	}
	return m
}

// checkAgainstUpstream compares Compile with apimachinery on one selector, then Matches and
// Explain on each label set, and returns a description of the first disagreement, whether the
// selector is valid and how many label sets it matched.
func checkAgainstUpstream(ls *metav1.LabelSelector, labelSets []map[string]string) (msg string, valid bool, matched int) {
	before := ls.DeepCopy()
	s, errs := selector.Compile(ls, field.NewPath("spec", "selector"))
	want, upErr := metav1.LabelSelectorAsSelector(ls)
	if (upErr != nil) != (len(errs) > 0) {
		return fmt.Sprintf("Compile errors %v, upstream error %v", errs, upErr), false, 0
	}
	if diff := cmp.Diff(before, ls); diff != "" {
		return "Compile mutated the selector:\n" + diff, false, 0
	}
	if upErr != nil {
		if s != nil {
			return "Compile returned a selector with errors", false, 0
		}
		return "", false, 0
	}
	for _, lbls := range labelSets {
		labelsBefore := maps.Clone(lbls)
		got := s.Matches(lbls)
		if w := want.Matches(labels.Set(lbls)); got != w {
			return fmt.Sprintf("labels %v: Matches = %v, upstream %v", lbls, got, w), true, matched
		}
		if got {
			matched++
		}
		if e := s.Explain(lbls); e.Matched != got {
			return fmt.Sprintf("labels %v: Explain().Matched = %v, Matches = %v (%s)", lbls, e.Matched, got, e), true, matched
		} else if !got && !e.Nothing && e.Failed.Matches(lbls) {
			return fmt.Sprintf("labels %v: Explain names a requirement that holds: %s", lbls, e), true, matched
		}
		if diff := cmp.Diff(labelsBefore, lbls); diff != "" {
			return "Matches mutated the labels:\n" + diff, true, matched
		}
	}
	return "", true, matched
}

// TestDifferentialLabelSelector compares 100,000 random cases (10,000 random selectors, each
// against 10 random label sets) with metav1.LabelSelectorAsSelector and
// labels.Selector.Matches: same errors-or-not (SEL-7), same verdicts (SEL-1..SEL-5), and
// Explain agrees with Matches.
func TestDifferentialLabelSelector(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var cases, valid, matched int
	for i := range 10_000 {
		ls := randomSelector(r)
		sets := make([]map[string]string, 10)
		for j := range sets {
			sets[j] = randomLabels(r)
		}
		msg, ok, m := checkAgainstUpstream(ls, sets)
		if msg != "" {
			t.Fatalf("selector %d %v: %s", i, ls, msg)
		}
		cases += len(sets)
		if ok {
			valid += len(sets)
			matched += m
		}
	}
	// The generator must exercise every outcome, or the comparison proves little.
	if cases < 100_000 || valid < 20_000 || valid > 90_000 || matched < 5_000 || valid-matched < 5_000 {
		t.Fatalf("unbalanced generator: %d valid, %d matched of %d cases", valid, matched, cases)
	}
}

// TestCompileErrorsMatchValidation holds Compile's errors to metav1 validation
// (ValidateLabelSelector), whose paths and types VAL-4 documents: the same multiset of
// (type, field, value), on 10,000 random selectors.
func TestCompileErrorsMatchValidation(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	p := field.NewPath("spec", "selector")
	for i := range 10_000 {
		ls := randomSelector(r)
		_, errs := selector.Compile(ls, p)
		want := metav1validation.ValidateLabelSelector(ls, metav1validation.LabelSelectorValidationOptions{}, p)
		if diff := cmp.Diff(errorKeys(want), errorKeys(errs)); diff != "" {
			t.Fatalf("case %d: selector %v: errors differ from ValidateLabelSelector (-want +got):\n%s", i, ls, diff)
		}
	}
}

// errorKeys renders each error's type, field and value (with the value's Go type), sorted.
func errorKeys(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s %s %T %#v", e.Type, e.Field, e.BadValue, e.BadValue))
	}
	slices.Sort(out)
	return out
}
