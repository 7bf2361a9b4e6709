package cli

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// TestPodsOnNode: explain lists the pods ds controls at the plan's release (VER-4) that are
// meant for the node, sorted by name, with their readiness (UPD-13).
func TestPodsOnNode(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "uid-agent"}}
	ref := func(kind, name, uid string, controller bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: k8stypes.UID("uid-" + uid), Controller: &controller}
	}
	pod := func(name, ns, node string, refs ...metav1.OwnerReference) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: refs}, Spec: v1.PodSpec{NodeName: node}}
	}
	ready := func(p *v1.Pod, statuses ...v1.ConditionStatus) *v1.Pod {
		for _, s := range statuses {
			p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: s})
		}
		return p
	}
	owned := ref("DaemonSet", "agent", "agent", true)
	unscheduled := pod("agent-bound", "kube-system", "", owned)
	unscheduled.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-1"}}},
		}}},
	}}
	tests := []struct {
		name    string
		release string // the plan's; "" is the zero Version, the newest
		pods    []*v1.Pod
		want    []string // name, then "ready" or "not ready"
	}{
		{name: "a pod controlled by the DaemonSet on the node is listed", pods: []*v1.Pod{ready(pod("agent-a", "kube-system", "node-1", owned), v1.ConditionTrue)}, want: []string{"agent-a ready"}},
		{name: "a pod on another node is not", pods: []*v1.Pod{pod("agent-a", "kube-system", "node-2", owned)}},
		{name: "a pod in another namespace is not (OWN-1)", pods: []*v1.Pod{pod("agent-a", "default", "node-1", owned)}},
		{name: "a pod whose controller has another uid is not (OWN-1)", pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("DaemonSet", "agent", "other", true))}},
		{name: "a pod whose controller is of another kind is not", pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("ReplicaSet", "agent", "agent", true))}},
		{
			name: "at 1.33.4 a pod whose controller of another kind has the DaemonSet's uid is (VER-4)", release: "1.33.4",
			pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("ReplicaSet", "other", "agent", true))}, want: []string{"agent-a not ready"},
		},
		{
			name: "at 1.33.4 a pod in another namespace whose controller has the DaemonSet's uid is (VER-4)", release: "1.33.4",
			pods: []*v1.Pod{pod("agent-a", "default", "node-1", owned)}, want: []string{"agent-a not ready"},
		},
		{
			name: "at 1.33.6 a pod whose controller of another kind has the DaemonSet's uid is not (VER-4)", release: "1.33.6",
			pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("ReplicaSet", "other", "agent", true))},
		},
		{name: "an orphan is not, even if the selector would adopt it", pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1")}},
		{name: "an owner reference that is not the controller does not count", pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("DaemonSet", "agent", "agent", false))}},
		{
			name: "the first controller reference decides (OWN-7)",
			pods: []*v1.Pod{pod("agent-a", "kube-system", "node-1", ref("DaemonSet", "other", "other", true), owned)},
		},
		{name: "an unscheduled pod bound by node affinity counts for its node (OWN-9)", pods: []*v1.Pod{unscheduled}, want: []string{"agent-bound not ready"}},
		{
			name: "readiness is the first Ready condition (UPD-13)",
			pods: []*v1.Pod{
				ready(pod("agent-c", "kube-system", "node-1", owned), v1.ConditionFalse, v1.ConditionTrue),
				ready(pod("agent-b", "kube-system", "node-1", owned), v1.ConditionTrue, v1.ConditionFalse),
				pod("agent-a", "kube-system", "node-1", owned),
				nil,
			},
			want: []string{"agent-a not ready", "agent-b ready", "agent-c not ready"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := make([]*v1.Pod, len(tt.pods))
			for i, p := range tt.pods {
				before[i] = p.DeepCopy()
			}
			var v daemonset.Version
			if tt.release != "" {
				var err error
				v, err = daemonset.ParseVersion(tt.release)
				if err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, p := range podsOnNode(v, ds, "node-1", tt.pods) {
				got = append(got, p.Name+" "+map[bool]string{true: "ready", false: "not ready"}[daemonset.IsPodReady(p)])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodsOnNode() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.pods); diff != "" {
				t.Errorf("PodsOnNode() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}
