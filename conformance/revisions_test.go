package conformance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestVerifyRevisions: a plan's revision writes are compared when it reports them or when
// Options.Revisions requires them (UPD-14, UPD-22, OWN-12); a pretty-printed plan's revision
// data still matches; the rolling profile requires them.
func TestVerifyRevisions(t *testing.T) {
	c := corpusByName(t)["upd-14-duplicate-current-revisions"]
	s, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := c.Options()
	if !opts.Revisions {
		t.Fatal("the rolling profile does not require revision writes")
	}
	good := planOf(t, s, opts)
	mismatches := func(plan []*daemonset.Result, o Options) []string {
		var out []string
		for _, m := range VerifyAny(c.expectations(), plan, o) {
			out = append(out, m.Action+" "+m.Rule+" "+m.Object)
		}
		return out
	}
	if ms := mismatches(good, opts); len(ms) > 0 {
		t.Fatalf("the project's plan: %v", ms)
	}
	// Through pretty-printed JSON: data keeps its meaning, not its bytes.
	data, err := json.MarshalIndent(daemonset.ClusterResult{DaemonSets: good}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := DecodePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	if ms := mismatches(decoded, opts); len(ms) > 0 {
		t.Errorf("the decoded plan: %v", ms)
	}

	without := cloneResult(good[0])
	without.Revisions = nil
	if ms := mismatches([]*daemonset.Result{without}, opts); len(ms) == 0 {
		t.Error("a plan without revisions accepted where they are required")
	}
	lenient := opts
	lenient.Revisions = false
	if ms := mismatches([]*daemonset.Result{without}, lenient); len(ms) > 0 {
		t.Errorf("a plan without revisions, not required: %v", ms)
	}

	for name, mutate := range map[string]func(w *daemonset.RevisionWrites){
		"revisions UPD-14 ns/ds-cur-b": func(w *daemonset.RevisionWrites) { w.Delete[0].Name = "ds-cur-b" },
		"revisions UPD-22 ns/ds-cur-a": func(w *daemonset.RevisionWrites) { w.Cleanup, w.Delete = w.Delete, nil },
		"revisions UPD-14 ns/p2=cur-b": func(w *daemonset.RevisionWrites) { w.RelabelPods[1].Name = "p2" },
		"revisions OWN-12 ns/ds-old":   func(w *daemonset.RevisionWrites) { w.Adopt = nil },
		"revisions UPD-14 ns/ds-old":   func(w *daemonset.RevisionWrites) { w.Update[0].Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "x" },
		"revisions UPD-14 ns/ds-extra": func(w *daemonset.RevisionWrites) {
			w.Create = []*appsv1.ControllerRevision{{}}
			w.Create[0].Namespace, w.Create[0].Name = "ns", "ds-extra"
		},
		"revisions OWN-12 ns/ds-cur-a": func(w *daemonset.RevisionWrites) {
			w.Release = []daemonset.ObjectRef{{Namespace: "ns", Name: "ds-cur-a"}}
		},
	} {
		bad := cloneResult(good[0])
		w := *good[0].Revisions
		w.Update = []*appsv1.ControllerRevision{w.Update[0].DeepCopy()}
		w.Delete = append([]daemonset.ObjectRef(nil), w.Delete...)
		w.RelabelPods = append([]daemonset.Relabel(nil), w.RelabelPods...)
		mutate(&w)
		bad.Revisions = &w
		ms := mismatches([]*daemonset.Result{bad}, lenient)
		if !strings.Contains(strings.Join(ms, "|"), name) {
			t.Errorf("%s: got %v", name, ms)
		}
	}
}

// TestReleaseThenAdoptBothForms: a pod an older DaemonSet releases and a younger one selects
// goes to the younger one in the project's plan (D-2); the plan of the queue order that syncs
// the younger one first, where nobody adopts it, conforms too, and a plan where both or
// neither act inconsistently does not.
func TestReleaseThenAdoptBothForms(t *testing.T) {
	older := handDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "old"}
		ds.Spec.Template.Labels = map[string]string{"app": "old"}
	})
	younger := handDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID = "young", "young-uid"
		ds.CreationTimestamp = metav1.NewTime(epoch)
	})
	released := handPod("moved", "n1", "x", v1.PodRunning, true) // controlled by ds, labelled app=d
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{older, younger}, Nodes: handNodes("n1"), Pods: []*v1.Pod{released}}
	opts := Options{Version: v1363, Now: epoch}
	project := planOf(t, s, opts)
	byName := map[string]*daemonset.Result{}
	for _, r := range project {
		byName[r.Name] = r
	}
	if len(byName["ds"].Release) != 1 || len(byName["young"].Adopt) != 1 || len(byName["young"].Create) != 0 {
		t.Fatalf("project: ds releases %v, young adopts %v and creates %d", byName["ds"].Release, byName["young"].Adopt, len(byName["young"].Create))
	}
	if ms, err := Check(s, project, opts); err != nil || len(ms) > 0 {
		t.Errorf("the project's plan: %v %v", ms, err)
	}
	first := reordered(s, []string{"ns/young", "ns/ds"})
	other := planOf(t, first, opts)
	for _, r := range other {
		if r.Name == "young" && (len(r.Adopt) != 0 || len(r.Create) != 1) {
			t.Fatalf("young first: adopts %v, creates %d", r.Adopt, len(r.Create))
		}
	}
	if ms, err := Check(s, other, opts); err != nil || len(ms) > 0 {
		t.Errorf("the plan syncing young first: %v %v", ms, err)
	}
	mixed := []*daemonset.Result{cloneResult(project[0]), cloneResult(project[1])}
	for _, r := range mixed {
		if r.Name == "young" {
			r.Adopt = nil // neither adopts nor creates
		}
	}
	if ms, _ := Check(s, mixed, opts); len(ms) == 0 {
		t.Error("young neither adopting nor creating accepted")
	}
}

// TestSharedOrphanRevisionBothForms: an orphan ControllerRevision two DaemonSets select goes to
// whichever syncs first (D-2, OWN-12); Check accepts either form, with the other DaemonSet
// creating its own revision, and rejects a plan in which both adopt it.
func TestSharedOrphanRevisionBothForms(t *testing.T) {
	older := handDS()
	younger := handDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID = "young", "young-uid"
		ds.CreationTimestamp = metav1.NewTime(epoch)
	})
	rev, err := daemonset.NewRevision(older, "h1", 1)
	if err != nil {
		t.Fatal(err)
	}
	rev.Name, rev.UID, rev.OwnerReferences = "shared-h1", "shared-uid", nil
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{older, younger}, Nodes: handNodes("n1"),
		Revisions: []*appsv1.ControllerRevision{rev}}
	opts := Options{Version: v1363, Now: epoch, Revisions: true}
	adopter := func(plan []*daemonset.Result) (out []string) {
		for _, r := range plan {
			if r.Revisions != nil && len(r.Revisions.Adopt) > 0 {
				out = append(out, r.Name+"="+r.RevisionHash)
			}
		}
		return out
	}
	project := planOf(t, s, opts)
	if got := adopter(project); !slices.Equal(got, []string{"ds=h1"}) {
		t.Fatalf("project: adopters %v, want [ds=h1]", got)
	}
	if ms, err := Check(s, project, opts); err != nil || len(ms) > 0 {
		t.Errorf("the project's plan: %v %v", ms, err)
	}
	other := planOf(t, reordered(s, []string{"ns/young", "ns/ds"}), opts)
	if got := adopter(other); !slices.Equal(got, []string{"young=h1"}) {
		t.Fatalf("young first: adopters %v, want [young=h1]", got)
	}
	if ms, err := Check(s, other, opts); err != nil || len(ms) > 0 {
		t.Errorf("the plan syncing young first: %v %v", ms, err)
	}
	both := []*daemonset.Result{}
	for i := range project {
		if project[i].Name == "young" {
			both = append(both, other[i])
		} else {
			both = append(both, project[i])
		}
	}
	if got := adopter(both); len(got) != 2 {
		t.Fatalf("both: adopters %v", got)
	}
	if ms, _ := Check(s, both, opts); len(ms) == 0 {
		t.Error("both DaemonSets adopting the revision accepted")
	}
}
