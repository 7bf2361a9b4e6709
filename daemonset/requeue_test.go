package daemonset_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestPodUpdateRequeue: the pod update handler queues the DaemonSet again minReadySeconds + 1 s
// after a pod it controls turns Ready (SYNC-8, upstream's updatePod), and at no other update.
func TestPodUpdateRequeue(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "ds-uid"},
		Spec: appsv1.DaemonSetSpec{MinReadySeconds: 10}}
	pod := func(ready v1.ConditionStatus, mutate ...func(*v1.Pod)) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", Namespace: "ns",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}},
			Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: ready}}}}
		for _, m := range mutate {
			m(p)
		}
		return p
	}
	orphan := func(p *v1.Pod) { p.OwnerReferences = nil }
	otherUID := func(p *v1.Pod) { p.OwnerReferences[0].UID = "other-uid" }
	otherKind := func(p *v1.Pod) { p.OwnerReferences[0].Kind = "ReplicaSet" }
	deleting := func(p *v1.Pod) { p.DeletionTimestamp = new(metav1.Now()) }
	tests := []struct {
		name     string
		minReady int32
		old, cur *v1.Pod
		want     time.Duration
	}{
		{"SYNC-8: a controlled pod turning Ready is synced again a second after minReadySeconds", 10,
			pod(v1.ConditionFalse), pod(v1.ConditionTrue), 11 * time.Second},
		{"SYNC-8: without minReadySeconds it is available at once, so nothing is queued", 0,
			pod(v1.ConditionFalse), pod(v1.ConditionTrue), 0},
		{"SYNC-8: a pod that was Ready already asks for nothing", 10,
			pod(v1.ConditionTrue), pod(v1.ConditionTrue), 0},
		{"SYNC-8: a pod turning not Ready asks for nothing", 10,
			pod(v1.ConditionTrue), pod(v1.ConditionFalse), 0},
		{"SYNC-8: a pod without a Ready condition before counts as not Ready", 10,
			pod(v1.ConditionFalse, func(p *v1.Pod) { p.Status.Conditions = nil }), pod(v1.ConditionTrue), 11 * time.Second},
		{"SYNC-8: an add (no old pod) asks for nothing", 10, nil, pod(v1.ConditionTrue), 0},
		{"SYNC-8: a pod being deleted goes to the delete handler, which queues at once only", 10,
			pod(v1.ConditionFalse), pod(v1.ConditionTrue, deleting), 0},
		{"SYNC-8: an orphan turning Ready is not this DaemonSet's requeue", 10,
			pod(v1.ConditionFalse, orphan), pod(v1.ConditionTrue, orphan), 0},
		{"SYNC-8: a pod whose controller is another DaemonSet of the name (another uid) is not this one's", 10,
			pod(v1.ConditionFalse, otherUID), pod(v1.ConditionTrue, otherUID), 0},
		{"SYNC-8: a pod whose controller is of another kind is not this DaemonSet's", 10,
			pod(v1.ConditionFalse, otherKind), pod(v1.ConditionTrue, otherKind), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ds.DeepCopy()
			d.Spec.MinReadySeconds = tt.minReady
			inputs := []any{d.DeepCopy(), tt.old.DeepCopy(), tt.cur.DeepCopy()}
			got := daemonset.NewestVersion().PodUpdateRequeue(d, tt.old, tt.cur)
			require.Equal(t, tt.want, got)
			if diff := cmp.Diff(inputs, []any{d, tt.old, tt.cur}); diff != "" {
				t.Errorf("PodUpdateRequeue changed its inputs (-before +after):\n%s", diff)
			}
		})
	}
}

// TestPodUpdateRequeueWithoutObjects: a nil DaemonSet or pod asks for nothing, never a panic.
func TestPodUpdateRequeueWithoutObjects(t *testing.T) {
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{MinReadySeconds: 10}}
	pod := &v1.Pod{}
	v := daemonset.NewestVersion()
	require.Zero(t, v.PodUpdateRequeue(nil, pod, pod))
	require.Zero(t, v.PodUpdateRequeue(ds, pod, nil))
}
