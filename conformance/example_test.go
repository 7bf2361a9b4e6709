package conformance_test

import (
	"fmt"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Two Failed pods on one node: the controller deletes either one (DIFF-17), so a plan that
// picks the other is accepted, and a plan that deletes both is not.
func ExampleCheck() {
	yes := true
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "agent-uid"},
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template:       v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		}}
	failed := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": "agent"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", UID: "agent-uid", Controller: &yes}}},
			Spec: v1.PodSpec{NodeName: "n1"}, Status: v1.PodStatus{Phase: v1.PodFailed}}
	}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}},
		Pods: []*v1.Pod{failed("agent-a"), failed("agent-b")}}
	opts := conformance.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

	plan, _ := s.Plan(daemonset.Options{Now: opts.Now})
	mine := plan.DaemonSets[0]
	fmt.Println("the project deletes", mine.Delete[0].Name)

	other := *mine
	other.Delete = []daemonset.Deletion{{Namespace: "ns", Name: "agent-b", Node: "n1"}}
	ms, _ := conformance.Check(s, []*daemonset.Result{&other}, opts)
	fmt.Println("deleting agent-b instead:", len(ms), "mismatches")

	both := *mine
	both.Delete = append([]daemonset.Deletion{{Namespace: "ns", Name: "agent-b", Node: "n1"}}, mine.Delete...)
	ms, _ = conformance.Check(s, []*daemonset.Result{&both}, opts)
	for _, m := range ms {
		fmt.Println(m)
	}
	// Output:
	// the project deletes agent-a
	// deleting agent-b instead: 0 mismatches
	// ns/agent delete n1 DIFF-17: 2 Failed pods of node n1 deleted: at most one Failed pod of a node goes per sync
}

// A test suite of another implementation runs the corpus case by case with RunCase, also
// outside go test (Run is the go test form of the same loop). Here the implementation under
// test is this project's own plan, so no case fails; an implementation that decides otherwise
// where the controller has no choice fails the case, with a mismatch naming the rule.
func ExampleRunCase() {
	cases, err := conformance.Corpus()
	if err != nil {
		panic(err)
	}
	impl := func(s daemonset.Snapshot, opts conformance.Options) ([]*daemonset.Result, error) {
		plan, err := s.Plan(daemonset.Options{Now: opts.Now, Version: opts.Version,
			BurstLimit: opts.BurstLimit, FeatureGates: opts.FeatureGates})
		if err != nil {
			return nil, err
		}
		return plan.DaemonSets, nil
	}
	failed := 0
	for _, c := range cases {
		if o := conformance.RunCase(c, impl); o.Result == "fail" || o.Result == "error" {
			failed++
		}
	}
	fmt.Println("failed cases:", failed)
	// Output:
	// failed cases: 0
}
