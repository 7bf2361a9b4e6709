package daemonset_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// randomRevisionCase draws a DaemonSet rt, nodes, pods and revisions that exercise every
// revision write: current and old templates, missing hash labels, orphans, other owners,
// unselected labels, equal revision numbers, the <ds>-<hash> name taken, small history limits.
func randomRevisionCase(t testing.TB, r *rand.Rand) (*appsv1.DaemonSet, []*v1.Node, []*v1.Pod, []*appsv1.ControllerRevision) {
	ds := rtDS()
	if r.IntN(2) == 0 {
		ds.Spec.RevisionHistoryLimit = ptr.To(int32(r.IntN(3)))
	}
	if r.IntN(4) == 0 {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}
		ds = daemonset.WithDefaults(ds)
	}
	templates := []*appsv1.DaemonSet{ds}
	for i := range 3 {
		templates = append(templates, rtDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("v%d", i) }))
	}
	var revs []*appsv1.ControllerRevision
	var hashes []string
	for i := range r.IntN(7) {
		tmpl := templates[r.IntN(len(templates))]
		name := fmt.Sprintf("rt-r%d", i)
		hash := fmt.Sprintf("h%d", i)
		if r.IntN(8) == 0 {
			name = "rt-" + hashOf(ds) // the name the sync would create
		}
		if r.IntN(5) == 0 {
			hash = "-"
		}
		hashes = append(hashes, hash, name)
		rev := rwRev(t, tmpl, name, hash, int64(r.IntN(5)+1))
		switch r.IntN(6) {
		case 0:
			revOrphan(rev)
		case 1:
			revOther(rev)
		case 2:
			revUnselected(rev)
		}
		if slices.ContainsFunc(revs, func(o *appsv1.ControllerRevision) bool { return o.Name == rev.Name }) {
			continue
		}
		revs = append(revs, rev)
	}
	hashes = append(hashes, hashOf(ds), "")
	ns := nodes(3)
	var pods []*v1.Pod
	for i := range r.IntN(6) {
		node := fmt.Sprintf("n%d", r.IntN(4)) // n3 is not in the snapshot
		if r.IntN(6) == 0 {
			node = ""
		}
		p := rtPod(fmt.Sprintf("p%d", i), node, hashes[r.IntN(len(hashes))])
		p.UID = types.UID(fmt.Sprintf("uid-p%d", i))
		switch r.IntN(6) {
		case 0:
			orphan(p)
		case 1:
			p.Status.Phase = v1.PodFailed
			p.DeletionTimestamp = &metav1.Time{Time: now1000}
		}
		pods = append(pods, p)
	}
	return ds, ns, pods, revs
}

// applyRevisionWrites returns the snapshot after res's revision writes, the pod claims and
// relabels, and the collision count, in the order RevisionWrites documents, as an API server
// would leave it. The inputs are not modified.
func applyRevisionWrites(ds *appsv1.DaemonSet, pods []*v1.Pod, revs []*appsv1.ControllerRevision, res *daemonset.Result) (*appsv1.DaemonSet, []*v1.Pod, []*appsv1.ControllerRevision) {
	ds = ds.DeepCopy()
	if res.CollisionCount != nil {
		ds.Status.CollisionCount = ptr.To(*res.CollisionCount)
	}
	revs = slices.Clone(revs)
	pods = slices.Clone(pods)
	at := func(name string) int {
		return slices.IndexFunc(revs, func(r *appsv1.ControllerRevision) bool { return r.Name == name })
	}
	podAt := func(name string) int { return slices.IndexFunc(pods, func(p *v1.Pod) bool { return p.Name == name }) }
	ctrl := *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	if w := res.Revisions; w != nil {
		for _, u := range w.Update {
			revs[at(u.Name)] = u.DeepCopy()
		}
		for _, l := range w.Relabel {
			c := revs[at(l.Name)].DeepCopy()
			c.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = l.Hash
			revs[at(l.Name)] = c
		}
		for _, a := range w.Adopt {
			c := revs[at(a.Name)].DeepCopy()
			c.OwnerReferences = append(c.OwnerReferences, ctrl)
			revs[at(a.Name)] = c
		}
		for _, a := range w.Release {
			c := revs[at(a.Name)].DeepCopy()
			c.OwnerReferences = slices.DeleteFunc(c.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == ds.UID })
			revs[at(a.Name)] = c
		}
		for _, p := range w.RelabelPods {
			c := pods[podAt(p.Name)].DeepCopy()
			c.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = p.Hash
			pods[podAt(p.Name)] = c
		}
		for _, d := range slices.Concat(w.Delete, w.Cleanup) {
			revs = slices.Delete(revs, at(d.Name), at(d.Name)+1)
		}
		for _, c := range w.Create {
			c = c.DeepCopy()
			c.UID = types.UID("uid-" + c.Name)
			revs = append(revs, c)
		}
	}
	for _, a := range res.Adopt {
		c := pods[podAt(a.Name)].DeepCopy()
		c.OwnerReferences = append(c.OwnerReferences, ctrl)
		pods[podAt(a.Name)] = c
	}
	for _, a := range res.Release {
		c := pods[podAt(a.Name)].DeepCopy()
		c.OwnerReferences = nil
		pods[podAt(a.Name)] = c
	}
	return ds, pods, revs
}

// TestPropertyRevisionWritesConverge: applying a plan's revision writes and planning again
// writes nothing more, unless the first sync relabelled pods (the clean-up reads the labels as
// they were), found a collision (the next sync creates the revision of the new hash) or
// stopped before its clean-up (UPD-22); in every case the third plan writes nothing.
func TestPropertyRevisionWritesConverge(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 0))
	for i := range 500 {
		ds, ns, pods, revs := randomRevisionCase(t, r)
		var prev *daemonset.Result
		for round := range 3 {
			res := rtPlan(t, ds, ns, pods, revs...) // also checks that nothing is mutated
			if round == 1 && res.Revisions != nil {
				w := res.Revisions
				deletesOnly := len(w.Create)+len(w.Update)+len(w.Relabel)+len(w.Adopt)+len(w.Release)+len(w.RelabelPods) == 0
				excused := prev.Revisions != nil && len(prev.Revisions.RelabelPods) > 0 || prev.CollisionCount != nil ||
					deletesOnly && (prev.RevisionHash == "" || prev.RollingUpdate.Error != "")
				require.True(t, excused, "case %d: the second sync writes %v after %v", i, rwSummary(w), rwSummary(prev.Revisions))
			}
			if round == 2 {
				require.Nil(t, res.Revisions, "case %d: the third sync writes %v", i, rwSummary(res.Revisions))
			}
			ds, pods, revs = applyRevisionWrites(ds, pods, revs, res)
			prev = res
		}
	}
}

// TestRevisionWritesBadInput: revisions that no API server would hold, or that no controller
// of this DaemonSet wrote, get the documented handling, without a panic or a mutation.
func TestRevisionWritesBadInput(t *testing.T) {
	t.Parallel()
	cur := rtDS()
	v0 := rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "v0" })
	limit0 := rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To(int32(0)) })
	for _, c := range []struct {
		name string
		ds   *appsv1.DaemonSet
		revs func(testing.TB) []*appsv1.ControllerRevision
		want []string
	}{
		{"data that is not JSON is an old revision, cleaned up like any other", limit0,
			func(t testing.TB) []*appsv1.ControllerRevision {
				bad := rwRev(t, cur, "rt-bad", "b", 1)
				bad.Data.Raw = []byte("{not json")
				none := rwRev(t, cur, "rt-none", "n", 2)
				none.Data.Raw = nil
				return []*appsv1.ControllerRevision{bad, none, rwRev(t, limit0, "rt-cur", "c", 3)}
			}, []string{"cleanup rt-bad", "cleanup rt-none"}},
		{"an unlabelled revision whose data is not JSON is labelled by a patch, not a PUT (D-15)", nil,
			func(t testing.TB) []*appsv1.ControllerRevision {
				bad := rwRev(t, cur, "rt-bad", "-", 1)
				bad.Data.Raw = []byte("\x00not json")
				empty := rwRev(t, cur, "rt-empty", "-", 2)
				empty.Data.Raw = nil
				return []*appsv1.ControllerRevision{bad, empty, rwRev(t, cur, "rt-cur", "c", 3)}
			}, []string{"update rt-empty rev=2 hash=rt-empty", "relabel revision rt-bad rv=7 hash=rt-bad"}},
		{"a revision another controller owns is neither claimed, counted nor deleted", limit0,
			func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{
					rwRev(t, v0, "rt-theirs", "t", 50, func(r *appsv1.ControllerRevision) {
						r.OwnerReferences = []metav1.OwnerReference{ownedBy("StatefulSet", "rt", "uid-sts", true)}
					}),
					rwRev(t, limit0, "rt-cur", "c", 3)}
			}, nil},
		{"equal revision numbers among old revisions: the clean-up takes them by name", limit0,
			func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, v0, "rt-b", "b", 1), rwRev(t, v0, "rt-a", "a", 1), rwRev(t, limit0, "rt-cur", "c", 3)}
			}, []string{"cleanup rt-a", "cleanup rt-b"}},
		{"an old revision numbered like the current one: the current one is raised", nil,
			func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, v0, "rt-o", "o", 3), rwRev(t, cur, "rt-cur", "c", 3)}
			}, []string{"update rt-cur rev=4 hash=c"}},
		{"negative revision numbers: the next is one above the highest, at least 1", nil,
			func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, v0, "rt-o", "o", -4)}
			}, []string{"create rt-" + hashOf(cur) + " rev=1 hash=" + hashOf(cur)}},
		{"a claimed revision with no labels at all is labelled in a new map", rtDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: metav1.LabelSelectorOpDoesNotExist}}}
		}), func(t testing.TB) []*appsv1.ControllerRevision {
			r := rwRev(t, v0, "rt-o", "o", 1)
			r.Labels = nil
			return []*appsv1.ControllerRevision{r}
		}, []string{"update rt-o rev=1 hash=rt-o", "create rt-" + hashOf(cur) + " rev=2 hash=" + hashOf(cur)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ds := c.ds
			if ds == nil {
				ds = cur
			}
			res := rtPlan(t, ds, nodes(1), []*v1.Pod{rtPod("p", "n0", "c")}, c.revs(t)...)
			require.Equal(t, c.want, rwSummary(res.Revisions))
			_, err := json.Marshal(res)
			require.NoError(t, err, "a Result always encodes as JSON")
		})
	}
}

// TestRevisionRelabelPatch: the label write of a revision whose data is not JSON is a JSON merge
// patch carrying the snapshot's resourceVersion as its precondition (UPD-14 step 1, D-15).
func TestRevisionRelabelPatch(t *testing.T) {
	t.Parallel()
	got := daemonset.Relabel{Name: "rt-bad", ResourceVersion: "7", Hash: "rt-bad"}.Patch()
	require.Equal(t, `{"metadata":{"labels":{"controller-revision-hash":"rt-bad"},"resourceVersion":"7"}}`, string(got))
	got = daemonset.Relabel{Name: "x", Hash: "x"}.Patch()
	require.Equal(t, `{"metadata":{"labels":{"controller-revision-hash":"x"}}}`, string(got))
}
