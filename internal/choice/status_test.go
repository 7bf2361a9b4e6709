package choice_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonsched/daemonsched/internal/choice"
)

// TestShareOf: a node's share of the counters (STAT-2..STAT-5, STAT-12).
func TestShareOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                       string
		shouldRun, held, ready, available, updated bool
		want                                       choice.Share
	}{
		{name: "STAT-4 a node that should not run with no pod adds nothing", want: 0},
		{name: "STAT-4 a node that should not run holding a pod is misscheduled, whatever the pod", held: true, ready: true, available: true, updated: true, want: choice.ShareMisscheduled},
		{name: "STAT-2 a node that should run is desired", shouldRun: true, want: choice.ShareDesired},
		{name: "STAT-3 a pod makes it current", shouldRun: true, held: true, want: choice.ShareDesired | choice.ShareCurrent},
		{name: "STAT-5 available counts only with ready", shouldRun: true, held: true, available: true, want: choice.ShareDesired | choice.ShareCurrent},
		{name: "STAT-5 ready, available and updated", shouldRun: true, held: true, ready: true, available: true, updated: true,
			want: choice.ShareDesired | choice.ShareCurrent | choice.ShareReady | choice.ShareAvailable | choice.ShareUpdated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := choice.ShareOf(tt.shouldRun, tt.held, tt.ready, tt.available, tt.updated); got != tt.want {
				t.Errorf("ShareOf() = %b, want %b", got, tt.want)
			}
		})
	}
}

// TestStatusWith: a plan that deletes another pod removed at once than the one the status was
// counted for gets the counters of the pods left (STAT-16, STAT-5); nothing else changes, and
// st itself comes back when the counters do not move.
func TestStatusWith(t *testing.T) {
	t.Parallel()
	o := &choice.Orders[struct{}, struct{}]{Status: []choice.StatusNode{{Node: "n1", ShouldRun: true, Pods: []choice.StatusPod{
		{Namespace: "ns", Name: "failed", AtOnce: true},
		{Namespace: "ns", Name: "ready", Ready: true, Available: true, Updated: true, AtOnce: true},
	}}}}
	none := func(string, string) bool { return false }
	only := func(name string) func(string, string) bool {
		return func(ns, n string) bool { return ns == "ns" && n == name }
	}
	// Counted with "failed" deleted: "ready" decided the node.
	st := &appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1,
		UpdatedNumberScheduled: 1, ObservedGeneration: 7}
	before := st.DeepCopy()
	tests := []struct {
		name     string
		was, now func(string, string) bool
		want     *appsv1.DaemonSetStatus
	}{
		{name: "the same pick changes nothing", was: only("failed"), now: only("failed"), want: st},
		{name: "deleting nothing leaves the failed pod deciding", was: only("failed"), now: none,
			want: &appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 7}},
		{name: "deleting both leaves the node without pods", was: only("failed"), now: func(ns, n string) bool { return true },
			want: &appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := o.StatusWith(st, tt.was, tt.now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("StatusWith() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, st); diff != "" {
				t.Errorf("StatusWith() modified st (-before +after):\n%s", diff)
			}
		})
	}
	if got := o.StatusWith(st, only("failed"), only("failed")); got != st {
		t.Errorf("StatusWith() with nothing to recount = %p, want st itself %p", got, st)
	}
	if got := o.StatusWith(nil, none, only("failed")); got != nil {
		t.Errorf("StatusWith(nil) = %v, want nil", got)
	}
}
