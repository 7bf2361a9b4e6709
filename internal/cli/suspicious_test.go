package cli

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Pods that name a DaemonSet of the input as their controller with another uid are not its
// pods: the plan creates beside them, and the warning says why, once per DaemonSet.
func TestForeignOwners(t *testing.T) {
	ds := func(name string, uid types.UID) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, UID: uid}}
	}
	pod := func(name, kind, owner string, uid types.UID) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: kind, Name: owner, UID: uid, Controller: ptr.To(true)}}}}
	}
	tests := []struct {
		name string
		dss  []*appsv1.DaemonSet
		pods []*v1.Pod
		want []string
	}{
		{
			name: "pods naming another uid are counted",
			dss:  []*appsv1.DaemonSet{ds("agent", "ds-agent-OTHER")},
			pods: []*v1.Pod{pod("a", "DaemonSet", "agent", "ds-agent"), pod("b", "DaemonSet", "agent", "ds-agent")},
			want: []string{"2 pods name DaemonSet kube-system/agent as their controller with uid ds-agent; the input's DaemonSet " +
				"has uid ds-agent-OTHER: they are not its pods (a pod belongs to a DaemonSet by uid)"},
		},
		{
			name: "several other uids are listed with their counts",
			dss:  []*appsv1.DaemonSet{ds("agent", "new")},
			pods: []*v1.Pod{pod("a", "DaemonSet", "agent", "old-2"), pod("b", "DaemonSet", "agent", "old-1"), pod("c", "DaemonSet", "agent", "old-1")},
			want: []string{"3 pods name DaemonSet kube-system/agent as their controller with uids old-1 (2), old-2 (1); the input's DaemonSet " +
				"has uid new: they are not its pods (a pod belongs to a DaemonSet by uid)"},
		},
		{
			name: "one pod of its uid makes the others leftovers, not a mistake",
			dss:  []*appsv1.DaemonSet{ds("agent", "new")},
			pods: []*v1.Pod{pod("a", "DaemonSet", "agent", "old"), pod("b", "DaemonSet", "agent", "new")},
		},
		{
			name: "other kinds and other names are not its pods to begin with",
			dss:  []*appsv1.DaemonSet{ds("agent", "new")},
			pods: []*v1.Pod{pod("a", "ReplicaSet", "agent", "old"), pod("b", "DaemonSet", "other", "old")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &manifest.Result{Snapshot: daemonset.Snapshot{DaemonSets: tt.dss, Pods: tt.pods}}
			require.Equal(t, tt.want, foreignOwners(in))
		})
	}
}
