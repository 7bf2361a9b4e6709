package rollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var (
	nameSink string
	uidSink  types.UID
	podSink  *v1.Pod
)

// TestNewNameAllocatesOnce: a created pod's name and uid (ROLL-2) are one string, one
// allocation (they were two).
func TestNewNameAllocatesOnce(t *testing.T) {
	w := &world{podIx: map[podKey]int{}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	allocs := testing.AllocsPerRun(100, func() { nameSink, uidSink = w.newName("ns", "agent-", "node-00001", now) })
	require.Equal(t, 1.0, allocs)
}

// TestStartAllocatesOnce: the kubelet model's start of a pod costs one allocation for its
// start time and conditions, and its copy-on-write start one for the copy as well (they were
// two and three).
func TestStartAllocatesOnce(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-x", CreationTimestamp: metav1.NewTime(now)},
		Spec: v1.PodSpec{NodeName: "n", Containers: []v1.Container{{Name: "c"}}}, Status: v1.PodStatus{Phase: v1.PodPending}}
	for _, fate := range []Fate{FateReady, FateFailed} {
		allocs := testing.AllocsPerRun(100, func() { podSink = started(pod, fate, now) })
		require.Equal(t, 1.0, allocs, "started, %s", fate)
		cp := *pod
		allocs = testing.AllocsPerRun(100, func() { start(&cp, fate, now) })
		require.Equal(t, 1.0, allocs, "start, %s", fate)
	}
	require.Empty(t, pod.Status.Conditions, "started changed its input")
}
