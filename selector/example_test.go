package selector_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

func ExampleCompile() {
	sel, errs := selector.Compile(&metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "fluentd"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"logging", "metrics"}},
		},
	}, field.NewPath("spec", "selector"))
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
	}
	fmt.Println(sel.Matches(map[string]string{"app": "fluentd", "tier": "logging"}))
	fmt.Println(sel.Explain(map[string]string{"app": "fluentd", "tier": "web"}))

	// Gt is a node selector operator only (SEL-6).
	_, errs = selector.Compile(&metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "cpus", Operator: "Gt", Values: []string{"8"}}},
	}, field.NewPath("spec", "selector"))
	for _, err := range errs {
		fmt.Println(err.Type, err.Field)
	}
	// Output:
	// true
	// label tier is "web", which does not satisfy tier In ["logging", "metrics"]
	// Invalid value spec.selector.matchExpressions[0].operator
}

func ExampleNewRequirement() {
	gt, errs := selector.NewRequirement("cpus", "Gt", []string{"8"}, selector.NodeSelectorOperators, nil)
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
	}
	for _, v := range []string{"16", "016", "8", "abc"} {
		fmt.Println(v, gt.Matches(map[string]string{"cpus": v}))
	}
	// Output:
	// 16 true
	// 016 true
	// 8 false
	// abc false
}
