package daemonset

// The rolling step through Plan: scenarios whose outcome is the base diff (UPD-2, DIFF-6, UPD-24),
// or the step's place in a whole sync (status still computed, SYNC-6).

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

func ruPlanDS(mu, ms *intstr.IntOrString) *appsv1.DaemonSet {
	ds := ruStrategy(mu, ms)
	ds.UID = "uid-ds"
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}
	ds.Spec.Template = v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "img:2"}}},
	}
	return ds
}

// ruOwned makes pod a daemon pod of ds bound to node, created at created; a hash of ruHash is
// replaced by the DaemonSet's real current hash.
func ruOwned(ds *appsv1.DaemonSet, pod *v1.Pod, node string, created time.Time) *v1.Pod {
	pod.Labels["app"] = "d"
	if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == ruHash {
		pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	}
	pod.Spec.NodeName = node
	pod.CreationTimestamp = metav1.NewTime(created)
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
	return pod
}

func ruNodes(names ...string) []*v1.Node {
	nodes := make([]*v1.Node, len(names))
	for i, n := range names {
		nodes[i] = ruNodeObj(n)
	}
	return nodes
}

func ruTainted(node *v1.Node, effect v1.TaintEffect) *v1.Node {
	node.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "other", Effect: effect}}
	return node
}

// ruActions renders the actions of a plan as sorted lines, for readable diffs.
func ruActions(t *testing.T, res *Result) []string {
	t.Helper()
	var lines []string
	for _, c := range res.Create {
		require.NotNil(t, c.Pod, "create on %s has no pod", c.Node)
		require.Equal(t, res.RevisionHash, c.Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], "create on %s", c.Node)
		lines = append(lines, fmt.Sprintf("create %s %s interchangeable=%t", c.Node, c.Reason, c.Interchangeable))
	}
	for _, d := range res.Delete {
		lines = append(lines, fmt.Sprintf("delete %s/%s on %s %s interchangeable=%t", d.Namespace, d.Name, d.Node, d.Reason, d.Interchangeable))
	}
	return lines
}

func TestRollingUpdateThroughPlan(t *testing.T) {
	t.Parallel()
	old := func(ds *appsv1.DaemonSet, name, node string, ready bool, sec float64) *v1.Pod {
		return ruOwned(ds, ruPod(name, ruOldHash, ready), node, ruAt(sec))
	}
	cur := func(ds *appsv1.DaemonSet, name, node string, ready bool, sec float64) *v1.Pod {
		return ruOwned(ds, ruPod(name, ruHash, ready), node, ruAt(sec))
	}
	muDS := func() *appsv1.DaemonSet { return ruPlanDS(apitest.Int(1), apitest.Int(0)) }
	msDS := func() *appsv1.DaemonSet { return ruPlanDS(apitest.Int(0), apitest.Int(1)) }
	onDelete := func() *appsv1.DaemonSet {
		ds := ruPlanDS(nil, nil)
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		return ds
	}
	minReady15 := func() *appsv1.DaemonSet { return ruWithMinReady(msDS(), 15) }

	type planCase struct {
		name        string
		ds          *appsv1.DaemonSet
		nodes       []*v1.Node
		pods        func(ds *appsv1.DaemonSet) []*v1.Pod
		now         time.Time
		wantActions []string
		wantRolling RollingUpdate
		// wantDesired and wantMisscheduled check the status computed beside the step.
		wantDesired, wantMisscheduled int32
	}
	const badMaxUnavailableString = "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"
	tests := []planCase{
		{
			name:  "UPD-2 SCN-71 a missing pod blocks the rolling update: only the create",
			ds:    muDS(),
			nodes: ruNodes("n0", "n1", "n2"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0)}
			},
			wantActions: []string{"create n2 MissingPod interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxUnavailable: 1},
			wantDesired: 3, wantMisscheduled: 0,
		},
		{
			name:  "UPD-8 UPD-9 SCN-72 with an empty base diff one old pod goes",
			ds:    muDS(),
			nodes: ruNodes("n0", "n1", "n2"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0), old(ds, "c", "n2", true, 0)}
			},
			wantActions: []string{"delete ns/a on n0 UpdateOldCandidate interchangeable=true"},
			wantRolling: ruActed(1, 0),
			wantDesired: 3, wantMisscheduled: 0,
		},
		{
			name:  "UPD-5 SCN-79 maxUnavailable \"2\" stops the step with an error; status is still computed",
			ds:    ruPlanDS(apitest.Str("2"), nil),
			nodes: ruNodes("n0", "n1"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0)}
			},
			wantRolling: RollingUpdate{Reason: RollingReasonError, Error: badMaxUnavailableString, BudgetError: badMaxUnavailableString},
			wantDesired: 2, wantMisscheduled: 0,
		},
		{
			name:  "UPD-1 SCN-82 OnDelete never replaces old pods",
			ds:    onDelete(),
			nodes: ruNodes("n0", "n1"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0)}
			},
			wantRolling: RollingUpdate{Reason: RollingReasonOnDelete},
			wantDesired: 2, wantMisscheduled: 0,
		},
		{
			name:  "UPD-10 SCN-83 an old pod on a NoSchedule-tainted node is a candidate like the others",
			ds:    muDS(),
			nodes: []*v1.Node{ruTainted(ruNodeObj("n0"), v1.TaintEffectNoSchedule), ruNodeObj("n1"), ruNodeObj("n2")},
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0), old(ds, "c", "n2", true, 0)}
			},
			wantActions: []string{"delete ns/a on n0 UpdateOldCandidate interchangeable=true"},
			wantRolling: ruActed(1, 0),
			wantDesired: 2, wantMisscheduled: 1,
		},
		{
			name:  "UPD-10 SCN-84 an old pod bound to a missing node is deleted by the step",
			ds:    muDS(),
			nodes: ruNodes("n0", "n1"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{cur(ds, "a", "n0", true, 0), cur(ds, "b", "n1", true, 0), old(ds, "c", "n9", true, 0)}
			},
			wantActions: []string{"delete ns/c on n9 UpdateOldCandidate interchangeable=false"},
			wantRolling: ruActed(1, 0),
			wantDesired: 2, wantMisscheduled: 0,
		},
		{
			name:  "UPD-24 SCN-85 without surge the base diff keeps the older old pod and deletes the new one",
			ds:    muDS(),
			nodes: ruNodes("n0"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", true, 0), cur(ds, "a2", "n0", true, 10)}
			},
			wantActions: []string{"delete ns/a2 on n0 DuplicatePod interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxUnavailable: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "UPD-11 SCN-86 with surge one node gets a new pod beside its old one",
			ds:    msDS(),
			nodes: ruNodes("n0", "n1", "n2", "n3"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0), old(ds, "c", "n2", true, 0), old(ds, "d", "n3", true, 0)}
			},
			wantActions: []string{"create n0 SurgeCandidate interchangeable=true"},
			wantRolling: ruActed(0, 1),
			wantDesired: 4, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 SCN-89 an old pod beside an Available new one is deleted by the base diff",
			ds:    msDS(),
			nodes: ruNodes("n0", "n1"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", true, 0), cur(ds, "a2", "n0", true, 10), old(ds, "b", "n1", true, 0)}
			},
			wantActions: []string{"delete ns/a1 on n0 SurgeNewAvailable interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxSurge: 1},
			wantDesired: 2, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 SCN-90 an old pod that is not Ready beside a new one is deleted by the base diff",
			ds:    msDS(),
			nodes: ruNodes("n0"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", false, 0), cur(ds, "a2", "n0", false, 10)}
			},
			wantActions: []string{"delete ns/a1 on n0 SurgeOldNotReady interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxSurge: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 UPD-12 SCN-91 at 110 the new pod Ready at 100 is not Available with minReadySeconds 15: keep both",
			ds:    minReady15(),
			nodes: ruNodes("n0"),
			now:   ruAt(110),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", true, 0), ruReadySince(cur(ds, "a2", "n0", true, 50), ruAt(100))}
			},
			wantRolling: ruActed(0, 1),
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 UPD-12 SCN-91 at 115 the new pod is Available: delete the old one",
			ds:    minReady15(),
			nodes: ruNodes("n0"),
			now:   ruAt(115),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", true, 0), ruReadySince(cur(ds, "a2", "n0", true, 50), ruAt(100))}
			},
			wantActions: []string{"delete ns/a1 on n0 SurgeNewAvailable interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxSurge: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 UPD-12 SCN-91 at 120 the old pod is deleted too",
			ds:    minReady15(),
			nodes: ruNodes("n0"),
			now:   ruAt(120),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a1", "n0", true, 0), ruReadySince(cur(ds, "a2", "n0", true, 50), ruAt(100))}
			},
			wantActions: []string{"delete ns/a1 on n0 SurgeNewAvailable interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxSurge: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "UPD-11 SCN-93 with surge an old pod on a NoSchedule node goes once the others are Available",
			ds:    msDS(),
			nodes: []*v1.Node{ruTainted(ruNodeObj("n0"), v1.TaintEffectNoSchedule), ruNodeObj("n1"), ruNodeObj("n2")},
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), cur(ds, "b", "n1", true, 0), cur(ds, "c", "n2", true, 0)}
			},
			wantActions: []string{"delete ns/a on n0 SurgeIneligibleExcess interchangeable=false"},
			wantRolling: ruActed(0, 1),
			wantDesired: 2, wantMisscheduled: 1,
		},
		{
			name:  "UPD-11 SCN-96 an old pod bound to a missing node fails the step; status is still computed",
			ds:    msDS(),
			nodes: ruNodes("n0"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{cur(ds, "a", "n0", true, 0), old(ds, "b", "n9", true, 0)}
			},
			wantRolling: RollingUpdate{Reason: RollingReasonError, Error: `couldn't get node for nodeName "n9": node "n9" not found`, MaxSurge: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "DIFF-6 SCN-97 two old and two new pods: the base diff keeps the first of each",
			ds:    msDS(),
			nodes: ruNodes("n0"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{
					old(ds, "o1", "n0", true, 1), old(ds, "o2", "n0", true, 2),
					cur(ds, "w3", "n0", false, 3), cur(ds, "w4", "n0", false, 4),
				}
			},
			wantActions: []string{
				"delete ns/o2 on n0 DuplicatePod interchangeable=false",
				"delete ns/w4 on n0 DuplicatePod interchangeable=false",
			},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty, MaxSurge: 1},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "UPD-7 SCN-98 mu 2 and ms 1 together surge: one create with its pod",
			ds:    ruPlanDS(apitest.Int(2), apitest.Int(1)),
			nodes: ruNodes("n0", "n1", "n2"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0), old(ds, "c", "n2", true, 0)}
			},
			wantActions: []string{"create n0 SurgeCandidate interchangeable=true"},
			wantRolling: ruActed(2, 1),
			wantDesired: 3, wantMisscheduled: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := tt.now
			if now.IsZero() {
				now = ruNow
			}
			pods := tt.pods(tt.ds)
			podsBefore := make([]*v1.Pod, len(pods))
			for i, pod := range pods {
				podsBefore[i] = pod.DeepCopy()
			}
			dsBefore := tt.ds.DeepCopy()

			res, err := Plan(tt.ds, tt.nodes, pods, Options{Version: v1363, Now: now})
			require.NoError(t, err)
			if diff := cmp.Diff(tt.wantActions, ruActions(t, res), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Plan() actions mismatch (-want +got):\n%s", diff)
			}
			require.NotNil(t, res.RollingUpdate)
			if diff := cmp.Diff(tt.wantRolling, *res.RollingUpdate); diff != "" {
				t.Errorf("Plan() rollingUpdate mismatch (-want +got):\n%s", diff)
			}
			require.NotNil(t, res.Status)
			require.Equal(t, tt.wantDesired, res.Status.DesiredNumberScheduled, "desiredNumberScheduled")
			require.Equal(t, tt.wantMisscheduled, res.Status.NumberMisscheduled, "numberMisscheduled")
			if diff := cmp.Diff(dsBefore, tt.ds); diff != "" {
				t.Errorf("Plan() mutated the DaemonSet (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(podsBefore, pods); diff != "" {
				t.Errorf("Plan() mutated the pods (-before +after):\n%s", diff)
			}
		})
	}
}
