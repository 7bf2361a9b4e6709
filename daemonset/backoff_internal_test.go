package daemonset

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var backoffSink []BackoffEntry

// TestBackoffUnusedAllocatesNothing: the back-off of a sync that deletes no Failed pod costs
// the plan no allocation, whether no entry is given or only other DaemonSets' are (DIFF-12).
// (Measured on the back-off alone: whole plans recycle memory through a sync.Pool, whose hits
// vary, under the race detector above all.)
func TestBackoffUnusedAllocatesNothing(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{UID: "mine"}}
	now := time.Unix(1000, 0)
	var others []BackoffEntry
	for _, node := range []string{"a", "b", "c"} {
		others = append(others, BackoffEntry{DaemonSetUID: "other", Node: node,
			Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(now)})
	}
	for name, entries := range map[string][]BackoffEntry{"none": nil, "others'": others} {
		allocs := testing.AllocsPerRun(100, func() {
			d := diffState{bo: newBackoffSync(ds, entries, now)}
			backoffSink = d.bo.result()
		})
		if allocs != 0 || backoffSink != nil {
			t.Errorf("%s: %v allocations, result %v", name, allocs, backoffSink)
		}
	}
}
