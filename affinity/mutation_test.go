package affinity_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/affinity"
)

// TestInputsAreNeverMutated deep-copies random inputs, runs every exported function on them
// and compares with go-cmp (STYLE section 3).
func TestInputsAreNeverMutated(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 2_000 {
		spec, n := randomSpec(r), randomNode(r)
		pod := &v1.Pod{Spec: *spec.DeepCopy()}
		if r.IntN(4) == 0 {
			pod.Spec.NodeName = "n7"
		}
		specBefore, nodeBefore, podBefore := spec.DeepCopy(), n.DeepCopy(), pod.DeepCopy()

		req := affinity.Compile(spec, field.NewPath("spec"))
		_ = req.Matches(n)
		_ = req.Explain(n).String()
		_ = req.Errors()
		_ = affinity.Validate(spec, field.NewPath("spec"))
		bound := affinity.BindToNode(spec.Affinity, "n3")
		_, _ = affinity.TargetNodeName(pod)

		// reflect.DeepEqual first: cmp.Diff costs about 50 times more and is only needed to
		// render a failure.
		if !reflect.DeepEqual(specBefore, spec) {
			t.Fatalf("case %d: spec mutated (-before +after):\n%s", i, cmp.Diff(specBefore, spec))
		}
		if !reflect.DeepEqual(nodeBefore, n) {
			t.Fatalf("case %d: node mutated (-before +after):\n%s", i, cmp.Diff(nodeBefore, n))
		}
		if !reflect.DeepEqual(podBefore, pod) {
			t.Fatalf("case %d: pod mutated (-before +after):\n%s", i, cmp.Diff(podBefore, pod))
		}
		// Writing through the result of BindToNode must not reach the input either.
		scribble(bound)
		if !reflect.DeepEqual(specBefore, spec) {
			t.Fatalf("case %d: BindToNode result aliases the input (-before +after):\n%s", i, cmp.Diff(specBefore, spec))
		}
	}
}
