package upstreamtest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/flowcontrol"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestBackoffAgainstFlowcontrol runs random sequences of syncs over nodes holding Failed daemon
// pods twice: through daemonset.Plan with Options.Backoff carried by UpdateBackoff, and
// through client-go's flowcontrol.Backoff as kube-controller-manager configures it (1 s, 15
// min) driven the way podsShouldBeOnNode drives it (key uid/observedGeneration/node, the check
// before each Failed pod, Next on each deletion, a requeue after Get when held) with its
// periodic GC. Each sync must delete the same pods on the same nodes, ask for the same
// requeue, and leave the same delay per key (DIFF-12, DIFF-17, SYNC-8).
func TestBackoffAgainstFlowcontrol(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		upstream := flowcontrol.NewFakeBackOff(time.Second, 15*time.Minute, clock)
		var state []daemonset.BackoffEntry
		labels := map[string]string{"app": "d"}
		ds := &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", UID: "ds-uid", Generation: 1},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "i"}}}},
			},
		}
		nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}}
		yes := true
		for sync := range 60 {
			gaps := []time.Duration{0, 300 * time.Millisecond, time.Second, 3 * time.Second, time.Minute, 16 * time.Minute, 31 * time.Minute}
			clock.Step(gaps[r.IntN(len(gaps))])
			if r.IntN(10) == 0 {
				upstream.GC()
			}
			if r.IntN(15) == 0 {
				ds = ds.DeepCopy()
				ds.Status.ObservedGeneration++
			}
			now := clock.Now()
			var pods []*v1.Pod
			failed := map[string]int{}
			for _, n := range nodes {
				for k := range r.IntN(3) {
					pods = append(pods, &v1.Pod{
						ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d-%d", n.Name, sync, k), Namespace: "ns", Labels: labels,
							OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "d", UID: "ds-uid", Controller: &yes}}},
						Spec:   v1.PodSpec{NodeName: n.Name},
						Status: v1.PodStatus{Phase: v1.PodFailed},
					})
					failed[n.Name]++
				}
			}

			// Upstream's loop, node by node.
			wantDeleted := map[string]int{}
			var wantRequeue time.Duration
			for _, n := range nodes {
				key := fmt.Sprintf("%s/%d/%s", ds.UID, ds.Status.ObservedGeneration, n.Name)
				for range failed[n.Name] {
					if upstream.IsInBackOffSinceUpdate(key, now) {
						if d := upstream.Get(key); wantRequeue == 0 || d < wantRequeue {
							wantRequeue = d
						}
						continue
					}
					upstream.Next(key, now)
					wantDeleted[n.Name]++
				}
			}

			res, err := daemonset.Plan(ds, nodes, pods, daemonset.Options{Version: release, Now: now, Backoff: state})
			if err != nil {
				t.Fatal(err)
			}
			gotDeleted := map[string]int{}
			for _, d := range res.Delete {
				gotDeleted[d.Node]++
			}
			if fmt.Sprint(gotDeleted) != fmt.Sprint(wantDeleted) {
				t.Fatalf("seed %d sync %d: deleted per node %v, upstream %v", seed, sync, gotDeleted, wantDeleted)
			}
			if res.RequeueAfter.Duration != wantRequeue {
				t.Fatalf("seed %d sync %d: requeue %v, upstream %v", seed, sync, res.RequeueAfter.Duration, wantRequeue)
			}
			state = daemonset.UpdateBackoff(state, res, now)
			for _, e := range state {
				key := fmt.Sprintf("%s/%d/%s", e.DaemonSetUID, e.Generation, e.Node)
				if got := upstream.Get(key); got != e.Delay.Duration {
					t.Fatalf("seed %d sync %d: %s delay %v, upstream %v", seed, sync, key, e.Delay.Duration, got)
				}
			}
		}
	}
}
