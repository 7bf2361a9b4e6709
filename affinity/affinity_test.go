package affinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/internal/apitest"
)

// node builds a node named name with labels given as key, value pairs (none: nil labels).
func node(name string, kv ...string) *v1.Node {
	if len(kv) == 0 {
		return apitest.Node(name)
	}
	return apitest.Node(name, apitest.Labels(kv...))
}

// The node selector builders of internal/apitest under the names these tests use: req is a
// requirement, exprs a term of matchExpressions only, fields a term of matchFields only.
var (
	req    = apitest.Requirement
	exprs  = apitest.Term
	fields = apitest.FieldTerm
)

// required is a pod spec whose only constraint is required node affinity with terms.
func required(terms ...v1.NodeSelectorTerm) *v1.PodSpec {
	return &v1.PodSpec{Affinity: apitest.RequiredAffinity(terms...)}
}

// nodeSel is a pod spec whose only constraint is spec.nodeSelector.
func nodeSel(kv ...string) *v1.PodSpec {
	spec := &v1.PodSpec{NodeSelector: map[string]string{}}
	for i := 0; i < len(kv); i += 2 {
		spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return spec
}

// threeNodes are n0, n1, n2 without labels, as in the scenario conventions.
func threeNodes() []*v1.Node { return []*v1.Node{node("n0"), node("n1"), node("n2")} }

func TestMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spec  *v1.PodSpec
		nodes []*v1.Node
		want  []string // names of the nodes that match
	}{
		{name: "NSEL-1 nil node selector imposes nothing", spec: &v1.PodSpec{}, nodes: threeNodes(), want: []string{"n0", "n1", "n2"}},
		{name: "NSEL-1 empty node selector imposes nothing", spec: nodeSel(), nodes: threeNodes(), want: []string{"n0", "n1", "n2"}},
		{name: "NSEL-2 SCN-03 nodeSelector disk=ssd picks the ssd node only",
			spec:  nodeSel("disk", "ssd"),
			nodes: []*v1.Node{node("n0", "disk", "ssd"), node("n1", "disk", "hdd"), node("n2")},
			want:  []string{"n0"}},
		{name: "NSEL-2 SCN-04 nodeSelector gpu=\"\" needs the label present and empty",
			spec:  nodeSel("gpu", ""),
			nodes: []*v1.Node{node("a", "gpu", ""), node("b"), node("c", "gpu", "x")},
			want:  []string{"a"}},
		{name: "NSEL-2 all entries are ANDed",
			spec:  nodeSel("disk", "ssd", "zone", "a"),
			nodes: []*v1.Node{node("n0", "disk", "ssd", "zone", "a"), node("n1", "disk", "ssd"), node("n2", "zone", "a")},
			want:  []string{"n0"}},
		{name: "NSEL-3 an invalid key is compared as a raw string and can match",
			spec:  nodeSel("-bad key", "-v"),
			nodes: []*v1.Node{node("n0", "-bad key", "-v"), node("n1")},
			want:  []string{"n0"}},
		{name: "AFF-1 nil affinity imposes nothing", spec: &v1.PodSpec{}, nodes: threeNodes(), want: []string{"n0", "n1", "n2"}},
		{name: "AFF-1 nil nodeAffinity imposes nothing", spec: &v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{}}}, nodes: threeNodes(), want: []string{"n0", "n1", "n2"}},
		{name: "AFF-1 nil required selector imposes nothing", spec: &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}}, nodes: threeNodes(), want: []string{"n0", "n1", "n2"}},
		{name: "AFF-2 SCN-09 a required selector with zero terms matches no node", spec: required(), nodes: threeNodes(), want: nil},
		{name: "AFF-3 SCN-05 terms are ORed",
			spec:  required(exprs(req("zone", "In", "a")), exprs(req("zone", "In", "b"))),
			nodes: []*v1.Node{node("a", "zone", "a"), node("b", "zone", "b"), node("c", "zone", "c")},
			want:  []string{"a", "b"}},
		{name: "AFF-4 SCN-09 an empty term matches no node, even alone", spec: required(v1.NodeSelectorTerm{}), nodes: threeNodes(), want: nil},
		{name: "AFF-4 an empty term does not stop the other terms",
			spec:  required(v1.NodeSelectorTerm{}, exprs(req("zone", "In", "a"))),
			nodes: []*v1.Node{node("n0", "zone", "a"), node("n1")},
			want:  []string{"n0"}},
		{name: "AFF-4 a term with empty non-nil lists is still empty",
			spec:  required(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{}, MatchFields: []v1.NodeSelectorRequirement{}}),
			nodes: threeNodes(), want: nil},
		{name: "AFF-5 SCN-06 expressions and fields of a term are ANDed",
			spec: required(v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{req("zone", "In", "a")},
				MatchFields:      []v1.NodeSelectorRequirement{req("metadata.name", "In", "n2")},
			}),
			nodes: []*v1.Node{node("n1", "zone", "a"), node("n2", "zone", "a"), node("n3", "zone", "b")},
			want:  []string{"n2"}},
		{name: "AFF-6 NotIn and DoesNotExist hold on unlabelled nodes",
			spec:  required(exprs(req("zone", "NotIn", "a"), req("gpu", "DoesNotExist"))),
			nodes: []*v1.Node{node("n0"), node("n1", "zone", "a"), node("n2", "gpu", "")},
			want:  []string{"n0"}},
		{name: "AFF-6 Exists holds for an empty label value",
			spec:  required(exprs(req("gpu", "Exists"))),
			nodes: []*v1.Node{node("n0", "gpu", ""), node("n1")},
			want:  []string{"n0"}},
		{name: "AFF-7 SCN-10 cpus Gt 8 admits 16 and 016 only",
			spec:  required(exprs(req("cpus", "Gt", "8"))),
			nodes: []*v1.Node{node("n16", "cpus", "16"), node("n8", "cpus", "8"), node("nabc", "cpus", "abc"), node("nmissing"), node("n016", "cpus", "016")},
			want:  []string{"n16", "n016"}},
		{name: "AFF-7 Lt with a signed node value",
			spec:  required(exprs(req("cpus", "Lt", "1"))),
			nodes: []*v1.Node{node("n0", "cpus", "-3"), node("n1", "cpus", "+0"), node("n2", "cpus", "1")},
			want:  []string{"n0", "n1"}},
		{name: "AFF-8 SCN-11 cpus Lt x is a parse error and matches no node",
			spec:  required(exprs(req("cpus", "Lt", "x"))),
			nodes: []*v1.Node{node("n0", "cpus", "1"), node("n1", "cpus", "x")},
			want:  nil},
		{name: "AFF-8 SCN-07 a bad operator breaks only its term",
			spec:  required(exprs(req("zone", "Foo", "a")), exprs(req("zone", "In", "b"))),
			nodes: []*v1.Node{node("a", "zone", "a"), node("b", "zone", "b")},
			want:  []string{"b"}},
		{name: "AFF-8 SCN-08 Exists with a value makes the whole term invalid",
			spec:  required(exprs(req("zone", "In", "a"), req("x", "Exists", "bad"))),
			nodes: []*v1.Node{node("n0", "zone", "a", "x", "1")},
			want:  nil},
		{name: "AFF-8 Surprise 13: a broken term before a good one does not block it",
			spec:  required(exprs(req("cpus", "Gt", "abc")), fields(req("metadata.name", "In", "n1"))),
			nodes: threeNodes(),
			want:  []string{"n1"}},
		{name: "AFF-8 an invalid key breaks the term",
			spec:  required(exprs(req("-zone", "Exists"))),
			nodes: []*v1.Node{node("n0", "-zone", "a")},
			want:  nil},
		{name: "AFF-8 an invalid In value breaks the term",
			spec:  required(exprs(req("zone", "In", "a b"))),
			nodes: []*v1.Node{node("n0", "zone", "a b")},
			want:  nil},
		{name: "AFF-9 SCN-12 matchFields metadata.name NotIn n0",
			spec:  required(fields(req("metadata.name", "NotIn", "n0"))),
			nodes: threeNodes(),
			want:  []string{"n1", "n2"}},
		{name: "AFF-9 SCN-13 Surprise 14: unknown field key reads as empty, In [\"\"] matches every node",
			spec:  required(fields(req("metadata.uid", "In", ""))),
			nodes: threeNodes(),
			want:  []string{"n0", "n1", "n2"}},
		{name: "AFF-9 unknown field key NotIn [x] matches every node",
			spec:  required(fields(req("spec.providerID", "NotIn", "x"))),
			nodes: threeNodes(),
			want:  []string{"n0", "n1", "n2"}},
		{name: "AFF-9 matchFields Exists is a parse error",
			spec:  required(fields(req("metadata.name", "Exists"))),
			nodes: threeNodes(),
			want:  nil},
		{name: "AFF-9 matchFields In with two values is a parse error",
			spec:  required(fields(req("metadata.name", "In", "n0", "n1"))),
			nodes: threeNodes(),
			want:  nil},
		{name: "AFF-9 several matchFields are ANDed",
			spec:  required(fields(req("metadata.name", "NotIn", "n0"), req("metadata.name", "NotIn", "n1"))),
			nodes: threeNodes(),
			want:  []string{"n2"}},
		{name: "AFF-9 a matchFields value is not syntax-checked",
			spec:  required(fields(req("metadata.name", "In", "Not A Node Name!"))),
			nodes: []*v1.Node{node("Not A Node Name!"), node("n0")},
			want:  []string{"Not A Node Name!"}},
		{name: "AFF-10 a node without a name skips matchFields",
			spec:  required(fields(req("metadata.name", "In", "n0"))),
			nodes: []*v1.Node{node(""), node("n1")},
			want:  []string{""}},
		{name: "AFF-11 SCN-14 Surprise 34: matchExpressions on metadata.name tests a label",
			spec:  required(exprs(req("metadata.name", "In", "n0"))),
			nodes: []*v1.Node{node("n0"), node("n1", "metadata.name", "n0")},
			want:  []string{"n1"}},
		{name: "AFF-12 NSEL-4 SCN-16 node selector and required affinity must both hold",
			spec: &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: required(exprs(req("zone", "In", "a"))).Affinity},
			nodes: []*v1.Node{
				node("ssd-a", "disk", "ssd", "zone", "a"), node("ssd-b", "disk", "ssd", "zone", "b"), node("hdd-a", "disk", "hdd", "zone", "a"),
			},
			want: []string{"ssd-a"}},
		{name: "AFF-13 SCN-15 only preferred terms: every node",
			spec: &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
					{Weight: 1, Preference: exprs(req("zone", "In", "a"))},
					{Weight: 0, Preference: exprs(req("zone", "Bad", "a"))},
				},
			}}},
			nodes: []*v1.Node{node("n0", "zone", "a"), node("n1", "zone", "b")},
			want:  []string{"n0", "n1"}},
		{name: "AFF-13 pod anti-affinity is ignored",
			spec: &v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone"}},
			}}},
			nodes: threeNodes(),
			want:  []string{"n0", "n1", "n2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.spec.DeepCopy()
			r := affinity.Compile(tt.spec, field.NewPath("spec", "template", "spec"))
			var got, upstream []string
			pod := &v1.Pod{Spec: *tt.spec}
			for _, n := range tt.nodes {
				if r.Matches(n) {
					got = append(got, n.Name)
				}
				require.Equal(t, r.Evaluate(n), r.Explain(n).Outcome, "Explain agrees with Evaluate on %s", n.Name)
				if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(n); ok {
					upstream = append(upstream, n.Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("matching nodes mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(upstream, got); diff != "" {
				t.Errorf("matching nodes differ from component-helpers (-upstream +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.spec); diff != "" {
				t.Errorf("Compile() mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestLazyErrors(t *testing.T) {
	t.Parallel()
	terms := field.NewPath("spec", "template", "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	tests := []struct {
		name     string
		spec     *v1.PodSpec
		wantErrs field.ErrorList
	}{
		{name: "AFF-8 valid terms record no error", spec: required(exprs(req("zone", "In", "a")), fields(req("metadata.name", "In", "n0")))},
		{name: "AFF-4 an empty term is dropped, not an error", spec: required(v1.NodeSelectorTerm{})},
		{name: "AFF-8 Gt with a non-integer is recorded at its value (Surprise 13)",
			spec:     required(v1.NodeSelectorTerm{}, exprs(req("zone", "In", "a"), req("cpus", "Gt", "abc"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(1).Child("matchExpressions").Index(1).Child("values").Index(0), "abc", "")}},
		{name: "AFF-8 an unknown operator is recorded at its operator",
			spec:     required(exprs(req("zone", "Foo", "a"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchExpressions").Index(0).Child("operator"), v1.NodeSelectorOperator("Foo"), "")}},
		{name: "AFF-9 matchFields Exists is recorded as Invalid at its operator",
			spec:     required(exprs(req("zone", "In", "a")), fields(req("metadata.name", "Exists"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(1).Child("matchFields").Index(0).Child("operator"), v1.NodeSelectorOperator("Exists"), "")}},
		{name: "AFF-9 matchFields with two values is recorded at values",
			spec:     required(fields(req("metadata.name", "In", "a", "b"))),
			wantErrs: field.ErrorList{field.Required(terms.Index(0).Child("matchFields").Index(0).Child("values"), "")}},
		{name: "AFF-8 errors of several terms are all recorded in term order",
			spec: required(exprs(req("a", "In")), exprs(req("b", "Exists", "x"))),
			wantErrs: field.ErrorList{
				field.Required(terms.Index(0).Child("matchExpressions").Index(0).Child("values"), ""),
				field.Forbidden(terms.Index(1).Child("matchExpressions").Index(0).Child("values"), ""),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := affinity.Compile(tt.spec, field.NewPath("spec", "template", "spec"))
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, r.Errors())
		})
	}
}

func TestCompileNilAndNilReceiver(t *testing.T) {
	t.Parallel()
	r := affinity.Compile(nil, nil)
	require.True(t, r.Matches(node("n0")), "a nil spec imposes no constraint")
	var nilReq *affinity.Required
	require.True(t, nilReq.Matches(node("n0")), "a nil *Required imposes no constraint")
	require.Equal(t, affinity.Match, nilReq.Explain(node("n0")).Outcome)
	require.Empty(t, nilReq.Errors())
	require.Equal(t, affinity.AffinityMismatch, affinity.Compile(required(), nil).Evaluate(node("n0")), "AFF-2 zero terms still count as required affinity")
	require.PanicsWithValue(t, "affinity: Matches called with a nil node", func() { r.Matches(nil) })
	require.PanicsWithValue(t, "affinity: Explain called with a nil node", func() { r.Explain(nil) })
	require.PanicsWithValue(t, "affinity: Evaluate called with a nil node", func() { r.Evaluate(nil) })
	require.PanicsWithValue(t, "affinity: Evaluate called with a nil node", func() { nilReq.Evaluate(nil) })
}

func TestCompileKeepsNoReferenceToTheSpec(t *testing.T) {
	t.Parallel()
	spec := &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: required(exprs(req("zone", "In", "a"))).Affinity}
	r := affinity.Compile(spec, nil)
	n := node("n0", "disk", "ssd", "zone", "a")
	require.True(t, r.Matches(n))
	spec.NodeSelector["disk"] = "hdd"
	spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values[0] = "b"
	require.True(t, r.Matches(n), "the compiled value is immutable: later edits of the spec do not reach it")
}

// TestNodeSelectorIsNotEdited: NSEL-5 and AFF-14, the node selector and the template's own
// affinity are left alone by binding, so eligibility keeps using the template's rules.
func TestNodeSelectorIsNotEdited(t *testing.T) {
	t.Parallel()
	spec := &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: required(exprs(req("zone", "In", "a"))).Affinity}
	before := spec.DeepCopy()
	bound := spec.DeepCopy()
	bound.Affinity = affinity.BindToNode(spec.Affinity, "n9")
	if diff := cmp.Diff(before.NodeSelector, bound.NodeSelector); diff != "" {
		t.Errorf("NSEL-5 node selector changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, spec); diff != "" {
		t.Errorf("AFF-14 the template changed (-before +after):\n%s", diff)
	}
	n := node("n0", "disk", "ssd", "zone", "a")
	require.True(t, affinity.Compile(spec, nil).Matches(n), "AFF-14 the template's own affinity admits n0")
	require.False(t, affinity.Compile(bound, nil).Matches(n), "the per-node rewrite targets n9 only")
}

// TestTerms: the terms a class-based caller reads are the ones Matches reads: empty (AFF-4)
// and malformed (AFF-8) terms are left out, and a term's matchFields read the node's name and
// nothing else (AFF-9).
func TestTerms(t *testing.T) {
	t.Parallel()
	req := func(terms ...v1.NodeSelectorTerm) *v1.PodSpec {
		return &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}}
	}
	field := func(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	expr := v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}
	bad := v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: "Near", Values: []string{"a"}}}}

	_, ok := affinity.Compile(&v1.PodSpec{}, nil).Terms()
	require.False(t, ok, "no required node affinity (AFF-1)")
	terms, ok := affinity.Compile(req(), nil).Terms()
	require.True(t, ok)
	require.Empty(t, terms, "zero terms match no node (AFF-2)")

	terms, ok = affinity.Compile(req(v1.NodeSelectorTerm{}, bad, expr, field("metadata.name", v1.NodeSelectorOpNotIn, "n1"),
		field("metadata.uid", v1.NodeSelectorOpIn, ""), field("metadata.name", v1.NodeSelectorOpIn, "a", "b")), nil).Terms()
	require.True(t, ok)
	require.Len(t, terms, 3, "the empty term (AFF-4) and the two malformed ones (AFF-8) are left out")
	require.Len(t, terms[0].Expressions(), 1)
	require.Equal(t, "zone", terms[0].Expressions()[0].Key())
	require.False(t, terms[0].ReadsFields())
	require.True(t, terms[0].FieldsMatch("n1"), "a term without matchFields reads no name")
	require.True(t, terms[1].ReadsFields())
	require.False(t, terms[1].FieldsMatch("n1"), "NotIn n1 fails on n1")
	require.True(t, terms[1].FieldsMatch("n2"))
	require.True(t, terms[2].FieldsMatch("n1"), "any key but metadata.name reads as the empty string (AFF-9)")

	require.Empty(t, terms[0].AppendNames(nil), "no matchFields, no name told apart")
	require.Equal(t, []string{"n1"}, terms[1].AppendNames(nil))
	require.Empty(t, terms[2].AppendNames(nil), "metadata.uid names no node (AFF-9)")
	require.Equal(t, []string{"a", "n1"}, terms[1].AppendNames([]string{"a"}), "appends to dst")
	terms, _ = affinity.Compile(req(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: v1.NodeSelectorOpNotIn, Values: []string{"n2"}},
		{Key: "metadata.uid", Operator: v1.NodeSelectorOpIn, Values: []string{""}},
		{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n1"}}}}), nil).Terms()
	names := terms[0].AppendNames(nil)
	require.Equal(t, []string{"n2", "n1"}, names, "the metadata.name values, in input order")
	for _, name := range []string{"n3", "x", "0", "n10"} {
		require.Equal(t, terms[0].FieldsMatch("n3"), terms[0].FieldsMatch(name), "every name not among %v answers alike", names)
	}
}
