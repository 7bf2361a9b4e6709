package daemonset_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestExpectations: a plan's creates and deletes are observed from later snapshots as the
// controller's expectations count them (SYNC-9).
func TestExpectations(t *testing.T) {
	before := []*v1.Pod{
		pod("keep", "n0", withUID("u-keep")),
		pod("dup", "n0", withUID("u-dup"), created(5)),
		pod("orphan", "n1", orphan, withUID("u-orphan")),
	}
	s := daemonset.Snapshot{Nodes: nodes(3), Pods: before}
	p := compiled(newDS(), now1000)
	res := p.Plan(s)
	e := res.Expectations(s, now1000)
	if e.Creates != 1 || len(e.Deletes) != 1 || e.Deletes[0].UID != "u-dup" || e.DaemonSetUID != "uid-foo" {
		t.Fatalf("expectations %+v, want one create (n2) and the delete of dup", e)
	}
	if e.Observed(s) {
		t.Fatal("observed on the planning snapshot itself")
	}

	created := pod("foo-abcde", "n2", withUID("u-new"))
	adopted := pod("orphan", "n1", withUID("u-orphan")) // now controlled: adopted, not created
	for _, tc := range []struct {
		name string
		pods []*v1.Pod
		want bool
	}{
		{"nothing happened yet", before, false},
		{"only the adoption", []*v1.Pod{before[0], before[1], adopted}, false},
		{"the create seen, the delete not", []*v1.Pod{before[0], before[1], adopted, created}, false},
		{"the delete seen, the create not", []*v1.Pod{before[0], adopted}, false},
		{"both: the pod gone", []*v1.Pod{before[0], adopted, created}, true},
		{"both: the pod terminating", []*v1.Pod{before[0], pod("dup", "n0", withUID("u-dup"), terminating), adopted, created}, true},
		{"both: a new pod under the old name", []*v1.Pod{before[0], pod("dup", "n0", withUID("u-other")), adopted, created}, true},
		{"a new pod of another DaemonSet is no create", []*v1.Pod{before[0], adopted,
			pod("x", "n2", withUID("u-x"), owners(ownedBy("DaemonSet", "bar", "uid-bar", true)))}, false},
	} {
		if got := e.Observed(daemonset.Snapshot{Pods: tc.pods}); got != tc.want {
			t.Errorf("%s: Observed %v, want %v", tc.name, got, tc.want)
		}
	}

	// A failed create lowers the count (the caller's part): then the delete alone suffices.
	lowered := e
	lowered.Creates--
	if !lowered.Observed(daemonset.Snapshot{Pods: []*v1.Pod{before[0], adopted}}) {
		t.Error("with the create lowered, the observed delete should suffice")
	}
	if e.Expired(now1000.Add(5*time.Minute)) || !e.Expired(now1000.Add(5*time.Minute+time.Second)) {
		t.Error("expectations expire 5 minutes after they were set")
	}
}

// TestExpectationsOfNothing: a plan without actions, or a skipped one, expects nothing and is
// observed at once.
func TestExpectationsOfNothing(t *testing.T) {
	s := daemonset.Snapshot{Nodes: nodes(1), Pods: []*v1.Pod{pod("p", "n0")}}
	res := compiled(newDS(), now1000).Plan(s)
	if e := res.Expectations(s, now1000); !e.Observed(s) {
		t.Errorf("nothing to observe, got %+v", e)
	}
	skipped := compiled(newDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = ptr.To(metav1.Unix(1, 0)) }), now1000).Plan(s)
	if e := skipped.Expectations(s, now1000); e.Creates != 0 || len(e.Deletes) != 0 || !e.Observed(s) {
		t.Errorf("a skipped plan expects nothing, got %+v", e)
	}
}

// TestExpectationsTerminatingCreate: a created pod that first appears already being deleted is
// no create observed: upstream's add handler counts it as a deletion (SYNC-9), so Observed,
// at least as strict, waits (for Expired).
func TestExpectationsTerminatingCreate(t *testing.T) {
	s := daemonset.Snapshot{Nodes: nodes(1)}
	res := compiled(newDS(), now1000).Plan(s)
	e := res.Expectations(s, now1000)
	if e.Creates != 1 {
		t.Fatalf("expectations %+v, want one create", e)
	}
	if e.Observed(daemonset.Snapshot{Pods: []*v1.Pod{pod("foo-abcde", "n0", withUID("u-new"), terminating)}}) {
		t.Error("a new pod already terminating counted as the create")
	}
	if !e.Observed(daemonset.Snapshot{Pods: []*v1.Pod{pod("foo-abcde", "n0", withUID("u-new"))}}) {
		t.Error("the created pod not counted")
	}
}

// TestExpectationsOfBadResults: data never panics (SYNC-9). A nil Result expects nothing; a
// Create without a pod (decoded from another implementation) still counts, the DaemonSet's
// uid then read from the snapshot's DaemonSets, and without it no pod counts as created.
func TestExpectationsOfBadResults(t *testing.T) {
	if e := (*daemonset.Result)(nil).Expectations(daemonset.Snapshot{}, now1000); e.Creates != 0 || len(e.Deletes) != 0 || !e.Observed(daemonset.Snapshot{}) {
		t.Errorf("nil Result: %+v", e)
	}
	res := &daemonset.Result{Namespace: "default", Name: "foo", Create: []daemonset.Creation{{Node: "n0"}}}
	created := daemonset.Snapshot{Pods: []*v1.Pod{pod("foo-abcde", "n0", withUID("u-new"))}}
	e := res.Expectations(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS()}}, now1000)
	if e.Creates != 1 || e.DaemonSetUID != "uid-foo" || !e.Observed(created) {
		t.Errorf("uid from the snapshot: %+v", e)
	}
	e = res.Expectations(daemonset.Snapshot{}, now1000)
	if e.Creates != 1 || e.DaemonSetUID != "" || e.Observed(created) {
		t.Errorf("no uid anywhere: %+v, want a create no pod satisfies", e)
	}
}

// TestPatchesPanicOnNilDaemonSet: a nil DaemonSet is misuse, reported by a named panic.
func TestPatchesPanicOnNilDaemonSet(t *testing.T) {
	for name, f := range map[string]func(){
		"ObjectRef.AdoptPatch":   func() { daemonset.ObjectRef{UID: "u"}.AdoptPatch(nil) },
		"ObjectRef.ReleasePatch": func() { daemonset.ObjectRef{UID: "u"}.ReleasePatch(nil) },
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); r != "daemonset: "+name+": nil DaemonSet" {
					t.Errorf("%s(nil): panic %q", name, r)
				}
			}()
			f()
		}()
	}
}
