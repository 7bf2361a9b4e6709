package selector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestOperators(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"} {
		op, ok := parseOperator(name)
		require.True(t, ok, name)
		require.Equal(t, name, op.String())
		require.True(t, NodeSelectorOperators.has(op), name)
		require.Equal(t, name != "Gt" && name != "Lt", LabelSelectorOperators.has(op), name)
	}
	for _, name := range []string{"in", "", "NOTIN", "exists", "gt", " In"} {
		_, ok := parseOperator(name)
		require.False(t, ok, "SEL-6 operators are exact and case-sensitive: %q", name)
	}
	require.False(t, NodeSelectorOperators.has(0), "the zero Operator is in no set")
	require.Equal(t, "Operator(3)", Operator(3).String())
}

// TestRequirementsAreInKeyOrder checks the compiled order (SEL-12): matchLabels entries become
// In with one value and sort with the expressions by key.
func TestRequirementsAreInKeyOrder(t *testing.T) {
	t.Parallel()
	s, errs := Compile(&metav1.LabelSelector{
		MatchLabels: map[string]string{"b": "1", "a": "2"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "c", Operator: metav1.LabelSelectorOpExists},
			{Key: "a", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"3"}},
		},
	}, nil)
	require.Empty(t, errs)
	var got []string
	for _, r := range s.reqs {
		got = append(got, r.String())
	}
	want := []string{`a In ["2"]`, `a NotIn ["3"]`, `b In ["1"]`, `c Exists`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compiled requirements mismatch (-want +got):\n%s", diff)
	}
}
