package affinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/affinity"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	fld := field.NewPath("spec")
	terms := "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	tests := []struct {
		name       string
		spec       *v1.PodSpec
		node       *v1.Node
		want       affinity.Explanation
		wantString string
	}{
		{name: "AFF-15 a matching node says so",
			spec: required(exprs(req("zone", "In", "a"))), node: node("n0", "zone", "a"),
			want:       affinity.Explanation{Outcome: affinity.Match},
			wantString: "node satisfies the node selector and the required node affinity"},
		{name: "AFF-12 the node selector is reported first, with the actual value",
			spec:       &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd", "arch": "arm64"}, Affinity: required(exprs(req("zone", "In", "a"))).Affinity},
			node:       node("n0", "disk", "hdd", "arch", "arm64"),
			want:       affinity.Explanation{Outcome: affinity.NodeSelectorMismatch, NodeSelector: affinity.LabelMismatch{Key: "disk", Want: "ssd", Value: "hdd", Present: true}},
			wantString: `node label disk is "hdd", but spec.nodeSelector requires disk="ssd"`},
		{name: "NSEL-2 the first failing node selector key in key order, absent",
			spec:       nodeSel("b", "1", "a", "1"),
			node:       node("n0"),
			want:       affinity.Explanation{Outcome: affinity.NodeSelectorMismatch, NodeSelector: affinity.LabelMismatch{Key: "a", Want: "1"}},
			wantString: `node label a is absent, but spec.nodeSelector requires a="1"`},
		{name: "AFF-2 zero terms are reported as such",
			spec: required(), node: node("n0"),
			want:       affinity.Explanation{Outcome: affinity.AffinityMismatch},
			wantString: "required node affinity has no node selector terms, so it matches no node"},
		{name: "AFF-15 every term says why: empty, parse error, failing expression, failing field",
			spec: required(
				v1.NodeSelectorTerm{},
				exprs(req("cpus", "Gt", "abc")),
				exprs(req("zone", "In", "a"), req("cpus", "Gt", "8")),
				v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{req("zone", "Exists")}, MatchFields: []v1.NodeSelectorRequirement{req("metadata.name", "In", "n9")}},
			),
			node: node("n0", "zone", "a", "cpus", "4"),
			want: affinity.Explanation{Outcome: affinity.AffinityMismatch, Terms: []affinity.TermExplanation{
				{Index: 0, Empty: true},
				{Index: 1, Errors: field.ErrorList{field.Invalid(field.NewPath("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms").Index(1).Child("matchExpressions").Index(0).Child("values").Index(0), "abc", "")}},
				{Index: 2, Failed: affinity.FailedRequirement{Path: terms + "[2].matchExpressions[1]", Key: "cpus", Operator: "Gt", Values: []string{"8"}, Value: "4", Present: true}},
				{Index: 3, Failed: affinity.FailedRequirement{Path: terms + "[3].matchFields[0]", Field: true, Key: "metadata.name", Operator: "In", Values: []string{"n9"}, Value: "n0", Present: true}},
			}},
			wantString: `no required node affinity term matches the node; term 0: empty, so it matches no node; ` +
				`term 1: invalid, so it never matches: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].values[0]: Invalid value: "abc": for 'Gt', 'Lt' operators, the value must be a base-10 integer; ` +
				`term 2: node label cpus is "4", which does not satisfy cpus Gt ["8"]; ` +
				`term 3: node field metadata.name is "n0", which does not satisfy metadata.name In ["n9"]`},
		{name: "AFF-9 an unknown field reads as empty and absent",
			spec: required(fields(req("metadata.uid", "In", "u"))), node: node("n0"),
			want: affinity.Explanation{Outcome: affinity.AffinityMismatch, Terms: []affinity.TermExplanation{
				{Index: 0, Failed: affinity.FailedRequirement{Path: terms + "[0].matchFields[0]", Field: true, Key: "metadata.uid", Operator: "In", Values: []string{"u"}}},
			}},
			wantString: `no required node affinity term matches the node; term 0: node field metadata.uid is absent, which does not satisfy metadata.uid In ["u"]`},
		{name: "AFF-11 a metadata.name expression reports the missing label",
			spec: required(exprs(req("metadata.name", "Exists"))), node: node("n0"),
			want: affinity.Explanation{Outcome: affinity.AffinityMismatch, Terms: []affinity.TermExplanation{
				{Index: 0, Failed: affinity.FailedRequirement{Path: terms + "[0].matchExpressions[0]", Key: "metadata.name", Operator: "Exists", Values: []string{}}},
			}},
			wantString: `no required node affinity term matches the node; term 0: node label metadata.name is absent, which does not satisfy metadata.name Exists`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := affinity.Compile(tt.spec, fld)
			got := r.Explain(tt.node)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(field.Error{}, "Detail")); diff != "" {
				t.Errorf("Explain() mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, r.Evaluate(tt.node), got.Outcome)
			require.Equal(t, tt.wantString, got.String())
		})
	}
}
