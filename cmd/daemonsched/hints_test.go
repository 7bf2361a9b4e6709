package main

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The old-revision hint (UPD-3) names old pods on the explained nodes only, those without a
// hash label too, and never a current pod (by hash or by template generation) or one already
// terminating.
func TestOldRevisionHints(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "agent-uid",
			Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "4"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "img"}}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
		},
	}
	plan, err := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}, daemonset.Options{Now: time.Unix(0, 0)})
	require.NoError(t, err)
	hash := plan.DaemonSets[0].RevisionHash
	pod := func(name, node string, labels map[string]string, terminating bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", UID: "agent-uid", Controller: ptr.To(true)}}},
			Spec: v1.PodSpec{NodeName: node}}
		if terminating {
			p.DeletionTimestamp = &metav1.Time{}
		}
		return p
	}
	pods := []*v1.Pod{
		pod("old", "n1", map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: "abc"}, false),
		pod("unlabelled", "n1", map[string]string{"app": "agent"}, false),
		pod("current", "n1", map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}, false),
		pod("current-by-generation", "n1", map[string]string{"app": "agent", daemonset.LabelTemplateGeneration: "4"}, false),
		pod("going", "n1", map[string]string{"app": "agent"}, true),
		pod("elsewhere", "n2", map[string]string{"app": "agent"}, false),
	}
	got := oldRevisionHints(ds, map[string]bool{"n1": true}, pods, plan)
	keep := "updateStrategy OnDelete keeps it until something deletes it; the controller then creates a pod of the current revision (UPD-1)"
	require.Equal(t, []string{
		"pod ns/old on node n1 is of an old revision (labelled controller-revision-hash=abc, the current one is " + hash + "; UPD-3): " + keep,
		"pod ns/unlabelled on node n1 is of an old revision (without a controller-revision-hash label, the current one is " + hash + "; UPD-3): " + keep,
	}, got)
}
