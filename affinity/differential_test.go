package affinity_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/daemonsched/daemonsched/affinity"
)

// Small alphabets, so that random cases collide often and reach the edges: empty strings,
// prefixed and invalid keys, numbers with leading zeros and signs, Gt/Lt, unknown operators,
// metadata.name and unknown field keys.
var (
	genKeys      = []string{"zone", "cpus", "example.com/gpu", "", "/x", "-a", "metadata.name", "a/b/c"}
	genValues    = []string{"", "a", "b", "8", "016", "16", "-1", "+5", "abc", "a b", "9223372036854775808"}
	genExprOps   = []v1.NodeSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "in", ""}
	genFieldKeys = []string{"metadata.name", "metadata.uid", "", "spec.unschedulable"}
	genFieldVals = []string{"", "n0", "n1"}
	genFieldOps  = []v1.NodeSelectorOperator{"In", "NotIn", "Exists", "Gt"}
	genNodeNames = []string{"n0", "n1", "n2", ""}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomSpec draws a pod spec: an optional node selector and, at every level, a chance of nil
// (AFF-1), zero terms (AFF-2), empty terms (AFF-4) and broken requirements (AFF-8). Preferred
// terms are drawn too, to show they never count (AFF-13).
func randomSpec(r *rand.Rand) *v1.PodSpec {
	spec := &v1.PodSpec{}
	if r.IntN(3) == 0 {
		spec.NodeSelector = map[string]string{}
		for range r.IntN(3) {
			spec.NodeSelector[pick(r, genKeys)] = pick(r, genValues)
		}
	}
	switch r.IntN(8) {
	case 0:
		return spec
	case 1:
		spec.Affinity = &v1.Affinity{}
		return spec
	case 2:
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}
	default:
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: randomTerms(r, r.IntN(4))},
		}}
	}
	if r.IntN(3) == 0 {
		for _, t := range randomTerms(r, 1+r.IntN(2)) {
			spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(
				spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				v1.PreferredSchedulingTerm{Weight: int32(r.IntN(102)), Preference: t})
		}
	}
	return spec
}

func randomTerms(r *rand.Rand, n int) []v1.NodeSelectorTerm {
	terms := make([]v1.NodeSelectorTerm, n)
	for i := range terms {
		for range r.IntN(3) {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, randomExpr(r))
		}
		for range r.IntN(2) {
			terms[i].MatchFields = append(terms[i].MatchFields, randomField(r))
		}
	}
	return terms
}

func randomExpr(r *rand.Rand) v1.NodeSelectorRequirement {
	e := v1.NodeSelectorRequirement{Key: pick(r, genKeys), Operator: pick(r, genExprOps)}
	n := r.IntN(3)
	if r.IntN(2) == 0 { // usually the right number of values, so that terms often parse
		switch e.Operator {
		case "Exists", "DoesNotExist":
			n = 0
		case "Gt", "Lt":
			n = 1
		default:
			n = 1 + r.IntN(2)
		}
	}
	for range n {
		e.Values = append(e.Values, pick(r, genValues))
	}
	return e
}

func randomField(r *rand.Rand) v1.NodeSelectorRequirement {
	f := v1.NodeSelectorRequirement{Key: pick(r, genFieldKeys), Operator: pick(r, genFieldOps)}
	n := 1
	if r.IntN(4) == 0 {
		n = r.IntN(3)
	}
	for range n {
		f.Values = append(f.Values, pick(r, genFieldVals))
	}
	return f
}

func randomNode(r *rand.Rand) *v1.Node {
	n := &v1.Node{}
	n.Name = pick(r, genNodeNames)
	if r.IntN(6) != 0 {
		n.Labels = map[string]string{}
		for range r.IntN(5) {
			n.Labels[pick(r, genKeys)] = pick(r, genValues)
		}
	}
	return n
}

// checkAgainstUpstream compares Compile, Matches and Explain with component-helpers'
// GetRequiredNodeAffinity(pod).Match on one spec and several nodes. The controller ignores
// Match's error and uses the bool (AFF-8), so the bool is what must agree; the error must be
// non-nil exactly when no term matched and some term failed to parse.
func checkAgainstUpstream(spec *v1.PodSpec, nodes []*v1.Node) (msg string, matched int, broken bool) {
	before := spec.DeepCopy()
	req := affinity.Compile(spec, field.NewPath("spec"))
	if !reflect.DeepEqual(before, spec) {
		return "Compile mutated the spec:\n" + cmp.Diff(before, spec), 0, false
	}
	upstream := nodeaffinity.GetRequiredNodeAffinity(&v1.Pod{Spec: *spec})
	for _, node := range nodes {
		nodeBefore := node.DeepCopy()
		got := req.Matches(node)
		want, upErr := upstream.Match(node)
		if got != want {
			return fmt.Sprintf("node %v: Matches = %v, upstream %v (error %v)", node, got, want, upErr), matched, false
		}
		if got {
			matched++
		}
		hasErrs := len(req.Errors()) > 0
		if !got && upErr != nil && !hasErrs {
			return fmt.Sprintf("node %v: upstream reports parse errors %v, Compile recorded none", node, upErr), matched, false
		}
		// Evaluate is the one walk behind Matches; its failing half must be the node
		// selector exactly when the node selector alone fails, checked against apimachinery's
		// set selector (NSEL-2, AFF-12).
		out := req.Evaluate(node)
		nsOK := labels.SelectorFromSet(spec.NodeSelector).Matches(labels.Set(node.Labels))
		switch {
		case (out == affinity.Match) != got:
			return fmt.Sprintf("node %v: Evaluate = %v, Matches = %v", node, out, got), matched, false
		case (out == affinity.NodeSelectorMismatch) != !nsOK:
			return fmt.Sprintf("node %v: Evaluate = %v, upstream node selector matches = %v", node, out, nsOK), matched, false
		}
		if e := req.Explain(node); e.Outcome != out {
			return fmt.Sprintf("node %v: Explain().Outcome = %v, Evaluate = %v (%s)", node, e.Outcome, out, e), matched, false
		}
		if !reflect.DeepEqual(nodeBefore, node) {
			return "Matches mutated the node:\n" + cmp.Diff(nodeBefore, node), matched, false
		}
	}
	return "", matched, len(req.Errors()) > 0
}

// TestDifferentialRequiredNodeAffinity compares 100,000 random cases (12,500 random pod specs,
// each against 8 random nodes) with GetRequiredNodeAffinity(pod).Match(node), the way the
// DaemonSet controller calls it (NSEL-1..NSEL-4, AFF-1..AFF-13), and checks that Explain and
// Evaluate agree with Matches and that Evaluate names the node selector exactly when it fails.
func TestDifferentialRequiredNodeAffinity(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	var cases, matched, broken int
	for i := range 12_500 {
		spec := randomSpec(r)
		nodes := make([]*v1.Node, 8)
		for j := range nodes {
			nodes[j] = randomNode(r)
		}
		msg, m, b := checkAgainstUpstream(spec, nodes)
		if msg != "" {
			t.Fatalf("spec %d %+v: %s", i, spec, msg)
		}
		cases += len(nodes)
		matched += m
		if b {
			broken++
		}
	}
	if cases < 100_000 || matched < 10_000 || cases-matched < 10_000 || broken < 1_000 {
		t.Fatalf("unbalanced generator: %d matched of %d cases, %d specs with broken terms", matched, cases, broken)
	}
}

// TestDifferentialTermErrors holds the lazy parse errors to upstream term by term: a pod with a
// single required term gets a parse error from upstream's Match exactly when Compile records
// errors for that term (AFF-8).
func TestDifferentialTermErrors(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	node := &v1.Node{}
	node.Name = "n0"
	for i := range 10_000 {
		terms := randomTerms(r, 1)
		spec := &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
		}}}
		_, upErr := nodeaffinity.GetRequiredNodeAffinity(&v1.Pod{Spec: *spec}).Match(node)
		errs := affinity.Compile(spec, nil).Errors()
		if (upErr != nil) != (len(errs) > 0) {
			t.Fatalf("case %d: term %+v: Compile errors %v, upstream error %v", i, terms[0], errs, upErr)
		}
	}
}
