package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// revisionsOf maps the names of s's revisions to their revision numbers.
func revisionsOf(s daemonset.Snapshot) map[string]int64 {
	out := map[string]int64{}
	for _, r := range s.Revisions {
		out[r.Name] = r.Revision
	}
	return out
}

func hashLabels(s daemonset.Snapshot) map[string]string {
	out := map[string]string{}
	for _, p := range s.Pods {
		out[p.Name] = p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	}
	return out
}

// planSnapshot plans ds on the whole of s, revisions included.
func planSnapshot(ds *appsv1.DaemonSet, s daemonset.Snapshot, now time.Time) (*daemonset.Result, error) {
	if errs := s.Check(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	p, _ := daemonset.Compile(ds, daemonset.Options{Now: now})
	return p.Plan(s), nil
}

// TestApplyDedupsCurrentRevisions: when several revisions hold the current template, the
// sync keeps the one with the highest number, relabels every pod it claims to that one's hash
// and deletes the others (ROLL-4, upstream's dedupCurHistories); a pod it releases keeps its
// label.
func TestApplyDedupsCurrentRevisions(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 3)
	require.Len(t, s.Revisions, 1)
	ds := s.DaemonSets[0]
	cur := s.Revisions[0]
	hash := cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	dup := cur.DeepCopy()
	dup.Name, dup.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], dup.Revision = "agent-dup", "dup", cur.Revision+1
	s.Revisions = append(s.Revisions, dup)

	pods := make([]*v1.Pod, len(s.Pods))
	for i, p := range s.Pods {
		pods[i] = p.DeepCopy()
	}
	pods[1].Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "old"
	pods[2].Labels = map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash} // released: the selector no longer matches
	s.Pods = pods

	res, err := planSnapshot(ds, s, t0)
	require.NoError(t, err)
	require.Len(t, res.Release, 1)
	after, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"agent-dup": cur.Revision + 1}, revisionsOf(after), "the highest duplicate is kept")
	labels := hashLabels(after)
	require.Equal(t, "dup", labels[pods[0].Name])
	require.Equal(t, "dup", labels[pods[1].Name], "every claimed pod is relabelled, an old one too")
	require.Equal(t, hash, labels[pods[2].Name], "a released pod keeps its label")
	require.Equal(t, hash, pods[0].Labels[appsv1.DefaultDaemonSetUniqueLabelKey], "the input pods are not modified")
}

// TestApplyHistoryLivePods: the revision limit spares an old revision only for a pod of the
// DaemonSet with a target node (OWN-9), as upstream's cleanupHistory reads the pods grouped
// by node (ROLL-4).
func TestApplyHistoryLivePods(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 2)
	ds := s.DaemonSets[0].DeepCopy()
	ds.Spec.RevisionHistoryLimit = ptr.To[int32](0)
	s.DaemonSets[0] = ds
	cur := s.Revisions[0]
	old := func(name string) *appsv1.ControllerRevision {
		r := cur.DeepCopy()
		r.Name, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], r.Revision = name, name, cur.Revision-1
		r.Data.Raw = []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"` + name + `"}]}}}}`)
		return r
	}
	s.Revisions = append(s.Revisions, old("bound"), old("unbound"))
	bound := s.Pods[0].DeepCopy()
	bound.Name, bound.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "bound-pod", "bound"
	unbound := s.Pods[0].DeepCopy()
	unbound.Name, unbound.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "unbound-pod", "unbound"
	unbound.Spec.NodeName, unbound.Spec.Affinity = "", nil
	unbound.Status.Phase, unbound.DeletionTimestamp = v1.PodFailed, nil
	s.Pods = append(s.Pods, bound, unbound)

	res, err := planSnapshot(ds, s, t0)
	require.NoError(t, err)
	after, err := rollout.Apply(s, res, rollout.ApplyOptions{Now: t0.Add(time.Second)})
	require.NoError(t, err)
	got := revisionsOf(after)
	require.Contains(t, got, "bound", "a pod on a node keeps its revision")
	require.NotContains(t, got, "unbound", "a pod without a target node does not")
}

// TestApplyRevisionWriteErrors: a revision write that does not fit the snapshot is an error
// naming the write (ROLL-4), and the snapshot is not modified.
func TestApplyRevisionWriteErrors(t *testing.T) {
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 1)
	res, err := planSnapshot(s.DaemonSets[0], s, t0)
	require.NoError(t, err)
	require.Nil(t, res.Revisions, "a settled DaemonSet writes no revision")
	cur := s.Revisions[0]
	for _, tc := range []struct {
		path   string
		writes daemonset.RevisionWrites
	}{
		{"result.revisions.update[0]", daemonset.RevisionWrites{Update: []*appsv1.ControllerRevision{{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "missing"}}}}},
		{"result.revisions.delete[0]", daemonset.RevisionWrites{Delete: []daemonset.ObjectRef{{Namespace: "kube-system", Name: "missing"}}}},
		{"result.revisions.adopt[0]", daemonset.RevisionWrites{Adopt: []daemonset.ObjectRef{{Namespace: "kube-system", Name: "missing"}}}},
		{"result.revisions.release[0]", daemonset.RevisionWrites{Release: []daemonset.ObjectRef{{Namespace: "kube-system", Name: "missing"}}}},
		{"result.revisions.relabelPods[0]", daemonset.RevisionWrites{RelabelPods: []daemonset.Relabel{{Namespace: "kube-system", Name: "missing", Hash: "h"}}}},
		{"result.revisions.create[0]", daemonset.RevisionWrites{Create: []*appsv1.ControllerRevision{cur}}},
	} {
		bad := *res
		bad.Revisions = &tc.writes
		_, err := rollout.Apply(s, &bad, rollout.ApplyOptions{Now: t0})
		require.ErrorContains(t, err, tc.path)
	}
	require.Same(t, cur, s.Revisions[0])
}
