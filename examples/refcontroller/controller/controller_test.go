package controller

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
)

var now = time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)

func testDS() *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "ds-uid", Generation: 1, ResourceVersion: "10"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "agent", Image: "agent:1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		},
	}
}

func testNodes(n int) []runtime.Object {
	var out []runtime.Object
	for i := range n {
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)}})
	}
	return out
}

// harness is a Controller on a fake clientset whose informer caches are filled by hand, so that
// one Sync can be run and its requests read back in order.
type harness struct {
	c      *Controller
	client *fake.Clientset
	rec    *record.FakeRecorder
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	t.Helper()
	return newHarnessWith(t, Options{}, objs...)
}

// newHarnessWith is newHarness with opts (its Recorder and Now are the harness's).
func newHarnessWith(t *testing.T, opts Options, objs ...runtime.Object) *harness {
	t.Helper()
	client := fake.NewClientset(objs...)
	// The fake tracker neither generates names nor assigns uids; the API server does both.
	var serial atomic.Int32
	client.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if m, err := metaOf(a.(clienttesting.CreateAction).GetObject()); err == nil && m.GetName() == "" && m.GetGenerateName() != "" {
			m.SetName(fmt.Sprintf("%s%d", m.GetGenerateName(), serial.Add(1)))
			m.SetUID(types.UID(m.GetName() + "-uid"))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	opts.Recorder, opts.Now = rec, func() time.Time { return now }
	c := New(client, factory, opts)
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *appsv1.DaemonSet:
			err = factory.Apps().V1().DaemonSets().Informer().GetIndexer().Add(o)
		case *v1.Pod:
			err = factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
		case *v1.Node:
			err = factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
		case *appsv1.ControllerRevision:
			err = factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &harness{c: c, client: client, rec: rec}
}

// requests renders the recorded writes (and the re-read before adopting) as "verb resource[/sub] name".
func (h *harness) requests() []string {
	var out []string
	for _, a := range h.client.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		name := ""
		if o, ok := a.(interface{ GetObject() runtime.Object }); ok {
			m, _ := metaOf(o.GetObject())
			name = m.GetName()
			if name == "" {
				name = m.GetGenerateName() + "*"
			}
		} else if n, ok := a.(interface{ GetName() string }); ok {
			name = n.GetName()
		}
		out = append(out, a.GetVerb()+" "+res+" "+name)
	}
	return out
}

func metaOf(o runtime.Object) (metav1.Object, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, errors.New("no metadata")
	}
	return m, nil
}

func (h *harness) sync(t *testing.T) error {
	t.Helper()
	_, err := h.c.Sync(context.Background(), "ns/agent")
	return err
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The first sync of a new DaemonSet records its revision, creates its pods in slow-start
// batches (1 then 2), and writes the status last.
func TestSyncWriteOrderNewDaemonSet(t *testing.T) {
	ds := testDS()
	h := newHarness(t, append(testNodes(3), ds)...)
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	hash := daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil)
	equal(t, h.requests(), []string{
		"create controllerrevisions agent-" + hash,
		"create pods agent-*", "create pods agent-*", "create pods agent-*",
		"update daemonsets/status agent",
	})
	revs, _ := h.client.AppsV1().ControllerRevisions("ns").List(context.Background(), metav1.ListOptions{})
	if len(revs.Items) != 1 || revs.Items[0].Revision != 1 {
		t.Errorf("revisions = %+v, want one with revision 1", revs.Items)
	}
	got, _ := h.client.AppsV1().DaemonSets("ns").Get(context.Background(), "agent", metav1.GetOptions{})
	if got.Status.DesiredNumberScheduled != 3 || got.Status.ObservedGeneration != 1 {
		t.Errorf("status = %+v, want 3 desired, observedGeneration 1", got.Status)
	}
	// Until the creates are observed, a second sync writes nothing about pods.
	h.client.ClearActions()
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.requests() {
		if strings.Contains(r, " pods ") {
			t.Errorf("sync with pending expectations sent %q", r)
		}
	}
}

func pod(name, node string, ds *appsv1.DaemonSet, owned bool, mods ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"app": "agent"},
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec:   v1.PodSpec{NodeName: node},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	if owned {
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

// An orphan is adopted after the DaemonSet is read again; a pod that no longer matches the
// selector is released; both patches carry the pod's uid as a precondition and come before the
// current revision's creation.
func TestSyncAdoptsAndReleases(t *testing.T) {
	ds := testDS()
	orphan := pod("orphan", "node-0", ds, false)
	strayed := pod("strayed", "node-1", ds, true, func(p *v1.Pod) { p.Labels = map[string]string{"app": "other"} })
	h := newHarness(t, append(testNodes(1), ds, orphan, strayed)...)
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	reqs := h.requests()
	want := []string{"get daemonsets agent", "patch pods orphan", "patch pods strayed"}
	if len(reqs) < 4 {
		t.Fatalf("requests = %q", reqs)
	}
	equal(t, reqs[:3], want) // before the current revision is created (D-15)
	var patches []string
	for _, a := range h.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			if p.GetPatchType() != types.StrategicMergePatchType {
				t.Errorf("patch %s: type %s", p.GetName(), p.GetPatchType())
			}
			patches = append(patches, string(p.GetPatch()))
		}
	}
	var adopt, release struct {
		Metadata struct {
			UID             types.UID        `json:"uid"`
			OwnerReferences []map[string]any `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(patches[0]), &adopt); err != nil {
		t.Fatal(err)
	}
	if adopt.Metadata.UID != "orphan-uid" || adopt.Metadata.OwnerReferences[0]["uid"] != "ds-uid" || adopt.Metadata.OwnerReferences[0]["controller"] != true {
		t.Errorf("adopt patch = %s", patches[0])
	}
	if err := json.Unmarshal([]byte(patches[1]), &release); err != nil {
		t.Fatal(err)
	}
	if release.Metadata.UID != "strayed-uid" || release.Metadata.OwnerReferences[0]["$patch"] != "delete" || release.Metadata.OwnerReferences[0]["uid"] != "ds-uid" {
		t.Errorf("release patch = %s", patches[1])
	}
	got, _ := h.client.CoreV1().Pods("ns").Get(context.Background(), "strayed", metav1.GetOptions{})
	if len(got.OwnerReferences) != 0 {
		t.Errorf("released pod keeps %v", got.OwnerReferences)
	}
	got, _ = h.client.CoreV1().Pods("ns").Get(context.Background(), "orphan", metav1.GetOptions{})
	if !daemonset.NewestVersion().IsControlledBy(got, ds) {
		t.Errorf("adopted pod has owners %v", got.OwnerReferences)
	}
}

// A failed create ends the slow-start series: with 7 pods to create and the second create
// refused, batches 1 and 2 are sent (3 creates) and the last 4 never are; the sync reports the
// error and still writes the status.
func TestSyncFailedBatchStopsTheSeries(t *testing.T) {
	ds := testDS()
	h := newHarness(t, append(testNodes(7), ds)...)
	var creates atomic.Int32
	h.client.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if creates.Add(1) == 2 {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("quota exceeded"))
		}
		return false, nil, nil
	})
	err := h.sync(t)
	if err == nil || !strings.Contains(err.Error(), "quota exceeded") {
		t.Fatalf("err = %v, want the refused create", err)
	}
	if n := creates.Load(); n != 3 {
		t.Errorf("%d creates sent, want 3 (batches of 1 and 2)", n)
	}
	reqs := h.requests()
	if last := reqs[len(reqs)-1]; last != "update daemonsets/status agent" {
		t.Errorf("last request %q, want the status", last)
	}
	// The expectations are those of the two accepted creates: observed once both are listed.
	pods, _ := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	var listed []*v1.Pod
	for i := range pods.Items {
		listed = append(listed, &pods.Items[i])
	}
	exp := h.c.state["ns/agent"].exp
	if len(listed) != 2 || exp.Creates != 2 || !exp.Observed(daemonset.Snapshot{Pods: listed}) || exp.Observed(daemonset.Snapshot{Pods: listed[:1]}) {
		t.Errorf("expectations %+v on %d pods", h.c.state["ns/agent"].exp, len(listed))
	}
}

// A conflict on the status write is retried once with the DaemonSet read again.
func TestSyncStatusConflictRetriesOnce(t *testing.T) {
	ds := testDS()
	h := newHarness(t, append(testNodes(1), ds, pod("p", "node-0", ds, true))...)
	var tries atomic.Int32
	h.client.PrependReactor("update", "daemonsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && tries.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("stale"))
		}
		return false, nil, nil
	})
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	reqs := h.requests()
	equal(t, reqs[len(reqs)-3:], []string{"update daemonsets/status agent", "get daemonsets agent", "update daemonsets/status agent"})
	got, _ := h.client.AppsV1().DaemonSets("ns").Get(context.Background(), "agent", metav1.GetOptions{})
	if got.Status.CurrentNumberScheduled != 1 {
		t.Errorf("status = %+v", got.Status)
	}

	// Two conflicts: the sync gives up and reports it.
	h2 := newHarness(t, append(testNodes(1), testDS())...)
	h2.client.PrependReactor("update", "daemonsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return a.GetSubresource() == "status", nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("stale"))
	})
	if err := h2.sync(t); !apierrors.IsConflict(err) {
		t.Errorf("err = %v, want the conflict", err)
	}
}

func revision(ds *appsv1.DaemonSet, name, hash string, number int64, data []byte) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid"), ResourceVersion: "5",
			Labels:          map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}},
		Data:     runtime.RawExtension{Raw: data},
		Revision: number,
	}
}

// Two revisions hold the current template: the pods are relabelled to the kept one's hash and
// the duplicate deleted before any pod work; the history beyond revisionHistoryLimit that no
// pod uses goes at the end of the sync, before the status (UPD-14, UPD-22).
func TestSyncRevisionDedupAndCleanup(t *testing.T) {
	ds := testDS()
	ds.Spec.RevisionHistoryLimit = ptrTo(int32(0))
	rev, err := daemonset.NewRevision(ds, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	patch := rev.Data.Raw
	old := revision(ds, "agent-old", "old", 1, []byte(`{"spec":{"template":{"$patch":"replace"}}}`))
	dup := revision(ds, "agent-aaa", "aaa", 2, patch)
	keep := revision(ds, "agent-bbb", "bbb", 3, patch)
	p := pod("p", "node-0", ds, true, func(p *v1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "aaa" })
	h := newHarness(t, append(testNodes(1), ds, old, dup, keep, p)...)
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	equal(t, h.requests(), []string{
		"patch pods p",
		"delete controllerrevisions agent-aaa",
		"delete controllerrevisions agent-old",
		"update daemonsets/status agent",
	})
	got, _ := h.client.CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{})
	if h := got.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "bbb" {
		t.Errorf("pod relabelled to %q, want bbb", h)
	}
}

// failed makes a pod Failed.
func failed(p *v1.Pod) { p.Status.Phase = v1.PodFailed }

// failedPodDeleted returns a harness whose first sync of ds, on one node holding the Failed pod
// "first", has deleted that pod.
func failedPodDeleted(t *testing.T, ds *appsv1.DaemonSet) *harness {
	t.Helper()
	h := newHarness(t, append(testNodes(1), ds, pod("first", "node-0", ds, true, failed))...)
	if _, err := h.c.Sync(context.Background(), "ns/agent"); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(h.requests(), "delete pods first"); n != 1 {
		t.Fatalf("first sync: %d deletes, want 1; requests %q", n, h.requests())
	}
	return h
}

// A pod that fails right after the back-off's first deletion on its node is held back: not
// deleted, no event, and the DaemonSet is queued again after the delay (DIFF-17).
func TestSyncFailedPodBackoff(t *testing.T) {
	ds := testDS()
	h := failedPodDeleted(t, ds)
	// The next failed pod on the node, half a second later, waits for the 1 s back-off.
	h2 := newHarness(t, append(testNodes(1), ds, pod("second", "node-0", ds, true, failed))...)
	h2.c.backoff = h.c.backoff
	h2.c.now = func() time.Time { return now.Add(500 * time.Millisecond) }
	after, err := h2.c.Sync(context.Background(), "ns/agent")
	if err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(h2.requests(), "delete pods"); n != 0 || after != time.Second {
		t.Errorf("held pod: %d deletes, requeue after %v; want 0 and 1s", n, after)
	}
	select {
	case ev := <-h2.rec.Events:
		t.Errorf("held pod: event %q", ev)
	default:
	}
}

func countPrefix(reqs []string, prefix string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func ptrTo[T any](v T) *T { return &v }

// While the creates and deletes of the last sync are not observed (SYNC-9), a sync only writes
// the status, with the stored observedGeneration (STAT-13), and asks for no back-off requeue:
// the Failed pod it would hold back is not looked at.
func TestSyncPendingExpectations(t *testing.T) {
	ds := testDS()
	h := failedPodDeleted(t, ds)
	// The caches still hold the deleted pod, within its 1 s back-off: the delete is not observed.
	h.client.ClearActions()
	h.c.now = func() time.Time { return now.Add(500 * time.Millisecond) }
	after, err := h.c.Sync(context.Background(), "ns/agent")
	if err != nil {
		t.Fatal(err)
	}
	// The revision the caches do not show yet is created again, found to hold the template
	// (AlreadyExists), as upstream does before it checks the expectations.
	hash := daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil)
	equal(t, h.requests(), []string{"create controllerrevisions agent-" + hash, "get controllerrevisions agent-" + hash,
		"update daemonsets/status agent"})
	if after != 0 {
		t.Errorf("pending sync: requeue after %v, want none (the back-off's belongs to an acting sync)", after)
	}
	for _, a := range h.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			if st := u.GetObject().(*appsv1.DaemonSet).Status; st.ObservedGeneration != 0 || st.DesiredNumberScheduled != 1 {
				t.Errorf("pending sync: status %+v, want observedGeneration 0 (as cached) and 1 desired", st)
			}
		}
	}
}

// A refused pod claim leaves the status unwritten: upstream's status sync claims the pods
// again and returns before writing when that fails.
func TestSyncClaimFailureWritesNoStatus(t *testing.T) {
	ds := testDS()
	h := newHarness(t, append(testNodes(1), ds, pod("orphan", "node-0", ds, false))...)
	h.client.PrependReactor("patch", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "orphan", errors.New("denied"))
	})
	if err := h.sync(t); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Fatalf("err = %v, want the refused claim", err)
	}
	if n := countPrefix(h.requests(), "update daemonsets/status"); n != 0 {
		t.Errorf("%d status writes after a refused claim, want none; requests %q", n, h.requests())
	}
}

// A pending sync's status keeps observedGeneration as stored, and on a conflict as stored in
// the object read again, as upstream's retry with updateObservedGen false does (STAT-13).
func TestSyncPendingStatusRetryKeepsTheStoredGeneration(t *testing.T) {
	ds := testDS()
	ds.Generation, ds.Status.ObservedGeneration = 3, 1
	h := newHarness(t, append(testNodes(1), ds, pod("p", "node-0", ds, true))...)
	var tries atomic.Int32
	h.client.PrependReactor("update", "daemonsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" || tries.Add(1) != 1 {
			return false, nil, nil
		}
		// Meanwhile a status write of another sync stored generation 2.
		cur, err := h.client.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("daemonsets"), "ns", "agent")
		if err != nil {
			return true, nil, err
		}
		stored := cur.(*appsv1.DaemonSet).DeepCopy()
		stored.Status.ObservedGeneration = 2
		if err := h.client.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("daemonsets"), stored, "ns"); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("stale"))
	})
	snap, err := h.c.snapshot(ds.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	p, errs := daemonset.Compile(ds, daemonset.Options{Now: now})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s := &syncer{c: h.c, ctx: context.Background(), key: "ns/agent", ds: ds, p: p, snap: snap, res: p.PlanPending(snap), now: now}
	if _, err := s.run(); err != nil {
		t.Fatal(err)
	}
	var gens []int64
	for _, a := range h.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			gens = append(gens, u.GetObject().(*appsv1.DaemonSet).Status.ObservedGeneration)
		}
	}
	if !slices.Equal(gens, []int64{1, 2}) {
		t.Errorf("observedGeneration sent %v, want [1 2] (as cached, then as re-read)", gens)
	}
}

// observeWrites makes the pod informer of h show each pod create and delete by the time the
// API server answers it, as a live informer usually does before the sync goes on.
func (h *harness) observeWrites(t *testing.T) {
	t.Helper()
	idx := h.c.podInf.GetIndexer()
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	var serial atomic.Int32
	h.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.CreateAction).GetObject().(*v1.Pod).DeepCopy()
		if p.Name == "" {
			p.Name = fmt.Sprintf("%sseen%d", p.GenerateName, serial.Add(1))
			p.UID = types.UID(p.Name + "-uid")
		}
		if err := h.client.Tracker().Create(gvr, p, p.Namespace); err != nil {
			return true, nil, err
		}
		return true, p, idx.Add(p)
	})
	h.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteAction)
		obj, ok, err := idx.GetByKey(d.GetNamespace() + "/" + d.GetName())
		if err != nil || !ok {
			return false, nil, err
		}
		if err := h.client.Tracker().Delete(gvr, d.GetNamespace(), d.GetName()); err != nil {
			return true, nil, err
		}
		return true, nil, idx.Delete(obj)
	})
}

// statusWrites returns the statuses the sync sent with UpdateStatus, in order.
func (h *harness) statusWrites() []appsv1.DaemonSetStatus {
	var out []appsv1.DaemonSetStatus
	for _, a := range h.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			out = append(out, u.GetObject().(*appsv1.DaemonSet).Status)
		}
	}
	return out
}

func ready(p *v1.Pod) {
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}
}

func hashed(h string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h }
}

// surgeRollout is a maxSurge 1 rollout on 3 nodes whose surged pod on node-0 is available: the
// sync's base diff deletes the old pod it replaced (DIFF-6), and the rolling step that follows
// on the state after that surges node-1.
func surgeRollout(t *testing.T) (*harness, *appsv1.DaemonSet) {
	t.Helper()
	ds := testDS()
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}}
	cur := daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil)
	objs := append(testNodes(3), ds,
		pod("old-0", "node-0", ds, true, ready, hashed("old")),
		pod("new-0", "node-0", ds, true, ready, hashed(cur)),
		pod("old-1", "node-1", ds, true, ready, hashed("old")),
		pod("old-2", "node-2", ds, true, ready, hashed("old")))
	return newHarness(t, objs...), ds
}

// When the caches show the base diff's delete before the sync goes on, the sync runs the
// rolling-update step on them at once, as v1.36's updateDaemonSet does after it finds its
// expectations satisfied again (ROLL-7): node-1 is surged in the same sync, and the status
// counts the cache after both.
func TestSyncRollsInTheSameSyncWhenTheBaseDiffIsObserved(t *testing.T) {
	h, ds := surgeRollout(t)
	h.observeWrites(t)
	var traces []SyncTrace
	h.c.trace = func(tr SyncTrace) { traces = append(traces, tr) }
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(traces) != 1 || !traces[0].Rechecked || !traces[0].Observed || !traces[0].Rolled || len(traces[0].Mid.Pods) != 3 {
		t.Errorf("traces %+v, want one sync that checked again, observed the delete (3 pods left) and rolled", traces)
	}
	hash := daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil)
	equal(t, h.requests(), []string{
		"create controllerrevisions agent-" + hash,
		"delete pods old-0",
		"create pods agent-*",
		"update daemonsets/status agent",
	})
	pods, _ := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	var surged []string
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Name, "agent-") {
			surged = append(surged, targetNode(&p))
		}
	}
	if !slices.Equal(surged, []string{"node-1"}) {
		t.Errorf("surged pods on %q, want node-1", surged)
	}
	st := h.statusWrites()
	// node-1 holds old-1 (oldest first), node-0 new-0: one updated pod of 3 scheduled.
	if len(st) != 1 || st[0].CurrentNumberScheduled != 3 || st[0].UpdatedNumberScheduled != 1 || st[0].NumberReady != 3 {
		t.Errorf("status %+v, want 3 scheduled, 1 updated, 3 ready", st)
	}
}

// When the caches are behind the base diff's delete, the rolling step waits for the next sync,
// as upstream's does when its expectations are still pending after manage.
func TestSyncLeavesTheRollingStepWhenTheBaseDiffIsNotObserved(t *testing.T) {
	h, ds := surgeRollout(t)
	var traces []SyncTrace
	h.c.trace = func(tr SyncTrace) { traces = append(traces, tr) }
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(traces) != 1 || !traces[0].Rechecked || traces[0].Observed || traces[0].Rolled {
		t.Errorf("traces %+v, want one sync that checked again and found the delete not observed", traces)
	}
	equal(t, h.requests(), []string{
		"create controllerrevisions agent-" + daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil),
		"delete pods old-0",
		"update daemonsets/status agent",
	})
}

// The first status write of a new DaemonSet counts the pods it has just created as the pod
// informer shows them, as upstream's updateDaemonSetStatus, which lists the pods again.
func TestSyncStatusCountsTheCreatedPodsTheCacheShows(t *testing.T) {
	ds := testDS()
	h := newHarness(t, append(testNodes(3), ds)...)
	h.observeWrites(t)
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	st := h.statusWrites()
	if len(st) != 1 || st[0].DesiredNumberScheduled != 3 || st[0].CurrentNumberScheduled != 3 ||
		st[0].UpdatedNumberScheduled != 3 || st[0].NumberUnavailable != 3 || st[0].ObservedGeneration != 1 {
		t.Errorf("status %+v, want 3 desired, scheduled and updated, 3 unavailable, observedGeneration 1", st)
	}
}

// targetNode returns the node a daemon pod's required node affinity names.
func targetNode(p *v1.Pod) string {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return p.Spec.NodeName
}

// The controller stands in for one release's: its plans use that release's rules (here its
// template hash, VER-2, in the revision's name), and only from 1.36, where
// StaleControllerConsistencyDaemonSet is beta and on, does a sync wait while the cached
// DaemonSet is older than the controller's own last status write (SYNC-7), unless
// --feature-gates turns the gate off (VER-5).
func TestSyncFollowsTheRelease(t *testing.T) {
	for _, tc := range []struct {
		release  string // "" is the zero Version
		gateOff  bool   // --feature-gates StaleControllerConsistencyDaemonSet=false
		wantWait bool
	}{
		{"", false, true},
		{"1.37", false, true},
		{"1.36.0", false, true},
		{"1.37", true, false},
		{"1.36", true, false},
		{"1.35", false, false},
		{"1.33", false, false},
	} {
		name := "release " + cmp.Or(tc.release, "default")
		if tc.gateOff {
			name += ", gate off"
		}
		t.Run(name, func(t *testing.T) {
			var v daemonset.Version
			if tc.release != "" {
				var err error
				if v, err = daemonset.ParseVersion(tc.release); err != nil {
					t.Fatal(err)
				}
			}
			ds := testDS()
			opts := Options{Version: v}
			if tc.gateOff {
				opts.FeatureGates = daemonset.FeatureGates{daemonset.GateStaleControllerConsistencyDaemonSet: false}
			}
			h := newHarnessWith(t, opts, append([]runtime.Object{ds}, testNodes(1)...)...)
			h.c.stateOf("ns/agent").dsRV = "20" // the cache holds resourceVersion 10
			err := h.sync(t)
			if tc.wantWait {
				if !errors.Is(err, errNotObserved) || len(h.requests()) != 0 {
					t.Fatalf("sync = %v with requests %q; want errNotObserved and none", err, h.requests())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			hash := v.ComputeHash(&ds.Spec.Template, nil)
			if !slices.Contains(h.requests(), "create controllerrevisions agent-"+hash) {
				t.Errorf("requests %q; want the revision of release %s's hash %s", h.requests(), v, hash)
			}
		})
	}
}

// createdPods runs the first sync of a new DaemonSet on n nodes and returns the harness and the
// pods it created, as the API server stored them (resourceVersion "1"), not yet in the caches.
func createdPods(t *testing.T, n int) (*harness, []*v1.Pod) {
	t.Helper()
	h := newHarness(t, append(testNodes(n), testDS())...)
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	list, err := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*v1.Pod
	for i := range list.Items {
		p := list.Items[i].DeepCopy()
		p.ResourceVersion = "1"
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	if len(out) != n {
		t.Fatalf("first sync created %d pods, want %d", len(out), n)
	}
	return h, out
}

// The pod informer's events, delivered as a running informer does: the cache first, then the
// handler the controller registered (podChanged for adds and updates, podDeleted for deletes).
func (h *harness) podAdded(t *testing.T, p *v1.Pod) {
	t.Helper()
	if err := h.c.podInf.GetIndexer().Add(p); err != nil {
		t.Fatal(err)
	}
	h.c.podChanged(nil, p)
}

func (h *harness) podUpdated(t *testing.T, old, cur *v1.Pod) {
	t.Helper()
	if err := h.c.podInf.GetIndexer().Update(cur); err != nil {
		t.Fatal(err)
	}
	h.c.podChanged(old, cur)
}

func (h *harness) podRemoved(t *testing.T, p *v1.Pod) {
	t.Helper()
	if err := h.c.podInf.GetIndexer().Delete(p); err != nil {
		t.Fatal(err)
	}
	h.c.podDeleted(p)
}

// terminating returns p as the API server stores it once a graceful delete set its
// deletionTimestamp: a new resourceVersion.
func terminating(p *v1.Pod, rv string) *v1.Pod {
	cur := p.DeepCopy()
	cur.ResourceVersion = rv
	cur.DeletionTimestamp = ptrTo(metav1.NewTime(now))
	cur.DeletionGracePeriodSeconds = ptrTo(int64(30))
	return cur
}

// expectedCreates returns the creates the expectations of ns/agent still wait for, or -1 when
// there are none.
func (h *harness) expectedCreates() int {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if st := h.c.state["ns/agent"]; st != nil && st.exp != nil {
		return st.exp.Creates
	}
	return -1
}

// An update that sets a created pod's deletionTimestamp is a delete, as upstream's updatePod
// sends it to deletePod (SYNC-9): upstream counted the pod's creation at its add event and
// does not take it back, so the expectations are met with the other created pod alone, and the
// next sync acts (it is not PlanPending's) instead of waiting for the kubelet to remove the pod
// or for the 5-minute timeout. The deletion that follows lowers nothing again.
func TestPodTurningTerminatingCountsAsCreatedAndDeleted(t *testing.T) {
	h, pods := createdPods(t, 2)
	wantCreates := func(want int, when string) {
		t.Helper()
		if got := h.expectedCreates(); got != want {
			t.Fatalf("%s: %d creates expected, want %d", when, got, want)
		}
	}
	wantCreates(2, "after the sync")
	h.podAdded(t, pods[0])
	h.podAdded(t, pods[1])
	gone := terminating(pods[0], "2")
	h.podUpdated(t, pods[0], gone)
	wantCreates(1, "after the update that set the deletionTimestamp")
	if n := h.c.queue.Len(); n != 1 {
		t.Errorf("%d keys queued, want the DaemonSet's", n)
	}
	h.podRemoved(t, gone)
	wantCreates(1, "after the terminating pod went")

	var traces []SyncTrace
	h.c.trace = func(tr SyncTrace) { traces = append(traces, tr) }
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(traces) != 1 || traces[0].Pending {
		t.Fatalf("traces %+v, want one acting sync: the expectations are met", traces)
	}
	// The node whose pod went gets a new one.
	if n := countPrefix(h.requests(), "create pods agent-"); n != 3 {
		t.Errorf("%d pod creates in all, want 2 and then 1; requests %q", n, h.requests())
	}
}

// A pod of the first slow-start batch that turns terminating while the sync still writes the
// next batch counts as created and deleted (SYNC-9), as one that turns terminating after the
// sync does: the sync keeps each created pod as its create returns, so the update finds it. The
// expectations then wait for the other created pod alone, not for the 5-minute timeout.
func TestPodTurningTerminatingDuringTheWritesCountsAsCreated(t *testing.T) {
	h := newHarness(t, append(testNodes(3), testDS())...)
	var creates atomic.Int32
	first := make(chan *v1.Pod, 1)
	h.client.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if creates.Add(1) != 2 {
			return false, nil, nil
		}
		// The second batch is being written: the informer delivers the first batch's pod,
		// live, then its deletionTimestamp (another client deleted it).
		list, err := h.client.Tracker().List(v1.SchemeGroupVersion.WithResource("pods"), v1.SchemeGroupVersion.WithKind("Pod"), "ns")
		if err != nil {
			t.Error(err)
			return false, nil, nil
		}
		items := list.(*v1.PodList).Items
		if len(items) != 1 {
			t.Errorf("%d pods stored when the second batch starts, want the first batch's one", len(items))
			return false, nil, nil
		}
		live := items[0].DeepCopy()
		live.ResourceVersion = "1"
		h.podAdded(t, live)
		h.podUpdated(t, live, terminating(live, "2"))
		first <- live
		return false, nil, nil
	})
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	if n := creates.Load(); n != 3 {
		t.Fatalf("%d creates sent, want 3 (batches of 1 and 2)", n)
	}
	gone := <-first
	if got := h.expectedCreates(); got != 2 {
		t.Fatalf("%d creates expected after the sync, want 2: the pod that turned terminating during the writes was counted created and then deleted", got)
	}
	list, err := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if p := &list.Items[i]; p.Name != gone.Name {
			p.ResourceVersion = "1"
			h.podAdded(t, p)
		}
	}
	snap, err := h.c.snapshot("ns")
	if err != nil {
		t.Fatal(err)
	}
	if !h.c.expectationsMet("ns/agent", snap, now) {
		t.Errorf("expectations %+v not met by the two live created pods", h.c.state["ns/agent"].exp)
	}
}

// A pod whose add event, and then its deletionTimestamp, reach the handlers before its create
// call has returned to the sync counts as created and deleted (SYNC-9), as upstream's addPod
// counts a creation by the informer event and not by the create's return: the expectations then
// wait for the two other created pods, not for the 5-minute timeout.
func TestPodSeenBeforeItsCreateReturnsCountsAsCreated(t *testing.T) {
	h := newHarness(t, append(testNodes(3), testDS())...)
	var creates atomic.Int32
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	h.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if creates.Add(1) != 1 {
			return false, nil, nil
		}
		// The API server stores the pod and the informer delivers it, live and then
		// terminating, before the response reaches the sync.
		p := a.(clienttesting.CreateAction).GetObject().(*v1.Pod).DeepCopy()
		p.Name, p.UID, p.ResourceVersion = "agent-early", "agent-early-uid", "1"
		if err := h.client.Tracker().Create(gvr, p, "ns"); err != nil {
			t.Error(err)
			return true, nil, err
		}
		h.podAdded(t, p)
		h.podUpdated(t, p, terminating(p, "2"))
		return true, p, nil
	})
	if err := h.sync(t); err != nil {
		t.Fatal(err)
	}
	if n := creates.Load(); n != 3 {
		t.Fatalf("%d creates sent, want 3 (batches of 1 and 2)", n)
	}
	if got := h.expectedCreates(); got != 2 {
		t.Fatalf("%d creates expected after the sync, want 2: the pod seen before its create returned was counted created and then deleted", got)
	}
	list, err := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if p := &list.Items[i]; p.Name != "agent-early" {
			p.ResourceVersion = "1"
			h.podAdded(t, p)
		}
	}
	snap, err := h.c.snapshot("ns")
	if err != nil {
		t.Fatal(err)
	}
	if !h.c.expectationsMet("ns/agent", snap, now) {
		t.Errorf("expectations %+v not met by the two live created pods", h.c.state["ns/agent"].exp)
	}
}

// A created pod that first reaches the caches already terminating was never counted created by
// upstream (addPod sends it to deletePod), nor by its later deletion: the expectations keep
// waiting for it (Observed, then the timeout), as upstream's do.
func TestPodArrivingTerminatingIsNotCountedCreated(t *testing.T) {
	h, pods := createdPods(t, 2)
	h.podAdded(t, pods[1])
	gone := terminating(pods[0], "2")
	h.podAdded(t, gone)
	h.podRemoved(t, gone)
	if got := h.expectedCreates(); got != 2 {
		t.Errorf("%d creates expected, want 2: neither event showed the pod live", got)
	}
	if snap, err := h.c.snapshot("ns"); err != nil || h.c.expectationsMet("ns/agent", snap, now) {
		t.Errorf("expectations met (err %v), want still waiting", err)
	}
}

// Which DaemonSets a pod event queues (SYNC-9, upstream's addPod, updatePod and deletePod): a
// pod that is terminating, or gone, queues only its controller; an orphan then queues nothing,
// and a controller reference it lost queues no one.
func TestPodEventsQueue(t *testing.T) {
	ds := testDS()
	other := testDS()
	other.Name, other.UID = "other", "other-uid"
	orphan := pod("orphan", "node-0", ds, false)
	owned := pod("owned", "node-0", ds, true)
	owned.ResourceVersion, orphan.ResourceVersion = "1", "1"
	relabelled := orphan.DeepCopy()
	relabelled.ResourceVersion, relabelled.Labels = "2", map[string]string{"app": "agent", "tier": "x"}
	movedAway := owned.DeepCopy()
	movedAway.ResourceVersion = "2"
	movedAway.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(other, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
	tests := []struct {
		name  string
		event func(h *harness)
		want  []string
	}{
		{"an orphan whose labels change is offered to every DaemonSet selecting it",
			func(h *harness) { h.c.podChanged(orphan, relabelled) }, []string{"ns/agent", "ns/other"}},
		{"a terminating orphan whose labels change queues nothing",
			func(h *harness) { h.c.podChanged(orphan, terminating(relabelled, "3")) }, nil},
		{"an orphan added terminating queues nothing",
			func(h *harness) { h.c.podChanged(nil, terminating(orphan, "2")) }, nil},
		{"a deleted orphan queues nothing",
			func(h *harness) { h.c.podDeleted(orphan) }, nil},
		{"a pod that changes controller queues both",
			func(h *harness) { h.c.podChanged(owned, movedAway) }, []string{"ns/agent", "ns/other"}},
		{"a pod that changes controller as it turns terminating queues only the new one",
			func(h *harness) { h.c.podChanged(owned, terminating(movedAway, "3")) }, []string{"ns/other"}},
		{"a pod whose update sets its deletionTimestamp queues its controller",
			func(h *harness) { h.c.podChanged(owned, terminating(owned, "2")) }, []string{"ns/agent"}},
		{"a deleted pod queues its controller",
			func(h *harness) { h.c.podDeleted(owned) }, []string{"ns/agent"}},
		{"an update with the same resourceVersion queues nothing",
			func(h *harness) { h.c.podChanged(owned, terminating(owned, "1")) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, append(testNodes(1), ds, other)...)
			tt.event(h)
			var got []string
			for h.c.queue.Len() > 0 {
				key, _ := h.c.queue.Get()
				got = append(got, key)
				h.c.queue.Done(key)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("queued %q, want %q", got, tt.want)
			}
		})
	}
}
