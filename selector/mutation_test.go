package selector_test

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

// TestInputsAreNeverMutated deep-copies random inputs, runs every exported function on them
// and compares with go-cmp (STYLE section 3).
func TestInputsAreNeverMutated(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 2_000 {
		ls, lbls := randomSelector(r), randomLabels(r)
		lsBefore, labelsBefore := ls.DeepCopy(), maps.Clone(lbls)

		s, _ := selector.Compile(ls, field.NewPath("spec", "selector"))
		_ = s.Matches(lbls)
		_ = s.Explain(lbls).String()
		if ls != nil {
			for _, e := range ls.MatchExpressions {
				values := slices.Clone(e.Values)
				req, _ := selector.NewRequirement(e.Key, e.Operator, values, selector.NodeSelectorOperators, nil)
				if diff := cmp.Diff(e.Values, values); diff != "" {
					t.Fatalf("case %d: NewRequirement mutated values (-before +after):\n%s", i, diff)
				}
				_ = req.Matches(lbls)
				_ = req.String()
				if vs := req.Values(); len(vs) > 0 {
					vs[0] = "scribbled" // Values returns a copy
					if diff := cmp.Diff(e.Values, req.Values()); diff != "" {
						t.Fatalf("case %d: scribbling over Values() changed the requirement (-before +after):\n%s", i, diff)
					}
				}
			}
		}
		// reflect.DeepEqual first: cmp.Diff costs about 50 times more and is only needed to
		// render a failure.
		if !reflect.DeepEqual(lsBefore, ls) {
			t.Fatalf("case %d: selector mutated (-before +after):\n%s", i, cmp.Diff(lsBefore, ls))
		}
		if !reflect.DeepEqual(labelsBefore, lbls) {
			t.Fatalf("case %d: labels mutated (-before +after):\n%s", i, cmp.Diff(labelsBefore, lbls))
		}
	}
}
