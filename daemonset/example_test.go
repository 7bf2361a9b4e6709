package daemonset_test

import (
	"fmt"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func exampleDaemonSet() *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "agent-uid", Generation: 3},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
					Containers:   []v1.Container{{Name: "agent", Image: "agent:1"}},
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		},
	}
}

func ExamplePlan() {
	linux := map[string]string{"kubernetes.io/os": "linux"}
	nodes := []*v1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: linux}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-b", Labels: linux},
			Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoExecute}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-c", Labels: map[string]string{"kubernetes.io/os": "windows"}}},
	}
	controller := true
	pods := []*v1.Pod{{
		ObjectMeta: metav1.ObjectMeta{
			Name: "agent-x1", Namespace: "kube-system", Labels: map[string]string{"app": "agent"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", UID: "agent-uid", Controller: &controller}},
		},
		Spec: v1.PodSpec{NodeName: "node-b"},
	}}
	res, err := daemonset.Plan(exampleDaemonSet(), nodes, pods, daemonset.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Create {
		fmt.Println("create on", c.Node, "reason", c.Reason, "generateName", c.Pod.GenerateName)
	}
	for _, d := range res.Delete {
		fmt.Println("delete", d.Namespace+"/"+d.Name, "on", d.Node, "reason", d.Reason)
	}
	s := res.Status
	fmt.Printf("desired %d, current %d, misscheduled %d\n", s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberMisscheduled)
	// Output:
	// create on node-a reason MissingPod generateName agent-
	// delete kube-system/agent-x1 on node-b reason NodeNotEligible
	// desired 1, current 0, misscheduled 1
}

func ExamplePlanner_Plan() {
	p, errs := daemonset.Compile(exampleDaemonSet(), daemonset.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), BurstLimit: 2})
	fmt.Println("validation errors:", len(errs))
	var nodes []*v1.Node
	for _, name := range []string{"n3", "n1", "n2", "n0"} {
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": "linux"}}})
	}
	// The same compiled Planner plans any number of snapshots.
	for _, s := range []daemonset.Snapshot{{Nodes: nodes[:1]}, {Nodes: nodes}} {
		res := p.Plan(s)
		for _, c := range res.Create {
			fmt.Printf("create on %s (interchangeable %t)\n", c.Node, c.Interchangeable)
		}
		fmt.Println("desired", res.Status.DesiredNumberScheduled)
	}
	// Output:
	// validation errors: 0
	// create on n3 (interchangeable false)
	// desired 1
	// create on n0 (interchangeable true)
	// create on n1 (interchangeable true)
	// desired 4
}

func ExamplePlanner_Explain() {
	p, _ := daemonset.Compile(exampleDaemonSet(), daemonset.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{"kubernetes.io/os": "windows"}}}
	fmt.Println(p.Explain(n))
	// Output:
	// node win-1 should not run the daemon pod (NodeSelectorMismatch).
	// Node label kubernetes.io/os is "windows", but spec.nodeSelector requires kubernetes.io/os="linux".
}

// A ControllerRevision holds the current template twice (an older controller's leftover): the
// sync keeps the newer one, relabels the pods that carry the other hash and deletes it. The
// writes come in the order a controller sends them.
func ExampleRevisionWrites() {
	ds := exampleDaemonSet()
	older, _ := daemonset.NewRevision(ds, "a", 1)
	older.Name = "agent-a"
	newer, _ := daemonset.NewRevision(ds, "b", 2)
	newer.Name = "agent-b"
	controller := true
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-x1", Namespace: "kube-system",
			Labels:          map[string]string{"app": "agent", "controller-revision-hash": "a"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", UID: "agent-uid", Controller: &controller}}},
		Spec: v1.PodSpec{NodeName: "node-a"},
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"kubernetes.io/os": "linux"}}}
	p, _ := daemonset.Compile(ds, daemonset.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	res := p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{node}, Pods: []*v1.Pod{pod}, Revisions: []*appsv1.ControllerRevision{older, newer}})
	w := res.Revisions
	fmt.Println("hash", res.RevisionHash)
	for _, r := range w.RelabelPods {
		fmt.Printf("relabel %s/%s: %s\n", r.Namespace, r.Name, r.Patch())
	}
	for _, d := range w.Delete {
		fmt.Println("delete revision", d.Name)
	}
	// Output:
	// hash b
	// relabel kube-system/agent-x1: {"metadata":{"labels":{"controller-revision-hash":"b"}}}
	// delete revision agent-a
}

// A caller deciding many nodes memoizes the two halves of eligibility apart, as package fleet
// does: placement once per label set, the tolerations' answer once per taint list.
// Eligibility.WithUntolerated joins them into the answer Eligibility gives for the node itself.
func ExampleEligibility_WithUntolerated() {
	p, _ := daemonset.Compile(exampleDaemonSet(), daemonset.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", Labels: map[string]string{"kubernetes.io/os": "linux"}},
		Spec:       v1.NodeSpec{Taints: []v1.Taint{{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}}},
	}
	bare := node.DeepCopy()
	bare.Spec.Taints = nil
	placed := p.Eligibility(bare)                                        // once per label set
	placement, eviction := p.Tolerations().Untolerated(node.Spec.Taints) // once per taint list

	e := placed.WithUntolerated(node.Spec.Taints, placement, eviction)
	fmt.Println(e.ShouldRun, e.ShouldContinueRunning, e.Reason, e.Taint.Key)
	fmt.Println("same as Eligibility:", e == p.Eligibility(node))
	// Output:
	// false true TaintNotTolerated gpu
	// same as Eligibility: true
}
