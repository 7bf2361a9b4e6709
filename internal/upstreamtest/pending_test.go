package upstreamtest

import (
	"flag"
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
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/daemon"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

var (
	pendingSeed  = flag.Uint64("pending-seed", 5, "the seed of TestPendingSyncAgainstUpstream's snapshots")
	pendingCases = flag.Int("pending-cases", 300, "how many snapshots TestPendingSyncAgainstUpstream draws")
)

// pendingWrites are the writes of one sync with pending expectations, in the terms of
// daemonset.Result: the revision writes, the pod claims, any pod create or delete, the status
// sent and the delayed requeues asked for.
type pendingWrites struct {
	Revisions      revisionActions
	Adopt, Release []string // pod names, each once
	PodWrites      []string // creates and deletes of pods: none is allowed
	Status         *appsv1.DaemonSetStatus
	Requeues       []time.Duration
}

func pendingOf(res *daemonset.Result) pendingWrites {
	w := pendingWrites{Revisions: writesOf(res.Revisions), Status: res.StatusWrite}
	for _, r := range res.Adopt {
		w.Adopt = append(w.Adopt, r.Name)
	}
	for _, r := range res.Release {
		w.Release = append(w.Release, r.Name)
	}
	for _, c := range res.Create {
		w.PodWrites = append(w.PodWrites, "create on "+c.Node)
	}
	for _, d := range res.Delete {
		w.PodWrites = append(w.PodWrites, "delete "+d.Name)
	}
	if d := res.RequeueAfter.Duration; d > 0 {
		w.Requeues = []time.Duration{d}
	}
	return w
}

// upstreamPendingSync runs one syncDaemonSet of v1.36.3 on the snapshot with one creation
// still expected for the DaemonSet, so that its expectations are not satisfied (SYNC-9), and
// returns what it wrote and the requeues it asked for. It also reports whether the
// expectations are still unsatisfied after the sync: that sync must not touch them.
func upstreamPendingSync(t *testing.T, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs []*appsv1.ControllerRevision, now time.Time) (pendingWrites, bool) {
	t.Helper()
	objs, client := snapshotClient(ds, nodes, pods, revs, now)
	key := ds.Namespace + "/" + ds.Name
	var exp controller.ControllerExpectationsInterface
	expectOne := func(dsc *daemon.DaemonSetsController) {
		exp = field(dsc, "expectations").Interface().(controller.ControllerExpectationsInterface)
		if err := exp.ExpectCreations(klog.Background(), key, 1); err != nil {
			t.Fatal(err)
		}
	}
	// A collision is an error; its writes still count.
	requeue, _ := syncUpstream(t, client, objs, ds, flowcontrol.NewFakeBackOff(time.Second, 15*time.Minute, testingclock.NewFakeClock(now)), expectOne)
	stillPending := !exp.SatisfiedExpectations(klog.Background(), key)

	actions := client.Actions()
	w := pendingWrites{Revisions: revisionActionsOf(t, actions, revs)}
	if requeue > 0 {
		w.Requeues = []time.Duration{requeue}
	}
	for _, a := range actions {
		switch {
		case a.Matches("create", "pods"):
			w.PodWrites = append(w.PodWrites, "create on "+a.(clienttesting.CreateAction).GetObject().(*v1.Pod).Spec.NodeName)
		case a.Matches("delete", "pods"):
			w.PodWrites = append(w.PodWrites, "delete "+a.(clienttesting.DeleteAction).GetName())
		case a.Matches("patch", "pods"):
			p := a.(clienttesting.PatchAction)
			if p.GetPatchType() == types.StrategicMergePatchType { // the relabels are revisionActions'
				if strings.Contains(string(p.GetPatch()), `"$patch":"delete"`) {
					w.Release = append(w.Release, p.GetName())
				} else {
					w.Adopt = append(w.Adopt, p.GetName())
				}
			}
		case a.Matches("update", "daemonsets") && a.GetSubresource() == "status":
			if w.Status != nil {
				t.Errorf("upstream wrote the status twice")
			}
			w.Status = a.(clienttesting.UpdateAction).GetObject().(*appsv1.DaemonSet).Status.DeepCopy()
		}
	}
	// A de-duplication claims the pods before relabelling them and the status update claims
	// them again, from caches that do not show the first claim: the same patch, sent twice.
	for _, l := range []*[]string{&w.Adopt, &w.Release, &w.PodWrites} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return w, stillPending
}

// pendingCase is a revisionCase with a stored status and readiness to vary the status write
// (STAT-9, STAT-13) and the minReadySeconds requeue (STAT-15): the stored observedGeneration
// below, at or above the generation, the stored counters either the plan's own or others, pods
// Ready since various times, and minReadySeconds 0 or 10.
func pendingCase(r *rand.Rand, now time.Time) (*appsv1.DaemonSet, []*v1.Node, []*v1.Pod, []*appsv1.ControllerRevision) {
	ds, nodes, pods, revs := revisionCase(r)
	if r.IntN(2) == 0 {
		ds.Spec.MinReadySeconds = 10
	}
	for _, p := range pods {
		switch r.IntN(4) {
		case 0:
			p.Status.Conditions = nil
		case 1:
			p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-5 * time.Second))
		case 2:
			p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-time.Hour))
		}
	}
	p, _ := daemonset.Compile(ds, daemonset.Options{Version: release, Now: now})
	if counted := p.Plan(daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs}).Status; counted != nil && r.IntN(2) == 0 {
		ds.Status = *counted.DeepCopy()
	} else {
		ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: int32(r.IntN(4)), CurrentNumberScheduled: int32(r.IntN(4)),
			NumberReady: int32(r.IntN(4)), NumberAvailable: int32(r.IntN(4)), NumberUnavailable: int32(r.IntN(2))}
	}
	ds.Status.ObservedGeneration = ds.Generation + int64(r.IntN(3)) - 1
	if r.IntN(4) == 0 {
		ds.Status.Conditions = []appsv1.DaemonSetCondition{{Type: "Custom", Status: v1.ConditionTrue, Reason: "kept"}}
	}
	return ds, nodes, pods, revs
}

// TestPendingSyncAgainstUpstream runs v1.36.3's syncDaemonSet with unsatisfied expectations
// (SYNC-9) and PlanPending on random snapshots and compares every write: the ControllerRevision
// writes (UPD-14, UPD-21, OWN-12; no history clean-up, UPD-22), the pod adoptions and releases
// of the status update (OWN-*), no pod create or delete, the status sent with observedGeneration
// as stored or none (STAT-9, STAT-13, STAT-14), the requeue after minReadySeconds and no other
// (STAT-15, SYNC-8); and that the sync leaves the expectations unsatisfied.
func TestPendingSyncAgainstUpstream(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(13, *pendingSeed))
	n := *pendingCases
	if testing.Short() {
		n = 60
	}
	kinds := map[string]int{}
	for i := range n {
		ds, nodes, pods, revs := pendingCase(r, now)
		// Back-off entries in force for every node: the pending sync holds nothing back and
		// asks for no back-off requeue, since it looks at no Failed pod.
		var backoff []daemonset.BackoffEntry
		for _, nd := range nodes {
			backoff = append(backoff, daemonset.BackoffEntry{DaemonSetUID: ds.UID, Generation: ds.Status.ObservedGeneration, Node: nd.Name,
				Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(now)})
		}
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: release, Now: now, Backoff: backoff})
		res := p.PlanPending(daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs})
		want, stillPending := upstreamPendingSync(t, ds, nodes, pods, revs, now)
		got := pendingOf(res)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("case %d: the pending sync differs from upstream (-upstream +plan):\n%s", i, d)
		}
		if !stillPending {
			t.Errorf("case %d: upstream's pending sync satisfied its expectations", i)
		}
		if d := cmp.Diff(backoff, daemonset.UpdateBackoff(backoff, res, now)); d != "" {
			t.Errorf("case %d: the pending sync changed the back-off:\n%s", i, d)
		}
		for k, ok := range map[string]bool{
			"status written": got.Status != nil, "status not written": got.Status == nil && res.Skipped == "",
			"observedGeneration behind": res.Status != nil && res.Status.ObservedGeneration < ds.Generation,
			"requeue":                   len(got.Requeues) > 0, "adopt": len(got.Adopt) > 0, "release": len(got.Release) > 0,
			"revision writes": res.Revisions != nil, "collision": res.CollisionCount != nil,
		} {
			if ok {
				kinds[k]++
			}
		}
	}
	for _, k := range []string{"status written", "status not written", "observedGeneration behind", "requeue", "adopt",
		"release", "revision writes", "collision"} {
		if kinds[k] == 0 {
			t.Errorf("no case had %s: the generator misses it", k)
		}
	}
	t.Logf("cases per kind: %v", kinds)
}
