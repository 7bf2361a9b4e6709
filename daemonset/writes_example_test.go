package daemonset_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonsched/daemonsched/daemonset"
)

// A controller sends the plan's adoptions and releases (Result.Adopt and Result.Release, and
// those of RevisionWrites) as these strategic merge patches (types.StrategicMergePatchType);
// the object's uid in the body is the precondition.
func ExampleObjectRef_AdoptPatch() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid"}}
	pod := daemonset.ObjectRef{Namespace: "kube-system", Name: "agent-x", UID: "pod-uid"}
	fmt.Println(string(pod.AdoptPatch(ds)))
	fmt.Println(string(pod.ReleasePatch(ds)))
	// Output:
	// {"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","uid":"ds-uid","controller":true,"blockOwnerDeletion":true}],"uid":"pod-uid"}}
	// {"metadata":{"uid":"pod-uid","ownerReferences":[{"$patch":"delete","uid":"ds-uid"}]}}
}

// A controller keeps the failed-pod back-off across syncs: it passes its state to each plan
// and merges the plan's back-off into it. A node whose daemon pod keeps failing gets a new pod
// after 1 s, 2 s, 4 s, ...
func ExampleUpdateBackoff() {
	ds := agentDaemonSet()
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}
	controller := true
	failedPod := func(name string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", UID: types.UID("uid-" + name), Labels: ds.Spec.Template.Labels,
				OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &controller}}},
			Spec:   v1.PodSpec{NodeName: "node-a"},
			Status: v1.PodStatus{Phase: v1.PodFailed},
		}
	}
	var state []daemonset.BackoffEntry
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, at := range []time.Duration{0, 500 * time.Millisecond, time.Second, 3 * time.Second} {
		now := start.Add(at)
		res, err := daemonset.Plan(ds, nodes, []*v1.Pod{failedPod(fmt.Sprint("p", i))}, daemonset.Options{Now: now, Backoff: state})
		if err != nil {
			fmt.Println(err)
			return
		}
		state = daemonset.UpdateBackoff(state, res, now)
		fmt.Printf("at %v: %d deleted, requeue after %v, back-off %v\n", at, len(res.Delete), res.RequeueAfter.Duration, state[0].Delay.Duration)
	}
	// Output:
	// at 0s: 1 deleted, requeue after 0s, back-off 1s
	// at 500ms: 0 deleted, requeue after 1s, back-off 1s
	// at 1s: 1 deleted, requeue after 0s, back-off 2s
	// at 3s: 1 deleted, requeue after 0s, back-off 4s
}

// A controller records a plan's expectations when it sends the writes and plans the DaemonSet
// again only once a later snapshot shows them (or upstream's timeout has passed).
func ExampleResult_Expectations() {
	ds := agentDaemonSet()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := daemonset.Snapshot{Nodes: []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}}
	res, err := daemonset.Plan(ds, s.Nodes, s.Pods, daemonset.Options{Now: now})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := res.Expectations(s, now)
	fmt.Println("creates expected:", e.Creates, "observed:", e.Observed(s))

	// The informer now shows the pod the API server created from res.Create[0].Pod.
	created := res.Create[0].Pod.DeepCopy()
	created.Name, created.UID = "agent-x7k2p", "uid-x7k2p"
	later := daemonset.Snapshot{Nodes: s.Nodes, Pods: []*v1.Pod{created}}
	fmt.Println("observed later:", e.Observed(later))
	// Output:
	// creates expected: 1 observed: false
	// observed later: true
}

// While the creates of an earlier sync are not observed, a controller plans the sync upstream
// runs then: the status with observedGeneration as stored, and no pod create or delete.
func ExamplePlanner_PlanPending() {
	ds := agentDaemonSet()
	ds.Generation = 2
	ds.Status.ObservedGeneration = 1
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := daemonset.Snapshot{Nodes: []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}}}
	p, _ := daemonset.Compile(ds, daemonset.Options{Now: now})
	prev := p.Plan(s).Expectations(s, now) // the earlier sync's creates, sent

	later := now.Add(time.Second)
	if prev.Observed(s) || prev.Expired(later) {
		fmt.Println("expectations met: plan with Plan")
		return
	}
	res := p.At(later, nil).PlanPending(s)
	fmt.Println("pending:", res.Pending, "creates:", len(res.Create), "deletes:", len(res.Delete))
	fmt.Println("desired:", res.StatusWrite.DesiredNumberScheduled, "observedGeneration:", res.StatusWrite.ObservedGeneration)
	fmt.Println("expects:", res.Expectations(s, later).Creates, "(keep the earlier expectations)")
	// Output:
	// pending: true creates: 0 deletes: 0
	// desired: 1 observedGeneration: 1
	// expects: 0 (keep the earlier expectations)
}

// agentDaemonSet is the DaemonSet of the examples above: agent in kube-system, on every node.
func agentDaemonSet() *appsv1.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "agent", Image: "agent:1"}}}},
		},
	}
}
