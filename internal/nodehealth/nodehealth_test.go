package nodehealth_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/internal/nodehealth"
)

// TestNodeReadings: the three readings of a node's health, one per question, on every Ready
// condition status and every not-ready and unreachable taint. RunsPods is the kubelet
// model's (ROLL-3, ROLL-5), Down the down nodes of the rollout budget (LINT-2), NotReady
// the node readiness (WHATIF-5).
func TestNodeReadings(t *testing.T) {
	added := metav1.NewTime(time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC))
	ready := func(s v1.ConditionStatus, reason string) v1.NodeCondition {
		return v1.NodeCondition{Type: v1.NodeReady, Status: s, Reason: reason, LastTransitionTime: added}
	}
	taint := func(key string, effect v1.TaintEffect) v1.Taint {
		return v1.Taint{Key: key, Effect: effect, TimeAdded: &added}
	}
	notReadyNoSchedule := taint(v1.TaintNodeNotReady, v1.TaintEffectNoSchedule)
	notReadyNoExecute := taint(v1.TaintNodeNotReady, v1.TaintEffectNoExecute)
	unreachableNoSchedule := taint(v1.TaintNodeUnreachable, v1.TaintEffectNoSchedule)
	unreachableNoExecute := taint(v1.TaintNodeUnreachable, v1.TaintEffectNoExecute)
	tests := []struct {
		name       string
		conditions []v1.NodeCondition
		taints     []v1.Taint
		wantRuns   bool
		wantDown   v1.ConditionStatus
		wantReady  v1.NodeCondition // NotReady's condition
		wantTaints []v1.Taint       // NotReady's taints
	}{
		{name: "a node without status (a hand-written manifest) runs its pods and is neither down nor not ready",
			wantRuns: true},
		{name: "Ready True runs its pods and is neither down nor not ready",
			conditions: []v1.NodeCondition{ready(v1.ConditionTrue, "KubeletReady")}, wantRuns: true},
		{name: "Ready False stops the kubelet model and is down NotReady and not ready",
			conditions: []v1.NodeCondition{ready(v1.ConditionFalse, "KubeletNotReady")},
			wantDown:   v1.ConditionFalse, wantReady: ready(v1.ConditionFalse, "KubeletNotReady")},
		{name: "Ready Unknown stops the kubelet model and is down unreachable and not ready",
			conditions: []v1.NodeCondition{ready(v1.ConditionUnknown, "NodeStatusUnknown")},
			wantDown:   v1.ConditionUnknown, wantReady: ready(v1.ConditionUnknown, "NodeStatusUnknown")},
		{name: "a Ready condition with no status is not True: the kubelet model stops, not down, not ready",
			conditions: []v1.NodeCondition{ready("", "")}, wantReady: ready("", "")},
		{name: "other conditions are not read",
			conditions: []v1.NodeCondition{{Type: v1.NodeMemoryPressure, Status: v1.ConditionTrue}, {Type: v1.NodeNetworkUnavailable, Status: v1.ConditionFalse}},
			wantRuns:   true},
		{name: "the first Ready condition counts, as upstream's GetNodeCondition reads it",
			conditions: []v1.NodeCondition{ready(v1.ConditionTrue, ""), ready(v1.ConditionFalse, "")}, wantRuns: true},
		{name: "the not-ready NoSchedule taint on a Ready node makes it not ready only",
			conditions: []v1.NodeCondition{ready(v1.ConditionTrue, "")}, taints: []v1.Taint{notReadyNoSchedule},
			wantRuns: true, wantTaints: []v1.Taint{notReadyNoSchedule}},
		{name: "the not-ready NoExecute taint with Ready False: down NotReady, the taint named",
			conditions: []v1.NodeCondition{ready(v1.ConditionFalse, "")}, taints: []v1.Taint{notReadyNoSchedule, notReadyNoExecute},
			wantDown: v1.ConditionFalse, wantReady: ready(v1.ConditionFalse, ""), wantTaints: []v1.Taint{notReadyNoSchedule, notReadyNoExecute}},
		{name: "the unreachable NoSchedule taint without a Ready condition is down unreachable and not ready",
			taints:   []v1.Taint{unreachableNoSchedule},
			wantRuns: true, wantDown: v1.ConditionUnknown, wantTaints: []v1.Taint{unreachableNoSchedule}},
		{name: "the unreachable NoExecute taint on a Ready node is down unreachable, the kubelet still runs",
			conditions: []v1.NodeCondition{ready(v1.ConditionTrue, "")}, taints: []v1.Taint{unreachableNoExecute},
			wantRuns: true, wantDown: v1.ConditionUnknown, wantTaints: []v1.Taint{unreachableNoExecute}},
		{name: "Ready False with the unreachable taint is down NotReady: the condition comes first",
			conditions: []v1.NodeCondition{ready(v1.ConditionFalse, "")}, taints: []v1.Taint{unreachableNoExecute},
			wantDown: v1.ConditionFalse, wantReady: ready(v1.ConditionFalse, ""), wantTaints: []v1.Taint{unreachableNoExecute}},
		{name: "other taints are not read, and the lifecycle taints keep the node's order",
			conditions: []v1.NodeCondition{ready(v1.ConditionUnknown, "")},
			taints: []v1.Taint{unreachableNoExecute, {Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule},
				{Key: "example.com/gpu", Effect: v1.TaintEffectNoSchedule}, unreachableNoSchedule},
			wantDown: v1.ConditionUnknown, wantReady: ready(v1.ConditionUnknown, ""), wantTaints: []v1.Taint{unreachableNoExecute, unreachableNoSchedule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: tt.taints},
				Status: v1.NodeStatus{Conditions: tt.conditions}}
			before := node.DeepCopy()
			require.Equal(t, tt.wantRuns, nodehealth.RunsPods(node), "RunsPods")
			require.Equal(t, tt.wantDown, nodehealth.Down(node), "Down")
			gotReady, gotTaints := nodehealth.NotReady(node)
			if diff := cmp.Diff(tt.wantReady, gotReady); diff != "" {
				t.Errorf("NotReady() condition mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTaints, gotTaints); diff != "" {
				t.Errorf("NotReady() taints mismatch (-want +got):\n%s", diff)
			}
			for i := range gotTaints { // the results share nothing with the node
				gotTaints[i].TimeAdded.Time = time.Time{}
			}
			if diff := cmp.Diff(before, node); diff != "" {
				t.Errorf("node mutated (-before +after):\n%s", diff)
			}
		})
	}
}

// TestNodeReadingsAllocate: the kubelet model's and the budget's readings run per node in
// Simulate's and lint's loops and allocate nothing.
func TestNodeReadingsAllocate(t *testing.T) {
	node := &v1.Node{Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}}},
		Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeMemoryPressure}, {Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
	var runs bool
	var down v1.ConditionStatus
	allocs := testing.AllocsPerRun(100, func() {
		runs = nodehealth.RunsPods(node)
		down = nodehealth.Down(node)
	})
	require.Zero(t, allocs)
	require.True(t, runs)
	require.Equal(t, v1.ConditionUnknown, down)
}
