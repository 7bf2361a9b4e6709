package taints_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/taints"
)

func ExampleTolerations_FirstUntolerated() {
	// A pod that tolerates the control-plane taint, evaluated on a control-plane node that is
	// also being drained.
	tols := taints.Compile([]v1.Toleration{
		{Key: "node-role.kubernetes.io/control-plane", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	}, taints.Options{})
	node := []v1.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: v1.TaintEffectNoSchedule},
		{Key: "example.com/maintenance", Value: "true", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "example.com/drain", Value: "now", Effect: v1.TaintEffectNoExecute},
	}
	if t, ok := tols.FirstUntolerated(node, taints.Placement); ok {
		fmt.Printf("placement blocked by %s\n", t.ToString())
	}
	if t, ok := tols.FirstUntolerated(node, taints.Eviction); ok {
		fmt.Printf("running pod evicted by %s\n", t.ToString())
	}
	// Output:
	// placement blocked by example.com/drain=now:NoExecute
	// running pod evicted by example.com/drain=now:NoExecute
}

func ExampleCompile() {
	node := []v1.Taint{{Key: "cpus", Value: "16", Effect: v1.TaintEffectNoSchedule}}
	gt := []v1.Toleration{{Key: "cpus", Operator: v1.TolerationOpGt, Value: "8", Effect: v1.TaintEffectNoSchedule}}
	// Lt and Gt tolerate nothing unless the comparison feature is on (TAINT-10).
	_, blocked := taints.Compile(gt, taints.Options{}).FirstUntolerated(node, taints.Placement)
	fmt.Println("gate off, blocked:", blocked)
	_, blocked = taints.Compile(gt, taints.Options{ComparisonOperators: true}).FirstUntolerated(node, taints.Placement)
	fmt.Println("gate on, blocked:", blocked)
	// Output:
	// gate off, blocked: true
	// gate on, blocked: false
}
