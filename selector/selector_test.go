package selector_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

// expr builds a metav1.LabelSelectorRequirement.
func expr(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestSelectorMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		sel    *metav1.LabelSelector
		labels map[string]string
		want   bool
	}{
		{name: "SEL-1 nil selector matches nothing, not even an empty label set", sel: nil, labels: nil, want: false},
		{name: "SEL-1 nil selector matches nothing, not even matching labels", sel: nil, labels: map[string]string{"app": "d"}, want: false},
		{name: "SEL-2 empty selector matches an absent label set", sel: &metav1.LabelSelector{}, labels: nil, want: true},
		{name: "SEL-2 empty selector matches any label set", sel: &metav1.LabelSelector{}, labels: map[string]string{"x": "y"}, want: true},
		{name: "SEL-2 empty matchLabels map counts as empty", sel: &metav1.LabelSelector{MatchLabels: map[string]string{}}, labels: nil, want: true},
		{name: "SEL-2 empty matchExpressions slice counts as empty", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{}}, labels: map[string]string{"a": "b"}, want: true},
		{name: "SEL-3 matchLabels and matchExpressions are ANDed: both hold", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}, MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpIn, "web")}}, labels: map[string]string{"app": "d", "tier": "web"}, want: true},
		{name: "SEL-3 matchLabels and matchExpressions are ANDed: expression fails", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}, MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpIn, "web")}}, labels: map[string]string{"app": "d", "tier": "db"}, want: false},
		{name: "SEL-3 the same key in both lists must satisfy both", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}, MatchExpressions: []metav1.LabelSelectorRequirement{expr("app", metav1.LabelSelectorOpNotIn, "d")}}, labels: map[string]string{"app": "d"}, want: false},
		{name: "SEL-3 several expressions on one key are all required", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("v", metav1.LabelSelectorOpIn, "1", "2"), expr("v", metav1.LabelSelectorOpNotIn, "2")}}, labels: map[string]string{"v": "1"}, want: true},
		{name: "SEL-4 matchLabels needs the exact value", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}, labels: map[string]string{"app": "D"}, want: false},
		{name: "SEL-4 matchLabels empty value needs the key present and empty", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"gpu": ""}}, labels: map[string]string{"gpu": ""}, want: true},
		{name: "SEL-4 matchLabels empty value fails on an absent key", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"gpu": ""}}, labels: map[string]string{}, want: false},
		{name: "SEL-5 In holds for a listed value", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "a", "b")}}, labels: map[string]string{"zone": "b"}, want: true},
		{name: "SEL-5 In fails on an absent key", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "a")}}, labels: nil, want: false},
		{name: "SEL-5 NotIn holds on an absent key", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpNotIn, "a")}}, labels: nil, want: true},
		{name: "SEL-5 NotIn fails for a listed value", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpNotIn, "a", "b")}}, labels: map[string]string{"zone": "a"}, want: false},
		{name: "SEL-5 Exists holds for an empty value", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("gpu", metav1.LabelSelectorOpExists)}}, labels: map[string]string{"gpu": ""}, want: true},
		{name: "SEL-5 DoesNotExist fails when the key is present", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("gpu", metav1.LabelSelectorOpDoesNotExist)}}, labels: map[string]string{"gpu": "x"}, want: false},
		{name: "SEL-5 duplicate values are harmless", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "a", "a")}}, labels: map[string]string{"zone": "a"}, want: true},
		{name: "SEL-11 pod labels are matched as a plain map", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}, labels: map[string]string{"app": "d", "pod-template-hash": "x"}, want: true},
		{name: "SEL-11 ControllerRevision labels are matched the same way", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}, labels: map[string]string{"app": "d", "controller-revision-hash": "5d8f"}, want: true},
		{name: "SEL-10 labels are never validated at match time", sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpNotIn, "a")}}, labels: map[string]string{"zone": "not a valid label value!", "/bad key": "x"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.sel.DeepCopy()
			s, errs := selector.Compile(tt.sel, field.NewPath("spec", "selector"))
			require.Empty(t, errs)
			require.Equal(t, tt.want, s.Matches(tt.labels))
			require.Equal(t, tt.want, s.Explain(tt.labels).Matched)
			if diff := cmp.Diff(before, tt.sel); diff != "" {
				t.Errorf("Compile() mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	p := field.NewPath("spec", "selector")
	me := p.Child("matchExpressions")
	tests := []struct {
		name     string
		sel      *metav1.LabelSelector
		wantErrs field.ErrorList
	}{
		{
			name:     "SEL-6 Gt is not a label selector operator (VAL-4 Invalid operator)",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("cpus", "Gt", "8")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("operator"), metav1.LabelSelectorOperator("Gt"), "")},
		},
		{
			name:     "SEL-6 Lt is not a label selector operator",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("cpus", "Lt", "8")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("operator"), metav1.LabelSelectorOperator("Lt"), "")},
		},
		{
			name:     "SEL-6 operators are case-sensitive",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("a", metav1.LabelSelectorOpIn, "x"), expr("zone", "in", "a")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(1).Child("operator"), metav1.LabelSelectorOperator("in"), "")},
		},
		{
			name:     "SEL-6 the empty operator is invalid",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", "")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("operator"), metav1.LabelSelectorOperator(""), "")},
		},
		{
			name:     "SEL-7 In without values is Required at values (VAL-4)",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("a", metav1.LabelSelectorOpExists), expr("zone", metav1.LabelSelectorOpIn)}},
			wantErrs: field.ErrorList{field.Required(me.Index(1).Child("values"), "")},
		},
		{
			name:     "SEL-7 NotIn without values is Required at values",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpNotIn)}},
			wantErrs: field.ErrorList{field.Required(me.Index(0).Child("values"), "")},
		},
		{
			name:     "SEL-7 Exists with a value is Forbidden at values",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpExists, "a")}},
			wantErrs: field.ErrorList{field.Forbidden(me.Index(0).Child("values"), "")},
		},
		{
			name:     "SEL-7 DoesNotExist with an empty value is still Forbidden",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpDoesNotExist, "")}},
			wantErrs: field.ErrorList{field.Forbidden(me.Index(0).Child("values"), "")},
		},
		{
			name:     "SEL-8 an empty prefix makes the expression key Invalid",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("/x", metav1.LabelSelectorOpExists)}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("key"), "/x", "")},
		},
		{
			name:     "SEL-8 an upper-case prefix is Invalid",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("Example.com/x", metav1.LabelSelectorOpExists)}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("key"), "Example.com/x", "")},
		},
		{
			name:     "SEL-8 a name starting with a dash is Invalid",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("-x", metav1.LabelSelectorOpIn, "a")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("key"), "-x", "")},
		},
		{
			name: "SEL-8 the empty key is Invalid (two messages, one path)",
			sel:  &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("", metav1.LabelSelectorOpExists)}},
			wantErrs: field.ErrorList{
				field.Invalid(me.Index(0).Child("key"), "", ""),
				field.Invalid(me.Index(0).Child("key"), "", ""),
			},
		},
		{
			name:     "SEL-9 a bad value is Invalid at values[j] (VAL-4)",
			sel:      &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "a", "b c")}},
			wantErrs: field.ErrorList{field.Invalid(me.Index(0).Child("values").Index(1), "b c", "")},
		},
		{
			name:     "SEL-7 a bad matchLabels key is Invalid at matchLabels",
			sel:      &metav1.LabelSelector{MatchLabels: map[string]string{"a/b/c": "x"}},
			wantErrs: field.ErrorList{field.Invalid(p.Child("matchLabels"), "a/b/c", "")},
		},
		{
			name:     "SEL-7 a bad matchLabels value is Invalid at matchLabels",
			sel:      &metav1.LabelSelector{MatchLabels: map[string]string{"app": "-d"}},
			wantErrs: field.ErrorList{field.Invalid(p.Child("matchLabels"), "-d", "")},
		},
		{
			name: "VAL-23 every problem is reported, not only the first",
			sel: &metav1.LabelSelector{
				MatchLabels:      map[string]string{"ok": "-bad"},
				MatchExpressions: []metav1.LabelSelectorRequirement{expr("-k", "Gt", "1"), expr("z", metav1.LabelSelectorOpIn)},
			},
			wantErrs: field.ErrorList{
				field.Invalid(p.Child("matchLabels"), "-bad", ""),
				field.Invalid(me.Index(0).Child("operator"), metav1.LabelSelectorOperator("Gt"), ""),
				field.Invalid(me.Index(0).Child("key"), "-k", ""),
				field.Required(me.Index(1).Child("values"), ""),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.sel.DeepCopy()
			s, errs := selector.Compile(tt.sel, p)
			require.Nil(t, s)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			_, upstreamErr := metav1.LabelSelectorAsSelector(tt.sel)
			require.Error(t, upstreamErr, "upstream must reject it too (SEL-7)")
			if diff := cmp.Diff(before, tt.sel); diff != "" {
				t.Errorf("Compile() mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCompileNilPath(t *testing.T) {
	t.Parallel()
	_, errs := selector.Compile(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("a", metav1.LabelSelectorOpIn)}}, nil)
	field.ErrorMatcher{}.ByType().ByField().Test(t, field.ErrorList{field.Required(field.NewPath("matchExpressions").Index(0).Child("values"), "")}, errs)
}

func TestSelectorEmptyAndNothing(t *testing.T) {
	t.Parallel()
	some := map[string]string{"a": "1"}
	nothing, errs := selector.Compile(nil, nil)
	require.Empty(t, errs)
	require.False(t, nothing.Matches(nil), "SEL-1")
	require.False(t, nothing.Matches(some), "SEL-1")
	everything, errs := selector.Compile(&metav1.LabelSelector{MatchLabels: map[string]string{}}, nil)
	require.Empty(t, errs)
	require.True(t, everything.Matches(nil), "SEL-2")
	require.True(t, everything.Matches(some), "SEL-2")
	var nilSel *selector.Selector
	require.False(t, nilSel.Matches(nil), "a nil *Selector matches nothing, like SEL-1")
	require.False(t, nilSel.Matches(some), "a nil *Selector matches nothing, like SEL-1")
}
