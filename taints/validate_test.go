package taints_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/taints"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	root := field.NewPath("spec", "template", "spec", "tolerations")
	at := func(i int, child string) *field.Path { return root.Index(i).Child(child) }
	gateOn := taints.Options{ComparisonOperators: true}
	tests := []struct {
		name     string
		tols     []v1.Toleration
		opts     taints.Options
		wantErrs field.ErrorList
	}{
		{name: "VAL-17 no tolerations is valid"},
		{name: "VAL-17 usual tolerations are valid", tols: []v1.Toleration{
			{Operator: v1.TolerationOpExists},
			{Key: "k", Operator: v1.TolerationOpEqual, Value: "v", Effect: v1.TaintEffectNoSchedule},
			{Key: "example.com/k", Value: "v"},
			{Key: "k", Operator: v1.TolerationOpEqual},
			{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule},
		}},
		{name: "VAL-17 a key that is not a qualified name is invalid at key",
			tols:     []v1.Toleration{{Key: "Bad Key!", Operator: v1.TolerationOpExists}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "key"), "Bad Key!", "")}},
		{name: "VAL-17 TAINT-2 an empty key with Equal is invalid at operator",
			tols:     []v1.Toleration{{Operator: v1.TolerationOpEqual, Value: "v"}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "operator"), v1.TolerationOpEqual, "")}},
		{name: "VAL-17 an empty key with an empty operator is invalid at operator",
			tols:     []v1.Toleration{{}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "operator"), v1.TolerationOperator(""), "")}},
		{name: "VAL-17 tolerationSeconds with NoSchedule is invalid at effect",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](1)}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "effect"), v1.TaintEffectNoSchedule, "")}},
		{name: "VAL-17 tolerationSeconds with an empty effect is invalid at effect",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, TolerationSeconds: ptr.To[int64](0)}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "effect"), v1.TaintEffect(""), "")}},
		{name: "VAL-17 Equal with a value that is not a label value is invalid at operator",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpEqual, Value: "not valid!"}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "operator"), "not valid!", "")}},
		{name: "VAL-17 an empty operator is validated like Equal",
			tols:     []v1.Toleration{{Key: "k", Value: "-x"}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "operator"), "-x", "")}},
		{name: "VAL-17 Exists with a value is invalid at operator",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Value: "x"}},
			wantErrs: field.ErrorList{field.Invalid(at(0, "operator"), "x", "")}},
		{name: "VAL-17 D-7 Gt is unsupported with the gate off",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpGt, Value: "5"}},
			wantErrs: field.ErrorList{field.NotSupported[v1.TolerationOperator](at(0, "operator"), v1.TolerationOpGt, nil)}},
		{name: "VAL-17 D-7 Lt is unsupported with the gate off",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpLt, Value: "5"}},
			wantErrs: field.ErrorList{field.NotSupported[v1.TolerationOperator](at(0, "operator"), v1.TolerationOpLt, nil)}},
		{name: "VAL-17 TAINT-10 Gt with a canonical integer is valid with the gate on",
			tols: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpGt, Value: "-5"}}, opts: gateOn},
		{name: "VAL-17 TAINT-10 Gt with a word is invalid twice at value with the gate on",
			tols: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpGt, Value: "abc"}}, opts: gateOn,
			wantErrs: field.ErrorList{field.Invalid(at(0, "value"), "abc", ""), field.Invalid(at(0, "value"), "abc", "")}},
		{name: "VAL-17 TAINT-10 Lt with an empty value is invalid twice at value with the gate on",
			tols: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpLt}}, opts: gateOn,
			wantErrs: field.ErrorList{field.Invalid(at(0, "value"), "", ""), field.Invalid(at(0, "value"), "", "")}},
		{name: "VAL-17 TAINT-10 Lt with a leading zero is invalid once at value with the gate on",
			tols: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpLt, Value: "007"}}, opts: gateOn,
			wantErrs: field.ErrorList{field.Invalid(at(0, "value"), "007", "")}},
		{name: "VAL-17 TAINT-10 Lt beyond int64 is invalid once at value with the gate on",
			tols: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpLt, Value: "9223372036854775808"}}, opts: gateOn,
			wantErrs: field.ErrorList{field.Invalid(at(0, "value"), "9223372036854775808", "")}},
		{name: "VAL-17 an unknown operator is unsupported",
			tols:     []v1.Toleration{{Key: "k", Operator: "In", Value: "v"}},
			wantErrs: field.ErrorList{field.NotSupported[v1.TolerationOperator](at(0, "operator"), v1.TolerationOperator("In"), nil)}},
		{name: "VAL-17 an unknown operator is unsupported with the gate on too",
			tols: []v1.Toleration{{Key: "k", Operator: "exists"}}, opts: gateOn,
			wantErrs: field.ErrorList{field.NotSupported[v1.TolerationOperator](at(0, "operator"), v1.TolerationOperator("exists"), nil)}},
		{name: "VAL-17 an unknown effect is unsupported",
			tols:     []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Effect: "Bogus"}},
			wantErrs: field.ErrorList{field.NotSupported[v1.TaintEffect](at(0, "effect"), v1.TaintEffect("Bogus"), nil)}},
		{name: "VAL-17 errors carry the index of their toleration",
			tols: []v1.Toleration{
				{Key: "k", Operator: v1.TolerationOpExists},
				{Key: "k", Operator: v1.TolerationOpExists, Effect: "NoScheduleNoAdmit"},
			},
			wantErrs: field.ErrorList{field.NotSupported[v1.TaintEffect](at(1, "effect"), v1.TaintEffect("NoScheduleNoAdmit"), nil)}},
		{name: "VAL-23 every problem of a toleration is reported",
			tols: []v1.Toleration{{Key: "", Operator: "Foo", Value: "x", Effect: "Bogus", TolerationSeconds: ptr.To[int64](5)}},
			wantErrs: field.ErrorList{
				field.Invalid(at(0, "operator"), v1.TolerationOperator("Foo"), ""),
				field.Invalid(at(0, "effect"), v1.TaintEffect("Bogus"), ""),
				field.NotSupported[v1.TolerationOperator](at(0, "operator"), v1.TolerationOperator("Foo"), nil),
				field.NotSupported[v1.TaintEffect](at(0, "effect"), v1.TaintEffect("Bogus"), nil),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := cloneTolerations(tt.tols)
			errs := taints.Validate(tt.tols, root, tt.opts)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			if diff := cmp.Diff(orig, tt.tols); diff != "" {
				t.Errorf("Validate mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestValidateWithoutPath(t *testing.T) {
	t.Parallel()
	errs := taints.Validate([]v1.Toleration{{Key: "k", Operator: "Foo"}}, nil, taints.Options{})
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t,
		field.ErrorList{field.NotSupported[v1.TolerationOperator](field.NewPath("[0]", "operator"), v1.TolerationOperator("Foo"), nil)}, errs)
	if len(errs) == 1 && errs[0].Field != "[0].operator" {
		t.Errorf("field = %q, want [0].operator", errs[0].Field)
	}
}

func TestValidateNodeTaints(t *testing.T) {
	t.Parallel()
	// v1.36 ValidateNode reports node taints under metadata.taints (VAL-21).
	root := field.NewPath("metadata", "taints")
	tests := []struct {
		name     string
		taints   []v1.Taint
		wantErrs field.ErrorList
	}{
		{name: "VAL-21 no taints is valid"},
		{name: "VAL-21 usual taints are valid", taints: []v1.Taint{
			taint("node-role.kubernetes.io/control-plane", "", v1.TaintEffectNoSchedule),
			taint("k", "v", v1.TaintEffectPreferNoSchedule),
			taint("k", "v", v1.TaintEffectNoExecute),
		}},
		{name: "VAL-21 an empty key is invalid for being empty and for its syntax",
			taints: []v1.Taint{taint("", "", v1.TaintEffectNoSchedule)},
			wantErrs: field.ErrorList{
				field.Invalid(root.Index(0).Child("key"), "", ""),
				field.Invalid(root.Index(0).Child("key"), "", ""),
			}},
		{name: "VAL-21 a value that is not a label value is invalid",
			taints:   []v1.Taint{taint("k", "a b", v1.TaintEffectNoSchedule)},
			wantErrs: field.ErrorList{field.Invalid(root.Index(0).Child("value"), "a b", "")}},
		{name: "VAL-21 an empty effect is required",
			taints:   []v1.Taint{taint("k", "", "")},
			wantErrs: field.ErrorList{field.Required(root.Index(0).Child("effect"), "")}},
		{name: "VAL-21 an unknown effect is unsupported",
			taints:   []v1.Taint{taint("k", "", "Bogus")},
			wantErrs: field.ErrorList{field.NotSupported[v1.TaintEffect](root.Index(0).Child("effect"), v1.TaintEffect("Bogus"), nil)}},
		{name: "VAL-21 a second taint with the same key and effect is a duplicate",
			taints:   []v1.Taint{taint("k", "a", v1.TaintEffectNoSchedule), taint("k", "b", v1.TaintEffectNoSchedule)},
			wantErrs: field.ErrorList{field.Duplicate(root.Index(1), taint("k", "b", v1.TaintEffectNoSchedule))}},
		{name: "VAL-21 duplicates with a bad effect are reported with the effect error",
			taints: []v1.Taint{taint("k", "", "Bogus"), taint("k", "", "Bogus")},
			wantErrs: field.ErrorList{
				field.NotSupported[v1.TaintEffect](root.Index(0).Child("effect"), v1.TaintEffect("Bogus"), nil),
				field.NotSupported[v1.TaintEffect](root.Index(1).Child("effect"), v1.TaintEffect("Bogus"), nil),
				field.Duplicate(root.Index(1), taint("k", "", "Bogus")),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := cloneTaints(tt.taints)
			errs := taints.ValidateNodeTaints(tt.taints, root)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			if diff := cmp.Diff(orig, tt.taints); diff != "" {
				t.Errorf("ValidateNodeTaints mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}
