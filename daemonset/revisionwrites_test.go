package daemonset_test

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// rwRev is a ControllerRevision of rtDS() named name with revision n, holding ds's template
// (the current one when ds is rtDS()), labelled app=rt and, unless hash is "-", with that hash
// label; controlled by rt.
func rwRev(t testing.TB, ds *appsv1.DaemonSet, name, hash string, n int64, mods ...func(*appsv1.ControllerRevision)) *appsv1.ControllerRevision {
	t.Helper()
	r, err := daemonset.NewRevision(ds, hash, n)
	require.NoError(t, err)
	r.Name, r.UID = name, types.UID("uid-"+name)
	r.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "rt", "uid-rt", true)}
	r.ResourceVersion = "7"
	if hash == "-" {
		delete(r.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

func revOrphan(r *appsv1.ControllerRevision) { r.OwnerReferences = nil }
func revOther(r *appsv1.ControllerRevision) {
	r.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "rt", "uid-other", true)}
}
func revUnselected(r *appsv1.ControllerRevision) { r.Labels["app"] = "other" }

// rwSummary renders writes one line per write, in the order a controller sends them.
func rwSummary(w *daemonset.RevisionWrites) []string {
	if w == nil {
		return nil
	}
	var out []string
	for _, r := range w.Update {
		out = append(out, fmt.Sprintf("update %s rev=%d hash=%s", r.Name, r.Revision, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]))
	}
	for _, r := range w.Relabel {
		out = append(out, fmt.Sprintf("relabel revision %s rv=%s hash=%s", r.Name, r.ResourceVersion, r.Hash))
	}
	for _, r := range w.Adopt {
		out = append(out, "adopt "+r.Name)
	}
	for _, r := range w.Release {
		out = append(out, "release "+r.Name)
	}
	for _, r := range w.RelabelPods {
		out = append(out, fmt.Sprintf("relabel %s=%s", r.Name, r.Hash))
	}
	for _, r := range w.Delete {
		out = append(out, "delete "+r.Name)
	}
	for _, r := range w.Cleanup {
		out = append(out, "cleanup "+r.Name)
	}
	for _, r := range w.Create {
		out = append(out, fmt.Sprintf("create %s rev=%d hash=%s", r.Name, r.Revision, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]))
	}
	return out
}

// TestRevisionWritesRules is a table of the revision writes, one or more cases per rule of
// UPD-14 to UPD-22 and OWN-12 (docs/rules/rollingupdate.md).
func TestRevisionWritesRules(t *testing.T) {
	t.Parallel()
	cur := rtDS()
	h := hashOf(cur)
	v0 := rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "v0" })
	withLimit := func(n int32) dsMod { return func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To(n) } }
	olds := func(t testing.TB, k int) []*appsv1.ControllerRevision {
		var out []*appsv1.ControllerRevision
		for i := 1; i <= k; i++ {
			out = append(out, rwRev(t, v0, fmt.Sprintf("rt-o%d", i), fmt.Sprintf("o%d", i), int64(i)))
		}
		return out
	}
	type tc struct {
		name string
		ds   *appsv1.DaemonSet
		revs func(testing.TB) []*appsv1.ControllerRevision
		pods []*v1.Pod
		want []string
		hash string // the plan's revision hash; h when empty
		// nodes is the node count, 7 when 0.
		nodes int
	}
	for _, c := range []tc{
		{name: "UPD-14 step 5, UPD-15: no revision, revision 1 is created as rt-<hash>",
			revs: func(testing.TB) []*appsv1.ControllerRevision { return nil },
			want: []string{"create rt-" + h + " rev=1 hash=" + h}},
		{name: "UPD-14 step 5: the new revision is numbered one above the newest old one",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, v0, "rt-a", "a", 3), rwRev(t, v0, "rt-b", "b", 7)}
			},
			pods: []*v1.Pod{rtPod("p", "n0", "a")},
			want: []string{"create rt-" + h + " rev=8 hash=" + h}},
		{name: "UPD-14 step 1: claimed revisions without the hash label are labelled with their name",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "-", 5), rwRev(t, v0, "rt-old", "-", 2)}
			},
			want: []string{"update rt-cur rev=5 hash=rt-cur", "update rt-old rev=2 hash=rt-old"}, hash: "rt-cur"},
		{name: "UPD-14 step 4: the current revision is raised above the newest old one, label and number in one update",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "-", 2), rwRev(t, v0, "rt-old", "old", 5)}
			},
			want: []string{"update rt-cur rev=6 hash=rt-cur"}, hash: "rt-cur"},
		{name: "UPD-14 step 4: a current revision already the newest is left alone",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "c", 6), rwRev(t, v0, "rt-old", "old", 5)}
			},
			hash: "c"},
		{name: "UPD-14 step 3: duplicates are deleted after every claimed pod is relabelled to the kept hash",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-a", "a", 3), rwRev(t, cur, "rt-b", "b", 5), rwRev(t, cur, "rt-c", "c", 4)}
			},
			pods: []*v1.Pod{
				rtPod("p-a", "n0", "a"), rtPod("p-b", "n1", "b"), rtPod("p-old", "n2", "zz"),
				rtPod("p-nolabel", "n3", "", func(p *v1.Pod) { delete(p.Labels, appsv1.DefaultDaemonSetUniqueLabelKey) }),
				rtPod("p-orphan", "n4", "a", orphan),                                          // adopted, so relabelled
				rtPod("p-unbound", "", "a"),                                                   // claimed, no node: relabelled too
				rtPod("p-other", "n5", "a", owners(ownedBy("DaemonSet", "x", "uid-x", true))), // not ours
				rtPod("p-released", "n6", "a", podLabels(map[string]string{"app": "gone"})),   // released
			},
			want: []string{"relabel p-a=b", "relabel p-nolabel=b", "relabel p-old=b", "relabel p-orphan=b", "relabel p-unbound=b",
				"delete rt-a", "delete rt-c"},
			hash: "b"},
		{name: "UPD-14 step 3: among equal numbers the smallest name is kept (D-1)",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-z", "z", 5), rwRev(t, cur, "rt-y", "y", 5)}
			},
			want: []string{"delete rt-z"}, hash: "y"},
		{name: "OWN-12: orphans the selector matches are adopted, owned ones it no longer matches released",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				deleting := func(r *appsv1.ControllerRevision) { r.DeletionTimestamp = &metav1.Time{Time: now1000} }
				elsewhere := func(r *appsv1.ControllerRevision) { r.Namespace = "other" }
				return []*appsv1.ControllerRevision{
					rwRev(t, cur, "rt-cur", "c", 4, revOrphan),
					rwRev(t, v0, "rt-mine-unselected", "m", 2, revUnselected),
					rwRev(t, v0, "rt-others", "x", 9, revOther),
					rwRev(t, v0, "rt-orphan-deleting", "d", 9, revOrphan, deleting),
					rwRev(t, v0, "rt-orphan-unselected", "u", 9, revOrphan, revUnselected),
					rwRev(t, v0, "rt-elsewhere", "e", 9, revOrphan, elsewhere),
				}
			},
			want: []string{"adopt rt-cur", "release rt-mine-unselected"}, hash: "c"},
		{name: "UPD-16: data equal in JSON but not in bytes is not current",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				r := rwRev(t, cur, "rt-spaced", "s", 1)
				r.Data.Raw = append([]byte(" "), r.Data.Raw...)
				return []*appsv1.ControllerRevision{r}
			},
			want: []string{"create rt-" + h + " rev=2 hash=" + h}},
		{name: "UPD-17: an empty list hashes differently but stores the same data, so the stored revision stays current",
			ds: rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Tolerations = []v1.Toleration{} }),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "c", 1)}
			},
			hash: "c"},
		{name: "UPD-19: a template change is a new revision",
			ds: v0,
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "c", 1)}
			},
			want: []string{"create rt-" + hashOf(v0) + " rev=2 hash=" + hashOf(v0)},
			hash: hashOf(v0)},
		{name: "UPD-15: the collision count is part of the created name",
			ds:   rtDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To(int32(2)) }),
			revs: func(testing.TB) []*appsv1.ControllerRevision { return nil },
			want: []string{"create rt-" + hashOf(rtDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To(int32(2)) })) + " rev=1 hash=" +
				hashOf(rtDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To(int32(2)) }))},
			hash: hashOf(rtDS(func(ds *appsv1.DaemonSet) { ds.Status.CollisionCount = ptr.To(int32(2)) }))},
		{name: "UPD-14 step 5: a revision of the new name with the same data is reused, not created",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-"+h, "kept", 3, revOther)}
			},
			hash: "kept"},
		{name: "UPD-21: a collision writes the claims and labels only",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{
					rwRev(t, v0, "rt-"+h, "x", 3, revOther),
					rwRev(t, v0, "rt-old", "-", 1, revOrphan),
					rwRev(t, v0, "rt-gone", "g", 2, revUnselected),
				}
			},
			want: []string{"update rt-old rev=1 hash=rt-old", "adopt rt-old", "release rt-gone"}, hash: "-"},
		{name: "UPD-22: history beyond the limit is deleted oldest first, skipping revisions live pods use",
			ds: rtDS(withLimit(2)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 5), rwRev(t, cur, "rt-cur", "c", 6))
			},
			pods: []*v1.Pod{rtPod("p2", "n0", "o2"), rtPod("p-other", "n1", "o1", owners(ownedBy("DaemonSet", "x", "uid-x", true)))},
			want: []string{"cleanup rt-o1", "cleanup rt-o3", "cleanup rt-o4"}, hash: "c"},
		{name: "UPD-22: pods without a target node keep nothing, terminal pods being deleted do",
			ds: rtDS(withLimit(0)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 3), rwRev(t, cur, "rt-cur", "c", 6))
			},
			pods: []*v1.Pod{rtPod("unbound", "", "o1"),
				rtPod("failed", "n0", "o2", phase(v1.PodFailed), func(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now1000} })},
			want: []string{"cleanup rt-o1", "cleanup rt-o3"}, hash: "c"},
		{name: "UPD-22: an adopted pod the sync deletes and the API server removes at once keeps nothing",
			ds: rtDS(withLimit(0)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 2), rwRev(t, cur, "rt-cur", "c", 6))
			},
			pods: []*v1.Pod{rtPod("failed-orphan", "n0", "o1", orphan, phase(v1.PodFailed)), // DIFF-17 deletes it; terminal: removed at once
				rtPod("running", "n1", "c"), rtPod("dup-orphan", "n1", "o2", orphan, created(5), grace(30))}, // the younger duplicate, deleted gracefully: still there
			nodes: 2,
			want:  []string{"cleanup rt-o1"}, hash: "c"},
		{name: "UPD-22: an unset grace period counts as 0: the deleted adopted pod is removed at once and keeps nothing",
			ds: rtDS(withLimit(0)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 2), rwRev(t, cur, "rt-cur", "c", 6))
			},
			pods: []*v1.Pod{rtPod("running", "n1", "c"), rtPod("dup-orphan", "n1", "o2", orphan, created(5)),
				rtPod("slow-orphan", "n0", "o1", orphan, grace(30)), rtPod("n0-pod", "n0", "c", created(0))},
			nodes: 2,
			want:  []string{"cleanup rt-o2"}, hash: "c"},
		{name: "UPD-14 step 3 and UPD-22: the duplicates are deleted up front, the history clean-up listed apart, sent last",
			ds: rtDS(withLimit(0)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 1), rwRev(t, cur, "rt-cur", "c", 6), rwRev(t, cur, "rt-dup", "d", 5))
			},
			pods: []*v1.Pod{rtPod("p", "n0", "c")},
			want: []string{"delete rt-dup", "cleanup rt-o1"}, hash: "c"},
		{name: "UPD-22: an unset limit is 10",
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 11), rwRev(t, cur, "rt-cur", "c", 12))
			},
			want: []string{"cleanup rt-o1"}, hash: "c"},
		{name: "UPD-22: an unlabelled old revision is read with its name as hash",
			ds: rtDS(withLimit(0)),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, v0, "rt-o1", "-", 1), rwRev(t, cur, "rt-cur", "c", 6)}
			},
			pods: []*v1.Pod{rtPod("p", "n0", "rt-o1")},
			want: []string{"update rt-o1 rev=1 hash=rt-o1"}, hash: "c"},
		{name: "UPD-22: no clean-up when the rolling step stops on an error (UPD-5)",
			ds: rtDS(withLimit(0), func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("5"))}}
			}),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return append(olds(t, 1), rwRev(t, cur, "rt-cur", "c", 6))
			},
			pods:  []*v1.Pod{rtPod("p", "n0", "c")},
			nodes: 1, hash: "c"},
		{name: "UPD-22: no clean-up when manage's creates are refused (POD-3)",
			ds: rtDS(withLimit(0), func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Labels = nil
				ds.Spec.Selector.MatchLabels = nil
				ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "x", Operator: metav1.LabelSelectorOpDoesNotExist}}
			}),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				ds := rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = nil })
				r := rwRev(t, ds, "rt-cur", "", 6)
				r.Labels = map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: ""}
				o := rwRev(t, v0, "rt-o1", "o1", 1)
				o.Labels = map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "o1"}
				return []*appsv1.ControllerRevision{o, r}
			},
			hash: "-"},
		{name: "UPD-18, UPD-20: the rolling step's actions leave the writes alone",
			ds: rtDS(rolling(ios(1), ios(0))),
			revs: func(t testing.TB) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{rwRev(t, cur, "rt-cur", "c", 1)}
			},
			pods: []*v1.Pod{rtPod("p", "n0", "zz", ready)},
			hash: "c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ds := c.ds
			if ds == nil {
				ds = rtDS()
			}
			res := rtPlan(t, ds, nodes(cmp.Or(c.nodes, 7)), c.pods, c.revs(t)...)
			want := c.hash
			switch want {
			case "":
				want = h
			case "-":
				want = ""
			}
			require.Equal(t, want, res.RevisionHash)
			require.Equal(t, c.want, rwSummary(res.Revisions))
			if res.Revisions != nil {
				for _, r := range res.Revisions.Update {
					require.Equal(t, "7", r.ResourceVersion, "an update keeps the snapshot's resourceVersion")
				}
			}
		})
	}
}

// TestRevisionWritesCreateIsNewRevision: the created revision is NewRevision's object, and the
// relabel body is a merge patch of the one label.
func TestRevisionWritesCreateIsNewRevision(t *testing.T) {
	t.Parallel()
	ds := rtDS(func(ds *appsv1.DaemonSet) { ds.Annotations = map[string]string{"a": "b"} })
	res := rtPlan(t, ds, nodes(1), nil)
	want, err := daemonset.NewRevision(ds, hashOf(ds), 1)
	require.NoError(t, err)
	require.Equal(t, []*appsv1.ControllerRevision{want}, res.Revisions.Create)
	require.Equal(t, `{"metadata":{"labels":{"controller-revision-hash":"abc"}}}`, string(daemonset.Relabel{Hash: "abc"}.Patch()))
}

// TestRevisionWritesSkipped: a sync that stops before constructing history writes nothing
// (SYNC-3, SYNC-4, SYNC-5).
func TestRevisionWritesSkipped(t *testing.T) {
	t.Parallel()
	for _, ds := range []*appsv1.DaemonSet{
		rtDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = &metav1.Time{Time: now1000} }),
		rtDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }),
	} {
		res := rtPlan(t, ds, nodes(1), nil, rwRev(t, rtDS(), "rt-x", "-", 1, revOrphan))
		require.NotEmpty(t, res.Skipped)
		require.Nil(t, res.Revisions)
	}
}

// grace sets the pod's terminationGracePeriodSeconds.
func grace(sec int64) podMod {
	return func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = &sec }
}
