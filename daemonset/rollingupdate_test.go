package daemonset

// Internal tests of the rolling-update step (UPD-4..UPD-11, UPD-23, D-1): they drive
// rollingUpdate with hand-built per-node states, so every rule is checked apart from the base
// diff that normally gates it (UPD-2). The scenarios whose outcome is a base diff (SCN-85,
// SCN-89, SCN-90, SCN-91, SCN-97) go through Plan in TestRollingUpdateThroughPlan, and
// TestRollingUpdateAgainstReference compares the step with a model of upstream walked in random
// map orders.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	ruHash    = "newhash"
	ruOldHash = "oldhash"
)

// ruNow is the instant of every step in these tests: an hour after the pods turned Ready.
var ruNow = ruT0.Add(time.Hour)

// ruPod is a running pod in namespace ns carrying the given hash label; ready says whether
// it has been Ready since ruT0 (so Available for any minReadySeconds up to an hour).
func ruPod(name, hash string, ready bool) *v1.Pod {
	status := v1.ConditionFalse
	if ready {
		status = v1.ConditionTrue
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         "ns",
			Name:              name,
			Labels:            map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			CreationTimestamp: metav1.NewTime(ruT0.Add(-time.Minute)),
		},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{ruReadyCond(status, ruT0)}},
	}
}

func ruOld(name string) *v1.Pod         { return ruPod(name, ruOldHash, true) }
func ruOldNotReady(name string) *v1.Pod { return ruPod(name, ruOldHash, false) }
func ruNew(name string) *v1.Pod         { return ruPod(name, ruHash, true) }
func ruNewNotReady(name string) *v1.Pod { return ruPod(name, ruHash, false) }

// ruReadySince moves the Ready transition of pod to t.
func ruReadySince(pod *v1.Pod, t time.Time) *v1.Pod {
	pod.Status.Conditions[0].LastTransitionTime = metav1.NewTime(t)
	return pod
}

func ruTerminating(pod *v1.Pod) *v1.Pod {
	pod.DeletionTimestamp = &metav1.Time{Time: ruT0}
	return pod
}

func ruNodeObj(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

// ruRun is a node that should run a daemon pod; ruIneligible one that should not (but may keep
// its pods, e.g. an untolerated NoSchedule taint); ruMissing a node name absent from the node
// list.
func ruRun(name string, pods ...*v1.Pod) nodeState {
	return nodeState{name: name, listed: true, shouldRun: true, pods: ruDaemonPods(pods)}
}

func ruIneligible(name string, pods ...*v1.Pod) nodeState {
	return nodeState{name: name, listed: true, pods: ruDaemonPods(pods)}
}

func ruMissing(name string, pods ...*v1.Pod) nodeState {
	return nodeState{name: name, pods: ruDaemonPods(pods)}
}

// ruDaemonPods wraps pods without their facts; ruJudge fills them in.
func ruDaemonPods(pods []*v1.Pod) []daemonPod {
	out := make([]daemonPod, len(pods))
	for i, pod := range pods {
		out[i].pod = pod
	}
	return out
}

// ruJudge returns a copy of states with the facts of every pod read as Plan reads them for the
// current hash ruHash.
func ruJudge(p *Planner, states []nodeState) []nodeState {
	j := newJudge(p.ds, ruHash, p.opts.Now)
	judged := make([]nodeState, len(states))
	for i, st := range states {
		st.pods = slices.Clone(st.pods)
		for k := range st.pods {
			st.pods[k].facts = j.facts(st.pods[k].pod, controllerOf(st.pods[k].pod) != nil)
		}
		judged[i] = st
	}
	return judged
}

// ruStep runs the rolling-update step on states as Plan does.
func ruStep(p *Planner, states []nodeState, desired int) rollingStep {
	return p.rollingUpdate(ruJudge(p, states), desired)
}

// ruPodsOf returns the pods of st.
func ruPodsOf(st nodeState) []*v1.Pod {
	out := make([]*v1.Pod, len(st.pods))
	for i, dp := range st.pods {
		out[i] = dp.pod
	}
	return out
}

// ruOldNodes is n nodes n0, n1, ... each holding one old Available pod named p-<node>.
func ruOldNodes(n int) []nodeState {
	states := make([]nodeState, n)
	for i := range states {
		name := fmt.Sprintf("n%d", i)
		states[i] = ruRun(name, ruOld("p-"+name))
	}
	return states
}

func ruDel(pod, node string, reason Reason, interchangeable bool) Deletion {
	return Deletion{Namespace: "ns", Name: pod, Node: node, Reason: reason, Interchangeable: interchangeable}
}

func ruCreate(node string, reason Reason, interchangeable bool) Creation {
	return Creation{Node: node, Reason: reason, Interchangeable: interchangeable}
}

func ruActed(mu, ms int) RollingUpdate {
	return RollingUpdate{Acted: true, MaxUnavailable: mu, MaxSurge: ms}
}

func ruWithMinReady(ds *appsv1.DaemonSet, s int32) *appsv1.DaemonSet {
	ds.Spec.MinReadySeconds = s
	return ds
}

func ruWithGeneration(ds *appsv1.DaemonSet, gen string) *appsv1.DaemonSet {
	ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: gen}
	return ds
}

func ruWithGenerationLabel(pod *v1.Pod, gen string) *v1.Pod {
	pod.Labels[LabelTemplateGeneration] = gen
	return pod
}

// ruDesired counts the shouldRun states, as the caller does (UPD-4).
func ruDesired(states []nodeState) int {
	n := 0
	for _, s := range states {
		if s.shouldRun {
			n++
		}
	}
	return n
}

type ruCase struct {
	name        string
	ds          *appsv1.DaemonSet
	states      []nodeState
	now         time.Time // ruNow when zero
	wantReport  RollingUpdate
	wantCreates []Creation
	wantDeletes []Deletion
}

func runRollingCases(t *testing.T, tests []ruCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := tt.now
			if now.IsZero() {
				now = ruNow
			}
			dsBefore := tt.ds.DeepCopy()
			podsBefore := make([][]*v1.Pod, len(tt.states))
			for i, s := range tt.states {
				for _, pod := range ruPodsOf(s) {
					podsBefore[i] = append(podsBefore[i], pod.DeepCopy())
				}
			}
			p := &Planner{ds: tt.ds, opts: Options{Now: now}}
			got := ruStep(p, tt.states, ruDesired(tt.states))

			want := rollingStep{report: tt.wantReport, creates: tt.wantCreates, deletes: tt.wantDeletes}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(rollingStep{})); diff != "" {
				t.Errorf("rollingUpdate() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(dsBefore, tt.ds); diff != "" {
				t.Errorf("rollingUpdate() mutated the DaemonSet (-before +after):\n%s", diff)
			}
			for i, s := range tt.states {
				if diff := cmp.Diff(podsBefore[i], ruPodsOf(s), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("rollingUpdate() mutated the pods of %s (-before +after):\n%s", s.name, diff)
				}
			}
		})
	}
}

// TestRollingUpdateWithoutSurge covers UPD-8, UPD-9 and UPD-10 and the scenarios SCN-72..SCN-84
// reduced to the step.
func TestRollingUpdateWithoutSurge(t *testing.T) {
	t.Parallel()
	runRollingCases(t, []ruCase{
		{
			name:        "UPD-8 UPD-9 SCN-72 3 old Available pods and mu 1 delete the first by node name, interchangeably",
			ds:          ruStrategy(ruInt(1), nil),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:       "UPD-9 SCN-73 6 old Available pods and mu 2 delete exactly two, interchangeably",
			ds:         ruStrategy(ruInt(2), nil),
			states:     ruOldNodes(6),
			wantReport: ruActed(2, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-9 a budget covering every candidate deletes them all, not interchangeable",
			ds:         ruStrategy(ruInt(5), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(5, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, false),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, false),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, false),
			},
		},
		{
			name:        "UPD-9 a budget equal to the candidates deletes them all, not interchangeable",
			ds:          ruStrategy(ruInt(1), nil),
			states:      []nodeState{ruRun("n0", ruNew("a")), ruRun("n1", ruOld("b"))},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 SCN-74 an unavailable new pod spends one of mu 2",
			ds:   ruStrategy(ruInt(2), nil),
			states: []nodeState{
				ruRun("n0", ruNewNotReady("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
				ruRun("n3", ruOld("d")), ruRun("n4", ruOld("e")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 an available new pod spends nothing",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 SCN-75 unavailable old pods are deleted budget-free and spend the budget",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOldNotReady("b")), ruRun("n2", ruOld("c")),
			},
			wantReport: ruActed(1, 0),
			wantDeletes: []Deletion{
				ruDel("a", "n0", ReasonUpdateOldUnavailable, false),
				ruDel("b", "n1", ReasonUpdateOldUnavailable, false),
			},
		},
		{
			name: "UPD-8 unavailable old pods are deleted even under a negative budget",
			ds:   ruStrategy(ruInt(-1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")),
			},
			wantReport:  ruActed(-1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldUnavailable, false)},
		},
		{
			name: "UPD-8 SCN-76 a node holding only a terminating old pod spends the budget",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a"))), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 a terminating pod beside an old one is ignored, the old one is a candidate",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a")), ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n0", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 UPD-10 a desired node without pods spends the budget",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0"), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 two old pods on a node spend the budget and are left to the base diff",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruOld("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 two new pods on a node spend the budget",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a1"), ruNew("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-24 an old and a new pod on a node spend the budget",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNew("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 mu 2 with one node spent leaves one deletion",
			ds:   ruStrategy(ruInt(2), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNew("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 candidates met before the unavailable nodes still count, then U is subtracted",
			ds:   ruStrategy(ruInt(2), nil),
			states: []nodeState{
				ruRun("a", ruOld("pa")), ruRun("b", ruOld("pb")), ruRun("c", ruNewNotReady("pc")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("pa", "a", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 candidates met after the budget is spent are not recorded and nothing is deleted",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("a", ruNewNotReady("pa")), ruRun("b", ruOld("pb")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-12 an old Ready pod within minReadySeconds is unavailable and deleted budget-free",
			ds:   ruWithMinReady(ruStrategy(ruInt(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruOld("a"), ruNow.Add(-29*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldUnavailable, false)},
		},
		{
			name: "UPD-8 UPD-12 an old pod Ready exactly minReadySeconds ago is a candidate",
			ds:   ruWithMinReady(ruStrategy(ruInt(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruOld("a"), ruNow.Add(-30*time.Second))),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 UPD-12 a new pod Ready one second short of minReadySeconds spends the budget",
			ds:   ruWithMinReady(ruStrategy(ruInt(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruNew("a"), ruNow.Add(-29*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-12 a new pod Ready with a zero transition time and minReadySeconds spends the budget",
			ds:   ruWithMinReady(ruStrategy(ruInt(1), nil), 1),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruNew("a"), time.Time{})), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-13 a Ready condition set to False makes an old pod unavailable",
			ds:   ruStrategy(ruInt(0), ruInt(0)),
			states: []nodeState{
				ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldUnavailable, false)},
		},
		{
			name:       "UPD-5 SCN-77 mu 10% of 5 deletes 1",
			ds:         ruStrategy(ruStr("10%"), nil),
			states:     ruOldNodes(5),
			wantReport: ruActed(1, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-77 mu 50% of 5 deletes 3",
			ds:         ruStrategy(ruStr("50%"), nil),
			states:     ruOldNodes(5),
			wantReport: ruActed(3, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, true),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-77 mu 99% of 3 deletes 3",
			ds:         ruStrategy(ruStr("99%"), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(3, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, false),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, false),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, false),
			},
		},
		{
			name:        "UPD-5 SCN-77 mu 1% of 3 deletes 1",
			ds:          ruStrategy(ruStr("1%"), nil),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 mu 0 and ms 0 delete 1",
			ds:          ruStrategy(ruInt(0), ruInt(0)),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 mu 0% and ms 0% delete 1",
			ds:          ruStrategy(ruStr("0%"), ruStr("0%")),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 a nil rollingUpdate deletes 1",
			ds:          ruNilRollingUpdate(),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:       "UPD-6 without desired nodes a nil rollingUpdate deletes nothing",
			ds:         ruNilRollingUpdate(),
			states:     []nodeState{ruIneligible("n0", ruOld("a"))},
			wantReport: ruActed(0, 0),
		},
		{
			name:       "UPD-5 SCN-79 a nil maxUnavailable with rollingUpdate present is an error and no action",
			ds:         ruStrategy(nil, nil),
			states:     []nodeState{ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b"))},
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: "couldn't get unavailable numbers: invalid value for MaxUnavailable: nil value for IntOrString"},
		},
		{
			name:       "UPD-5 SCN-79 maxUnavailable \"2\" is an error and no action",
			ds:         ruStrategy(ruStr("2"), nil),
			states:     ruOldNodes(3),
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"},
		},
		{
			name:       "UPD-5 maxSurge \"5\" is an error and no action",
			ds:         ruStrategy(ruInt(1), ruStr("5")),
			states:     ruOldNodes(3),
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: "couldn't get unavailable numbers: invalid value for MaxSurge: invalid value for IntOrString: invalid type: string is not a percentage"},
		},
		{
			name:       "UPD-5 SCN-80 mu -1 deletes nothing",
			ds:         ruStrategy(ruInt(-1), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(-1, 0),
		},
		{
			name: "UPD-3 SCN-81 a pod whose pod-template-generation equals the annotation is not replaced",
			ds:   ruWithGeneration(ruStrategy(ruInt(1), nil), "4"),
			states: []nodeState{
				ruRun("n0", ruWithGenerationLabel(ruOld("a"), "4")), ruRun("n1", ruWithGenerationLabel(ruOld("b"), "3")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-10 SCN-83 an old pod on an ineligible node that may continue is a candidate (first by name)",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-10 SCN-84 an old pod bound to a missing node is a candidate",
			ds:   ruStrategy(ruInt(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a")), ruRun("n1", ruNew("b")), ruMissing("n9", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("c", "n9", ReasonUpdateOldCandidate, false)},
		},
		{
			name:       "UPD-8 a rollout that is complete does nothing",
			ds:         ruStrategy(ruInt(1), nil),
			states:     []nodeState{ruRun("n0", ruNew("a")), ruRun("n1", ruNew("b"))},
			wantReport: ruActed(1, 0),
		},
		{
			name:       "UPD-8 an empty map does nothing",
			ds:         ruStrategy(ruInt(1), nil),
			wantReport: ruActed(1, 0),
		},
	})
}

// TestRollingUpdateWithSurge covers UPD-7 and UPD-11 and the scenarios SCN-86..SCN-98 reduced to
// the step.
func TestRollingUpdateWithSurge(t *testing.T) {
	t.Parallel()
	runRollingCases(t, []ruCase{
		{
			name:        "UPD-11 SCN-86 4 old Available pods and ms 1 create on the first node by name, interchangeably",
			ds:          ruStrategy(ruInt(0), ruInt(1)),
			states:      ruOldNodes(4),
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n0", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-11 SCN-87 an unavailable old pod gets its create budget-free, plus one surge candidate",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")), ruRun("n2", ruOld("c")), ruRun("n3", ruOld("d")),
			},
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, true),
				ruCreate("n1", ReasonSurgeOldUnavailable, false),
			},
		},
		{
			name: "UPD-11 SCN-88 a new pod not yet Available spends the surge; unavailable old pods still get creates",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNewNotReady("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")), ruRun("n3", ruOldNotReady("d")),
			},
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n3", ReasonSurgeOldUnavailable, false)},
		},
		{
			name: "UPD-11 a candidate met before the surge is spent is recorded, but S is final when counting",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("a", ruOld("pa")), ruRun("b", ruOld("pb1"), ruNewNotReady("pb2")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 an old pod beside an Available new pod is deleted",
			ds:   ruWithGeneration(ruStrategy(ruInt(0), ruInt(1)), "2"),
			states: []nodeState{
				// New by pod-template-generation only, so the base diff (hash only) keeps both.
				ruRun("n0", ruOld("a1"), ruWithGenerationLabel(ruOld("a2"), "2")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a1", "n0", ReasonSurgeReplaced, false)},
		},
		{
			name: "UPD-11 two old pods on a node spend the surge",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruOld("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 two new pods on a node spend the surge",
			ds:   ruStrategy(ruInt(0), ruInt(2)),
			states: []nodeState{
				ruRun("n0", ruNew("a1"), ruNew("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(0, 2),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-11 nodes without an old pod do nothing, also empty ones",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("n0"), ruRun("n1", ruNewNotReady("b")), ruRun("n2", ruNew("c")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 terminating pods are ignored",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a1")), ruNewNotReady("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeCandidate, false)},
		},
		{
			name:       "UPD-5 SCN-92 ms 25% of 4 creates one",
			ds:         ruStrategy(ruInt(0), ruStr("25%")),
			states:     ruOldNodes(4),
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-92 ms 100% of 4 creates four, not interchangeable",
			ds:         ruStrategy(ruInt(0), ruStr("100%")),
			states:     ruOldNodes(4),
			wantReport: ruActed(0, 4),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, false),
				ruCreate("n1", ReasonSurgeCandidate, false),
				ruCreate("n2", ReasonSurgeCandidate, false),
				ruCreate("n3", ReasonSurgeCandidate, false),
			},
		},
		{
			name: "UPD-11 SCN-93 an ineligible old Available pod goes once more pods are available than desired",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNew("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, false)},
		},
		{
			name: "UPD-11 SCN-94 an ineligible old pod stays while a new pod is not Available",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNewNotReady("c")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 SCN-95 an ineligible old pod that is not Available is deleted at once",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOldNotReady("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNewNotReady("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeOldUnavailableIneligible, false)},
		},
		{
			name: "UPD-11 only A minus desired ineligible candidates go, the first by name, interchangeably",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruIneligible("n1", ruOld("b")),
				ruRun("n2", ruNew("c")), ruRun("n3", ruNewNotReady("d")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, true)},
		},
		{
			name: "UPD-11 all ineligible candidates go when A minus desired covers them",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruIneligible("n1", ruOld("b")),
				ruRun("n2", ruNew("c")), ruRun("n3", ruNew("d")),
			},
			wantReport: ruActed(0, 1),
			wantDeletes: []Deletion{
				ruDel("a", "n0", ReasonSurgeIneligibleExcess, false),
				ruDel("b", "n1", ReasonSurgeIneligibleExcess, false),
			},
		},
		{
			name: "UPD-11 availability of old pods counts towards A even beside a new pod",
			ds:   ruStrategy(ruInt(0), ruInt(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruOld("b1"), ruNewNotReady("b2")), ruRun("n2", ruNew("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, false)},
		},
		{
			name:       "UPD-11 SCN-96 an old Available pod bound to a missing node fails the step",
			ds:         ruStrategy(ruInt(0), ruInt(1)),
			states:     []nodeState{ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b")), ruMissing("n9", ruOld("c"))},
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: `couldn't get node for nodeName "n9": node "n9" not found`, MaxSurge: 1},
		},
		{
			name:       "UPD-11 an old unavailable pod bound to a missing node fails the step, naming the first such node",
			ds:         ruStrategy(ruInt(0), ruInt(1)),
			states:     []nodeState{ruMissing("m1", ruOldNotReady("a")), ruMissing("m2", ruOld("b"))},
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: `couldn't get node for nodeName "m1": node "m1" not found`, MaxSurge: 1},
		},
		{
			name: "UPD-11 a missing node with an old and an Available new pod deletes the old one without looking the node up",
			ds:   ruWithGeneration(ruStrategy(ruInt(0), ruInt(1)), "2"),
			states: []nodeState{
				ruMissing("n9", ruOld("a1"), ruWithGenerationLabel(ruOld("a2"), "2")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a1", "n9", ReasonSurgeReplaced, false)},
		},
		{
			name:       "UPD-11 a missing node with only a new pod is not looked up",
			ds:         ruStrategy(ruInt(0), ruInt(1)),
			states:     []nodeState{ruMissing("n9", ruNew("a")), ruRun("n0", ruOld("b"))},
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, false),
			},
		},
		{
			name:        "UPD-7 SCN-98 mu 2 and ms 1 together run the surge algorithm: one create",
			ds:          ruStrategy(ruInt(2), ruInt(1)),
			states:      ruOldNodes(3),
			wantReport:  ruActed(2, 1),
			wantCreates: []Creation{ruCreate("n0", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-7 a negative maxSurge runs the surge algorithm with no surge candidates",
			ds:   ruStrategy(ruInt(1), ruInt(-1)),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")),
			},
			wantReport:  ruActed(1, -1),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeOldUnavailable, false)},
		},
		{
			name: "UPD-11 UPD-12 a new pod one second short of minReadySeconds spends the surge",
			ds:   ruWithMinReady(ruStrategy(ruInt(0), ruInt(1)), 10),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruReadySince(ruNew("a2"), ruNow.Add(-9*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 ms 0 with mu 0 falls back to the non-surge algorithm (UPD-6)",
			ds:   ruStrategy(ruInt(0), ruInt(0)),
			states: []nodeState{
				ruRun("n0", ruOld("a")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, false)},
		},
	})
}

// TestRollingUpdateNeverTouchesTerminatingPods checks that the step never deletes a terminating pod
// (UPD-8, UPD-11), whatever the strategy, on random mixes.
func TestRollingUpdateNeverTouchesTerminatingPods(t *testing.T) {
	t.Parallel()
	for _, ds := range []*appsv1.DaemonSet{ruStrategy(ruInt(3), nil), ruStrategy(ruInt(0), ruInt(3))} {
		var states []nodeState
		for i := range 12 {
			name := fmt.Sprintf("n%02d", i)
			pods := []*v1.Pod{ruTerminating(ruOld("t-" + name))}
			switch i % 4 {
			case 1:
				pods = append(pods, ruOld("o-"+name))
			case 2:
				pods = append(pods, ruOldNotReady("o-"+name))
			case 3:
				pods = append(pods, ruOld("o-"+name), ruNew("w-"+name))
			}
			states = append(states, ruRun(name, pods...))
		}
		p := &Planner{ds: ds, opts: Options{Now: ruNow}}
		got := ruStep(p, states, len(states))
		require.True(t, got.report.Acted)
		require.NotEmpty(t, got.deletes)
		for _, d := range got.deletes {
			require.NotEqual(t, "t-", d.Name[:2], "terminating pod %s deleted", d.Name)
		}
	}
}

// TestRollingUpdateAllocatesOnlyItsOutput checks that the step allocates nothing but its action
// slices, one per non-empty list, and one byte per node recording pass 1's decisions when
// there is any, whatever the number of nodes (STYLE: zero-alloc hot paths).
func TestRollingUpdateAllocatesOnlyItsOutput(t *testing.T) {
	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		states     []nodeState
		wantAllocs float64
	}{
		{
			name:       "a step with nothing to do allocates nothing",
			ds:         ruWithGeneration(ruStrategy(ruInt(1), nil), "4"),
			states:     []nodeState{ruRun("n0", ruNewNotReady("a")), ruRun("n1", ruOld("b"))},
			wantAllocs: 0,
		},
		{
			name:       "a non-surge step mid-rollout allocates its delete list and its scratch only",
			ds:         ruWithGeneration(ruStrategy(ruStr("25%"), nil), "4"),
			states:     ruMidRollout(1000, false),
			wantAllocs: 2,
		},
		{
			name:       "a surge step mid-rollout allocates its create and delete lists and its scratch only",
			ds:         ruWithGeneration(ruStrategy(ruInt(0), ruStr("25%")), "4"),
			states:     append(ruMidRollout(1000, true), ruIneligible("zz", ruOld("x")), ruRun("zz2", ruOld("y1"), ruNew("y2"))),
			wantAllocs: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Planner{ds: tt.ds, opts: Options{Now: ruNow}}
			desired := ruDesired(tt.states)
			states := ruJudge(p, tt.states)
			var got rollingStep
			allocs := testing.AllocsPerRun(20, func() { got = p.rollingUpdate(states, desired) })
			require.True(t, got.report.Acted)
			require.Equal(t, tt.wantAllocs, allocs)
		})
	}
}

// The scenarios below go through Plan: their outcome is the base diff (UPD-2, DIFF-6, UPD-24),
// or the step's place in a whole sync (status still computed, SYNC-6).

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
		pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
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
	muDS := func() *appsv1.DaemonSet { return ruPlanDS(ruInt(1), ruInt(0)) }
	msDS := func() *appsv1.DaemonSet { return ruPlanDS(ruInt(0), ruInt(1)) }
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
	tests := []planCase{
		{
			name:  "UPD-2 SCN-71 a missing pod blocks the rolling update: only the create",
			ds:    muDS(),
			nodes: ruNodes("n0", "n1", "n2"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0)}
			},
			wantActions: []string{"create n2 MissingPod interchangeable=false"},
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			ds:    ruPlanDS(ruStr("2"), nil),
			nodes: ruNodes("n0", "n1"),
			pods: func(ds *appsv1.DaemonSet) []*v1.Pod {
				return []*v1.Pod{old(ds, "a", "n0", true, 0), old(ds, "b", "n1", true, 0)}
			},
			wantRolling: RollingUpdate{Reason: RollingReasonError, Error: "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
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
			wantRolling: RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty},
			wantDesired: 1, wantMisscheduled: 0,
		},
		{
			name:  "UPD-7 SCN-98 mu 2 and ms 1 together surge: one create with its pod",
			ds:    ruPlanDS(ruInt(2), ruInt(1)),
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

			res, err := Plan(tt.ds, tt.nodes, pods, Options{Now: now})
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

// ruReference is a model of the v1.36 controller's rolling-update step written straight from
// its description (pkg/controller/daemon: rollingUpdate, findUpdatedPodsOnNode), walking the
// map in the given order as upstream walks a Go map in a random one. It returns the names of
// the pods deleted and of the nodes given a pod, by reason class, or failed.
type ruOutcome struct {
	failed  bool
	deletes map[Reason][]string // pod names
	creates map[Reason][]string // node names
}

func ruReference(ds *appsv1.DaemonSet, states []nodeState, desired int, hash string, now time.Time, order []int) ruOutcome {
	out := ruOutcome{deletes: map[Reason][]string{}, creates: map[Reason][]string{}}
	mu, ms, err := rollingBudgets(ds, desired)
	if err != nil {
		return ruOutcome{failed: true}
	}
	avail := func(pod *v1.Pod) bool { return ruleAvailable(pod, ds.Spec.MinReadySeconds, now) }
	split := func(pods []*v1.Pod) (newPod, oldPod *v1.Pod, ok bool) {
		for _, pod := range pods {
			if pod.DeletionTimestamp != nil {
				continue
			}
			if ruleUpdated(pod, hash, ds) {
				if newPod != nil {
					return nil, nil, false
				}
				newPod = pod
			} else {
				if oldPod != nil {
					return nil, nil, false
				}
				oldPod = pod
			}
		}
		return newPod, oldPod, true
	}
	if ms == 0 {
		unavailable := 0
		var candidates []string
		for _, i := range order {
			newPod, oldPod, ok := split(ruPodsOf(states[i]))
			switch {
			case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				unavailable++
			case newPod != nil:
				if !avail(newPod) {
					unavailable++
				}
			case !avail(oldPod):
				out.deletes[ReasonUpdateOldUnavailable] = append(out.deletes[ReasonUpdateOldUnavailable], oldPod.Name)
				unavailable++
			case unavailable >= mu:
			default:
				candidates = append(candidates, oldPod.Name)
			}
		}
		n := min(max(mu-unavailable, 0), len(candidates))
		out.deletes[ReasonUpdateOldCandidate] = candidates[:n]
		return out
	}
	surge, available := 0, 0
	var ineligible, candidates []string
	for _, i := range order {
		st := states[i]
		newPod, oldPod, ok := split(ruPodsOf(st))
		if !ok {
			surge++
			continue
		}
		if oldPod != nil {
			if avail(oldPod) {
				available++
			}
		} else if newPod != nil && avail(newPod) {
			available++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			if !st.listed {
				return ruOutcome{failed: true}
			}
			switch {
			case !avail(oldPod) && !st.shouldRun:
				out.deletes[ReasonSurgeOldUnavailableIneligible] = append(out.deletes[ReasonSurgeOldUnavailableIneligible], oldPod.Name)
			case !avail(oldPod):
				out.creates[ReasonSurgeOldUnavailable] = append(out.creates[ReasonSurgeOldUnavailable], st.name)
			case !st.shouldRun:
				ineligible = append(ineligible, oldPod.Name)
			case surge >= ms:
			default:
				candidates = append(candidates, st.name)
			}
		case !avail(newPod):
			surge++
		default:
			out.deletes[ReasonSurgeReplaced] = append(out.deletes[ReasonSurgeReplaced], oldPod.Name)
		}
	}
	if n := available - desired; n > 0 {
		out.deletes[ReasonSurgeIneligibleExcess] = ineligible[:min(n, len(ineligible))]
	}
	out.creates[ReasonSurgeCandidate] = candidates[:min(max(ms-surge, 0), len(candidates))]
	return out
}

// ruRandomStates builds a random per-node map: nodes that should run or not or are missing,
// holding up to three pods, old or new by hash or by generation, Ready or not, recently or
// long ago, terminating or not.
func ruRandomStates(r *rand.Rand) []nodeState {
	n := r.IntN(10)
	states := make([]nodeState, 0, n)
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		var pods []*v1.Pod
		for j := range r.IntN(4) {
			hash := ruOldHash
			if r.IntN(2) == 0 {
				hash = ruHash
			}
			pod := ruPod(fmt.Sprintf("%s-p%d", name, j), hash, r.IntN(4) != 0)
			if r.IntN(8) == 0 {
				ruWithGenerationLabel(pod, "7")
			}
			ruReadySince(pod, ruNow.Add(-time.Duration(r.IntN(40))*time.Second))
			if r.IntN(8) == 0 {
				ruTerminating(pod)
			}
			pods = append(pods, pod)
		}
		switch r.IntN(8) {
		case 0:
			states = append(states, ruMissing(name, pods...))
		case 1, 2:
			states = append(states, ruIneligible(name, pods...))
		default:
			states = append(states, ruRun(name, pods...))
		}
	}
	return states
}

// TestRollingUpdateAgainstReference checks the step against ruReference on random maps and
// budgets, each walked in several random orders as upstream's map walk would: the same failure,
// the same budget-free actions, the same number of actions in each interchangeable class, and
// a choice that upstream could have made for some walk order (D-1, UPD-9, UPD-23).
func TestRollingUpdateAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 11))
	budgets := []*intstr.IntOrString{nil, ruInt(-1), ruInt(0), ruInt(1), ruInt(2), ruStr("0%"), ruStr("25%"), ruStr("50%"), ruStr("100%"), ruStr("5")}
	interchangeable := map[Reason]bool{ReasonUpdateOldCandidate: true, ReasonSurgeIneligibleExcess: true, ReasonSurgeCandidate: true}
	for c := range 5000 {
		ds := ruStrategy(budgets[r.IntN(len(budgets))], budgets[r.IntN(len(budgets))])
		if r.IntN(4) == 0 {
			ds.Spec.MinReadySeconds = 20
		}
		if r.IntN(4) == 0 {
			ruWithGeneration(ds, "7")
		}
		states := ruRandomStates(r)
		desired := ruDesired(states)
		p := &Planner{ds: ds, opts: Options{Now: ruNow}}
		got := ruStep(p, states, desired)

		gotDeletes, gotCreates := map[Reason][]string{}, map[Reason][]string{}
		for _, d := range got.deletes {
			gotDeletes[d.Reason] = append(gotDeletes[d.Reason], d.Name)
		}
		for _, cr := range got.creates {
			gotCreates[cr.Reason] = append(gotCreates[cr.Reason], cr.Node)
		}
		// Some walk order must give exactly our choice: the name order does (D-1).
		byName := make([]int, len(states))
		for i := range byName {
			byName[i] = i
		}
		for k := range 4 {
			order := slices.Clone(byName)
			if k > 0 {
				r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			want := ruReference(ds, states, desired, ruHash, ruNow, order)
			require.Equal(t, want.failed, !got.report.Acted, "case %d: failure", c)
			if want.failed {
				require.Empty(t, got.deletes, "case %d", c)
				require.Empty(t, got.creates, "case %d", c)
				continue
			}
			for _, class := range []struct {
				got, want map[Reason][]string
			}{{gotDeletes, want.deletes}, {gotCreates, want.creates}} {
				for reason := range ruMergeKeys(class.got, class.want) {
					g, w := slices.Sorted(slices.Values(class.got[reason])), slices.Sorted(slices.Values(class.want[reason]))
					if k == 0 || !interchangeable[reason] {
						require.Equal(t, w, g, "case %d order %v: %s", c, order, reason)
					} else {
						require.Len(t, g, len(w), "case %d order %v: %s", c, order, reason)
					}
				}
			}
		}
	}
}

func ruMergeKeys(a, b map[Reason][]string) map[Reason]bool {
	keys := map[Reason]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
