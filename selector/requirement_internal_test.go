package selector

import (
	"math/rand/v2"
	"strconv"
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

// TestParseInt64MatchesStrconv holds parseInt64 to strconv.ParseInt(s, 10, 64), which
// upstream's labels.Requirement uses for Gt and Lt (AFF-7).
func TestParseInt64MatchesStrconv(t *testing.T) {
	t.Parallel()
	fixed := []string{
		"", "+", "-", "0", "-0", "+0", "00", "016", "8", "+5", "-5", "--5", "+-5", "5-", " 5", "5 ",
		"1_000", "0x10", "1e3", "abc", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "000000000000000000000000009",
		"-000000000000000000009223372036854775808", "١٢", "12a",
	}
	check := func(s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt64(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Fatalf("parseInt64(%q) = %d, %v; strconv.ParseInt = %d, %v", s, got, ok, want, err)
		}
	}
	for _, s := range fixed {
		check(s)
	}
	const alphabet = "0123456789+-_ x9"
	r := rand.New(rand.NewPCG(7, 11))
	for range 100_000 {
		b := make([]byte, r.IntN(22))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
		check(strconv.FormatInt(int64(r.Uint64()), 10))
	}
}
