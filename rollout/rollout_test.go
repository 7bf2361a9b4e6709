package rollout_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// TestApply: created pods get deterministic, unique names and uids from generateName and are
// bound to their node (ROLL-2); deleted bound pods terminate with the grace period, unbound
// ones go at once (ROLL-3); the status is written (ROLL-1); the current revision is created
// (ROLL-4); the input snapshot is never modified.
func TestApply(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes(3)}
	before := s.Nodes[0].DeepCopy()
	res, err := planSnapshot(ds, s, t0)
	require.NoError(t, err)
	next, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0})
	require.NoError(t, err)
	again, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0})
	require.NoError(t, err)
	require.Len(t, next.Pods, 3)
	names := map[string]bool{}
	for i, p := range next.Pods {
		require.Equal(t, again.Pods[i].Name, p.Name, "names are deterministic")
		require.Equal(t, again.Pods[i].UID, p.UID)
		require.Regexp(t, `^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$`, p.Name)
		require.NotEmpty(t, p.Spec.NodeName)
		require.Equal(t, v1.PodPending, p.Status.Phase)
		names[p.Name] = true
	}
	require.Len(t, names, 3)
	require.Empty(t, s.Pods, "the input is not modified")
	require.True(t, equality.Semantic.DeepEqual(before, s.Nodes[0]))
	require.Equal(t, int32(3), next.DaemonSets[0].Status.DesiredNumberScheduled)
	require.Zero(t, ds.Status.DesiredNumberScheduled)
	require.Len(t, next.Revisions, 1)
	require.Equal(t, "agent-"+res.RevisionHash, next.Revisions[0].Name)

	// A node is tainted NoExecute: its pod is deleted gracefully.
	tainted := next.Nodes[2].DeepCopy()
	tainted.Spec.Taints = []v1.Taint{{Key: "drain", Effect: v1.TaintEffectNoExecute}}
	gone := daemonset.Snapshot{DaemonSets: next.DaemonSets, Nodes: []*v1.Node{next.Nodes[0], next.Nodes[1], tainted}, Pods: next.Pods, Revisions: next.Revisions}
	res, err = planSnapshot(ds, gone, t0.Add(time.Minute))
	require.NoError(t, err)
	require.Len(t, res.Delete, 1)
	after, err := rollout.Apply(gone, res, rollout.ApplyOptions{Now: t0.Add(time.Minute)})
	require.NoError(t, err)
	var terminating *v1.Pod
	for _, p := range after.Pods {
		if p.DeletionTimestamp != nil {
			terminating = p
		}
	}
	require.NotNil(t, terminating)
	require.Equal(t, t0.Add(time.Minute+30*time.Second), terminating.DeletionTimestamp.Time)
	reaped, err := rollout.Reap(after, t0.Add(2*time.Minute))
	require.NoError(t, err)
	require.Len(t, reaped.Pods, 2)
	for _, p := range gone.Pods {
		require.Nil(t, p.DeletionTimestamp, "the input pods are not modified")
	}

	// A plan that does not fit the snapshot is an error naming the field.
	res.Delete[0].Name = "nope"
	_, err = rollout.Apply(gone, res, rollout.ApplyOptions{Now: t0})
	require.ErrorContains(t, err, "result.delete[0]")
	_, err = rollout.Apply(gone, res, rollout.ApplyOptions{})
	require.ErrorContains(t, err, "opts.now")
}

// TestApplyGracePeriod: a deleted pod keeps a deletionTimestamp only when the API server's pod
// strategy would give it a grace period: bound, not terminal, its own period set and not 0;
// a negative period counts as 1 s; an unset one deletes at once (ROLL-3, CheckGracefulDelete).
// A pod Apply creates carries the stored default of 30 s.
func TestApplyGracePeriod(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 1)
	require.Equal(t, ptr.To(int64(v1.DefaultTerminationGracePeriodSeconds)), s.Pods[0].Spec.TerminationGracePeriodSeconds,
		"a created pod carries the API server's default")
	for _, tt := range []struct {
		name  string
		grace *int64
		node  string
		phase v1.PodPhase
		want  *time.Duration // nil: removed at once
	}{
		{"30 s", ptr.To(int64(30)), "node-00000", v1.PodRunning, ptr.To(30 * time.Second)},
		{"unset", nil, "node-00000", v1.PodRunning, nil},
		{"zero", ptr.To(int64(0)), "node-00000", v1.PodRunning, nil},
		{"negative", ptr.To(int64(-5)), "node-00000", v1.PodRunning, ptr.To(time.Second)},
		{"unbound", ptr.To(int64(30)), "", v1.PodPending, nil},
		{"failed", ptr.To(int64(30)), "node-00000", v1.PodFailed, nil},
		{"succeeded", ptr.To(int64(30)), "node-00000", v1.PodSucceeded, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := s.Pods[0].DeepCopy()
			pod.Spec.TerminationGracePeriodSeconds = tt.grace
			pod.Spec.NodeName = tt.node
			pod.Status.Phase = tt.phase
			in := daemonset.Snapshot{DaemonSets: s.DaemonSets, Nodes: s.Nodes, Pods: []*v1.Pod{pod}, Revisions: s.Revisions}
			res := &daemonset.Result{Namespace: s.DaemonSets[0].Namespace, Name: s.DaemonSets[0].Name,
				Delete: []daemonset.Deletion{{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Node: tt.node}}}
			out, err := rollout.Apply(in, res, rollout.ApplyOptions{Now: t0})
			require.NoError(t, err)
			if tt.want == nil {
				require.Empty(t, out.Pods)
				return
			}
			require.Len(t, out.Pods, 1)
			require.Equal(t, t0.Add(*tt.want), out.Pods[0].DeletionTimestamp.Time)
			require.Equal(t, int64(*tt.want/time.Second), *out.Pods[0].DeletionGracePeriodSeconds)
			require.Nil(t, pod.DeletionTimestamp, "the input pod is not modified")
		})
	}
}

// TestReapBadSnapshot: Reap rejects what daemonset.Snapshot.Check rejects, naming the entry,
// instead of panicking on a nil node or pod.
func TestReapBadSnapshot(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    daemonset.Snapshot
		want string
	}{
		{"nil node", daemonset.Snapshot{Nodes: []*v1.Node{nil}}, "nodes[0]"},
		{"nil pod", daemonset.Snapshot{Pods: []*v1.Pod{nil}}, "pods[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rollout.Reap(tt.s, t0)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestSimulateFailedPodsBackOff: pods the kubelet rejects are deleted and recreated, the
// back-off holding deletions back (ROLL-6), and the simulation stays bounded.
func TestSimulateFailedPodsBackOff(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes(2)}, ds, rollout.Options{Start: t0,
		Horizon: 5 * time.Minute, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(100 * time.Millisecond), Failed: 1}})
	require.NoError(t, err)
	require.False(t, traj.Quiescent)
	held, deletes := 0, 0
	for _, s := range traj.Steps {
		held += s.HeldBack
		deletes += len(s.Delete)
	}
	require.Positive(t, held)
	// With delays 1, 2, 4, ... s per node, five minutes allow about 9 deletions per node.
	require.Less(t, deletes, 2*12)
	require.Greater(t, deletes, 2*5)
}

// TestSimulateDeterministic: the same seed gives the same trajectory (ROLL-5).
func TestSimulateDeterministic(t *testing.T) {
	s := settled(t, agent(intstr.FromString("30%"), intstr.FromInt32(0), "agent:1", 0), 30)
	next := agent(intstr.FromString("30%"), intstr.FromInt32(0), "agent:2", 0)
	opts := rollout.Options{Start: t0, Seed: 42, Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: 20 * time.Second, Max: 40 * time.Second}, CrashLoop: 0.05}}
	a, err := rollout.Simulate(s, next, opts)
	require.NoError(t, err)
	b, err := rollout.Simulate(s, next, opts)
	require.NoError(t, err)
	require.Equal(t, a.Steps, b.Steps)
	opts.Seed = 43
	c, err := rollout.Simulate(s, next, opts)
	require.NoError(t, err)
	require.NotEqual(t, a.Steps, c.Steps)
}

// TestSyncModels: under maxSurge 1, once a surged pod is available the observed sync deletes
// the replaced old pod and surges the next node in the same sync; the one-sync plan takes two
// syncs (ROLL-7).
func TestSyncModels(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(0), intstr.FromInt32(1), "agent:1", 0), 3)
	next := agent(intstr.FromInt32(0), intstr.FromInt32(1), "agent:2", 0)
	acting := map[rollout.SyncModel][]rollout.Step{}
	for _, m := range []rollout.SyncModel{rollout.SyncObserved, rollout.SyncUnobserved} {
		traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Model: m, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second)}})
		require.NoError(t, err)
		acting[m] = traj.Acting()
		rep, err := rollout.Progress(traj.End, next, rollout.ProgressOptions{Now: traj.EndTime})
		require.NoError(t, err)
		require.Equal(t, rollout.StateComplete, rep.State)
	}
	obs, unobs := acting[rollout.SyncObserved], acting[rollout.SyncUnobserved]
	require.Less(t, len(obs), len(unobs))
	// At 10 s the first surged pod turns available: one observed sync deletes the old pod and
	// creates on the next node.
	require.Equal(t, t0.Add(10*time.Second), obs[1].At)
	require.Len(t, obs[1].Delete, 1)
	require.Len(t, obs[1].Create, 1)
	require.True(t, obs[1].RollingActed)
	require.Len(t, unobs[1].Delete, 1)
	require.Empty(t, unobs[1].Create)
}

// TestSimulateBadInput: clear errors with field paths, no panics.
func TestSimulateBadInput(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	_, err := rollout.Simulate(daemonset.Snapshot{}, ds, rollout.Options{Start: t0})
	require.ErrorContains(t, err, "nodes: Required value: no nodes")
	_, err = rollout.Simulate(daemonset.Snapshot{Nodes: nodes(1)}, ds, rollout.Options{Start: t0,
		Kubelet: rollout.Kubelet{Startup: rollout.Fixed(-time.Second), CrashLoop: 2}})
	require.ErrorContains(t, err, "opts.kubelet.startup.min")
	require.ErrorContains(t, err, "opts.kubelet.crashLoop")
	_, err = rollout.Simulate(daemonset.Snapshot{Nodes: nodes(1)}, nil, rollout.Options{})
	require.ErrorContains(t, err, "daemonSet: Required value")
	require.ErrorContains(t, err, "opts.start")
	_, err = rollout.Forecast(daemonset.Snapshot{Nodes: nodes(1)}, ds, rollout.ForecastOptions{})
	require.ErrorContains(t, err, "opts.now")
}

// TestProgress: Stuck names the blocking nodes: a crash-looping new pod holding the budget, a
// node that is not Ready, OnDelete; Progressing while pods start; the generation check
// informs only (ROLL-8, ROLL-9).
func TestProgress(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 4)
	next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", 0)
	next.Generation = 2
	next.Status.ObservedGeneration = 1
	crash := rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second), Fate: func(p *v1.Pod) rollout.Fate {
		if p.Spec.NodeName == "node-00000" || p.Spec.Affinity != nil && p.Name != "" && p.Spec.NodeName == "node-00000" {
			return rollout.FateCrashLoop
		}
		return rollout.FateReady
	}}
	traj, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Kubelet: crash})
	require.NoError(t, err)
	require.True(t, traj.Quiescent)
	end := traj.End.DaemonSets[0]
	rep, err := rollout.Progress(traj.End, end, rollout.ProgressOptions{Now: traj.EndTime})
	require.NoError(t, err)
	require.Equal(t, rollout.StateStuck, rep.State, rep.Message)
	require.Equal(t, []string{"node-00000"}, blockerNodes(rep.Blocking))
	require.Equal(t, rollout.BlockPodNeverReady, rep.Blocking[0].Reason)
	require.Empty(t, rep.Waiting)
	require.Equal(t, 3, rep.WaitingForBudget, "the old pods wait for the budget the crash-looping pod holds")

	// Mid-way: the first new pod is starting.
	mid, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Horizon: 5 * time.Second, Kubelet: crash})
	require.NoError(t, err)
	rep, err = rollout.Progress(mid.End, next, rollout.ProgressOptions{Now: mid.EndTime})
	require.NoError(t, err)
	require.Equal(t, rollout.StateProgressing, rep.State)
	require.False(t, rep.GenerationObserved)

	// OnDelete: nothing replaces the old pods.
	od := next.DeepCopy()
	od.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	rep, err = rollout.Progress(s, od, rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, rollout.StateStuck, rep.State)
	require.Len(t, rep.Blocking, 4)
	require.Equal(t, rollout.BlockOnDelete, rep.Blocking[0].Reason)

	// A node that is not Ready keeps its new pod from turning Ready.
	nr, err := rollout.Simulate(s, next, rollout.Options{Start: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second)},
		Events: []rollout.Event{{After: time.Second, Type: rollout.EventNodeNotReady, Node: "node-00000"}}})
	require.NoError(t, err)
	rep, err = rollout.Progress(nr.End, nr.End.DaemonSets[0], rollout.ProgressOptions{Now: nr.EndTime})
	require.NoError(t, err)
	require.Equal(t, rollout.StateStuck, rep.State, rep.Message)
	require.Contains(t, blockerNodes(rep.Blocking), "node-00000")
	require.Equal(t, rollout.BlockNodeNotReady, rep.Blocking[0].Reason)

	// Complete exactly when the next plan does nothing and every node runs an available
	// current pod.
	rep, err = rollout.Progress(s, s.DaemonSets[0], rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, rollout.StateComplete, rep.State)
	require.Zero(t, rep.Actions)
}

// TestProgressWhileTheBaseDiffActs: when the base diff creates a pod on a new node, the old
// pods of the other nodes wait for the update budget the next syncs resolve (UPD-2, UPD-5), not
// for a budget of 0; budgets that do not resolve block them with upstream's error.
func TestProgressWhileTheBaseDiffActs(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 3)
	s.Nodes = append(slices.Clone(s.Nodes), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-00003"}})
	next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", 0)
	rep, err := rollout.Progress(s, next, rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, rollout.StateProgressing, rep.State, rep.Message)
	require.Empty(t, rep.Blocking)
	require.Equal(t, 3, rep.WaitingForBudget, "the three old pods wait for maxUnavailable 1")

	bad := agent(intstr.FromString("5"), intstr.FromInt32(0), "agent:2", 0)
	rep, err = rollout.Progress(s, bad, rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Len(t, rep.Blocking, 3, "the old pods are blocked while the base diff still acts")
	require.Equal(t, rollout.BlockRollingError, rep.Blocking[0].Reason)
	require.Contains(t, rep.Blocking[0].Message, "invalid value for MaxUnavailable")
}

// TestProgressUnbound: an unbound current pod blocks the rollout (Unschedulable) only when
// the scheduler says so, PodScheduled False with reason Unschedulable; without that verdict
// it is starting (ROLL-8).
func TestProgressUnbound(t *testing.T) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: reporting(nodes(2))}
	res, err := daemonset.Plan(ds, s.Nodes, nil, daemonset.Options{Now: t0})
	require.NoError(t, err)
	refuse := func(_ *v1.Pod, target *v1.Node) bool { return target != nil && target.Name != "node-00000" }
	after, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0, Scheduler: refuse})
	require.NoError(t, err)
	rep, err := rollout.Progress(after, after.DaemonSets[0], rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, []string{"node-00000"}, blockerNodes(rep.Blocking))
	require.Equal(t, rollout.BlockUnschedulable, rep.Blocking[0].Reason)

	for _, tt := range []struct {
		name  string
		conds []v1.PodCondition
	}{
		{"no condition yet", nil},
		{"scheduling gated", []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonSchedulingGated}}},
		{"unschedulable verdict withdrawn", []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pending := after
			pending.Pods = slices.Clone(after.Pods)
			for i, p := range pending.Pods {
				if p.Spec.NodeName == "" {
					p = p.DeepCopy()
					p.Status.Conditions = tt.conds
					pending.Pods[i] = p
				}
			}
			rep, err := rollout.Progress(pending, after.DaemonSets[0], rollout.ProgressOptions{Now: t0})
			require.NoError(t, err)
			require.Equal(t, rollout.StateProgressing, rep.State, rep.Message)
			require.Empty(t, rep.Blocking)
			reasons := map[string]rollout.BlockReason{}
			for _, b := range rep.Waiting {
				reasons[b.Node] = b.Reason
			}
			require.Equal(t, map[string]rollout.BlockReason{"node-00000": rollout.WaitPodStarting, "node-00001": rollout.WaitPodStarting}, reasons)
		})
	}
}

// TestProgressUnboundRefusedByTheFilters: an unbound current pod the scheduler has not judged
// yet blocks the rollout when its filters refuse it on its node and preemption cannot make
// room, with the filter and the numbers; where preemption makes room it is on its way, the
// victims named; a pod the next sync creates says it would not bind (ROLL-8, SCHED-1, SCHED-4).
func TestProgressUnboundRefusedByTheFilters(t *testing.T) {
	ds, s := crowdedFirstNode()
	res, err := daemonset.Plan(ds, s.Nodes, s.Pods, daemonset.Options{Now: t0})
	require.NoError(t, err)
	require.Len(t, res.Create, 2)

	// Before the create: the next sync acts, and says the pod on node-00000 would not bind.
	rep, err := rollout.Progress(s, ds, rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, rollout.StateProgressing, rep.State)
	require.Equal(t, "the next sync creates a pod the scheduler would leave Pending: NodeResourcesFit: cpu 250m requested, 100m free of 1; no pod there has a priority below its 0, so nothing is preempted for it", rep.Waiting[0].Message)
	require.Empty(t, rep.Waiting[1].Message, "node-00001 has room")

	// After it, unbound and not yet judged: node-00000 is stuck, node-00001 starting.
	after, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0, Scheduler: func(*v1.Pod, *v1.Node) bool { return false }})
	require.NoError(t, err)
	for i, p := range after.Pods {
		if p.Spec.NodeName == "" {
			p = p.DeepCopy()
			p.Status.Conditions = nil
			after.Pods[i] = p
		}
	}
	rep, err = rollout.Progress(after, after.DaemonSets[0], rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, []string{"node-00000"}, blockerNodes(rep.Blocking))
	require.Equal(t, rollout.BlockUnschedulable, rep.Blocking[0].Reason)
	require.Contains(t, rep.Blocking[0].Message, "NodeResourcesFit: cpu 250m requested, 100m free of 1")
	require.Equal(t, []string{"node-00001"}, blockerNodes(rep.Waiting))

	// With a priority above web's, the default preemption makes room: on its way.
	prio := after
	prio.Pods = slices.Clone(after.Pods)
	for i, p := range prio.Pods {
		if p.Spec.NodeName == "" {
			p = p.DeepCopy()
			p.Spec.Priority = ptr.To[int32](1000)
			prio.Pods[i] = p
		}
	}
	rep, err = rollout.Progress(prio, after.DaemonSets[0], rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Empty(t, rep.Blocking)
	require.Equal(t, "the scheduler will preempt: NodeResourcesFit: cpu 250m requested, 100m free of 1; preempting 1 pod of priority 0 would make room (default/web)", rep.Waiting[0].Message)
}

// crowdedFirstNode is a DaemonSet whose pods request 250m of CPU and two nodes of 1 CPU,
// node-00000 holding a web pod of priority 0 that requests 900m: its daemon pod fits on
// node-00001 only, unless it preempts web.
func crowdedFirstNode() (*appsv1.DaemonSet, daemonset.Snapshot) {
	ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}
	ns := nodes(2)
	for _, n := range ns {
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("110")}
	}
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec:   v1.PodSpec{NodeName: "node-00000", Containers: []v1.Container{{Name: "web", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("900m")}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning}}
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: ns, Pods: []*v1.Pod{web}}
	return ds, s
}

// reporting gives ns the allocatable a kubelet reports (110 pods), as a node without any
// allocatable allows no pod (SCHED-1); ns is modified and returned.
func reporting(ns []*v1.Node) []*v1.Node {
	for _, n := range ns {
		n.Status.Allocatable = v1.ResourceList{v1.ResourcePods: resource.MustParse("110")}
	}
	return ns
}

func blockerNodes(bs []rollout.Blocker) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Node)
	}
	return out
}

// TestForecast: the steps of a rollout, its duration under a fixed start-up delay, and the
// blocking node when it cannot finish (ROLL-10).
func TestForecast(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(2), intstr.FromInt32(0), "agent:1", 0), 4)
	next := agent(intstr.FromInt32(2), intstr.FromInt32(0), "agent:2", 0)
	f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(20 * time.Second)}})
	require.NoError(t, err)
	require.True(t, f.Complete)
	require.Equal(t, 40*time.Second, f.Duration, "two waves of two nodes, 20 s each")
	replaced := 0
	for _, st := range f.Steps {
		replaced += st.Replaced
	}
	require.Equal(t, 4, replaced)

	f, err = rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(20 * time.Second), CrashLoop: 1}})
	require.NoError(t, err)
	require.False(t, f.Complete)
	require.Equal(t, rollout.StateStuck, f.Final.State)
	require.Len(t, f.Final.Blocking, 2, "the budget of 2 is held by two crash-looping pods")
	_ = metav1.Now
}

// TestForecastFilterScheduler: with the scheduler's filters as the scheduler model, a forecast
// whose pod cannot fit on a node does not complete and names the node and why; with every
// pod bound, as by default, it completes (SCHED-9).
func TestForecastFilterScheduler(t *testing.T) {
	ds, s := crowdedFirstNode()

	r, err := rollout.Forecast(s, ds, rollout.ForecastOptions{Now: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Second)}})
	require.NoError(t, err)
	require.Equal(t, rollout.StateComplete, r.Final.State, "every pod binds by default")

	r, err = rollout.Forecast(s, ds, rollout.ForecastOptions{Now: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(time.Second)},
		Scheduler: rollout.FilterScheduler(s, ds, daemonset.Version{}, nil)})
	require.NoError(t, err)
	require.Equal(t, rollout.StateStuck, r.Final.State)
	require.Equal(t, []string{"node-00000"}, blockerNodes(r.Final.Blocking))
	require.Equal(t, rollout.BlockUnschedulable, r.Final.Blocking[0].Reason)
	require.Contains(t, r.Final.Blocking[0].Message, "NodeResourcesFit: cpu 250m requested, 100m free of 1")
}

// TestProgressListsANodeOnce: a node is classified once (ROLL-8). A terminating pod on a node
// that is not Ready holds it up (NodeNotReady); the create the controller withholds meanwhile
// (DIFF-5) is the same wait, not a second CreateRefused entry. Two terminating pods are one
// entry too, and a node with a pod on its way beside a stuck one waits.
func TestProgressListsANodeOnce(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 3)
	s.Nodes = slices.Clone(s.Nodes)
	s.Pods = slices.Clone(s.Pods)
	notReady := s.Nodes[1].DeepCopy()
	notReady.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionUnknown}}
	s.Nodes[1] = notReady
	deleted := metav1.NewTime(t0)
	for i, p := range s.Pods {
		if p.Spec.NodeName == "node-00001" || p.Spec.NodeName == "node-00002" {
			p = p.DeepCopy()
			p.DeletionTimestamp = &deleted
			s.Pods[i] = p
			if p.Spec.NodeName == "node-00002" {
				twin := p.DeepCopy()
				twin.Name, twin.UID = p.Name+"-twin", p.UID+"-twin"
				s.Pods = append(s.Pods, twin)
			}
		}
	}
	before := make([]*v1.Pod, len(s.Pods))
	for i, p := range s.Pods {
		before[i] = p.DeepCopy()
	}
	next := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:2", 0)
	rep, err := rollout.Progress(s, next, rollout.ProgressOptions{Now: t0})
	require.NoError(t, err)
	require.Zero(t, rep.Actions, "nothing is created beside a terminating pod (DIFF-5)")
	require.Equal(t, []string{"node-00001"}, blockerNodes(rep.Blocking))
	require.Equal(t, rollout.BlockNodeNotReady, rep.Blocking[0].Reason)
	require.Equal(t, []string{"node-00002"}, blockerNodes(rep.Waiting))
	require.Equal(t, rollout.WaitTerminating, rep.Waiting[0].Reason)
	require.Equal(t, rollout.StateProgressing, rep.State, rep.Message)
	for i, p := range s.Pods {
		require.True(t, equality.Semantic.DeepEqual(before[i], p), "the input is not modified")
	}
}
