package daemonset_test

import (
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

// planPending runs PlanPending on the snapshot and checks that no input was modified.
func planPending(t *testing.T, o daemonset.Options, ds *appsv1.DaemonSet, s daemonset.Snapshot) *daemonset.Result {
	t.Helper()
	require.Empty(t, s.Check())
	before := rtCopy(ds, s)
	p, _ := daemonset.Compile(ds, o)
	res := p.PlanPending(s)
	require.NotNil(t, res)
	rtRequireUnchanged(t, before, ds, s)
	return res
}

// storedStatus sets the DaemonSet's generation and its stored status: observedGeneration and
// the seven counters in STAT order (desired, current, misscheduled, ready, updated, available,
// unavailable), with a collisionCount and a condition that every write carries (STAT-11).
func storedStatus(gen, observed int64, counters [7]int32) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Generation = gen
		ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: counters[0],
			CurrentNumberScheduled: counters[1], NumberMisscheduled: counters[2], NumberReady: counters[3],
			UpdatedNumberScheduled: counters[4], NumberAvailable: counters[5], NumberUnavailable: counters[6],
			CollisionCount: ptr.To[int32](4),
			Conditions:     []appsv1.DaemonSetCondition{{Type: "Custom", Status: v1.ConditionTrue, Reason: "kept"}}}
	}
}

// TestPlanPendingStatus: while expectations are pending (SYNC-9) the sync computes the same
// counters but keeps the stored observedGeneration (STAT-13), writes under the STAT-9 test with
// that observedGeneration, and requeues only after minReadySeconds (STAT-15).
func TestPlanPendingStatus(t *testing.T) {
	// The stored collisionCount changes the hash, so the pods are not updated (STAT-5):
	// the counters read 2 desired, 2 current, 0 misscheduled, 2 ready, 0 updated, 2
	// available, 0 unavailable.
	twoReady := []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", ready)}
	counted := [7]int32{2, 2, 0, 2, 0, 2, 0}
	for _, tt := range []struct {
		name        string
		ds          *appsv1.DaemonSet
		pods        []*v1.Pod
		wantWrite   bool
		wantObsGen  int64
		wantRequeue time.Duration
	}{
		{name: "STAT-13 changed counters are written with the stored observedGeneration",
			ds: newDS(storedStatus(3, 2, [7]int32{2, 1, 0, 1, 0, 1, 1})), pods: twoReady, wantWrite: true, wantObsGen: 2},
		{name: "STAT-13 a generation not yet observed is written again though the counters are stored",
			ds: newDS(storedStatus(3, 2, counted)), pods: twoReady, wantWrite: true, wantObsGen: 2},
		{name: "STAT-9 counters stored and generation observed: nothing written",
			ds: newDS(storedStatus(2, 2, counted)), pods: twoReady, wantObsGen: 2},
		{name: "STAT-9 a stored observedGeneration above the generation stays",
			ds: newDS(storedStatus(2, 5, counted)), pods: twoReady, wantObsGen: 5},
		{name: "STAT-13 a stored observedGeneration above the generation stays in a write",
			ds: newDS(storedStatus(2, 5, [7]int32{1, 1, 0, 1, 0, 1, 0})), pods: twoReady, wantWrite: true, wantObsGen: 5},
		{name: "STAT-15 ready but not available under minReadySeconds: requeue after it",
			ds:   newDS(minReadySeconds(30), storedStatus(2, 2, [7]int32{2, 2, 0, 2, 0, 0, 2})),
			pods: []*v1.Pod{pod("a", "n0", readyAt(990)), pod("b", "n1", readyAt(990))}, wantObsGen: 2, wantRequeue: 30 * time.Second},
		{name: "STAT-15 all available: no requeue",
			ds:   newDS(minReadySeconds(30), storedStatus(2, 2, counted)),
			pods: []*v1.Pod{pod("a", "n0", readyAt(900)), pod("b", "n1", readyAt(900))}, wantObsGen: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := daemonset.Snapshot{Nodes: nodes(2), Pods: tt.pods}
			res := planPending(t, opts(), tt.ds, s)
			require.True(t, res.Pending)
			full := compiled(tt.ds, now1000).Plan(s)
			require.False(t, full.Pending)

			// The counters are the acting sync's; only observedGeneration differs.
			want := full.Status.DeepCopy()
			want.ObservedGeneration = tt.wantObsGen
			if d := cmp.Diff(want, res.Status); d != "" {
				t.Errorf("Status: the acting sync's counters with the stored observedGeneration (-want +got):\n%s", d)
			}
			if (res.StatusWrite != nil) != tt.wantWrite {
				t.Fatalf("StatusWrite %v, want written %v", res.StatusWrite, tt.wantWrite)
			}
			if tt.wantWrite {
				if d := cmp.Diff(want, res.StatusWrite); d != "" {
					t.Errorf("StatusWrite (-want +got):\n%s", d)
				}
			}
			if res.RequeueAfter.Duration != tt.wantRequeue {
				t.Errorf("RequeueAfter %v, want %v", res.RequeueAfter, tt.wantRequeue)
			}
		})
	}
}

// TestPlanPendingWritesNoPods: while expectations are pending (SYNC-9) the sync creates and
// deletes nothing, runs no rolling step and emits no event, though the acting sync would do
// all of these; the pods the status update claims are adopted and released (OWN-*).
func TestPlanPendingWritesNoPods(t *testing.T) {
	ds := newDS(rolling(ios(1), nil), storedStatus(2, 1, [7]int32{}))
	ns := append(nodes(3), node("tainted", taint("k", "v", v1.TaintEffectNoExecute)))
	pods := []*v1.Pod{
		pod("old", "n0", oldHash, ready),                                   // the rolling step would delete it
		pod("failed", "n1", phase(v1.PodFailed)),                           // deleted with a FailedDaemonPod event
		pod("evicted", "tainted"),                                          // NodeNotEligible
		pod("orphan", "n2", orphan),                                        // adopted
		pod("strayed", "n2", podLabels(map[string]string{"app": "other"})), // released
	}
	s := daemonset.Snapshot{Nodes: ns, Pods: pods}
	full := compiled(ds, now1000).Plan(s)
	require.NotEmpty(t, full.Delete, "the acting sync deletes")
	require.NotEmpty(t, full.Events, "the acting sync emits events")
	require.NotNil(t, full.RollingUpdate)

	res := planPending(t, opts(), ds, s)
	if d := cmp.Diff(&daemonset.Result{Namespace: "default", Name: "foo", RevisionHash: full.RevisionHash, Pending: true,
		Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: full.Adopt, Release: full.Release,
		Status: res.Status, StatusWrite: res.Status, Revisions: full.Revisions},
		res); d != "" {
		t.Errorf("PlanPending (-want +got):\n%s", d)
	}
	require.Equal(t, []string{"default/orphan"}, rtRefs(res.Adopt))
	require.Equal(t, []string{"default/strayed"}, rtRefs(res.Release))
	if d := cmp.Diff(full.Status.DesiredNumberScheduled, res.Status.DesiredNumberScheduled); d != "" {
		t.Error(d)
	}
	// And the Expectations of such a plan expects nothing: the ones waited for stay in force.
	exp := res.Expectations(s, now1000)
	require.Zero(t, exp.Creates)
	require.Empty(t, exp.Deletes)
}

// TestPlanPendingBackoff: the pending sync looks at no Failed pod (SYNC-9), so a held one asks
// for no requeue (SYNC-8) and the back-off is carried unchanged: UpdateBackoff with the
// result keeps the state (DIFF-12).
func TestPlanPendingBackoff(t *testing.T) {
	o := opts()
	o.Backoff = []daemonset.BackoffEntry{entry("n0", time.Minute, 0), entry("n1", time.Second, 10*time.Second),
		{DaemonSetUID: "uid-other", Node: "n0", Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(now1000)}}
	ds := newDS()
	s := daemonset.Snapshot{Nodes: nodes(2), Pods: []*v1.Pod{pod("f0", "n0", phase(v1.PodFailed)), pod("f1", "n1", phase(v1.PodFailed))}}
	full, _ := daemonset.Compile(ds, o)
	acting := full.Plan(s)
	require.Equal(t, time.Minute, acting.RequeueAfter.Duration, "the acting sync holds f0 back")
	require.Len(t, acting.Delete, 1, "the acting sync deletes f1")

	res := planPending(t, o, ds, s)
	require.Zero(t, res.RequeueAfter.Duration)
	if d := cmp.Diff(o.Backoff[:2], res.Backoff); d != "" {
		t.Errorf("Backoff: this DaemonSet's entries carried (-want +got):\n%s", d)
	}
	if d := cmp.Diff(o.Backoff, daemonset.UpdateBackoff(o.Backoff, res, now1000)); d != "" {
		t.Errorf("UpdateBackoff with a pending plan changed the state (-want +got):\n%s", d)
	}
}

// TestPlanPendingRevisions: the pending sync settles the revision history as the acting one
// does, since upstream does it before checking the expectations (UPD-14, OWN-12), but never
// reaches the history clean-up (UPD-22).
func TestPlanPendingRevisions(t *testing.T) {
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
	hash := hashOf(ds)
	oldDS := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "v0" })
	old := revisionFor(t, oldDS, "old", 1)
	cur := revisionFor(t, ds, hash, 1) // revision number to be raised above the old one
	delete(cur.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)

	for _, tt := range []struct {
		name string
		revs []*appsv1.ControllerRevision
	}{
		{name: "UPD-14 the first revision is created", revs: nil},
		{name: "UPD-14 the current revision is labelled and renumbered; UPD-22 the old one is kept", revs: []*appsv1.ControllerRevision{old, cur}},
		{name: "UPD-22 nothing but the clean-up: no revision write", revs: []*appsv1.ControllerRevision{old, revisionFor(t, ds, hash, 2)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := daemonset.Snapshot{Nodes: nodes(1), Pods: []*v1.Pod{pod("a", "n0")}, Revisions: tt.revs}
			full := compiled(ds, now1000).Plan(s)
			res := planPending(t, opts(), ds, s)
			if d := cmp.Diff(withoutCleanup(full.Revisions), res.Revisions); d != "" {
				t.Errorf("Revisions: the acting sync's without the clean-up (-want +got):\n%s", d)
			}
			if res.Revisions != nil {
				require.Empty(t, res.Revisions.Cleanup)
			}
		})
	}
}

// TestPlanPendingSkips: the skip rules and a hash collision stop the sync before the
// expectations check (SYNC-2), so the pending plan is the acting one.
func TestPlanPendingSkips(t *testing.T) {
	ds := newDS()
	hash := hashOf(ds)
	taken := revisionFor(t, newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" }), hash, 1)
	for _, tt := range []struct {
		name string
		ds   *appsv1.DaemonSet
		revs []*appsv1.ControllerRevision
	}{
		{name: "SYNC-3 select-everything selector", ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })},
		{name: "SYNC-4 DaemonSet being deleted", ds: newDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = ptr.To(metav1.Unix(5, 0)) })},
		{name: "SYNC-5 selector that does not convert", ds: newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bad"}}
		})},
		{name: "UPD-21 hash collision", ds: ds, revs: []*appsv1.ControllerRevision{taken}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := opts()
			o.Backoff = []daemonset.BackoffEntry{entry("n0", time.Minute, 0)}
			s := daemonset.Snapshot{Nodes: nodes(1), Pods: []*v1.Pod{pod("f", "n0", phase(v1.PodFailed))}, Revisions: tt.revs}
			full, _ := daemonset.Compile(tt.ds, o)
			want := full.Plan(s)
			require.NotEmpty(t, want.Skipped)
			if d := cmp.Diff(want, planPending(t, o, tt.ds, s)); d != "" {
				t.Errorf("PlanPending differs from Plan (-want +got):\n%s", d)
			}
		})
	}
}

// TestPlanPendingScenarios: on every scenario of the rule tables, the pending plan is the
// acting plan's claims, counters (STAT-13: observedGeneration as stored) and revision writes
// without the clean-up, and no pod write (SYNC-9).
func TestPlanPendingScenarios(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ds, o := sc.setup()
			s := daemonset.Snapshot{Nodes: sc.nodes, Pods: sc.pods, Revisions: sc.revisions}
			p, _ := daemonset.Compile(ds, o)
			full, res := p.Plan(s), planPending(t, o, ds, s)
			if full.Skipped != "" {
				if d := cmp.Diff(full, res); d != "" {
					t.Errorf("skipped: PlanPending differs from Plan (-want +got):\n%s", d)
				}
				return
			}
			want := &daemonset.Result{Namespace: full.Namespace, Name: full.Name, RevisionHash: full.RevisionHash, Pending: true,
				Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: full.Adopt, Release: full.Release,
				Conflicts: full.Conflicts, Invalid: full.Invalid, Status: full.Status.DeepCopy(), Revisions: full.Revisions}
			want.Status.ObservedGeneration = ds.Status.ObservedGeneration
			want.Revisions = withoutCleanup(full.Revisions)
			if stored := ds.Status; stored.ObservedGeneration < ds.Generation || stored.DesiredNumberScheduled != want.Status.DesiredNumberScheduled ||
				stored.CurrentNumberScheduled != want.Status.CurrentNumberScheduled || stored.NumberMisscheduled != want.Status.NumberMisscheduled ||
				stored.NumberReady != want.Status.NumberReady || stored.UpdatedNumberScheduled != want.Status.UpdatedNumberScheduled ||
				stored.NumberAvailable != want.Status.NumberAvailable || stored.NumberUnavailable != want.Status.NumberUnavailable {
				want.StatusWrite = want.Status // STAT-9 with the stored observedGeneration
			}
			if mrs := ds.Spec.MinReadySeconds; mrs > 0 && want.Status.NumberReady != want.Status.NumberAvailable {
				want.RequeueAfter.Duration = time.Duration(mrs) * time.Second
			}
			want.Backoff = res.Backoff // TestPlanPendingBackoff checks it
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("PlanPending (-want +got):\n%s", d)
			}
		})
	}
}

// withoutCleanup returns w without its history clean-up (UPD-22), nil when nothing else is
// left.
func withoutCleanup(w *daemonset.RevisionWrites) *daemonset.RevisionWrites {
	if w == nil || len(w.Cleanup) == 0 {
		return w
	}
	c := *w
	c.Cleanup = nil
	if len(c.Create)+len(c.Update)+len(c.Relabel)+len(c.Delete)+len(c.Adopt)+len(c.Release)+len(c.RelabelPods) == 0 {
		return nil
	}
	return &c
}
