package selector

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
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

// TestPlainLabelValueAgreesWithIsLabelValue: the fast label-value test of NewRequirement says
// yes only where apimachinery's content.IsLabelValue finds nothing wrong (SEL-9).
func TestPlainLabelValueAgreesWithIsLabelValue(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 63)
	for _, v := range []string{"", "a", "-", "_", ".", "a-", "-a", "a.b", "a_b-c.d", "A9", "a b", "a/b",
		"é", "a\x00b", long, long + "b", "a..b", "0", "a:b"} {
		require.Equal(t, len(content.IsLabelValue(v)) == 0, plainLabelValue(v), "%q", v)
	}
}

// FuzzPlainLabelValue: on any string the fast label-value test agrees with content.IsLabelValue.
func FuzzPlainLabelValue(f *testing.F) {
	f.Add("")                      // empty is a label value
	f.Add("v1234")                 // alphanumerics only
	f.Add("a-b_c.d")               // inner punctuation
	f.Add("-a")                    // punctuation first
	f.Add("a.")                    // punctuation last
	f.Add("ä")                     // not ASCII
	f.Add(strings.Repeat("x", 64)) // one byte too long
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := plainLabelValue(v), len(content.IsLabelValue(v)) == 0; got != want {
			t.Fatalf("plainLabelValue(%q) = %v, content.IsLabelValue says %v", v, got, want)
		}
	})
}
