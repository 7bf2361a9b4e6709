package fleet_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/workload"
)

func ExampleSet_DecideNode() {
	// daemon is a DaemonSet in kube-system whose pod runs one container with these requests.
	daemon := func(name, cpu, memory string, port int32, spec v1.PodSpec) *appsv1.DaemonSet {
		labels := map[string]string{"app": name}
		c := v1.Container{Name: name, Image: "example.com/" + name + ":1", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(memory)},
		}}
		if port > 0 {
			c.Ports = []v1.ContainerPort{{ContainerPort: port, HostPort: port}}
		}
		spec.Containers = []v1.Container{c}
		return daemonset.WithDefaults(&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			},
		})
	}
	linux := map[string]string{"kubernetes.io/os": "linux"}
	set, errs := fleet.Compile([]*appsv1.DaemonSet{
		daemon("node-agent", "100m", "64Mi", 9100, v1.PodSpec{NodeSelector: linux,
			Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}}}), // every taint
		daemon("log-shipper", "200m", "256Mi", 24224, v1.PodSpec{NodeSelector: linux}),
		daemon("gpu-plugin", "50m", "32Mi", 0, v1.PodSpec{
			NodeSelector: map[string]string{"gpu": "true"},
			Tolerations:  []v1.Toleration{{Key: "gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
		}),
	}, daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
	}

	// A GPU node an autoscaler considers adding: labels and taints, no name yet.
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"kubernetes.io/os": "linux", "gpu": "true"}},
		Spec:       v1.NodeSpec{Taints: []v1.Taint{{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}}},
	}
	var d fleet.NodeDecision // reuse it for the next node: no allocation then
	set.DecideNode(node, &d)
	for i := range set.Len() { // in namespace/name order
		ds, e := set.Planner(i).DaemonSet(), d.Eligibility(i)
		if e.ShouldRun {
			fmt.Printf("%s: runs\n", ds.Name)
		} else {
			fmt.Printf("%s: %s %s\n", ds.Name, e.Reason, e.Taint.ToString())
		}
	}
	cpu, _ := d.Request(v1.ResourceCPU)
	memory, _ := d.Request(v1.ResourceMemory)
	fmt.Printf("%d daemon pods request cpu %s, memory %s; host ports %v\n",
		len(d.ShouldRun()), cpu.String(), memory.String(), d.HostPorts())
	// Output:
	// gpu-plugin: runs
	// log-shipper: TaintNotTolerated gpu=true:NoSchedule
	// node-agent: runs
	// 2 daemon pods request cpu 150m, memory 96Mi; host ports [{0.0.0.0 TCP 9100}]
}

func ExampleMatrix_UpdateNode() {
	opts := daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	set, _ := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, opts)
	nodes := workload.Nodes(1, 1000)
	decisions, _ := set.Decide(nodes)

	// Cordoning changes no decision: the cordon taint is tolerated by default (DEFTOL-7).
	cordoned := nodes[2].DeepCopy()
	cordoned.Spec.Unschedulable = true
	cordoned.Spec.Taints = append(cordoned.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	fmt.Println("cordon:", len(decisions.UpdateNode(cordoned, nil)), "changes")

	// The node becomes a GPU node: the reference DaemonSet does not tolerate that taint.
	gpu := cordoned.DeepCopy()
	gpu.Spec.Taints = append(gpu.Spec.Taints, v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule})
	for _, c := range decisions.UpdateNode(gpu, nil) {
		fmt.Printf("%s: shouldRun %v -> %v (%s)\n", c.Node, c.Before.ShouldRun, c.After.ShouldRun, c.After.Reason)
	}
	// Output:
	// cordon: 0 changes
	// node-000002: shouldRun true -> false (TaintNotTolerated)
}

// ExampleMatrix reads a Matrix row by row and keeps it up to date as nodes go and a DaemonSet
// changes, as a simulator stepping through a cluster's history does.
func ExampleMatrix() {
	opts := daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	set, _ := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, opts)
	decisions, _ := set.Decide(workload.Nodes(1, 1000))

	shouldRun, mayContinue := decisions.Count(0)
	fmt.Println("rows:", decisions.Rows(), "shouldRun:", shouldRun, "shouldContinueRunning:", mayContinue)

	// One node, by name: its row, its node, the decision and what the daemon pods need there.
	r, _ := decisions.Row("node-000002")
	var d fleet.NodeDecision
	decisions.DecisionAt(r, &d)
	fmt.Println(decisions.NodeAt(r).Name, decisions.Eligibility(r, 0).ShouldRun, len(d.ShouldRun()), "daemon pod")

	// The node goes: its decisions change to none, and its row is kept for the next node.
	fmt.Println("remove:", len(decisions.RemoveNode("node-000002", nil)), "change")

	// The DaemonSet now tolerates every taint: it runs wherever its placement admits it.
	ds := workload.ReferenceDaemonSet()
	ds.Spec.Template.Spec.Tolerations = append(ds.Spec.Template.Spec.Tolerations, v1.Toleration{Operator: v1.TolerationOpExists})
	changes, _ := decisions.UpdateDaemonSet(ds, nil)
	shouldRun, _ = decisions.Count(0)
	fmt.Println("update:", len(changes), "changes; shouldRun:", shouldRun, "of", decisions.Set().Len(), "DaemonSet")
	// Output:
	// rows: 1000 shouldRun: 487 shouldContinueRunning: 620
	// node-000002 true 1 daemon pod
	// remove: 1 change
	// update: 133 changes; shouldRun: 619 of 1 DaemonSet
}
