package daemonset

// Internal tests of the rolling-update step (UPD-4..UPD-11, UPD-23, D-1): they drive
// rollingUpdate with hand-built per-node states, so every rule is checked apart from the base
// diff that normally gates it (UPD-2). This file holds the node-state builders and the table
// runner, and the rules that hold with and without surge; the tables of each algorithm are in
// rollingupdate_nosurge_test.go and rollingupdate_surge_test.go. The scenarios whose outcome is
// a base diff (SCN-85, SCN-89, SCN-90, SCN-91, SCN-97) go through Plan in
// rollingupdate_plan_test.go, and rollingupdate_reference_test.go compares the step with a
// model of upstream walked in random map orders.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/internal/apitest"
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

func ruOld(name string) *v1.Pod { return ruPod(name, ruOldHash, true) }

func ruOldNotReady(name string) *v1.Pod { return ruPod(name, ruOldHash, false) }

func ruNew(name string) *v1.Pod { return ruPod(name, ruHash, true) }

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
	return nodeState{name: name, flags: nodeListed | nodeShouldRun, pods: ruDaemonPods(pods)}
}

func ruIneligible(name string, pods ...*v1.Pod) nodeState {
	return nodeState{name: name, flags: nodeListed, pods: ruDaemonPods(pods)}
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
// current hash ruHash, and each node's category in the step (rollOf) as Plan's walk sets it.
func ruJudge(p *Planner, states []nodeState) []nodeState {
	j := newJudge(p.ds, ruHash, p.opts)
	judged := make([]nodeState, len(states))
	for i, st := range states {
		st.pods = slices.Clone(st.pods)
		for k := range st.pods {
			st.pods[k].facts = j.facts(st.pods[k].pod, controllerOf(st.pods[k].pod) != nil)
		}
		st.roll = rollOf(&st)
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
	pod.Labels[labelTemplateGeneration] = gen
	return pod
}

// ruDesired counts the shouldRun states, as the caller does (UPD-4).
func ruDesired(states []nodeState) int {
	n := 0
	for _, s := range states {
		if s.shouldRun() {
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
			p := &Planner{ds: tt.ds, opts: Options{Version: v1363, Now: now}}
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

// TestRollingUpdateNeverTouchesTerminatingPods checks that the step never deletes a terminating pod
// (UPD-8, UPD-11), whatever the strategy, on random mixes.
func TestRollingUpdateNeverTouchesTerminatingPods(t *testing.T) {
	t.Parallel()
	for _, ds := range []*appsv1.DaemonSet{ruStrategy(apitest.Int(3), nil), ruStrategy(apitest.Int(0), apitest.Int(3))} {
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
		p := &Planner{ds: ds, opts: Options{Version: v1363, Now: ruNow}}
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
			ds:         ruWithGeneration(ruStrategy(apitest.Int(1), nil), "4"),
			states:     []nodeState{ruRun("n0", ruNewNotReady("a")), ruRun("n1", ruOld("b"))},
			wantAllocs: 0,
		},
		{
			name:       "a non-surge step mid-rollout allocates its delete list only",
			ds:         ruWithGeneration(ruStrategy(apitest.Str("25%"), nil), "4"),
			states:     ruMidRollout(1000, false),
			wantAllocs: 1,
		},
		{
			name:       "a surge step mid-rollout allocates its create and delete lists only",
			ds:         ruWithGeneration(ruStrategy(apitest.Int(0), apitest.Str("25%")), "4"),
			states:     append(ruMidRollout(1000, true), ruIneligible("zz", ruOld("x")), ruRun("zz2", ruOld("y1"), ruNew("y2"))),
			wantAllocs: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Planner{ds: tt.ds, opts: Options{Version: v1363, Now: ruNow}}
			desired := ruDesired(tt.states)
			states := ruJudge(p, tt.states)
			var got rollingStep
			allocs := testing.AllocsPerRun(20, func() { got = p.rollingUpdate(states, desired) })
			require.True(t, got.report.Acted)
			require.Equal(t, tt.wantAllocs, allocs)
		})
	}
}
