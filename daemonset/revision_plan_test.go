package daemonset_test

// The current revision and its hash as a sync finds them (UPD-14, UPD-21), through the public API.

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

func TestRevisionSCN104MatchingRevisionLabel(t *testing.T) {
	t.Parallel()
	ds := newDS()
	p, _ := daemonset.Compile(ds, opts())
	rev := revisionFor(t, ds, "custom", 1)
	revBefore := rev.DeepCopy()
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{rev}})
	if diff := cmp.Diff(revBefore, rev); diff != "" {
		t.Errorf("revision mutated (-before +after):\n%s", diff)
	}
	require.Equal(t, "custom", res.RevisionHash)
	require.Len(t, res.Create, 1)
	require.Equal(t, "custom", res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionD6WithoutRevisionsTheHashIsFresh(t *testing.T) {
	t.Parallel()
	ds := newDS()
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.Equal(t, v1363.ComputeHash(&ds.Spec.Template, nil), res.RevisionHash)
	require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionSCN105CollisionCount(t *testing.T) {
	t.Parallel()
	plain, err := daemonset.Plan(newDS(), nodes(1), nil, opts())
	require.NoError(t, err)
	withZero, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To[int32](0) }), nodes(1), nil, opts())
	require.NoError(t, err)
	withOne, err := daemonset.Plan(newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To[int32](1) }), nodes(1), nil, opts())
	require.NoError(t, err)
	require.NotEqual(t, plain.RevisionHash, withOne.RevisionHash, "UPD-15: collisionCount changes the hash")
	require.NotEqual(t, plain.RevisionHash, withZero.RevisionHash, "Surprise 30: collisionCount 0 differs from none")
	require.Equal(t, withOne.RevisionHash, withOne.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
}

func TestRevisionSCN106EmptyTolerationsChangeTheRawHash(t *testing.T) {
	t.Parallel()
	absent := newDS()
	empty := newDS(tolerations())
	empty.Spec.Template.Spec.Tolerations = []v1.Toleration{}
	require.NotEqual(t, hashOf(absent), hashOf(empty), "UPD-17: [] and nil hash differently")
	empty.Spec.Template.Spec.Tolerations = nil
	require.Equal(t, hashOf(absent), hashOf(empty), "UPD-17: equal once normalised to nil")
}

func TestRevisionSCN107StrategyChangesKeepTheHash(t *testing.T) {
	t.Parallel()
	before := newDS()
	after := newDS(rolling(ios(1), ios(0)), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 30 })
	require.Equal(t, hashOf(before), hashOf(after))
	// The pods of the OnDelete DaemonSet are current for the RollingUpdate one: no rollout.
	sc := scenario{ds: after, nodes: nodes(2), pods: []*v1.Pod{pod("p0", "n0", ready), pod("p1", "n1", ready)},
		want: sum(nil, nil, st(2, 2, 0, 2, 2, 2, 0))}
	sc.run(t)
}

func TestPlanD10HashCollision(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To[int32](2) })
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	// A revision named foo-<hash of ds> whose data is another template (UPD-21).
	rev := revisionFor(t, other, hashOf(ds), 1)
	p, _ := daemonset.Compile(ds, opts())
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(2), Pods: []*v1.Pod{pod("o", "n0", orphan)}, Revisions: []*appsv1.ControllerRevision{rev}})
	want := &daemonset.Result{
		Namespace: "default", Name: "foo", Skipped: daemonset.SkipHashCollision,
		Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: []daemonset.ObjectRef{}, Release: []daemonset.ObjectRef{},
		CollisionCount: ptr.To[int32](3),
		// The one status write: the stored status with the raised count (UPD-21).
		StatusWrite: &appsv1.DaemonSetStatus{CollisionCount: ptr.To[int32](3)},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
	}
}

func TestUPD21CollisionClaimsNothing(t *testing.T) {
	t.Parallel()
	ds := newDS(surgeDS)
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	// constructHistory fails before getNodesToDaemonPods: nothing is adopted, released,
	// deleted or created, and the only status written is the raised collisionCount (UPD-21,
	// D-10, audit F7).
	rev := revisionFor(t, other, hashOf(ds), 1)
	pods := []*v1.Pod{
		pod("orphan", "n0", orphan),                                     // would be adopted (OWN-4)
		pod("mismatch", "n0", podLabels(map[string]string{"app": "x"})), // would be released (OWN-3)
		pod("failed", "n1", phase(v1.PodFailed)),                        // would be deleted (DIFF-3)
		pod("stray", "", unscheduledFor("gone")),                        // would be deleted (DIFF-8)
	}
	p, _ := daemonset.Compile(ds, opts())
	res := p.Plan(daemonset.Snapshot{Nodes: nodes(3), Pods: pods, Revisions: []*appsv1.ControllerRevision{rev}})
	want := &daemonset.Result{
		Namespace: "default", Name: "foo", Skipped: daemonset.SkipHashCollision,
		Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}, Adopt: []daemonset.ObjectRef{}, Release: []daemonset.ObjectRef{},
		CollisionCount: ptr.To[int32](1),
		StatusWrite:    &appsv1.DaemonSetStatus{CollisionCount: ptr.To[int32](1)},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
	}
}

// revisionModel is constructHistory (controlledHistories with ClaimControllerRevisions, the
// label fix-up, Match, dedupCurHistories, snapshot with its AlreadyExists path) reduced to what
// the plan needs: the hash of the current revision, or a collision. Among current revisions of
// equal number upstream keeps the last listed; the model takes the smallest name (D-1).
func revisionModel(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, patch []byte) (hash string, collision bool) {
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		panic(err)
	}
	var current []*appsv1.ControllerRevision
	for _, h := range revs {
		if h.Namespace != ds.Namespace {
			continue // the lister is namespaced
		}
		match := sel.Matches(k8slabels.Set(h.Labels))
		if c := metav1.GetControllerOf(h); c != nil {
			if c.UID != ds.UID || !match {
				continue
			}
		} else if !match || h.DeletionTimestamp != nil {
			continue
		}
		if _, ok := h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			h = h.DeepCopy()
			h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h.Name
		}
		if string(h.Data.Raw) == string(patch) {
			current = append(current, h)
		}
	}
	if len(current) == 0 {
		fresh := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		for _, h := range revs {
			if h.Namespace == ds.Namespace && h.Name == ds.Name+"-"+fresh {
				if string(h.Data.Raw) != string(patch) {
					return "", true
				}
				return h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], false
			}
		}
		return fresh, false
	}
	keep := current[0]
	for _, h := range current[1:] {
		if h.Revision > keep.Revision || (h.Revision == keep.Revision && h.Name < keep.Name) {
			keep = h
		}
	}
	return keep.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], false
}

// UPD-14, UPD-15, UPD-16, UPD-21, OWN-12, D-6, D-10: the current hash (or the collision) chosen by
// Plan agrees with the constructHistory model on random sets of ControllerRevisions.
func TestRevisionAgainstUpstreamModel(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	ds := newDS()
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	rev, err := daemonset.NewRevision(ds, "", 0)
	require.NoError(t, err)
	patch := rev.Data.Raw
	fresh := hashOf(ds)
	for seed := uint64(0); seed < 3000; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var revs []*appsv1.ControllerRevision
		used := map[string]bool{}
		for i := r.IntN(5); i > 0; i-- {
			name := []string{"foo-" + fresh, "foo-h1", "foo-h2", "foo-h3"}[r.IntN(4)]
			nsName := []string{"default", "default", "default", "other"}[r.IntN(4)]
			if used[nsName+"/"+name] {
				continue
			}
			used[nsName+"/"+name] = true
			src := ds
			if r.IntN(3) == 0 {
				src = other
			}
			rev := revisionFor(t, src, "x", int64(r.IntN(4)))
			rev.Name, rev.Namespace = name, nsName
			switch r.IntN(5) {
			case 0:
				delete(rev.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
			case 1:
				rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = ""
			case 2:
				rev.Labels["app"] = "x" // the selector no longer matches: released, or not adopted
			default:
				rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = []string{"ha", "hb", fresh}[r.IntN(3)]
			}
			switch r.IntN(4) {
			case 0:
				rev.OwnerReferences = nil
			case 1:
				rev.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "bar", "uid-bar", true)}
			}
			if r.IntN(6) == 0 {
				rev.DeletionTimestamp = ptr.To(metav1.Unix(5, 0))
			}
			revs = append(revs, rev)
		}
		wantHash, wantCollision := revisionModel(ds, revs, patch)
		res := compiled(ds, now).Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: revs})
		gotCollision := res.Skipped == daemonset.SkipHashCollision
		require.Equal(t, wantCollision, gotCollision, "seed %d: collision", seed)
		if !wantCollision {
			require.Equal(t, wantHash, res.RevisionHash, "seed %d: hash", seed)
		}
	}
}
