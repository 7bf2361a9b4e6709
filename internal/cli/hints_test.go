package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
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
	plan, err := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}.Plan(daemonset.Options{Now: time.Unix(0, 0)})
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
		pod("current-by-generation", "n1", map[string]string{"app": "agent", extensionsv1beta1.DaemonSetTemplateGenerationKey: "4"}, false),
		pod("going", "n1", map[string]string{"app": "agent"}, true),
		pod("elsewhere", "n2", map[string]string{"app": "agent"}, false),
	}
	got := oldRevisionHints(ds, []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}, daemonset.Snapshot{Pods: pods}, plan, daemonset.Options{Now: time.Unix(0, 0)})
	keep := "updateStrategy OnDelete keeps it until something deletes it; the controller then creates a pod of the current revision (UPD-1)"
	require.Equal(t, []string{
		"pod ns/old on node n1 is of an old revision (labelled controller-revision-hash=abc, the current one is " + hash + "; UPD-3): " + keep,
		"pod ns/unlabelled on node n1 is of an old revision (without a controller-revision-hash label, the current one is " + hash + "; UPD-3): " + keep,
	}, got)
}

// The master-taint hint counts the explained nodes whose control-plane taint the template's
// tolerations leave untolerated, as v1.Toleration.ToleratesTaint answers (TAINT-1, TAINT-3),
// through package taints; a PreferNoSchedule taint never blocks (TAINT-4).
func TestMasterTaintHint(t *testing.T) {
	t.Parallel()
	master := v1.Toleration{Key: masterTaint, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}
	node := func(name string, effect v1.TaintEffect, value string) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: controlPlaneTaint, Value: value, Effect: effect}}}}
	}
	nodes := []*v1.Node{
		node("cp-noschedule", v1.TaintEffectNoSchedule, ""),
		node("cp-noexecute", v1.TaintEffectNoExecute, ""),
		node("cp-prefer", v1.TaintEffectPreferNoSchedule, ""),
		node("cp-valued", v1.TaintEffectNoSchedule, "yes"),
		{ObjectMeta: metav1.ObjectMeta{Name: "worker"}},
	}
	tests := []struct {
		name        string
		tolerations []v1.Toleration
		wantBlocked int // 0: no hint
	}{
		{name: "master alone leaves every control-plane node untolerated", tolerations: []v1.Toleration{master}, wantBlocked: 3},
		{name: "control-plane Exists too tolerates every effect", tolerations: []v1.Toleration{master,
			{Key: controlPlaneTaint, Operator: v1.TolerationOpExists}}},
		{name: "control-plane NoSchedule only leaves the NoExecute node", tolerations: []v1.Toleration{master,
			{Key: controlPlaneTaint, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}, wantBlocked: 1},
		{name: "control-plane Equal with an empty value leaves the valued node", tolerations: []v1.Toleration{master,
			{Key: controlPlaneTaint, Operator: v1.TolerationOpEqual}}, wantBlocked: 1},
		{name: "an empty key with Exists tolerates every taint", tolerations: []v1.Toleration{master, {Operator: v1.TolerationOpExists}}},
		{name: "no master toleration gives no hint", tolerations: []v1.Toleration{{Key: "other", Operator: v1.TolerationOpExists}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent"},
				Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{Tolerations: tt.tolerations}}}}
			want := []string{}
			if tt.wantBlocked > 0 {
				want = append(want, fmt.Sprintf("DaemonSet ns/agent tolerates %s, a taint no node carries since Kubernetes 1.24; "+
					"control-plane nodes carry %s, which it does not tolerate (%d node(s) here): tolerate %s too",
					masterTaint, controlPlaneTaint, tt.wantBlocked, controlPlaneTaint))
			}
			require.Equal(t, want, hints([]*appsv1.DaemonSet{ds}, nodes, daemonset.Snapshot{}, &daemonset.ClusterResult{}, daemonset.Options{}))

			// The upstream answer, taint by taint, as hints.go asked it before package taints.
			upstream := 0
			for _, n := range nodes {
				for _, taint := range n.Spec.Taints {
					tolerated := slices.ContainsFunc(tt.tolerations, func(tol v1.Toleration) bool {
						return tol.ToleratesTaint(klog.Background(), &taint, false)
					})
					if taint.Effect != v1.TaintEffectPreferNoSchedule && !tolerated {
						upstream++
					}
				}
			}
			if slices.ContainsFunc(tt.tolerations, func(tol v1.Toleration) bool { return tol.Key == masterTaint }) {
				require.Equal(t, tt.wantBlocked, upstream, "upstream ToleratesTaint")
			}
		})
	}
}

// An old pod on a node that should not run its DaemonSet (ELIG-1) is deleted by the rolling
// update (UPD-8, UPD-11) or by someone (UPD-1), and no pod of the current revision follows it:
// its fate says deleted, never replaced; on a node that should run it the fate is unchanged.
func TestOldPodFateOnANodeThatShouldNotRun(t *testing.T) {
	t.Parallel()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old"}, Spec: v1.PodSpec{NodeName: "n1"}}
	ru := func(mu, ms int, mod func(*daemonset.RollingUpdate)) *daemonset.Result {
		r := &daemonset.Result{RollingUpdate: &daemonset.RollingUpdate{MaxUnavailable: mu, MaxSurge: ms}}
		if mod != nil {
			mod(r.RollingUpdate)
		}
		return r
	}
	deleted := ru(1, 0, nil)
	deleted.Delete = []daemonset.Deletion{{Namespace: "ns", Name: "old", Node: "n1", Reason: daemonset.ReasonUpdateOldCandidate}}
	const none = "the node should not run the DaemonSet (ELIG-1), so no pod takes its place"
	tests := []struct {
		name string
		r    *daemonset.Result
		want string // when the node should not run the DaemonSet
	}{
		{"UPD-8 this sync's delete", deleted,
			"this sync deletes it (UpdateOldCandidate); " + none},
		{"UPD-8 the budget", ru(1, 0, nil),
			"the rolling update deletes it when the update budget allows (maxUnavailable 1, maxSurge 0; UPD-8); " + none},
		{"UPD-11 surge deletes the excess", ru(0, 1, nil),
			"the rolling update deletes it once more pods are available than nodes should run one (maxSurge 1; UPD-11); " + none},
		{"UPD-2 after the base diff", ru(1, 0, func(r *daemonset.RollingUpdate) { r.Reason = daemonset.RollingReasonBaseDiffNotEmpty }),
			"the rolling update deletes it in a later sync, once this sync's creates and deletes are done (UPD-2; maxUnavailable 1, maxSurge 0); " + none},
		{"UPD-1 OnDelete", ru(0, 0, func(r *daemonset.RollingUpdate) { r.Reason = daemonset.RollingReasonOnDelete }),
			"updateStrategy OnDelete keeps it until something deletes it; " + none + " (UPD-1)"},
		{"UPD-5 a bad budget", ru(0, 0, func(r *daemonset.RollingUpdate) { r.BudgetError = "bad" }),
			"the rolling update cannot delete it: bad (UPD-5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, oldPodFate(tt.r, pod, "n1", false, false, ""))
			if runs := oldPodFate(tt.r, pod, "n1", false, true, ""); runs == tt.want || strings.Contains(runs, "ELIG-1") {
				t.Fatalf("on a node that should run the DaemonSet the fate is %q", runs)
			}
		})
	}
}
