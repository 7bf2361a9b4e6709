package schedule_test

import (
	"fmt"

	"github.com/daemonsched/daemonsched/schedule"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// A daemon pod that the controller placed on a full node: the scheduler would leave it Pending
// unless preemption makes room, and it names the pod it would evict.
func ExamplePod_Fit() {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
		Status: v1.NodeStatus{Allocatable: list("cpu", "4", "memory", "8Gi", "pods", "110")}}
	web := pod("web", "worker-1", list("cpu", "3880m"))
	agent := pod("agent", "", list("cpu", "250m"), func(p *v1.Pod) {
		p.Spec.PriorityClassName = schedule.SystemNodeCritical
	})

	v := schedule.Compile(agent, schedule.Options{}).Fit(node, []*v1.Pod{web})
	fmt.Println(v.Fits(), v.Filters())
	fmt.Println(v)

	agent.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
	fmt.Println(schedule.Compile(agent, schedule.Options{}).Fit(node, []*v1.Pod{web}).Preemption.Reason)
	// Output:
	// false [NodeResourcesFit]
	// NodeResourcesFit: cpu 250m requested, 120m free of 4; preempting 1 pod of priority 0 would make room (default/web)
	// PreemptionPolicyNever
}
