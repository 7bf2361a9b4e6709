package affinity_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/affinity"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	spec := field.NewPath("spec", "template", "spec")
	na := spec.Child("affinity", "nodeAffinity")
	terms := na.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	pref := na.Child("preferredDuringSchedulingIgnoredDuringExecution")
	preferred := func(ps ...v1.PreferredSchedulingTerm) *v1.PodSpec {
		return &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: ps}}}
	}
	tests := []struct {
		name     string
		spec     *v1.PodSpec
		wantErrs field.ErrorList
	}{
		{name: "a nil spec is valid", spec: nil},
		{name: "a spec without placement is valid", spec: &v1.PodSpec{}},
		{name: "VAL-19 a valid node selector passes", spec: nodeSel("disk", "ssd", "example.com/gpu", "")},
		{name: "VAL-19 a bad node selector key is Invalid at nodeSelector",
			spec:     nodeSel("-disk", "ssd"),
			wantErrs: field.ErrorList{field.Invalid(spec.Child("nodeSelector"), "-disk", "")}},
		{name: "VAL-19 a bad node selector value is Invalid at nodeSelector",
			spec:     nodeSel("disk", "ssd!"),
			wantErrs: field.ErrorList{field.Invalid(spec.Child("nodeSelector"), "ssd!", "")}},
		{name: "VAL-18 a required selector with no terms is Required at nodeSelectorTerms",
			spec:     required(),
			wantErrs: field.ErrorList{field.Required(terms, "")}},
		{name: "VAL-18 an empty term is valid", spec: required(v1.NodeSelectorTerm{})},
		{name: "VAL-18 Surprise 13: Gt [abc] passes validation", spec: required(exprs(req("cpus", "Gt", "abc")))},
		{name: "VAL-18 an unknown operator is Invalid at operator",
			spec:     required(exprs(req("zone", "In", "a"), req("zone", "Foo", "a"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchExpressions").Index(1).Child("operator"), v1.NodeSelectorOperator("Foo"), "")}},
		{name: "VAL-18 In without values is Required at values",
			spec:     required(exprs(req("zone", "In"))),
			wantErrs: field.ErrorList{field.Required(terms.Index(0).Child("matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-18 Exists with values is Forbidden at values",
			spec:     required(exprs(req("zone", "Exists", "a"))),
			wantErrs: field.ErrorList{field.Forbidden(terms.Index(0).Child("matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-18 Gt with two values is Required at values",
			spec:     required(exprs(req("cpus", "Gt", "1", "2"))),
			wantErrs: field.ErrorList{field.Required(terms.Index(0).Child("matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-18 Lt without values is Required at values",
			spec:     required(exprs(req("cpus", "Lt"))),
			wantErrs: field.ErrorList{field.Required(terms.Index(0).Child("matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-18 a bad key is Invalid at key",
			spec:     required(v1.NodeSelectorTerm{}, exprs(req("/zone", "Exists"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(1).Child("matchExpressions").Index(0).Child("key"), "/zone", "")}},
		{name: "VAL-18 a bad value is Invalid at values[j] (the path of the issue)",
			spec:     required(exprs(req("zone", "In", "a"), req("zone", "In", "a", "b c"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchExpressions").Index(1).Child("values").Index(1), "b c", "")}},
		{name: "VAL-18 a field key other than metadata.name is Invalid at key",
			spec:     required(fields(req("metadata.uid", "In", ""))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchFields").Index(0).Child("key"), "metadata.uid", "")}},
		{name: "VAL-18 matchFields with two values is Required at values",
			spec:     required(fields(req("metadata.name", "In", "n0", "n1"))),
			wantErrs: field.ErrorList{field.Required(terms.Index(0).Child("matchFields").Index(0).Child("values"), "")}},
		{name: "VAL-18 matchFields Exists is Invalid at operator",
			spec:     required(fields(req("metadata.name", "Exists"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchFields").Index(0).Child("operator"), v1.NodeSelectorOperator("Exists"), "")}},
		{name: "VAL-18 a matchFields value must be a node name",
			spec:     required(fields(req("metadata.name", "NotIn", "Node_0"))),
			wantErrs: field.ErrorList{field.Invalid(terms.Index(0).Child("matchFields").Index(0).Child("values").Index(0), "Node_0", "")}},
		{name: "VAL-18 preferred weight 0 is Invalid at weight",
			spec:     preferred(v1.PreferredSchedulingTerm{Weight: 0, Preference: exprs(req("zone", "In", "a"))}),
			wantErrs: field.ErrorList{field.Invalid(pref.Index(0).Child("weight"), int32(0), "")}},
		{name: "VAL-18 preferred weight 101 is Invalid at weight",
			spec: preferred(
				v1.PreferredSchedulingTerm{Weight: 100, Preference: exprs(req("zone", "In", "a"))},
				v1.PreferredSchedulingTerm{Weight: 101, Preference: exprs(req("zone", "In", "a"))},
			),
			wantErrs: field.ErrorList{field.Invalid(pref.Index(1).Child("weight"), int32(101), "")}},
		{name: "VAL-18 preferred terms are validated like required ones, under preference",
			spec:     preferred(v1.PreferredSchedulingTerm{Weight: 1, Preference: exprs(req("zone", "Foo"))}),
			wantErrs: field.ErrorList{field.Invalid(pref.Index(0).Child("preference", "matchExpressions").Index(0).Child("operator"), v1.NodeSelectorOperator("Foo"), "")}},
		{name: "VAL-18 preferred terms accept invalid label values, as upstream",
			spec: preferred(v1.PreferredSchedulingTerm{Weight: 1, Preference: exprs(req("zone", "In", "b c"))})},
		{name: "VAL-18 an empty preferred list is valid", spec: preferred()},
		{name: "VAL-23 every problem is reported, node selector first",
			spec: &v1.PodSpec{
				NodeSelector: map[string]string{"b": "-x", "a/": "ok"},
				Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{fields(req("metadata.name", "Gt", "n0", "n1"))}},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: -1}},
				}},
			},
			wantErrs: field.ErrorList{
				field.Invalid(spec.Child("nodeSelector"), "a/", ""),
				field.Invalid(spec.Child("nodeSelector"), "a/", ""),
				field.Invalid(spec.Child("nodeSelector"), "-x", ""),
				field.Invalid(terms.Index(0).Child("matchFields").Index(0).Child("operator"), v1.NodeSelectorOperator("Gt"), ""),
				field.Invalid(pref.Index(0).Child("weight"), int32(-1), ""),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.spec.DeepCopy()
			errs := affinity.Validate(tt.spec, spec)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			if diff := cmp.Diff(before, tt.spec); diff != "" {
				t.Errorf("Validate() mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

// TestValidateOrderIsDeterministic: node selector errors come in key order, whatever the map
// order.
func TestValidateOrderIsDeterministic(t *testing.T) {
	t.Parallel()
	spec := nodeSel("-c", "x", "-a", "x", "-b", "x", "-d", "x")
	var want []string
	for range 20 {
		var got []string
		for _, e := range affinity.Validate(spec, nil) {
			got = append(got, e.Error())
		}
		if want == nil {
			want = got
		}
		require.Equal(t, want, got)
	}
	require.True(t, strings.Contains(want[0], `"-a"`), "first error is about the first key: %s", want[0])
}
