package conformance

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// epoch is the clock of every generated snapshot.
var epoch = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

// randomSnapshot draws one DaemonSet's world with the controller's choices in mind: several
// Failed pods on a node (DIFF-17), mixed old and new pods under both rolling algorithms (UPD-9,
// UPD-23), nodes that stop qualifying, orphans, pods of missing nodes (DIFF-8).
func randomSnapshot(r *rand.Rand) daemonset.Snapshot {
	ago := func(s int) metav1.Time { return metav1.NewTime(epoch.Add(-time.Duration(s) * time.Second)) }
	yes := true
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 2, CreationTimestamp: ago(9999)}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}
	ds.Spec.Template.Labels = map[string]string{"app": "d"}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "img:2"}}
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "on"}
	ds.Spec.MinReadySeconds = int32(r.IntN(2) * 60)
	switch r.IntN(4) {
	case 0:
		ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	default:
		ints := []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromString("30%")}
		mu, ms := ints[r.IntN(4)], ints[r.IntN(4)]
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms}}
	}
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}
	tidy := r.IntN(2) == 0 // one pod per node, so that the rolling step acts
	nodes := 1 + r.IntN(7)
	podN := 0
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		pool := "on"
		if r.IntN(5) == 0 {
			pool = "off"
		}
		s.Nodes = append(s.Nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool}}})
		count := r.IntN(4)
		if tidy {
			count = 1
		}
		for range count {
			s.Pods = append(s.Pods, randomPod(r, &podN, name, hash, tidy, &yes, ago))
		}
	}
	if !tidy && r.IntN(3) == 0 {
		pod := randomPod(r, &podN, "gone", hash, false, &yes, ago)
		pod.Spec.NodeName = ""
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"gone"}}}}}}}}
		s.Pods = append(s.Pods, pod)
	}
	return s
}

func randomPod(r *rand.Rand, n *int, node, hash string, tidy bool, yes *bool, ago func(int) metav1.Time) *v1.Pod {
	*n++
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%02d", *n), CreationTimestamp: ago(100 + r.IntN(50))}}
	pod.Labels = map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: []string{hash, "old"}[r.IntN(2)]}
	if tidy || r.IntN(4) != 0 {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: types.UID("ds-uid"), Controller: yes}}
	}
	pod.Spec.NodeName = node
	pod.Status.Phase = []v1.PodPhase{v1.PodRunning, v1.PodRunning, v1.PodFailed, v1.PodFailed, v1.PodSucceeded}[r.IntN(5)]
	if tidy {
		pod.Status.Phase = v1.PodRunning
	}
	if r.IntN(4) != 0 {
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: ago(r.IntN(120))}}
	}
	if r.IntN(12) == 0 {
		t := ago(1)
		pod.DeletionTimestamp = &t
	}
	return pod
}

// sample draws one plan the controller could produce from o, as the controller would with a
// random order: classes in order, groups shuffled, parts in order with their actions shuffled
// (one of each OneOf), a choice class's first Take groups, and the burst cap's prefix.
func sample(r *rand.Rand, o *orders) ([]daemonset.Creation, []daemonset.Deletion) {
	var creates []daemonset.Creation
	var deletes []daemonset.Deletion
	limit := o.BurstLimit
	if limit == 0 {
		limit = 1 << 30
	}
	for _, cl := range o.Creates {
		for _, g := range takeGroups(r, cl) {
			for _, p := range g.Parts {
				for _, k := range r.Perm(len(p.Creates)) {
					if len(creates) < limit {
						creates = append(creates, p.Creates[k])
					}
				}
			}
		}
	}
	for _, cl := range o.Deletes {
		for _, g := range takeGroups(r, cl) {
			for _, p := range g.Parts {
				part := append([]daemonset.Deletion(nil), p.Deletes...)
				if len(p.OneOf) > 0 {
					part = append(part, p.OneOf[r.IntN(len(p.OneOf))])
				}
				for _, k := range r.Perm(len(part)) {
					if len(deletes) < limit {
						deletes = append(deletes, part[k])
					}
				}
			}
		}
	}
	return creates, deletes
}

func takeGroups(r *rand.Rand, cl actionClass) []actionGroup {
	groups := append([]actionGroup(nil), cl.Groups...)
	r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	return groups[:cl.Take]
}
