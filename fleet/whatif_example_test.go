package fleet_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
)

func ExampleWhatIf_DecideTemplate() {
	daemon := func(name string, spec v1.PodSpec) *appsv1.DaemonSet {
		labels := map[string]string{"app": name}
		spec.Containers = append(spec.Containers, v1.Container{Name: name, Image: "example.com/" + name + ":1"})
		return daemonset.WithDefaults(&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
		})
	}
	zoneA := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-a"}}}}}}}}
	kata := "kata"
	set, _ := fleet.Compile([]*appsv1.DaemonSet{
		daemon("log-agent", v1.PodSpec{}),                      // no requests: the LimitRange's defaults
		daemon("zonal-cache", v1.PodSpec{Affinity: zoneA}),     // only in zone-a
		daemon("scanner", v1.PodSpec{RuntimeClassName: &kata}), // the RuntimeClass adds overhead
	}, daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})

	// What the API server does to the pods: a LimitRange in kube-system, a RuntimeClass.
	admission, _ := fleet.CompileAdmission(
		[]*v1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "defaults"},
			Spec: v1.LimitRangeSpec{Limits: []v1.LimitRangeItem{{Type: v1.LimitTypeContainer,
				DefaultRequest: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}}}},
		[]*nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
			Overhead: &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}}}})
	w := set.WhatIf(fleet.Config{Admission: admission})

	// A node pool whose nodes land in zone-a or zone-b.
	pool, errs := fleet.CompileTemplate(&fleet.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []v1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-a", "zone-b"}}},
	}, nil)
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
	}
	var d fleet.TemplateDecision
	w.DecideTemplate(pool, &d)
	for i, v := range d.Verdicts {
		cpu := w.Pod(i).Requests[v1.ResourceCPU]
		fmt.Printf("%s: %s %s %v (cpu %s)\n", set.Planner(i).DaemonSet().Name, v.Answer, v.Reason, v.DependsOn, cpu.String())
	}
	lo, hi := d.Requests.Min[v1.ResourceCPU], d.Requests.Max[v1.ResourceCPU]
	fmt.Printf("cpu per node: %s to %s\n", lo.String(), hi.String())
	// Output:
	// log-agent: Runs  [] (cpu 100m)
	// scanner: Runs  [] (cpu 350m)
	// zonal-cache: Depends NodeAffinityMismatch [topology.kubernetes.io/zone] (cpu 100m)
	// cpu per node: 450m to 550m
}

func ExampleNodeReadiness() {
	labels := map[string]string{"app": "cni"}
	cni := daemonset.WithDefaults(&appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cni", UID: "cni-uid", Labels: map[string]string{"critical": "true"}},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: v1.PodSpec{
				Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}},
				Containers:  []v1.Container{{Name: "cni", Image: "example.com/cni:1"}}}}},
	})
	// A new node, still tainted until its critical daemon pods are ready; no pod yet.
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "example.com/startup", Effect: v1.TaintEffectNoSchedule}}}}
	critical := &metav1.LabelSelector{MatchLabels: map[string]string{"critical": "true"}}
	opts := daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	r, err := fleet.NodeReadiness(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{cni}, Nodes: []*v1.Node{node}}, "node-1", critical, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range r.DaemonSets {
		fmt.Printf("%s: must run %v, pod %q, creating %v, blocking %v\n", d.Name, d.MustRun, d.Pod, d.Creating, d.Blocking)
	}
	fmt.Println("ready for workloads:", r.Ready)
	// Output:
	// cni: must run true, pod "", creating true, blocking true
	// ready for workloads: false
}
