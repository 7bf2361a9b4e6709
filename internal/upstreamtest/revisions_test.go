package upstreamtest

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// revisionCase draws one DaemonSet (defaulted as the API server stores it), three nodes, pods
// and ControllerRevisions exercising every revision write: current and old templates, missing
// hash labels, orphans, other owners, labels the selector no longer matches, the name the sync
// would create taken, duplicates of the current template, history beyond small limits. Revision
// numbers are distinct, since upstream breaks ties in informer order, which nothing fixes (D-1,
// D-15); an orphan always has its hash label, since upstream's update of an adopted revision
// without one sends a stale copy (D-15).
func revisionCase(r *rand.Rand) (*appsv1.DaemonSet, []*v1.Node, []*v1.Pod, []*appsv1.ControllerRevision) {
	labels := map[string]string{"app": "rt"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rt", UID: "uid-rt", Generation: 2, ResourceVersion: "1"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "v9"}}}},
		},
	}
	if r.IntN(2) == 0 {
		ds.Spec.RevisionHistoryLimit = new(int32(r.IntN(3)))
	}
	if r.IntN(3) == 0 {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	} else if r.IntN(2) == 0 {
		zero, one := intstr.FromInt32(0), intstr.FromInt32(1)
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &zero, MaxSurge: &one}}
	}
	ds = daemonset.WithDefaults(ds)
	hash := release.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)

	numbers := r.Perm(8)
	var revs []*appsv1.ControllerRevision
	var hashes []string
	for i := range r.IntN(7) {
		tmpl := ds.DeepCopy()
		if k := r.IntN(4); k > 0 {
			tmpl.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("v%d", k)
		}
		name, h := fmt.Sprintf("rt-r%d", i), fmt.Sprintf("h%d", i)
		if r.IntN(8) == 0 {
			name = "rt-" + hash
		}
		if slices.ContainsFunc(revs, func(o *appsv1.ControllerRevision) bool { return o.Name == name }) {
			continue
		}
		rev, err := release.NewRevision(tmpl, h, int64(numbers[i]+1))
		if err != nil {
			panic(err)
		}
		rev.Name, rev.UID, rev.ResourceVersion = name, types.UID("uid-"+name), "1"
		switch r.IntN(7) {
		case 0:
			rev.OwnerReferences = nil
		case 1:
			rev.OwnerReferences[0].UID = "uid-other"
		case 2:
			rev.Labels["app"] = "gone"
		}
		if r.IntN(5) == 0 && len(rev.OwnerReferences) > 0 {
			delete(rev.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
			h = name
		}
		hashes = append(hashes, h)
		revs = append(revs, rev)
	}
	hashes = append(hashes, hash, "")

	var nodes []*v1.Node
	for i := range 3 {
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), ResourceVersion: "1"}})
	}
	var pods []*v1.Pod
	for i := range r.IntN(6) {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i), UID: types.UID(fmt.Sprintf("uid-p%d", i)),
			ResourceVersion: "1", CreationTimestamp: metav1.Unix(int64(i), 0),
			Labels:          map[string]string{"app": "rt", appsv1.DefaultDaemonSetUniqueLabelKey: hashes[r.IntN(len(hashes))]},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}},
			Spec:   v1.PodSpec{NodeName: fmt.Sprintf("n%d", r.IntN(4))}, // n3 is not in the snapshot
			Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
		switch r.IntN(6) {
		case 0:
			p.OwnerReferences = nil
		case 1:
			if r.IntN(2) == 0 { // aimed at its node through affinity, as daemon pods are
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
						Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{p.Spec.NodeName}}}}}}}}
			}
			p.Spec.NodeName = ""
		case 2:
			p.Labels["app"] = "gone"
		}
		if r.IntN(5) == 0 {
			p.Status.Phase = v1.PodFailed
		}
		switch r.IntN(3) { // unset counts as 0 when the API server deletes it
		case 0:
			p.Spec.TerminationGracePeriodSeconds = new(int64(30))
		case 1:
			p.Spec.TerminationGracePeriodSeconds = new(int64(0))
		}
		pods = append(pods, p)
	}
	return ds, nodes, pods, revs
}

var (
	debugActions  = false
	revisionSeed  = flag.Uint64("revision-seed", 3, "the seed of TestRevisionWritesAgainstUpstream's snapshots")
	revisionCases = flag.Int("revision-cases", 300, "how many snapshots TestRevisionWritesAgainstUpstream draws")
)

// revisionActions are the revision writes of one sync, read from the actions a controller sent
// to its client, in the terms of daemonset.RevisionWrites (sorted as it sorts them).
type revisionActions struct {
	Create, Update []string // name rev=N hash=H
	Delete         []string
	Adopt, Release []string
	RelabelPods    []string // name=hash
}

func describeRevision(r *appsv1.ControllerRevision) string {
	return fmt.Sprintf("%s rev=%d hash=%s owners=%d", r.Name, r.Revision, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], len(r.OwnerReferences))
}

func writesOf(w *daemonset.RevisionWrites) revisionActions {
	var out revisionActions
	if w == nil {
		return out
	}
	for _, r := range w.Create {
		out.Create = append(out.Create, describeRevision(r))
	}
	for _, r := range w.Update {
		out.Update = append(out.Update, describeRevision(r))
	}
	// Upstream's deletes are of both kinds; its list is compared with the two together.
	for _, r := range slices.Concat(w.Delete, w.Cleanup) {
		out.Delete = append(out.Delete, r.Name)
	}
	for _, r := range w.Adopt {
		out.Adopt = append(out.Adopt, r.Name)
	}
	for _, r := range w.Release {
		out.Release = append(out.Release, r.Name)
	}
	for _, r := range w.RelabelPods {
		out.RelabelPods = append(out.RelabelPods, r.Name+"="+r.Hash)
	}
	out.sort()
	return out
}

func (a *revisionActions) sort() {
	for _, l := range []*[]string{&a.Create, &a.Update, &a.Delete, &a.Adopt, &a.Release, &a.RelabelPods} {
		slices.Sort(*l)
	}
}

// upstreamSync runs one syncDaemonSet of the v1.36.3 controller on the snapshot, with caches
// holding exactly the snapshot and a fake clientset holding the same objects, and returns the
// revision writes it sent that the API server would accept.
func upstreamSync(t *testing.T, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs []*appsv1.ControllerRevision, now time.Time) revisionActions {
	t.Helper()
	objs, client := snapshotClient(ds, nodes, pods, revs, now)
	_, _ = syncUpstream(t, client, objs, ds, flowcontrol.NewFakeBackOff(time.Second, 15*time.Minute, testingclock.NewFakeClock(now)))
	return revisionActionsOf(t, client.Actions(), revs)
}

// revisionActionsOf reads the revision writes out of a sync's actions: those the API server
// would accept, given the revisions it held before the sync.
func revisionActionsOf(t *testing.T, actions []clienttesting.Action, revs []*appsv1.ControllerRevision) revisionActions {
	t.Helper()
	existing := map[string]bool{}
	for _, r := range revs {
		existing[r.Name] = true
	}
	var out revisionActions
	updates := map[string]*appsv1.ControllerRevision{}
	for _, a := range actions {
		if debugActions {
			t.Logf("%s %s %v", a.GetVerb(), a.GetResource().Resource, a)
		}
		switch {
		case a.Matches("create", "controllerrevisions"):
			r := a.(clienttesting.CreateAction).GetObject().(*appsv1.ControllerRevision)
			if !existing[r.Name] { // otherwise AlreadyExists: reused or a collision
				out.Create = append(out.Create, describeRevision(r))
			}
		case a.Matches("update", "controllerrevisions"):
			r := a.(clienttesting.UpdateAction).GetObject().(*appsv1.ControllerRevision)
			updates[r.Name] = r
		case a.Matches("delete", "controllerrevisions"):
			out.Delete = append(out.Delete, a.(clienttesting.DeleteAction).GetName())
		case a.Matches("patch", "controllerrevisions"):
			p := a.(clienttesting.PatchAction)
			if strings.Contains(string(p.GetPatch()), `"$patch":"delete"`) {
				out.Release = append(out.Release, p.GetName())
			} else {
				out.Adopt = append(out.Adopt, p.GetName())
			}
		case a.Matches("patch", "pods"):
			p := a.(clienttesting.PatchAction)
			hash, ok := relabelHash(t, p)
			if !ok {
				continue // adoption and release
			}
			out.RelabelPods = append(out.RelabelPods, p.GetName()+"="+hash)
		}
	}
	for _, r := range updates {
		out.Update = append(out.Update, describeRevision(r))
	}
	out.sort()
	return out
}

// TestRevisionWritesAgainstUpstream runs v1.36.3's syncDaemonSet and the plan on random
// snapshots and compares the ControllerRevision writes (UPD-14, UPD-21, UPD-22, OWN-12): the
// revisions created, the final object of each update (upstream's label and number PUTs of one
// revision are one update in the plan, D-15), the deletions, adoptions, releases and relabelled
// pods.
func TestRevisionWritesAgainstUpstream(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(36, *revisionSeed))
	n := *revisionCases
	if testing.Short() {
		n = 60
	}
	kinds := map[string]int{}
	for i := range n {
		ds, nodes, pods, revs := revisionCase(r)
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: release, Now: now})
		res := p.Plan(daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs})
		want := upstreamSync(t, ds, nodes, pods, revs, now)
		got := writesOf(res.Revisions)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("case %d: revision writes differ from upstream (-upstream +plan):\n%s", i, d)
		}
		for k, l := range map[string][]string{"create": got.Create, "update": got.Update, "delete": got.Delete,
			"adopt": got.Adopt, "release": got.Release, "relabel": got.RelabelPods} {
			if len(l) > 0 {
				kinds[k]++
			}
		}
		if res.CollisionCount != nil {
			kinds["collision"]++
		}
	}
	for _, k := range []string{"create", "update", "delete", "adopt", "release", "relabel", "collision"} {
		if kinds[k] == 0 {
			t.Errorf("no case wrote %s: the generator misses it", k)
		}
	}
	t.Logf("cases per write: %v", kinds)
}

// TestRevisionHistoryGraceAgainstUpstream: an adopted duplicate pod the sync deletes keeps its
// old revision in the UPD-22 clean-up only while the API server keeps it, terminating: with a
// grace period of 30 s; with none set it counts as 0 and the pod is removed at once. The plan
// and v1.36.3 delete the same revisions either way.
func TestRevisionHistoryGraceAgainstUpstream(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		grace *int64
		want  []string
	}{
		{"unset", nil, []string{"rt-old"}},
		{"30 s", new(int64(30)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := daemonset.WithDefaults(&appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rt", UID: "uid-rt", Generation: 2, ResourceVersion: "1"},
				Spec: appsv1.DaemonSetSpec{
					Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rt"}},
					RevisionHistoryLimit: new(int32(0)),
					UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
					Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "rt"}},
						Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "v9"}}}},
				},
			})
			hash := release.ComputeHash(&ds.Spec.Template, nil)
			old := ds.DeepCopy()
			old.Spec.Template.Spec.Containers[0].Image = "v1"
			var revs []*appsv1.ControllerRevision
			for i, d := range []*appsv1.DaemonSet{old, ds} {
				h := []string{"old", hash}[i]
				rev, err := release.NewRevision(d, h, int64(i+1))
				if err != nil {
					t.Fatal(err)
				}
				rev.Name, rev.UID, rev.ResourceVersion = "rt-"+h, types.UID("uid-rt-"+h), "1"
				revs = append(revs, rev)
			}
			nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n0", ResourceVersion: "1"}}}
			mk := func(name, h string, sec int64) *v1.Pod {
				return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
					ResourceVersion: "1", CreationTimestamp: metav1.Unix(sec, 0),
					Labels: map[string]string{"app": "rt", appsv1.DefaultDaemonSetUniqueLabelKey: h}},
					Spec:   v1.PodSpec{NodeName: "n0"},
					Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
			}
			kept := mk("kept", hash, 1)
			kept.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
			dup := mk("dup", "old", 5) // an orphan: adopted, then deleted as the younger duplicate
			dup.Spec.TerminationGracePeriodSeconds = tc.grace
			pods := []*v1.Pod{kept, dup}

			p, _ := daemonset.Compile(ds, daemonset.Options{Version: release, Now: now})
			got := writesOf(p.Plan(daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs}).Revisions)
			want := upstreamSync(t, ds, nodes, pods, revs, now)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("revision writes differ from upstream (-upstream +plan):\n%s", d)
			}
			if !slices.Equal(got.Delete, tc.want) {
				t.Errorf("deletes %v, want %v", got.Delete, tc.want)
			}
		})
	}
}

// The data of the revision a sync creates is upstream's byte for byte (UPD-16, VER-12), for
// templates that set every field or not at random, ephemeral volumes' claim templates included:
// the bytes decide whether a stored revision is current, so a difference in any field's JSON
// at a release would make one side create a revision the other keeps.
func TestRevisionDataAgainstUpstream(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	ephemeral := 0
	for seed := range uint64(300) {
		ds := randomDaemonSet(seed)
		ds.Namespace, ds.Name, ds.UID, ds.Generation, ds.ResourceVersion = "ns", "rd", "uid-rd", 1, "1"
		ds.Spec.Template.Labels = map[string]string{"app": "rd"}
		ds.Spec.Template.ManagedFields = nil // random FieldsV1 bytes encode to no JSON at all, here and below
		ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: ds.Spec.Template.Labels}
		seen := false
		for _, v := range ds.Spec.Template.Spec.Volumes {
			if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
				v.Ephemeral.VolumeClaimTemplate.ManagedFields = nil
				seen = true
			}
		}
		if seen {
			ephemeral++
		}
		ds = daemonset.WithDefaults(ds)
		objs, client := snapshotClient(ds, nil, nil, nil, now)
		_, syncErr := syncUpstream(t, client, objs, ds, flowcontrol.NewFakeBackOff(time.Second, 15*time.Minute, testingclock.NewFakeClock(now)))
		var created *appsv1.ControllerRevision
		for _, a := range client.Actions() {
			if a.Matches("create", "controllerrevisions") {
				created = a.(clienttesting.CreateAction).GetObject().(*appsv1.ControllerRevision)
				break
			}
		}
		if created == nil {
			t.Fatalf("seed %d: upstream created no revision (%v)", seed, syncErr)
		}
		ours, err := release.NewRevision(ds, created.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], created.Revision)
		if err != nil {
			t.Fatal(err)
		}
		if string(ours.Data.Raw) != string(created.Data.Raw) {
			t.Fatalf("seed %d at %s: revision data differ:\nupstream %s\nours     %s", seed, release, created.Data.Raw, ours.Data.Raw)
		}
	}
	if ephemeral == 0 {
		t.Fatal("no template had an ephemeral volume's claim template: the generator misses it")
	}
	t.Logf("%d templates with an ephemeral volume's claim template", ephemeral)
}

// relabelHash reads a pod patch of a sync: a JSON merge patch is a de-duplication's relabel
// (UPD-14 step 3), whose hash label it returns; any other patch (an adoption or release) is not.
func relabelHash(t *testing.T, p clienttesting.PatchAction) (string, bool) {
	t.Helper()
	if p.GetPatchType() != types.MergePatchType {
		return "", false
	}
	var body struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
		t.Fatal(err)
	}
	return body.Metadata.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], true
}
