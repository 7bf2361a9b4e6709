package schedule_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/schedule"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func node(name string, alloc v1.ResourceList, features ...string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: alloc, DeclaredFeatures: features}}
}

func list(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

type podOpt func(*v1.Pod)

func pod(name, nodeName string, requests v1.ResourceList, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{NodeName: nodeName, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: requests}}}},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func prio(n int32) podOpt { return func(p *v1.Pod) { p.Spec.Priority = ptr.To(n) } }
func hostPort(port int32) podOpt {
	return func(p *v1.Pod) {
		p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: port, HostPort: port}}
	}
}
func started(minute int) podOpt {
	return func(p *v1.Pod) {
		p.Status.StartTime = &metav1.Time{Time: time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC)}
	}
}
func phase(ph v1.PodPhase) podOpt { return func(p *v1.Pod) { p.Status.Phase = ph } }

func q(s string) resource.Quantity { return resource.MustParse(s) }

func TestFit(t *testing.T) {
	t.Parallel()
	v136, err := daemonset.ParseVersion("1.36")
	require.NoError(t, err)
	v133, err := daemonset.ParseVersion("1.33")
	require.NoError(t, err)
	v135, err := daemonset.ParseVersion("1.35")
	require.NoError(t, err)
	alloc := list("cpu", "4", "memory", "8Gi", "pods", "110")
	tests := []struct {
		name string
		pod  *v1.Pod
		opts schedule.Options
		node *v1.Node
		pods []*v1.Pod
		want schedule.Verdict
	}{
		{
			name: "pod fits beside the node's pods (SCHED-1)",
			pod:  pod("agent", "", list("cpu", "250m")),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("web", "n1", list("cpu", "3"))},
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "cpu short with the numbers, and preemption names the victim (SCHED-1, SCHED-4)",
			pod:  pod("agent", "", list("cpu", "250m"), prio(1000)),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("web", "n1", list("cpu", "3880m"), started(1)), pod("db", "n1", list("cpu", "10m"), prio(2000))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("250m"), Used: q("3890m"), Allocatable: q("4")}},
				Preemption: &schedule.Preemption{Possible: true, Priority: 1000,
					Victims: []schedule.Victim{{Namespace: "default", Name: "web"}}}},
		},
		{
			name: "terminal pods and pods of other nodes do not count (SCHED-6)",
			pod:  pod("agent", "", list("cpu", "1")),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("done", "n1", list("cpu", "4"), phase(v1.PodSucceeded)), pod("other", "n2", list("cpu", "4"))},
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "request above allocatable is unresolvable (SCHED-1, SCHED-4)",
			pod:  pod("agent", "", list("memory", "16Gi")),
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "memory", Requested: q("16Gi"), Used: q("0"), Allocatable: q("8Gi"), Unresolvable: true}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "extended resource the node lacks counts as 0 (SCHED-1)",
			pod:  pod("agent", "", list("example.com/gpu", "1")),
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "example.com/gpu", Requested: q("1"), Used: q("0"), Allocatable: q("0"), Unresolvable: true}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "pod count at the node's maximum (SCHED-1)",
			pod:  pod("agent", "", nil),
			node: node("n1", list("cpu", "4", "pods", "1")),
			pods: []*v1.Pod{pod("web", "n1", nil, prio(5))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "pods", Requested: q("1"), Used: q("1"), Allocatable: q("1")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods}},
		},
		{
			name: "allocatable without a pods entry allows no pod, as upstream's Too many pods (SCHED-1)",
			pod:  pod("agent", "", list("cpu", "100m")),
			node: node("n1", list("cpu", "4", "memory", "8Gi")),
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "pods", Requested: q("1"), Used: q("0"), Allocatable: q("0")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods}},
		},
		{
			name: "node without any allocatable allows no pod, as upstream's Too many pods (SCHED-1)",
			pod:  pod("agent", "", nil),
			node: node("n1", nil),
			want: schedule.Verdict{Node: "n1", ResourcesUnknown: true,
				Insufficient: []schedule.Insufficient{{Resource: "pods", Requested: q("1"), Used: q("0"), Allocatable: q("0")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods}},
		},
		{
			name: "node without any allocatable has none of what the pod requests either (SCHED-1, SCHED-4)",
			pod:  pod("agent", "", list("cpu", "100m")),
			node: node("n1", nil),
			pods: []*v1.Pod{pod("web", "n1", nil)},
			want: schedule.Verdict{Node: "n1", ResourcesUnknown: true,
				Insufficient: []schedule.Insufficient{
					{Resource: "pods", Requested: q("1"), Used: q("1"), Allocatable: q("0")},
					{Resource: "cpu", Requested: q("100m"), Used: q("0"), Allocatable: q("0"), Unresolvable: true}},
				Preemption: &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "host port held by another pod (SCHED-2)",
			pod:  pod("agent", "", nil, hostPort(9100), prio(10)),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("exporter", "n1", nil, hostPort(9100))},
			want: schedule.Verdict{Node: "n1",
				PortConflicts: []schedule.PortConflict{{Port: fleet.HostPort{IP: "0.0.0.0", Protocol: "TCP", Port: 9100}, Namespace: "default", Name: "exporter"}},
				Preemption: &schedule.Preemption{Possible: true, Priority: 10,
					Victims: []schedule.Victim{{Namespace: "default", Name: "exporter"}}}},
		},
		{
			name: "preemptionPolicy Never evicts nothing (SCHED-4)",
			pod: pod("agent", "", nil, hostPort(9100), prio(10), func(p *v1.Pod) {
				p.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
			}),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("exporter", "n1", nil, hostPort(9100))},
			want: schedule.Verdict{Node: "n1",
				PortConflicts: []schedule.PortConflict{{Port: fleet.HostPort{IP: "0.0.0.0", Protocol: "TCP", Port: 9100}, Namespace: "default", Name: "exporter"}},
				Preemption:    &schedule.Preemption{Reason: schedule.PreemptionReasonPolicyNever, Priority: 10}},
		},
		{
			name: "the most important victims are reprieved first: the later start goes (SCHED-4)",
			pod:  pod("agent", "", list("cpu", "1"), func(p *v1.Pod) { p.Spec.PriorityClassName = schedule.SystemNodeCritical }),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("old", "n1", list("cpu", "2"), started(1)), pod("new", "n1", list("cpu", "2"), started(2))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("1"), Used: q("4"), Allocatable: q("4")}},
				Preemption: &schedule.Preemption{Possible: true, Priority: 2000001000, PriorityClass: schedule.SystemNodeCritical,
					Victims: []schedule.Victim{{Namespace: "default", Name: "new"}}}},
		},
		{
			name: "unknown priority class counts as 0 and says so (SCHED-4)",
			pod:  pod("agent", "", list("cpu", "1"), func(p *v1.Pod) { p.Spec.PriorityClassName = "agents" }),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("web", "n1", list("cpu", "4"))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("1"), Used: q("4"), Allocatable: q("4")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods, PriorityClass: "agents", PriorityUnknown: true}},
		},
		{
			name: "a priority class learnt from the options (SCHED-4)",
			pod:  pod("agent", "", list("cpu", "1"), func(p *v1.Pod) { p.Spec.PriorityClassName = "agents" }),
			opts: schedule.Options{PriorityClasses: map[string]int32{"agents": 100}},
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("web", "n1", list("cpu", "4"), prio(200))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("1"), Used: q("4"), Allocatable: q("4")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods, Priority: 100, PriorityClass: "agents"}},
		},
		{
			name: "evicting every lower-priority pod is not enough (SCHED-4)",
			pod:  pod("agent", "", list("cpu", "2"), prio(10)),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("low", "n1", list("cpu", "1")), pod("high", "n1", list("cpu", "3"), prio(20))},
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("2"), Used: q("4"), Allocatable: q("4")}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNotEnough, Priority: 10}},
		},
		{
			name: "missing declared feature refuses from 1.36 (SCHED-3, SCHED-5)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
			}),
			opts: schedule.Options{Version: v136},
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1", MissingFeatures: []string{schedule.FeatureUserNamespacesHostNetwork},
				Preemption: &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "declared feature present lets it bind (SCHED-3)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
			}),
			node: node("n1", alloc, schedule.FeatureUserNamespacesHostNetwork),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "no declared-feature filter in 1.35, where the gate is off (SCHED-3, SCHED-5)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
			}),
			opts: schedule.Options{Version: v135},
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "bind mount options need VolumeBindMountOptions at 1.37, the default (SCHED-3, SCHED-5)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data", BindMountOptions: []string{"nosuid"}}}
			}),
			node: node("n1", alloc, schedule.FeatureRestartAllContainers),
			want: schedule.Verdict{Node: "n1", MissingFeatures: []string{schedule.FeatureVolumeBindMountOptions},
				Preemption: &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "bind mount options of an init container count too, sorted with the other features (SCHED-3)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
				p.Spec.InitContainers = []v1.Container{{Name: "init", VolumeMounts: []v1.VolumeMount{{Name: "a"}, {Name: "b", BindMountOptions: []string{"ro"}}}}}
			}),
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1", MissingFeatures: []string{schedule.FeatureUserNamespacesHostNetwork, schedule.FeatureVolumeBindMountOptions},
				Preemption: &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "bind mount options of an ephemeral container need the feature (SCHED-3)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug",
					VolumeMounts: []v1.VolumeMount{{Name: "data", BindMountOptions: []string{"noexec"}}}}}}
			}),
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1", MissingFeatures: []string{schedule.FeatureVolumeBindMountOptions},
				Preemption: &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "a node declaring VolumeBindMountOptions takes a pod with bind mount options (SCHED-3)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "data", BindMountOptions: []string{"nosuid"}}}
			}),
			node: node("n1", alloc, schedule.FeatureVolumeBindMountOptions),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "bind mount options need no feature at 1.36, whose filter does not know it (SCHED-3, SCHED-5)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "data", BindMountOptions: []string{"nosuid"}}}
			}),
			opts: schedule.Options{Version: v136},
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "empty bind mount options need no feature (SCHED-3)",
			pod: pod("agent", "", nil, func(p *v1.Pod) {
				p.Spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "data", BindMountOptions: []string{}}}
			}),
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "at 1.33 pod-level requests are not counted (SCHED-5, ADM-8)",
			pod: pod("agent", "", list("cpu", "1"), func(p *v1.Pod) {
				p.Spec.Resources = &v1.ResourceRequirements{Requests: list("cpu", "8")}
			}),
			opts: schedule.Options{Version: v133},
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1"},
		},
		{
			name: "at 1.33 with PodLevelResources on, pod-level requests are counted (SCHED-5, VER-5)",
			pod: pod("agent", "", list("cpu", "1"), func(p *v1.Pod) {
				p.Spec.Resources = &v1.ResourceRequirements{Requests: list("cpu", "8")}
			}),
			opts: schedule.Options{Version: v133, FeatureGates: daemonset.FeatureGates{daemonset.GatePodLevelResources: true}},
			node: node("n1", alloc),
			want: schedule.Verdict{Node: "n1",
				Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("8"), Used: q("0"), Allocatable: q("4"), Unresolvable: true}},
				Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonUnresolvable}},
		},
		{
			name: "the pod itself on the node is not counted (SCHED-6)",
			pod:  pod("agent", "n1", list("cpu", "4")),
			node: node("n1", alloc),
			pods: []*v1.Pod{pod("agent", "n1", list("cpu", "4"))},
			want: schedule.Verdict{Node: "n1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			podIn, nodeIn := tt.pod.DeepCopy(), tt.node.DeepCopy()
			var podsIn []*v1.Pod
			for _, p := range tt.pods {
				podsIn = append(podsIn, p.DeepCopy())
			}
			got := schedule.Compile(tt.pod, tt.opts).Fit(tt.node, tt.pods)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Fit() mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, tt.want.Fits(), got.Fits())
			if diff := cmp.Diff(podIn, tt.pod); diff != "" {
				t.Errorf("pod mutated:\n%s", diff)
			}
			if diff := cmp.Diff(nodeIn, tt.node); diff != "" {
				t.Errorf("node mutated:\n%s", diff)
			}
			if diff := cmp.Diff(podsIn, tt.pods); diff != "" {
				t.Errorf("pods mutated:\n%s", diff)
			}
		})
	}
}

func TestPriorityClassesOf(t *testing.T) {
	t.Parallel()
	pods := []*v1.Pod{
		pod("a", "n1", nil, prio(5), func(p *v1.Pod) { p.Spec.PriorityClassName = "agents" }),
		pod("b", "n1", nil, prio(7), func(p *v1.Pod) { p.Spec.PriorityClassName = "agents" }),
		pod("c", "n1", nil, func(p *v1.Pod) { p.Spec.PriorityClassName = "unset" }),
	}
	if diff := cmp.Diff(map[string]int32{"agents": 7}, schedule.PriorityClassesOf(pods)); diff != "" {
		t.Errorf("PriorityClassesOf() mismatch (-want +got):\n%s", diff)
	}
}

// A verdict reads as one line with the numbers (SCHED-1, SCHED-2, SCHED-4).
func TestVerdictString(t *testing.T) {
	t.Parallel()
	alloc := list("cpu", "4", "memory", "8Gi", "pods", "110")
	got := schedule.Compile(pod("agent", "", list("cpu", "250m"), prio(1000)), schedule.Options{}).Fit(node("n1", alloc),
		[]*v1.Pod{pod("a", "n1", list("cpu", "2"), started(1)), pod("b", "n1", list("cpu", "1880m"), started(2))})
	require.Equal(t, "NodeResourcesFit: cpu 250m requested, 120m free of 4; preempting 1 pod of priority 0 would make room (default/b)", got.String())
	got = schedule.Compile(pod("agent", "", nil, hostPort(9100)), schedule.Options{}).Fit(node("n1", alloc),
		[]*v1.Pod{pod("exporter", "n1", nil, hostPort(9100))})
	require.Equal(t, "NodePorts: host port 9100/TCP held by default/exporter; no pod there has a priority below its 0, so nothing is preempted for it", got.String())
	got = schedule.Compile(pod("agent", "", nil), schedule.Options{}).Fit(node("n1", alloc), nil)
	require.Empty(t, got.String())
	got = schedule.Compile(pod("agent", "", nil), schedule.Options{}).Fit(node("n1", list("cpu", "4", "pods", "1")),
		[]*v1.Pod{pod("web", "n1", nil, prio(5))})
	require.Equal(t, "NodeResourcesFit: Too many pods: 1 on the node, which allows 1; no pod there has a priority below its 0, so nothing is preempted for it", got.String())
	got = schedule.Compile(pod("agent", "", nil), schedule.Options{}).Fit(node("n1", list("cpu", "4")), nil)
	require.Equal(t, "NodeResourcesFit: Too many pods: the node allows none (its allocatable has no pods, or 0); no pod there has a priority below its 0, so nothing is preempted for it", got.String())
}

// FitAll binds a new node's daemon pods higher priority first, each beside those bound before
// it; the one that no longer fits is reported (SCHED-8).
func TestFitAll(t *testing.T) {
	t.Parallel()
	n := node("new", list("cpu", "1", "pods", "110"))
	pods := []*v1.Pod{
		pod("logs", "", list("cpu", "500m")),
		pod("net", "", list("cpu", "600m"), prio(2000001000), hostPort(9100)),
		pod("metrics", "", list("cpu", "100m"), hostPort(9100)),
	}
	in := []*v1.Pod{pods[0].DeepCopy(), pods[1].DeepCopy(), pods[2].DeepCopy()}
	got := schedule.FitAll(pods, n, nil, schedule.Options{})
	require.Len(t, got, 2)
	require.Equal(t, 0, got[0].Index)
	require.Equal(t, "NodeResourcesFit: cpu 500m requested, 400m free of 1; no pod there has a priority below its 0, so nothing is preempted for it", got[0].Verdict.String())
	require.Equal(t, 2, got[1].Index)
	require.Equal(t, "NodePorts: host port 9100/TCP held by default/net; no pod there has a priority below its 0, so nothing is preempted for it", got[1].Verdict.String())
	if diff := cmp.Diff(in, pods); diff != "" {
		t.Errorf("pods mutated:\n%s", diff)
	}
	require.Empty(t, schedule.FitAll(pods[:1], n, nil, schedule.Options{}))
}

// FitEach judges every pod of the list in the scheduler's queue order, each beside the pods
// bound before it (assumed in the scheduler's cache), and returns the verdicts by index
// (SCHED-8, SCHED-7).
func TestFitEach(t *testing.T) {
	t.Parallel()
	n := node("n1", list("cpu", "1", "pods", "110"))
	bound := []*v1.Pod{pod("web", "n1", list("cpu", "300m")), pod("elsewhere", "n2", list("cpu", "1"))}
	pods := []*v1.Pod{
		pod("first", "", list("cpu", "400m")),
		pod("second", "", list("cpu", "400m")),
		pod("urgent", "", list("cpu", "200m"), prio(1000)),
	}
	in := []*v1.Pod{pods[0].DeepCopy(), pods[1].DeepCopy(), pods[2].DeepCopy()}
	got := schedule.FitEach(pods, n, bound, schedule.Options{})
	require.Len(t, got, 3)
	require.True(t, got[0].Fits(), "urgent (priority 1000) and web leave 500m: first binds")
	require.True(t, got[2].Fits(), "the higher priority binds first")
	want := schedule.Verdict{Node: "n1",
		Insufficient: []schedule.Insufficient{{Resource: "cpu", Requested: q("400m"), Used: q("900m"), Allocatable: q("1")}},
		Preemption:   &schedule.Preemption{Reason: schedule.PreemptionReasonNoLowerPriorityPods}}
	if diff := cmp.Diff(want, got[1]); diff != "" {
		t.Errorf("FitEach()[1] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(in, pods); diff != "" {
		t.Errorf("pods mutated:\n%s", diff)
	}
	alone := schedule.Compile(pods[1], schedule.Options{}).Fit(n, bound)
	require.True(t, alone.Fits(), "judged alone, beside the bound pods only, the second pod fits")
}

// TestCompileKeepsNotTheCallersGates: the gates are read when the pod is compiled; changing the
// caller's map afterwards changes no answer (SCHED-5, VER-5).
func TestCompileKeepsNotTheCallersGates(t *testing.T) {
	t.Parallel()
	v133, err := daemonset.ParseVersion("1.33")
	require.NoError(t, err)
	gates := daemonset.FeatureGates{daemonset.GatePodLevelResources: true}
	p := schedule.Compile(pod("agent", "", list("cpu", "1"), func(p *v1.Pod) {
		p.Spec.Resources = &v1.ResourceRequirements{Requests: list("cpu", "8")}
	}), schedule.Options{Version: v133, FeatureGates: gates})
	gates[daemonset.GatePodLevelResources] = false
	require.False(t, p.Fit(node("n1", list("cpu", "4", "memory", "8Gi", "pods", "110")), nil).Fits(), "the pod-level 8 CPUs still count")
}

// FeatureField names the first field that makes the pod need a node feature, the one SCHED-3
// infers it from, under the path given (LINT-12 reports it).
func TestFeatureField(t *testing.T) {
	t.Parallel()
	root := field.NewPath("spec", "template", "spec")
	restartAll := v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestartAllContainers}
	tests := []struct {
		name    string
		spec    v1.PodSpec
		feature string
		want    string
	}{
		{name: "the second mount of the first container with bindMountOptions (SCHED-3)",
			spec: v1.PodSpec{Containers: []v1.Container{
				{Name: "a", VolumeMounts: []v1.VolumeMount{{Name: "x"}, {Name: "y", BindMountOptions: []string{"nosuid"}}}},
				{Name: "b", VolumeMounts: []v1.VolumeMount{{Name: "z", BindMountOptions: []string{"ro"}}}}}},
			feature: schedule.FeatureVolumeBindMountOptions, want: "spec.template.spec.containers[0].volumeMounts[1].bindMountOptions"},
		{name: "an init container's mount comes before the containers' (SCHED-3)",
			spec: v1.PodSpec{InitContainers: []v1.Container{{Name: "i", VolumeMounts: []v1.VolumeMount{{Name: "y", BindMountOptions: []string{"ro"}}}}},
				Containers: []v1.Container{{Name: "a", VolumeMounts: []v1.VolumeMount{{Name: "x", BindMountOptions: []string{"ro"}}}}}},
			feature: schedule.FeatureVolumeBindMountOptions, want: "spec.template.spec.initContainers[0].volumeMounts[0].bindMountOptions"},
		{name: "an ephemeral container's mount (SCHED-3)",
			spec: v1.PodSpec{Containers: []v1.Container{{Name: "a"}}, EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{
				Name: "e", VolumeMounts: []v1.VolumeMount{{Name: "x"}, {Name: "y"}, {Name: "z", BindMountOptions: []string{"ro"}}}}}}},
			feature: schedule.FeatureVolumeBindMountOptions, want: "spec.template.spec.ephemeralContainers[0].volumeMounts[2].bindMountOptions"},
		{name: "the restart rule that restarts all containers, not the one before it (SCHED-3)",
			spec: v1.PodSpec{Containers: []v1.Container{{Name: "a"}, {Name: "b", RestartPolicyRules: []v1.ContainerRestartRule{
				{Action: v1.ContainerRestartRuleActionRestart}, restartAll}}}},
			feature: schedule.FeatureRestartAllContainers, want: "spec.template.spec.containers[1].restartPolicyRules[1].action"},
		{name: "hostUsers false beside hostNetwork (SCHED-3)",
			spec:    v1.PodSpec{HostNetwork: true, HostUsers: ptr.To(false)},
			feature: schedule.FeatureUserNamespacesHostNetwork, want: "spec.template.spec.hostUsers"},
		{name: "hostUsers false without hostNetwork needs nothing (SCHED-3)",
			spec:    v1.PodSpec{HostUsers: ptr.To(false)},
			feature: schedule.FeatureUserNamespacesHostNetwork},
		{name: "mounts without bindMountOptions need nothing (SCHED-3)",
			spec:    v1.PodSpec{Containers: []v1.Container{{Name: "a", VolumeMounts: []v1.VolumeMount{{Name: "x"}}}}},
			feature: schedule.FeatureVolumeBindMountOptions},
		{name: "a feature the package does not know has no field",
			spec:    v1.PodSpec{HostNetwork: true, HostUsers: ptr.To(false)},
			feature: "SomeOtherFeature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.spec.DeepCopy()
			got := ""
			if p := schedule.FeatureField(&tt.spec, tt.feature, root); p != nil {
				got = p.String()
			}
			require.Equal(t, tt.want, got)
			if diff := cmp.Diff(before, &tt.spec); diff != "" {
				t.Errorf("FeatureField mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}
