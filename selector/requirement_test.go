package selector_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

func TestRequirementMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key, op string
		values  []string
		labels  map[string]string
		want    bool
	}{
		{name: "AFF-7 Gt holds for a larger node value", key: "cpus", op: "Gt", values: []string{"8"}, labels: map[string]string{"cpus": "16"}, want: true},
		{name: "AFF-7 Gt fails on equality", key: "cpus", op: "Gt", values: []string{"8"}, labels: map[string]string{"cpus": "8"}, want: false},
		{name: "AFF-7 Gt reads a node value with leading zeros as base 10", key: "cpus", op: "Gt", values: []string{"8"}, labels: map[string]string{"cpus": "016"}, want: true},
		{name: "AFF-7 Gt fails on a non-numeric node value", key: "cpus", op: "Gt", values: []string{"8"}, labels: map[string]string{"cpus": "abc"}, want: false},
		{name: "AFF-7 Gt fails on an absent label", key: "cpus", op: "Gt", values: []string{"8"}, labels: nil, want: false},
		{name: "AFF-7 Gt accepts a signed node value as strconv does", key: "cpus", op: "Gt", values: []string{"8"}, labels: map[string]string{"cpus": "+9"}, want: true},
		{name: "AFF-7 Lt accepts a negative node value", key: "cpus", op: "Lt", values: []string{"0"}, labels: map[string]string{"cpus": "-1"}, want: true},
		{name: "AFF-7 Lt fails on equality", key: "cpus", op: "Lt", values: []string{"8"}, labels: map[string]string{"cpus": "08"}, want: false},
		{name: "AFF-7 Lt fails on a node value beyond int64", key: "cpus", op: "Lt", values: []string{"8"}, labels: map[string]string{"cpus": "-9223372036854775809"}, want: false},
		{name: "AFF-7 Gt reads the requirement value with leading zeros", key: "cpus", op: "Gt", values: []string{"007"}, labels: map[string]string{"cpus": "8"}, want: true},
		{name: "AFF-7 Lt bound at the largest int64", key: "n", op: "Lt", values: []string{"9223372036854775807"}, labels: map[string]string{"n": "9223372036854775806"}, want: true},
		{name: "AFF-6 In against node labels as SEL-5", key: "zone", op: "In", values: []string{"a"}, labels: map[string]string{"zone": "a"}, want: true},
		{name: "AFF-6 NotIn holds on an absent label", key: "zone", op: "NotIn", values: []string{"a"}, labels: nil, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, errs := selector.NewRequirement(tt.key, tt.op, tt.values, selector.NodeSelectorOperators, nil)
			require.Empty(t, errs)
			require.Equal(t, tt.want, r.Matches(tt.labels))
		})
	}
}

func TestNewRequirementErrors(t *testing.T) {
	t.Parallel()
	p := field.NewPath("term").Child("matchExpressions").Index(2)
	tests := []struct {
		name     string
		key, op  string
		values   []string
		allowed  selector.Operators
		wantErrs field.ErrorList
	}{
		{name: "SEL-6 Gt is rejected by the label selector operator set", key: "cpus", op: "Gt", values: []string{"8"}, allowed: selector.LabelSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("operator"), "Gt", "")}},
		{name: "AFF-7 Gt is accepted by the node selector operator set", key: "cpus", op: "Gt", values: []string{"8"}, allowed: selector.NodeSelectorOperators},
		{name: "AFF-7 Gt with two values is an error", key: "cpus", op: "Gt", values: []string{"1", "2"}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Required(p.Child("values"), "")}},
		{name: "AFF-7 Lt with no value is an error", key: "cpus", op: "Lt", allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Required(p.Child("values"), "")}},
		{name: "AFF-7 Lt with a non-integer value is an error (Surprise 13)", key: "cpus", op: "Lt", values: []string{"x"}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("values").Index(0), "x", "")}},
		{name: "AFF-7 a negative bound parses but is not a label value", key: "cpus", op: "Gt", values: []string{"-1"}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("values").Index(0), "-1", "")}},
		{name: "AFF-7 a bound beyond int64 is not an integer", key: "cpus", op: "Gt", values: []string{"9223372036854775808"}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("values").Index(0), "9223372036854775808", "")}},
		{name: "AFF-7 an empty bound is neither an integer nor rejected as a label value", key: "cpus", op: "Gt", values: []string{""}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("values").Index(0), "", "")}},
		{name: "AFF-8 an unknown operator is Invalid at operator", key: "cpus", op: "Ge", values: []string{"1"}, allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Invalid(p.Child("operator"), "Ge", "")}},
		{name: "SEL-8 a bad key is reported with the operator problem", key: "a b", op: "In", allowed: selector.NodeSelectorOperators,
			wantErrs: field.ErrorList{field.Required(p.Child("values"), ""), field.Invalid(p.Child("key"), "a b", "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			values := append([]string(nil), tt.values...)
			r, errs := selector.NewRequirement(tt.key, tt.op, values, tt.allowed, p)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			if len(errs) > 0 {
				require.Equal(t, selector.Requirement{}, r, "a failed requirement is the zero Requirement")
				require.False(t, r.Matches(map[string]string{tt.key: "1"}), "the zero Requirement matches nothing")
			}
			require.Equal(t, tt.values, []string(values), "NewRequirement must not mutate values")
		})
	}
}

func TestRequirementKeepsACopyOfValues(t *testing.T) {
	t.Parallel()
	values := []string{"a"}
	r, errs := selector.NewRequirement("zone", "In", values, selector.LabelSelectorOperators, nil)
	require.Empty(t, errs)
	values[0] = "b"
	require.True(t, r.Matches(map[string]string{"zone": "a"}), "the caller's slice is not kept")
	got := r.Values()
	got[0] = "c"
	require.Equal(t, []string{"a"}, r.Values(), "Values returns a copy")
}

// TestRequirementBound: a Gt or Lt requirement's bound is the integer NewRequirement parsed,
// as Matches compares with it (AFF-7); the other operators have none.
func TestRequirementBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		op        string
		values    []string
		wantBound int64
		wantOK    bool
	}{
		{"AFF-7: Gt is its one value as a number", "Gt", []string{"5"}, 5, true},
		{"AFF-7: Lt with leading zeros is the number", "Lt", []string{"016"}, 16, true},
		{"AFF-7: Gt at the int64 maximum", "Gt", []string{"9223372036854775807"}, 9223372036854775807, true},
		{"AFF-6: In has no bound", "In", []string{"5"}, 0, false},
		{"AFF-6: Exists has no bound", "Exists", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, errs := selector.NewRequirement("rank", tt.op, tt.values, selector.NodeSelectorOperators, nil)
			require.Empty(t, errs)
			n, ok := r.Bound()
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantBound, n)
		})
	}
}

// TestSetRequirementIsExact holds In and NotIn (SEL-5, AFF-6) to a plain scan of their values
// for every value of up to two bytes over a small alphabet, against value sets whose members
// share lengths and last bytes, so that the signature prefilter must fall back to comparing
// bytes and must never admit a near miss.
func TestSetRequirementIsExact(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "b", "1"}
	probes := []string{""}
	for _, x := range alphabet {
		probes = append(probes, x)
		for _, y := range alphabet {
			probes = append(probes, x+y)
		}
	}
	sets := [][]string{
		{"a"}, {""}, {"", "a"}, {"a", "b"}, {"ab", "bb", "1b"}, {"ba", "b", "a1", "11"},
		{"us-east-1a", "us-east-1b", "us-east-1c"}, {"aa", "aa"},
	}
	for _, values := range sets {
		for _, op := range []selector.Operator{selector.In, selector.NotIn} {
			r, errs := selector.NewRequirement("k", op.String(), values, selector.LabelSelectorOperators, nil)
			require.Empty(t, errs)
			for _, p := range probes {
				want := slices.Contains(values, p) == (op == selector.In)
				require.Equal(t, want, r.Matches(map[string]string{"k": p}), "%s %q against %q", op, values, p)
			}
			require.Equal(t, op == selector.NotIn, r.Matches(nil), "%s %q against an absent label", op, values)
		}
	}
}
