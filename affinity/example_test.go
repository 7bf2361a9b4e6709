package affinity_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/affinity"
)

func ExampleCompile() {
	spec := &v1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cpus", Operator: v1.NodeSelectorOpGt, Values: []string{"8"}}}},
				{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"gpu-0"}}}},
			}},
		}},
	}
	required := affinity.Compile(spec, field.NewPath("spec", "template", "spec"))

	big := &v1.Node{}
	big.Name, big.Labels = "big", map[string]string{"kubernetes.io/os": "linux", "cpus": "016"}
	small := &v1.Node{}
	small.Name, small.Labels = "small", map[string]string{"kubernetes.io/os": "linux", "cpus": "4"}

	fmt.Println(big.Name, required.Matches(big))
	fmt.Println(small.Name, required.Matches(small))
	for _, t := range required.Explain(small).Terms {
		fmt.Println(t)
	}
	// Output:
	// big true
	// small false
	// term 0: node label cpus is "4", which does not satisfy cpus Gt ["8"]
	// term 1: node field metadata.name is "small", which does not satisfy metadata.name In ["gpu-0"]
}

// Evaluate tells which half of the placement rejected a node, as the DaemonSet controller's
// reasons need, in the same walk that decides it.
func ExampleRequired_Evaluate() {
	spec := &v1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a", "b"}}}},
			}},
		}},
	}
	required := affinity.Compile(spec, nil)
	for _, labels := range []map[string]string{
		{"kubernetes.io/os": "linux", "zone": "a"},
		{"kubernetes.io/os": "windows", "zone": "a"},
		{"kubernetes.io/os": "linux", "zone": "c"},
	} {
		fmt.Println(labels["kubernetes.io/os"], labels["zone"], required.Evaluate(&v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}))
	}
	// Output:
	// linux a Match
	// windows a NodeSelectorMismatch
	// linux c AffinityMismatch
}

func ExampleBindToNode() {
	template := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
		}},
		PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
			{Weight: 10, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "spot", Operator: v1.NodeSelectorOpExists}}}},
		},
	}}
	bound := affinity.BindToNode(template, "node-7")

	terms := bound.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	f := terms[0].MatchFields[0]
	fmt.Println(len(terms), f.Key, f.Operator, f.Values)
	fmt.Println(len(bound.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution), "preferred term kept")
	fmt.Println(template.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Key, "still in the template")

	name, ok := affinity.TargetNodeName(&v1.Pod{Spec: v1.PodSpec{Affinity: bound}})
	fmt.Println(name, ok)
	// Output:
	// 1 metadata.name In [node-7]
	// 1 preferred term kept
	// zone still in the template
	// node-7 true
}

func ExampleValidate() {
	spec := &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "cpus", Operator: v1.NodeSelectorOpGt, Values: []string{"abc"}}, // passes validation (VAL-18)
				{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a", "b c"}},
			}},
		}},
	}}}
	for _, err := range affinity.Validate(spec, field.NewPath("spec", "template", "spec")) {
		fmt.Println(err.Type, err.Field)
	}
	// Output:
	// Invalid value spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values[1]
}

// A term the API server would reject but the controller parses lazily is never matched, and
// nothing says so at match time (AFF-8): Errors tells a linter which terms are silently
// ignored, without a node at hand.
func ExampleRequired_Errors() {
	spec := &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cpus", Operator: v1.NodeSelectorOpGt, Values: []string{"eight"}}}},
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
		}},
	}}}
	required := affinity.Compile(spec, field.NewPath("spec"))
	for _, err := range required.Errors() {
		fmt.Println(err.Type, err.Field)
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"cpus": "16", "zone": "b"}}}
	fmt.Println("16 cpus in zone b matches:", required.Matches(node))
	// Output:
	// Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]
	// 16 cpus in zone b matches: false
}
