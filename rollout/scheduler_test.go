package rollout_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestFilterSchedulerOwnsAtTheRelease: FilterScheduler leaves ds's own pods out of what a new
// pod must fit beside, and which pods are ds's own is the release's rule (VER-4, OWN-1): a pod
// whose controller reference has ds's uid under another kind and name is ds's in 1.33.4 (the
// controller indexes pods by controller uid alone), so the rollout replaces it and the new pod
// fits; from 1.33.6 on it is another workload's and its 900m of cpu leave no room (SCHED-9).
func TestFilterSchedulerOwnsAtTheRelease(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}
	node := nodes(1)[0]
	node.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	byUID := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ds.Namespace, Name: "old-agent", UID: "uid-old-agent",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other",
				UID: ds.UID, Controller: new(true)}}},
		Spec: v1.PodSpec{NodeName: node.Name, Containers: []v1.Container{{Name: "agent",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("900m")}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{node}, Pods: []*v1.Pod{byUID}}
	for _, tt := range []struct {
		release string
		want    bool
	}{
		{"1.33.4", true},
		{"1.33.6", false},
		{"1.37.2", false},
	} {
		t.Run("VER-4 "+tt.release, func(t *testing.T) {
			v, err := daemonset.ParseVersion(tt.release)
			require.NoError(t, err)
			p, errs := daemonset.Compile(ds, daemonset.Options{Now: t0, Version: v})
			require.Empty(t, errs)
			bind := rollout.FilterScheduler(s, ds, v, nil)
			require.Equal(t, tt.want, bind(p.NewPod(node.Name), node))
		})
	}
}

// TestFilterSchedulerFiltersAtTheRelease: the filters that decide are the release's (SCHED-5):
// a host-network pod in its own user namespace needs a node that declares the feature from 1.36,
// where NodeDeclaredFeatures filters, and binds anywhere in 1.35, where the gate is off.
func TestFilterSchedulerFiltersAtTheRelease(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	ds.Spec.Template.Spec.HostNetwork, ds.Spec.Template.Spec.HostUsers = true, new(false)
	node := nodes(1)[0]
	node.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{node}}
	for _, tt := range []struct {
		release string
		want    bool
	}{
		{"1.35.4", true},
		{"1.36.3", false},
		{"1.37.2", false},
	} {
		t.Run("SCHED-5 "+tt.release, func(t *testing.T) {
			v, err := daemonset.ParseVersion(tt.release)
			require.NoError(t, err)
			p, errs := daemonset.Compile(ds, daemonset.Options{Now: t0, Version: v})
			require.Empty(t, errs)
			require.Equal(t, tt.want, rollout.FilterScheduler(s, ds, v, nil)(p.NewPod(node.Name), node))
		})
	}
}
