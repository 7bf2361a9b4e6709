package lint_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/lint"
)

// A node exporter with a host port and a surging update, on a cluster with a GPU node whose taint
// it does not tolerate.
func ExampleLint() {
	labels := map[string]string{"app": "node-exporter"}
	surge, unavailable := intstr.FromInt32(1), intstr.FromInt32(0)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "node-exporter"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{Containers: []v1.Container{{
					Name: "exporter", Image: "prom/node-exporter",
					Ports: []v1.ContainerPort{{ContainerPort: 9100, HostPort: 9100}},
				}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &unavailable, MaxSurge: &surge},
			},
		},
	}
	gpu := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-1"},
		Spec:       v1.NodeSpec{Taints: []v1.Taint{{Key: "nvidia.com/gpu", Effect: v1.TaintEffectNoSchedule}}},
		Status:     v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("8")}},
	}
	worker := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{gpu, worker}}

	findings, err := lint.Lint(s, lint.Options{Plan: daemonset.Options{Now: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		fmt.Println(f.Rule, f.Severity, f.Field, f.Nodes)
	}
	// Output:
	// LINT-1 error spec.updateStrategy.rollingUpdate.maxSurge []
	// LINT-3 warning spec.template.spec.tolerations [gpu-1]
}
