package selector_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzCompile builds a selector with one matchLabels entry and two expressions, and a label
// set of two labels, from the fuzzer's strings. Properties: Compile never panics and never
// mutates its input; it fails exactly when metav1.LabelSelectorAsSelector fails; Matches
// agrees with labels.Selector.Matches; Explain agrees with Matches.
func FuzzCompile(f *testing.F) {
	type seed struct {
		isNil              bool
		mlKey, mlVal       string
		k1, op1, v1a, v1b  string
		n1                 uint8
		k2, op2, v2        string
		n2                 uint8
		lk1, lv1, lk2, lv2 string
	}
	seeds := []seed{
		// nil selector: matches nothing (SEL-1).
		{isNil: true, lk1: "app", lv1: "d"},
		// empty selector: matches everything (SEL-2).
		{n1: 255, n2: 255},
		// matchLabels and In, both satisfied (SEL-3, SEL-4, SEL-5).
		{mlKey: "app", mlVal: "d", k1: "zone", op1: "In", v1a: "a", n1: 1, n2: 255, lk1: "app", lv1: "d", lk2: "zone", lv2: "a"},
		// matchLabels with an empty value needs the key present and empty (SEL-4).
		{mlKey: "gpu", mlVal: "", n1: 255, n2: 255, lk1: "gpu", lv1: ""},
		// NotIn is satisfied by an absent key (SEL-5).
		{k1: "zone", op1: "NotIn", v1a: "a", n1: 1, n2: 255},
		// Exists and DoesNotExist on the same key never both hold (SEL-3, SEL-5).
		{k1: "x", op1: "Exists", k2: "x", op2: "DoesNotExist", lk1: "x", lv1: "1"},
		// Gt is not a label selector operator (SEL-6).
		{k1: "cpus", op1: "Gt", v1a: "8", n1: 1, n2: 255, lk1: "cpus", lv1: "16"},
		// operators are case-sensitive (SEL-6).
		{k1: "zone", op1: "in", v1a: "a", n1: 1, n2: 255},
		// In without values is an error (SEL-7).
		{k1: "zone", op1: "In", n1: 0, n2: 255},
		// Exists with a value is an error (SEL-7).
		{k1: "zone", op1: "Exists", v1a: "a", n1: 1, n2: 255},
		// prefixed key is valid; empty prefix is not (SEL-8).
		{k1: "example.com/gpu", op1: "Exists", k2: "/gpu", op2: "Exists"},
		// upper-case prefix and a second slash are invalid keys (SEL-8).
		{mlKey: "Example.com/a", mlVal: "x", k1: "a/b/c", op1: "Exists", n2: 255},
		// invalid values in matchLabels and in values (SEL-9).
		{mlKey: "app", mlVal: "-d", k1: "zone", op1: "In", v1a: "a b", n1: 1, n2: 255},
		// a 64-character value is too long (SEL-9).
		{k1: "zone", op1: "In", v1a: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", n1: 1, n2: 255},
		// labels are never validated at match time (SEL-10).
		{k1: "zone", op1: "NotIn", v1a: "a", n1: 1, n2: 255, lk1: "zone", lv1: "not valid!", lk2: "/bad", lv2: "-"},
		// duplicate values and the same key twice (SEL-3, SEL-5).
		{k1: "zone", op1: "In", v1a: "a", v1b: "a", n1: 2, k2: "zone", op2: "NotIn", v2: "b", n2: 1, lk1: "zone", lv1: "a"},
	}
	for _, s := range seeds {
		f.Add(s.isNil, s.mlKey, s.mlVal, s.k1, s.op1, s.v1a, s.v1b, s.n1, s.k2, s.op2, s.v2, s.n2, s.lk1, s.lv1, s.lk2, s.lv2)
	}
	f.Fuzz(func(t *testing.T, isNil bool, mlKey, mlVal, k1, op1, v1a, v1b string, n1 uint8, k2, op2, v2 string, n2 uint8, lk1, lv1, lk2, lv2 string) {
		var ls *metav1.LabelSelector
		if !isNil {
			ls = &metav1.LabelSelector{}
			if mlKey != "" || mlVal != "" {
				ls.MatchLabels = map[string]string{mlKey: mlVal}
			}
			// n == 255 leaves the expression out; otherwise it carries n%3 values.
			if n1 != 255 {
				ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
					Key: k1, Operator: metav1.LabelSelectorOperator(op1), Values: []string{v1a, v1b, v1a}[:n1%3],
				})
			}
			if n2 != 255 {
				ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
					Key: k2, Operator: metav1.LabelSelectorOperator(op2), Values: []string{v2, v2}[:n2%3%2],
				})
			}
		}
		var lbls map[string]string
		if lk1 != "" || lk2 != "" {
			lbls = map[string]string{lk1: lv1, lk2: lv2}
		}
		sets := []map[string]string{lbls, nil, {lk1: lv1}}
		if msg, _, _ := checkAgainstUpstream(ls, sets); msg != "" {
			t.Fatalf("selector %v: %s", ls, msg)
		}
	})
}
