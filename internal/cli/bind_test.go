package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/schedule"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestPlanVerdicts: plan --scheduler judges every pod the plan creates and every unbound
// Pending pod of the DaemonSet (SCHED-7): one that fits binds; one that does not names the
// filter with the numbers and the preemption's victims (SCHED-1, SCHED-4); the plan itself,
// the library's, is left as it was.
func TestPlanVerdicts(t *testing.T) {
	t.Parallel()
	ds := apitest.DaemonSet(func(ds *appsv1.DaemonSet) {
		ds.Namespace, ds.Name, ds.UID = "kube-system", "agent", "uid-agent"
		ds.Spec.Template.Spec.PriorityClassName = schedule.SystemNodeCritical
		ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: "agent:1",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")}}}}
	})
	alloc := func(n *v1.Node) {
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	}
	batch := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "batch", UID: "uid-batch"},
		Spec: v1.PodSpec{NodeName: "full", Priority: ptr.To[int32](0),
			Containers: []v1.Container{{Name: "b", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("800m")}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning}}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds},
		Nodes: []*v1.Node{apitest.Node("full", alloc), apitest.Node("roomy", alloc)}, Pods: []*v1.Pod{batch}}
	opts := daemonset.Options{Now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	cluster, err := s.Plan(opts)
	require.NoError(t, err)
	before, err := json.Marshal(cluster)
	require.NoError(t, err)

	got := planVerdicts(s, cluster, opts)
	want := []bindVerdict{
		{Namespace: "kube-system", Name: "agent", Node: "full", Filters: []schedule.Filter{schedule.FilterNodeResourcesFit},
			Insufficient: []schedule.Insufficient{{Resource: v1.ResourceCPU, Requested: resource.MustParse("500m"), Used: resource.MustParse("800m"), Allocatable: resource.MustParse("1")}},
			Preemption: &schedule.Preemption{Possible: true, Priority: 2000001000, PriorityClass: schedule.SystemNodeCritical,
				Victims: []schedule.Victim{{Namespace: "default", Name: "batch"}}},
			Message: "NodeResourcesFit: cpu 500m requested, 200m free of 1; preempting 1 pod of priority 0 would make room (default/batch)"},
		{Namespace: "kube-system", Name: "agent", Node: "roomy", Binds: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planVerdicts() mismatch (-want +got):\n%s", diff)
	}
	after, err := json.Marshal(cluster)
	require.NoError(t, err)
	require.JSONEq(t, string(before), string(after), "the plan is not modified")

	// Once created (here: unbound, Pending), the pods are judged as they are, by name.
	pending := func(name, node string) *v1.Pod {
		p := cluster.DaemonSets[0].Create[0].Pod.DeepCopy()
		p.Name, p.UID = name, k8stypes.UID("uid-"+name)
		p.Spec.Affinity = apitest.RequiredAffinity(apitest.FieldTerm(apitest.Requirement("metadata.name", v1.NodeSelectorOpIn, node)))
		p.Status.Phase = v1.PodPending
		return p
	}
	s.Pods = []*v1.Pod{batch, pending("agent-b", "roomy"), pending("agent-a", "full")}
	cluster, err = s.Plan(opts)
	require.NoError(t, err)
	require.Empty(t, cluster.DaemonSets[0].Create)
	got = planVerdicts(s, cluster, opts)
	require.Len(t, got, 2)
	require.Equal(t, []string{"kube-system/agent-a", "kube-system/agent-b"}, []string{got[0].Pod, got[1].Pod})
	require.False(t, got[0].Binds)
	require.Equal(t, []schedule.Victim{{Namespace: "default", Name: "batch"}}, got[0].Preemption.Victims)
	require.True(t, got[1].Binds)

	// A sync the controller skips (SYNC-4: the DaemonSet is being deleted) creates nothing,
	// and its Pending pods are still the scheduler's to bind.
	deleting := ds.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: opts.Now}
	s.DaemonSets = []*appsv1.DaemonSet{deleting}
	cluster, err = s.Plan(opts)
	require.NoError(t, err)
	require.NotEmpty(t, cluster.DaemonSets[0].Skipped)
	got = planVerdicts(s, cluster, opts)
	require.Len(t, got, 2)
	require.Equal(t, []string{"kube-system/agent-a", "kube-system/agent-b"}, []string{got[0].Pod, got[1].Pod})
}

// TestPlanVerdictsBindOneAfterAnother: two DaemonSets' pods created on one node in the same
// sync do not fit together; the scheduler binds one at a time, each beside those it bound
// before (SCHED-7, SCHED-8): higher priority first, at equal priority the plans' order, so the
// pod it comes to second is left Pending with the first one's requests counted.
func TestPlanVerdictsBindOneAfterAnother(t *testing.T) {
	t.Parallel()
	agent := func(name, class string) *appsv1.DaemonSet {
		return apitest.DaemonSet(func(ds *appsv1.DaemonSet) {
			ds.Namespace, ds.Name, ds.UID = "kube-system", name, k8stypes.UID("uid-"+name)
			ds.Spec.Selector.MatchLabels = map[string]string{"app": name}
			ds.Spec.Template.Labels = map[string]string{"app": name}
			ds.Spec.Template.Spec.PriorityClassName = class
			ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: "agent:1",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("600m")}}}}
		})
	}
	alloc := func(n *v1.Node) {
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	}
	opts := daemonset.Options{Now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	second := func(cpuUsed string) []schedule.Insufficient {
		return []schedule.Insufficient{{Resource: v1.ResourceCPU, Requested: resource.MustParse("600m"), Used: resource.MustParse(cpuUsed), Allocatable: resource.MustParse("1")}}
	}
	for _, tt := range []struct {
		name           string
		classA, classB string
		wantPending    string
	}{
		{name: "equal priority: the plans' order, a before b", wantPending: "b"},
		{name: "higher priority first: b's system-node-critical pod before a's", classB: schedule.SystemNodeCritical, wantPending: "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{agent("a", tt.classA), agent("b", tt.classB)},
				Nodes: []*v1.Node{apitest.Node("n1", alloc)}}
			in := s.DaemonSets[0].DeepCopy()
			cluster, err := s.Plan(opts)
			require.NoError(t, err)
			got := planVerdicts(s, cluster, opts)
			require.Len(t, got, 2)
			for _, v := range got {
				if v.Name != tt.wantPending {
					require.True(t, v.Binds, "%s binds first", v.Name)
					continue
				}
				require.False(t, v.Binds, "%s comes second and does not fit", v.Name)
				if diff := cmp.Diff(second("600m"), v.Insufficient); diff != "" {
					t.Errorf("%s insufficient mismatch (-want +got):\n%s", v.Name, diff)
				}
			}
			if diff := cmp.Diff(in, s.DaemonSets[0]); diff != "" {
				t.Errorf("input mutated:\n%s", diff)
			}
		})
	}
}

// TestPlanVerdictsLeaveOutWhatThePlanDeletes: an unbound Pending pod that this sync deletes
// (its DaemonSet no longer selects the node) is not queued for the node: it takes no room
// from another DaemonSet's create there and gets no verdict of its own (SCHED-7).
func TestPlanVerdictsLeaveOutWhatThePlanDeletes(t *testing.T) {
	t.Parallel()
	agent := func(name string) *appsv1.DaemonSet {
		return apitest.DaemonSet(func(ds *appsv1.DaemonSet) {
			ds.Namespace, ds.Name, ds.UID = "kube-system", name, k8stypes.UID("uid-"+name)
			ds.Spec.Selector.MatchLabels = map[string]string{"app": name}
			ds.Spec.Template.Labels = map[string]string{"app": name}
			ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: "agent:1",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("600m")}}}}
		})
	}
	opts := daemonset.Options{Now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	a, b := agent("a"), agent("b")
	p, errs := daemonset.Compile(a, opts)
	require.Empty(t, errs)
	pending := p.NewPod("n1")
	pending.Name, pending.UID = "a-pending", "uid-a-pending"
	pending.CreationTimestamp = metav1.NewTime(opts.Now.Add(-time.Minute))
	pending.Status.Phase = v1.PodPending
	a.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "other"} // n1 is no longer a's
	node := apitest.Node("n1", func(n *v1.Node) {
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	})
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{a, b}, Nodes: []*v1.Node{node}, Pods: []*v1.Pod{pending}}
	cluster, err := s.Plan(opts)
	require.NoError(t, err)
	require.Len(t, cluster.DaemonSets[0].Delete, 1, "a's plan deletes its Pending pod")
	got := planVerdicts(s, cluster, opts)
	require.Len(t, got, 1, "only b's create is judged")
	require.Equal(t, "b", got[0].Name)
	require.True(t, got[0].Binds, "the deleted pod takes no room from b's")
}
