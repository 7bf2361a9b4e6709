package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func del(name, node string, r daemonset.Reason) daemonset.Deletion {
	return daemonset.Deletion{Namespace: "ns", Name: name, Node: node, Reason: r}
}

func delGroup(node string, parts ...actionPart) actionGroup {
	return actionGroup{Node: node, Parts: parts}
}

func dels(ds ...daemonset.Deletion) actionPart { return actionPart{Deletes: ds} }

// TestVerifySelection checks the prefix rules of DIFF-10 with the classes, groups and parts of
// the choice sets (daemonset.Planner.Orders): which selections of a list some order of the
// controller could submit.
func TestVerifySelection(t *testing.T) {
	// Node a: two controlled Succeeded pods (one part, any order) then a duplicate (fixed);
	// node b: one Failed pod of two (DIFF-17); DIFF-8 class after both.
	base := []actionClass{
		{Take: 2, Groups: []actionGroup{
			delGroup("a", dels(del("a1", "a", daemonset.ReasonSucceededPod), del("a2", "a", daemonset.ReasonSucceededPod)),
				dels(del("a3", "a", daemonset.ReasonDuplicatePod))),
			delGroup("b", actionPart{OneOf: []daemonset.Deletion{del("b1", "b", daemonset.ReasonFailedPod), del("b2", "b", daemonset.ReasonFailedPod)}}),
		}},
		{Take: 1, Groups: []actionGroup{delGroup("gone", dels(del("m1", "gone", daemonset.ReasonUnscheduledOnMissingNode)))}},
	}
	two := []actionClass{{Take: 2, Groups: []actionGroup{
		delGroup("a", dels(del("a1", "a", daemonset.ReasonNodeNotEligible), del("a2", "a", daemonset.ReasonNodeNotEligible))),
		delGroup("d", dels(del("d1", "d", daemonset.ReasonNodeNotEligible), del("d2", "d", daemonset.ReasonNodeNotEligible))),
	}}}
	choice := []actionClass{
		{Take: 1, Groups: []actionGroup{delGroup("x", dels(del("x1", "x", daemonset.ReasonUpdateOldUnavailable)))}},
		{Rule: "UPD-9", Take: 2, Groups: []actionGroup{
			delGroup("c1", dels(del("c1", "c1", daemonset.ReasonUpdateOldCandidate))),
			delGroup("c2", dels(del("c2", "c2", daemonset.ReasonUpdateOldCandidate))),
			delGroup("c3", dels(del("c3", "c3", daemonset.ReasonUpdateOldCandidate))),
		}},
	}
	tests := []struct {
		name    string
		classes []actionClass
		limit   int
		got     []string
		rule    string // "" when the selection is valid
	}{
		{"DIFF-3 DIFF-5 DIFF-8: whole list, first Failed pod", base, 0, []string{"ns/a1", "ns/a2", "ns/a3", "ns/b1", "ns/m1"}, ""},
		{"DIFF-17: the other Failed pod", base, 0, []string{"ns/a1", "ns/a2", "ns/a3", "ns/b2", "ns/m1"}, ""},
		{"DIFF-17: both Failed pods", base, 0, []string{"ns/a1", "ns/a2", "ns/a3", "ns/b1", "ns/b2", "ns/m1"}, "DIFF-17"},
		{"DIFF-17: no Failed pod", base, 0, []string{"ns/a1", "ns/a2", "ns/a3", "ns/m1"}, "DIFF-17"},
		{"DIFF-4: a missing pod", base, 0, []string{"ns/a1", "ns/a3", "ns/b1", "ns/m1"}, "DIFF-3"},
		{"DIFF-10: cap 1, node b first", base, 1, []string{"ns/b2"}, ""},
		{"DIFF-10: cap 1, either of node a's first part", base, 1, []string{"ns/a2"}, ""},
		{"DIFF-10: cap 1, node a's fixed part cannot come first", base, 1, []string{"ns/a3"}, "DIFF-10"},
		{"DIFF-10: cap 2, node b whole, node a cut", base, 2, []string{"ns/a1", "ns/b1"}, ""},
		{"DIFF-10: cap 2, two nodes cut", two, 2, []string{"ns/a1", "ns/d1"}, "DIFF-10"},
		{"DIFF-10: cap 2, one node cut", two, 3, []string{"ns/a1", "ns/d1", "ns/d2"}, ""},
		{"DIFF-10: cap 4, node b whole then node a cut", base, 4, []string{"ns/b1", "ns/a1", "ns/a2", "ns/a3"}, ""},
		{"DIFF-10: cap 4, the later class cannot come first", base, 4, []string{"ns/a1", "ns/a2", "ns/a3", "ns/m1"}, "DIFF-10"},
		{"DIFF-10: cap 4 reaches the Failed pod too", base, 4, []string{"ns/a1", "ns/a2", "ns/a3"}, "DIFF-17"},
		{"DIFF-10: cap 3, one short", base, 3, []string{"ns/a1", "ns/a2"}, "DIFF-10"},
		{"UPD-9: any two", choice, 0, []string{"ns/x1", "ns/c3", "ns/c1"}, ""},
		{"UPD-9: three", choice, 0, []string{"ns/x1", "ns/c1", "ns/c2", "ns/c3"}, "UPD-9"},
		{"UPD-9: budget-free one missing", choice, 0, []string{"ns/c1", "ns/c2"}, "UPD-8"},
		{"DIFF-10 with UPD-9: cap 2 keeps the free one and any candidate", choice, 2, []string{"ns/x1", "ns/c2"}, ""},
		{"DIFF-10 with UPD-9: cap 1 keeps the free one", choice, 1, []string{"ns/c2"}, "UPD-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := newListIndex("delete", tt.classes)
			sel := map[string]bool{}
			for _, k := range tt.got {
				sel[k] = true
			}
			probs := ix.verifySelection(sel, tt.limit)
			if tt.rule == "" {
				if len(probs) > 0 {
					t.Fatalf("valid selection rejected: %+v", probs)
				}
				return
			}
			var rules []string
			for _, p := range probs {
				rules = append(rules, p.rule)
				if p.rule == tt.rule {
					return
				}
			}
			t.Fatalf("want a %s problem, got %s (%+v)", tt.rule, strings.Join(rules, ", "), probs)
		})
	}
}

// TestVerifySelectionOrder checks that the problems of one selection come in one order (by
// group, then key), whatever the order of the maps behind it: verify's output is stable.
func TestVerifySelectionOrder(t *testing.T) {
	classes := []actionClass{
		{Take: 1, Groups: []actionGroup{delGroup("x", dels(del("x1", "x", daemonset.ReasonUpdateOldUnavailable)))}},
		{Take: 4, Groups: []actionGroup{
			delGroup("d", dels(del("d1", "d", daemonset.ReasonNodeNotEligible), del("d2", "d", daemonset.ReasonNodeNotEligible))),
			delGroup("a", dels(del("a2", "a", daemonset.ReasonNodeNotEligible), del("a1", "a", daemonset.ReasonNodeNotEligible))),
		}},
	}
	sel := map[string]bool{"ns/x1": true, "ns/a1": true, "ns/a2": true, "ns/d1": true, "ns/d2": true}
	want := "ns/d1 ns/d2 ns/a1 ns/a2" // DIFF-10 extras beyond the cap of 1: by group, then key
	for range 50 {
		var keys []string
		for _, p := range newListIndex("delete", classes).verifySelection(sel, 1) {
			keys = append(keys, p.object)
		}
		if got := strings.Join(keys, " "); got != want {
			t.Fatalf("problems for %s, want %s", got, want)
		}
	}
}

// TestOrdersJSON: Expected.Orders is a public, opaque type whose JSON form is the corpus's
// "orders" (D-1): every corpus case's expectations survive a round trip unchanged; null is a
// nil Orders, with no actions; and a key the format does not have is refused by any decoder,
// not only by LoadCases's strict one.
func TestOrdersJSON(t *testing.T) {
	cases, err := Corpus()
	require.NoError(t, err)
	for _, c := range cases {
		data, err := json.Marshal(c.Expected)
		require.NoError(t, err, c.Name)
		var got []Expected
		require.NoError(t, json.Unmarshal(data, &got), c.Name)
		again, err := json.Marshal(got)
		require.NoError(t, err, c.Name)
		require.JSONEq(t, string(data), string(again), c.Name)
		for i := range got {
			require.NotNil(t, got[i].Orders, "%s: %s", c.Name, got[i].Name)
		}
	}

	var e Expected
	require.NoError(t, json.Unmarshal([]byte(`{"name":"ds","orders":null}`), &e))
	require.Nil(t, e.Orders)
	require.Empty(t, e.Orders.choices().Creates)

	bad := []byte(`{"name":"ds","orders":{"phase":"base","creatse":[]}}`)
	require.ErrorContains(t, json.Unmarshal(bad, &e), "creatse")
	require.ErrorContains(t, yaml.UnmarshalStrict(bad, &e), "creatse")
}
