package rollout_test

import (
	"fmt"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// exampleAgent is a node agent rolled out one node at a time.
func exampleAgent(image string) *appsv1.DaemonSet {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "agent-uid", Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "agent", Image: image}}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}},
		},
	}
}

// Simulate a cluster from empty to steady, then forecast a template change and judge the
// rollout half-way.
func ExampleSimulate() {
	start := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var nodes []*v1.Node
	for _, name := range []string{"node-a", "node-b", "node-c"} {
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	kubelet := rollout.Kubelet{Startup: rollout.Fixed(20 * time.Second)}
	traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes}, exampleAgent("agent:1"),
		rollout.Options{Start: start, Kubelet: kubelet})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range traj.Acting() {
		fmt.Printf("%s: create on %v\n", s.At.Format("15:04:05"), s.Create)
	}
	steady := traj.End

	next := exampleAgent("agent:2")
	next.Generation = 2
	f, err := rollout.Forecast(steady, next, rollout.ForecastOptions{Now: traj.EndTime, Kubelet: kubelet})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("agent:2 rolls out in %s, %d syncs act\n", f.Duration, len(f.Steps))

	// Half-way: 30 s after the change.
	mid, _ := rollout.Simulate(steady, next, rollout.Options{Start: traj.EndTime, Kubelet: kubelet, Horizon: 30 * time.Second})
	r, _ := rollout.Progress(mid.End, next, rollout.ProgressOptions{Now: mid.EndTime})
	fmt.Println(r.State+":", r.Message)

	// Output:
	// 09:00:00: create on [node-a node-b node-c]
	// agent:2 rolls out in 1m0s, 6 syncs act
	// Progressing: 2 of 3 up to date, 2 available; pods are on their way
}
