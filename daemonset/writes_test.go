package daemonset_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// entry is a back-off entry of the default DaemonSet (uid-foo, observed generation 0) on node,
// last used ago before now1000, with delay.
func entry(node string, delay, ago time.Duration) daemonset.BackoffEntry {
	return daemonset.BackoffEntry{DaemonSetUID: "uid-foo", Node: node, Delay: metav1.Duration{Duration: delay},
		Last: metav1.NewTime(now1000.Add(-ago))}
}

func renewed(node string, delay time.Duration) daemonset.BackoffEntry { return entry(node, delay, 0) }

func deletedNames(res *daemonset.Result) []string {
	var out []string
	for _, d := range res.Delete {
		out = append(out, d.Name)
	}
	return out
}

// TestFailedPodBackoff: the failed-pod back-off as input and output of the plan (DIFF-12,
// DIFF-17) and the requeue it causes (SYNC-8).
func TestFailedPodBackoff(t *testing.T) {
	failed := phase(v1.PodFailed)
	other := func(e daemonset.BackoffEntry) daemonset.BackoffEntry { e.DaemonSetUID = "uid-other"; return e }
	gen := func(g int64) func(daemonset.BackoffEntry) daemonset.BackoffEntry {
		return func(e daemonset.BackoffEntry) daemonset.BackoffEntry { e.Generation = g; return e }
	}
	for _, tc := range []struct {
		name        string
		pods        []*v1.Pod
		backoff     []daemonset.BackoffEntry
		wantDelete  []string
		wantBackoff []daemonset.BackoffEntry
		wantRequeue time.Duration
	}{
		{name: "DIFF-12 no entry: the Failed pod goes and the back-off starts at 1s, no requeue",
			pods: []*v1.Pod{pod("f", "n0", failed)}, wantDelete: list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", time.Second)}},
		{name: "DIFF-17 two Failed pods: one goes, the other meets the new back-off: requeue after it",
			pods: []*v1.Pod{pod("f1", "n0", failed), pod("f2", "n0", failed)}, wantDelete: list("f1"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", time.Second)}, wantRequeue: time.Second},
		{name: "DIFF-12 in force: nothing deleted, requeue after the entry's whole delay",
			pods:    []*v1.Pod{pod("f", "n0", failed)},
			backoff: []daemonset.BackoffEntry{entry("n0", 8*time.Second, 3*time.Second)},
			// The entry is carried unchanged.
			wantBackoff: []daemonset.BackoffEntry{entry("n0", 8*time.Second, 3*time.Second)}, wantRequeue: 8 * time.Second},
		{name: "DIFF-12 delay passed: deleted, the delay doubles",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", 8*time.Second, 8*time.Second)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", 16*time.Second)}},
		{name: "DIFF-12 the doubling stops at 15 minutes",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", 10*time.Minute, 11*time.Minute)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", 15*time.Minute)}},
		{name: "DIFF-12 an entry unused for more than 30 minutes has expired: the delay starts again",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", 15*time.Minute, 31*time.Minute)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", time.Second)}},
		{name: "DIFF-12 exactly 30 minutes is not expired yet",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", 15*time.Minute, 30*time.Minute)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", 15*time.Minute)}},
		{name: "DIFF-12 entries of another DaemonSet or generation hold nothing back and stay out of the result",
			pods: []*v1.Pod{pod("f", "n0", failed)},
			backoff: []daemonset.BackoffEntry{other(entry("n0", time.Hour, 0)), gen(5)(entry("n0", time.Minute, 0)),
				entry("n1", time.Minute, 0)},
			wantDelete: list("f"),
			// The other generation's entry and the other node's are this DaemonSet's: carried.
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", time.Second), entry("n1", time.Minute, 0), gen(5)(entry("n0", time.Minute, 0))}},
		{name: "DIFF-12 an entry of a node not in the snapshot is carried, not consulted",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("gone", time.Minute, 0)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{entry("gone", time.Minute, 0), renewed("n0", time.Second)}},
		{name: "DIFF-12 a negative or zero delay is no entry: dropped, and the back-off starts afresh",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", -time.Minute, 0), entry("n1", 0, 0)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{renewed("n0", time.Second)}},
		{name: "DIFF-12 of two entries of one key the later counts",
			pods:        []*v1.Pod{pod("f", "n0", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", time.Minute, 0), entry("n0", time.Second, 10*time.Second)},
			wantBackoff: []daemonset.BackoffEntry{entry("n0", time.Minute, 0)}, wantRequeue: time.Minute},
		{name: "DIFF-4 a node that may not keep its pods deletes Failed ones without back-off",
			pods:        []*v1.Pod{pod("f", "n1", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n1", time.Minute, 0)},
			wantDelete:  list("f"),
			wantBackoff: []daemonset.BackoffEntry{entry("n1", time.Minute, 0)}},
		{name: "SYNC-8 the smallest requeue of several nodes",
			pods:        []*v1.Pod{pod("f0", "n0", failed), pod("f2", "n2", failed)},
			backoff:     []daemonset.BackoffEntry{entry("n0", time.Minute, 0), entry("n2", 4*time.Second, 0)},
			wantBackoff: []daemonset.BackoffEntry{entry("n0", time.Minute, 0), entry("n2", 4*time.Second, 0)},
			wantRequeue: 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := []*v1.Node{node("n0"), node("n1", noExecute), node("n2")}
			in := slices.Clone(tc.backoff)
			o := opts()
			o.Backoff = in
			res, err := daemonset.Plan(newDS(), ns, tc.pods, o)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(orEmpty(tc.wantDelete), orEmpty(deletedNames(res))); d != "" {
				t.Errorf("deletes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantBackoff, res.Backoff); d != "" {
				t.Errorf("Result.Backoff (-want +got):\n%s", d)
			}
			if res.RequeueAfter.Duration != tc.wantRequeue {
				t.Errorf("RequeueAfter %v, want %v", res.RequeueAfter.Duration, tc.wantRequeue)
			}
			if d := cmp.Diff(tc.backoff, in); d != "" {
				t.Errorf("Options.Backoff was modified:\n%s", d)
			}
		})
	}
}

// TestBackoffKeyIsObservedGeneration: upstream keys the back-off by status.observedGeneration,
// not metadata.generation (DIFF-12).
func TestBackoffKeyIsObservedGeneration(t *testing.T) {
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.Generation, ds.Status.ObservedGeneration = 7, 6 })
	held := entry("n0", time.Minute, 0)
	held.Generation = 6
	o := opts()
	o.Backoff = []daemonset.BackoffEntry{held}
	res, err := daemonset.Plan(ds, nodes(1), []*v1.Pod{pod("f", "n0", phase(v1.PodFailed))}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Delete) != 0 || res.RequeueAfter.Duration != time.Minute {
		t.Errorf("deletes %v requeue %v: the entry of observed generation 6 should hold the pod back", deletedNames(res), res.RequeueAfter)
	}
}

// TestBackoffHeldEmptiesTheBaseDiff: a Failed pod held back is neither deleted nor running
// (DIFF-12), so the base diff can be empty and the rolling step acts in the same sync (UPD-2).
func TestBackoffHeldEmptiesTheBaseDiff(t *testing.T) {
	ds := newDS(rolling(ios(1), nil))
	hash := hashOf(ds)
	pods := []*v1.Pod{pod("f", "n0", phase(v1.PodFailed), hashLabel(hash)), pod("old", "n1", oldHash, ready)}
	o := opts()
	o.Backoff = []daemonset.BackoffEntry{entry("n0", time.Minute, 0)}
	res, err := daemonset.Plan(ds, nodes(2), pods, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.RollingUpdate.Acted {
		t.Errorf("rolling step %+v, want it to act", res.RollingUpdate)
	}
	if res.RequeueAfter.Duration != time.Minute {
		t.Errorf("RequeueAfter %v", res.RequeueAfter)
	}
}

// TestUpdateBackoff: the state a controller keeps across syncs.
func TestUpdateBackoff(t *testing.T) {
	otherDS := entry("n0", time.Minute, 0)
	otherDS.DaemonSetUID = "uid-a"
	state := []daemonset.BackoffEntry{
		entry("n0", 4*time.Second, 10*time.Second), // replaced by the plan's
		entry("n1", time.Minute, 40*time.Minute),   // expired: dropped
		entry("n2", -time.Second, 0),               // never in force: dropped
		otherDS,                                    // another DaemonSet's: kept
	}
	before := slices.Clone(state)
	res := &daemonset.Result{Backoff: []daemonset.BackoffEntry{renewed("n0", 8*time.Second)}}
	got := daemonset.UpdateBackoff(state, res, now1000)
	want := []daemonset.BackoffEntry{otherDS, renewed("n0", 8*time.Second)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("UpdateBackoff (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, state); d != "" {
		t.Errorf("state was modified:\n%s", d)
	}
	if got := daemonset.UpdateBackoff(state, nil, now1000.Add(time.Hour)); len(got) != 0 {
		t.Errorf("an hour later everything has expired, got %v", got)
	}
}

// TestBackoffAcrossSyncs drives one node's Failed pods through several syncs with
// UpdateBackoff, as a controller would: deletions 1s, 2s, 4s apart at the earliest.
func TestBackoffAcrossSyncs(t *testing.T) {
	var state []daemonset.BackoffEntry
	now := now1000
	var deletedAt []time.Duration
	for step := range 40 {
		o := daemonset.Options{Version: v1363, Now: now, Backoff: state}
		pods := []*v1.Pod{pod("f"+string(rune('a'+step)), "n0", phase(v1.PodFailed))}
		res, err := daemonset.Plan(newDS(), nodes(1), pods, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Delete) == 1 {
			deletedAt = append(deletedAt, now.Sub(now1000))
		}
		state = daemonset.UpdateBackoff(state, res, now)
		now = now.Add(500 * time.Millisecond)
	}
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second}
	if d := cmp.Diff(want, deletedAt); d != "" {
		t.Errorf("deletion times (-want +got):\n%s", d)
	}
}

// TestStatusWrite: the status the controller sends (STAT-14) and when it sends none (STAT-9,
// STAT-10), and the minReadySeconds requeue (STAT-15, SYNC-8).
func TestStatusWrite(t *testing.T) {
	stored := func(gen, observed int64, counters [7]int32) dsMod {
		return func(ds *appsv1.DaemonSet) {
			ds.Generation = gen
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: counters[0],
				CurrentNumberScheduled: counters[1], NumberMisscheduled: counters[2], NumberReady: counters[3],
				UpdatedNumberScheduled: counters[4], NumberAvailable: counters[5], NumberUnavailable: counters[6],
				CollisionCount: ptr.To[int32](4),
				Conditions:     []appsv1.DaemonSetCondition{{Type: "Custom", Status: v1.ConditionTrue, Reason: "kept"}}}
		}
	}
	// The stored collisionCount changes the hash, so the pods are not updated (STAT-5).
	twoReady := []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", ready)}
	for _, tc := range []struct {
		name        string
		ds          *appsv1.DaemonSet
		pods        []*v1.Pod
		wantWrite   bool
		wantRequeue time.Duration
	}{
		{name: "STAT-14 counters changed: written", ds: newDS(stored(2, 2, [7]int32{2, 1, 0, 1, 1, 1, 1})), pods: twoReady, wantWrite: true},
		{name: "STAT-9 counters and generation stored: nothing written", ds: newDS(stored(2, 2, [7]int32{2, 2, 0, 2, 0, 2, 0})), pods: twoReady},
		{name: "STAT-9 a stored observedGeneration above the generation: nothing written", ds: newDS(stored(2, 5, [7]int32{2, 2, 0, 2, 0, 2, 0})), pods: twoReady},
		{name: "STAT-8 a new generation alone is written", ds: newDS(stored(3, 2, [7]int32{2, 2, 0, 2, 0, 2, 0})), pods: twoReady, wantWrite: true},
		{name: "STAT-15 ready but not available under minReadySeconds: requeue after it",
			ds:   newDS(minReadySeconds(30), stored(2, 2, [7]int32{2, 2, 0, 2, 0, 0, 2})),
			pods: []*v1.Pod{pod("a", "n0", readyAt(990)), pod("b", "n1", readyAt(990))}, wantRequeue: 30 * time.Second},
		{name: "STAT-15 all available: no requeue",
			ds:   newDS(minReadySeconds(30), stored(2, 2, [7]int32{2, 2, 0, 2, 0, 2, 0})),
			pods: []*v1.Pod{pod("a", "n0", readyAt(900)), pod("b", "n1", readyAt(900))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := daemonset.Plan(tc.ds, nodes(2), tc.pods, opts())
			if err != nil {
				t.Fatal(err)
			}
			if (res.StatusWrite != nil) != tc.wantWrite {
				t.Fatalf("StatusWrite %v, want written %v", res.StatusWrite, tc.wantWrite)
			}
			if tc.wantWrite {
				want := tc.ds.Status.DeepCopy()
				s := res.Status
				want.ObservedGeneration = tc.ds.Generation
				want.DesiredNumberScheduled, want.CurrentNumberScheduled, want.NumberMisscheduled = s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberMisscheduled
				want.NumberReady, want.UpdatedNumberScheduled, want.NumberAvailable, want.NumberUnavailable = s.NumberReady, s.UpdatedNumberScheduled, s.NumberAvailable, s.NumberUnavailable
				if d := cmp.Diff(want, res.StatusWrite); d != "" {
					t.Errorf("StatusWrite: the stored status with the counters and observedGeneration replaced (-want +got):\n%s", d)
				}
			}
			if res.RequeueAfter.Duration != tc.wantRequeue {
				t.Errorf("RequeueAfter %v, want %v", res.RequeueAfter, tc.wantRequeue)
			}
		})
	}
}

// TestStatusSTAT16AdoptedAndRemovedAtOnce: a pod the sync adopts and deletes, which the API
// server removes at once (terminal, unbound, a grace period of 0 or unset; no finalizer), is
// not counted: upstream's status pass claims the cached orphan again and its adoption is not
// found. A pod the sync already controlled, or one that stays terminating, still counts
// (STAT-1). The minReadySeconds requeue reads the same counters (STAT-15).
func TestStatusSTAT16AdoptedAndRemovedAtOnce(t *testing.T) {
	grace := func(g *int64) podMod { return func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = g } }
	finalizer := func(p *v1.Pod) { p.Finalizers = []string{"example.com/keep"} }
	tests := []struct {
		name                  string
		ds                    *appsv1.DaemonSet
		pods                  []*v1.Pod
		current, misscheduled int32
	}{
		{"a Failed orphan on an eligible node: adopted, deleted, not counted", newDS(),
			[]*v1.Pod{pod("f", "n0", orphan, phase(v1.PodFailed), grace(ptr.To[int64](30)))}, 0, 0},
		{"a Failed pod already controlled: counted", newDS(),
			[]*v1.Pod{pod("f", "n0", phase(v1.PodFailed), grace(ptr.To[int64](30)))}, 1, 0},
		{"a Failed orphan with a finalizer stays terminating: counted", newDS(),
			[]*v1.Pod{pod("f", "n0", orphan, phase(v1.PodFailed), finalizer)}, 1, 0},
		{"a running orphan with grace 0 on a node the selector excludes: not counted", newDS(nodeSelector("zone", "a")),
			[]*v1.Pod{pod("r", "n0", orphan, grace(ptr.To[int64](0)))}, 0, 0},
		{"the same with its grace period unset: not counted", newDS(nodeSelector("zone", "a")),
			[]*v1.Pod{pod("r", "n0", orphan)}, 0, 0},
		{"the same with a grace period of 30 s stays terminating: counted", newDS(nodeSelector("zone", "a")),
			[]*v1.Pod{pod("r", "n0", orphan, grace(ptr.To[int64](30)))}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := daemonset.Plan(tc.ds, nodes(1), tc.pods, opts())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Delete) != 1 {
				t.Fatalf("deletes %+v, want the pod deleted", res.Delete)
			}
			if got := res.Status; got.CurrentNumberScheduled != tc.current || got.NumberMisscheduled != tc.misscheduled {
				t.Errorf("current %d, misscheduled %d; want %d, %d", got.CurrentNumberScheduled, got.NumberMisscheduled, tc.current, tc.misscheduled)
			}
		})
	}
}

// TestSkippedSyncsWriteNoStatus: SYNC-3, SYNC-4 and SYNC-5 write nothing and requeue nothing;
// the back-off is carried (STAT-10, SYNC-8).
func TestSkippedSyncsWriteNoStatus(t *testing.T) {
	for name, mod := range map[string]dsMod{
		"SYNC-3": func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} },
		"SYNC-4": func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = ptr.To(metav1.Unix(5, 0)) },
		"SYNC-5": func(ds *appsv1.DaemonSet) {
			ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bad"}}
		},
	} {
		o := opts()
		o.Backoff = []daemonset.BackoffEntry{entry("n0", time.Minute, 0)}
		res, err := daemonset.Plan(newDS(mod), nodes(1), []*v1.Pod{pod("f", "n0", phase(v1.PodFailed))}, o)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Skipped) != name || res.StatusWrite != nil || res.RequeueAfter.Duration != 0 {
			t.Errorf("%s: skipped %q statusWrite %v requeue %v", name, res.Skipped, res.StatusWrite, res.RequeueAfter)
		}
		if d := cmp.Diff(o.Backoff, res.Backoff); d != "" {
			t.Errorf("%s: back-off not carried:\n%s", name, d)
		}
	}
}

// TestPlannerAt: a compiled Planner moved to another clock and back-off plans exactly as one
// compiled with those options.
func TestPlannerAt(t *testing.T) {
	ds := newDS(rolling(ios(1), nil), minReadySeconds(5))
	pods := []*v1.Pod{pod("f", "n0", phase(v1.PodFailed)), pod("r", "n1", readyAt(998)), pod("o", "n2", oldHash, ready)}
	s := daemonset.Snapshot{Nodes: nodes(3), Pods: pods}
	later := now1000.Add(3 * time.Second)
	backoff := []daemonset.BackoffEntry{entry("n0", 10*time.Second, 0)}
	p := compiled(ds, now1000)
	want, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: later, Backoff: backoff})
	if d := cmp.Diff(want.Plan(s), p.At(later, backoff).Plan(s)); d != "" {
		t.Errorf("At (-want +got):\n%s", d)
	}
	if d := cmp.Diff(compiled(ds, now1000).Plan(s), p.Plan(s)); d != "" {
		t.Errorf("At changed the original Planner:\n%s", d)
	}
}

// TestBackoffDuplicatesEqualTimes: two entries of one key with the same Last are bad input; the
// plan and UpdateBackoff both take the longer delay, whatever the order (DIFF-12).
func TestBackoffDuplicatesEqualTimes(t *testing.T) {
	long, short := entry("n0", 4*time.Second, 3*time.Second), entry("n0", 2*time.Second, 3*time.Second)
	for _, state := range [][]daemonset.BackoffEntry{{long, short}, {short, long}} {
		o := opts()
		o.Backoff = state
		res, err := daemonset.Plan(newDS(), nodes(1), []*v1.Pod{pod("f", "n0", phase(v1.PodFailed))}, o)
		require.NoError(t, err)
		require.Empty(t, res.Delete, "the 4 s entry holds the pod back")
		require.Equal(t, 4*time.Second, res.RequeueAfter.Duration)
		require.Equal(t, []daemonset.BackoffEntry{long}, res.Backoff)
		require.Equal(t, []daemonset.BackoffEntry{long}, daemonset.UpdateBackoff(state, nil, now1000))
	}
}
