package conformance

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The two choice classes outside one plan's D-1 marks: UPD-14 ties (Expected.Alternatives)
// and the queue order of D-2 (Case.Alternatives, ExpectAll).

// tiedCase has two revisions of the template with revision number 1, hashes aaa and bbb, and
// a rolling update (maxUnavailable 1) over two nodes whose pods carry bbb: keeping aaa, one of
// them is old and goes (UPD-9); keeping bbb, everything is updated and nothing happens.
func tiedCase() daemonset.Snapshot {
	ds := handDS(rolling(1, 0))
	var revs []*appsv1.ControllerRevision
	for _, h := range []string{"aaa", "bbb"} {
		r, err := daemonset.NewRevision(ds, h, 1)
		if err != nil {
			panic(err)
		}
		revs = append(revs, r)
	}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1", "n2"),
		Pods: oldPods("bbb", "n1", "n2"), Revisions: revs}
}

// contestedCase has two DaemonSets selecting app=d in namespace ns, the older "ds" and the
// younger "other", on one node holding one orphan: whichever the queue syncs first adopts it
// and keeps it; the other creates its own pod on the node.
func contestedCase() daemonset.Snapshot {
	other := handDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID = "other", types.UID("other-uid")
		ds.CreationTimestamp = metav1.NewTime(epoch.Add(-time.Minute))
	})
	first := handDS()
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{first, other}, Nodes: handNodes("n1"),
		Pods: []*v1.Pod{handPod("orphan", "n1", hashOf(first), v1.PodRunning, false)}}
}

func choiceCases() []handCase {
	return []handCase{
		{name: "regression-upd-14-equal-current-revisions", profile: "rolling", source: fmt.Sprintf(regressionSource, "UPD-14"),
			rules:       []string{"UPD-14", "UPD-9", "D-1"},
			description: "Two current ControllerRevisions with revision 1, hashes aaa and bbb, and two nodes whose pods carry bbb under maxUnavailable 1: upstream keeps either revision. Keeping aaa, one of the two pods is old and goes; keeping bbb, nothing happens. Both plans conform (expected and its alternatives).",
			snapshot:    tiedCase(),
			check: func(e []Expected) string {
				if len(e) != 1 || e[0].RevisionHash != "aaa" || len(e[0].Alternatives) != 1 || e[0].Alternatives[0].RevisionHash != "bbb" ||
					shape(e[0]) != "delete UPD-9 1 of ns/bbb-n1,ns/bbb-n2; status 2/2/0/2/0/2/0" ||
					shape(e[0].Alternatives[0]) != "status 2/2/0/2/2/2/0" {
					return fmt.Sprintf("%+v", e)
				}
				return ""
			}},
		{name: "d-2-orphan-two-daemonsets", profile: "diff", source: handSource + "; the queue order, docs/decisions.md D-2",
			rules:       []string{"D-2", "OWN-4", "DIFF-2"},
			description: "Two DaemonSets select one orphan on the only node: whichever the controller's queue syncs first adopts it, and the other creates its own pod there. The project's plan gives it to the older DaemonSet; the alternative, to the younger one, conforms too.",
			snapshot:    contestedCase(),
			check: func(e []Expected) string {
				if len(e) != 2 || !equal(refNames(e[0].Adopt), "orphan") || len(e[1].Adopt) != 0 || shape(e[0]) != "status 1/1/0/1/1/1/0" ||
					shape(e[1]) != "create n1; status 1/0/0/0/0/0/1" {
					return fmt.Sprintf("%s | %s", shape(e[0]), shape(e[1]))
				}
				return ""
			}},
	}
}

// TestChoiceAlternativesAccepted: the corpus keeps the alternatives, each one conforms, and a
// plan that mixes two of them does not.
func TestChoiceAlternativesAccepted(t *testing.T) {
	byName := corpusByName(t)
	if c := byName["d-2-orphan-two-daemonsets"]; len(c.Alternatives) != 1 || !equal(refNames(c.Alternatives[0][1].Adopt), "orphan") ||
		shape(c.Alternatives[0][0]) != "create n1; status 1/0/0/0/0/0/1" {
		t.Errorf("D-2: alternatives %+v", c.Alternatives)
	}

	// UPD-14: the plan that keeps bbb conforms; keeping bbb yet deleting a pod does not.
	c := byName["regression-upd-14-equal-current-revisions"]
	s, _ := c.Snapshot()
	opts, _ := c.Options()
	bumped := s
	bumped.Revisions = slices.Clone(s.Revisions)
	for i, r := range bumped.Revisions {
		if r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == "bbb" {
			bumped.Revisions[i] = r.DeepCopy()
			bumped.Revisions[i].Revision = 2
		}
	}
	keepB := planOf(t, bumped, opts)
	if keepB[0].RevisionHash != "bbb" {
		t.Fatalf("raising bbb's revision keeps %q", keepB[0].RevisionHash)
	}
	if ms, err := Check(s, keepB, opts); err != nil || len(ms) > 0 {
		t.Errorf("keeping bbb rejected: %v %v", ms, err)
	}
	if ms := VerifyAny(c.expectations(), keepB, opts); len(ms) > 0 {
		t.Errorf("keeping bbb rejected by the case: %v", ms)
	}
	keepA := planOf(t, s, opts)
	mixed := cloneResult(keepB[0])
	mixed.Delete = keepA[0].Delete
	if ms, _ := Check(s, []*daemonset.Result{mixed}, opts); len(ms) == 0 {
		t.Error("hash bbb with aaa's deletion accepted")
	}
	wrong := cloneResult(keepA[0])
	wrong.RevisionHash = "ccc"
	if ms, _ := Check(s, []*daemonset.Result{wrong}, opts); len(ms) == 0 || ms[0].Rule != "UPD-14" {
		t.Errorf("hash ccc: %v", ms)
	}

	// D-2: the younger DaemonSet adopting conforms; both adopting, or neither, does not.
	c = byName["d-2-orphan-two-daemonsets"]
	s, _ = c.Snapshot()
	opts, _ = c.Options()
	older := planOf(t, s, opts)
	younger := planOf(t, reordered(s, []string{"ns/other", "ns/ds"}), opts)
	if len(younger[1].Adopt) != 1 {
		t.Fatalf("reordered: the younger DaemonSet does not adopt: %+v", younger[1])
	}
	for name, wants := range map[string][][]Expected{"Check": nil, "case": c.expectations()} {
		verify := func(p []*daemonset.Result) []Mismatch {
			if wants == nil {
				ms, err := Check(s, p, opts)
				if err != nil {
					t.Fatal(err)
				}
				return ms
			}
			return VerifyAny(wants, p, opts)
		}
		if ms := verify(younger); len(ms) > 0 {
			t.Errorf("%s: the younger DaemonSet adopting rejected: %v", name, ms)
		}
		if ms := verify(older); len(ms) > 0 {
			t.Errorf("%s: the older DaemonSet adopting rejected: %v", name, ms)
		}
		if ms := verify([]*daemonset.Result{older[0], younger[1]}); len(ms) == 0 {
			t.Errorf("%s: both adopting accepted", name)
		}
		if ms := verify([]*daemonset.Result{younger[0], older[1]}); len(ms) == 0 {
			t.Errorf("%s: neither adopting accepted", name)
		}
	}
}

// TestDecisiveOrders: only orders that decide a contested pod differently are planned.
func TestDecisiveOrders(t *testing.T) {
	all := []string{"a", "b", "c", "d"}
	tests := []struct {
		name string
		cs   []contest
		want []string
	}{
		{"an orphan all four select: the first decides", []contest{{matchers: all}}, []string{"abcd", "bacd", "cabd", "dabc"}},
		{"an orphan two select: c and d do not matter", []contest{{matchers: []string{"b", "c"}}}, []string{"bacd", "cabd"}},
		{"a release one other selects: before or after", []contest{{releaser: "a", matchers: []string{"c"}}}, []string{"abcd", "cabd"}},
		{"a release two others select", []contest{{releaser: "b", matchers: []string{"a", "c"}}},
			[]string{"abcd", "acbd", "bacd", "bcad", "cabd", "cbad"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orders, ok := decisiveOrders(tt.cs, all)
			if !ok {
				t.Fatal("too many orders")
			}
			var got []string
			for _, o := range orders {
				got = append(got, strings.Join(o, ""))
			}
			if !equal(got, tt.want...) {
				t.Errorf("orders %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUpstreamPicksConform: the corpus accepts each answer the real v1.37.2 controller gave
// when run on these cases by internal/upstreamtest's TestCorpusAgainstUpstream (2026-11-28),
// whose pick follows its informers' list order, and refuses the same picks with another pick's
// writes. UPD-14: which of two tied current revisions is kept (Expected.Alternatives);
// DIFF-10: which nodes get pods and which pods go under the burst cap, with the status that
// pick counts (the orders' choice sets and the STAT-16 recount).
func TestUpstreamPicksConform(t *testing.T) {
	byName := corpusByName(t)
	judge := func(c Case, cand []*daemonset.Result) []Mismatch {
		opts, err := c.Options()
		require.NoError(t, err)
		return VerifyAny(c.expectations(), cand, opts)
	}

	t.Run("UPD-14: keeping the other tied revision, as upstream wrote it", func(t *testing.T) {
		c := byName["regression-upd-14-equal-current-revisions"]
		s, err := c.Snapshot()
		require.NoError(t, err)
		opts, err := c.Options()
		require.NoError(t, err)
		keepA := planOf(t, s, opts)
		require.Equal(t, "aaa", keepA[0].RevisionHash, "the project keeps aaa")
		keepB := cloneResult(keepA[0])
		keepB.RevisionHash, keepB.Delete = "bbb", nil
		keepB.Revisions = &daemonset.RevisionWrites{Delete: []daemonset.ObjectRef{{Namespace: "ns", Name: "ds-aaa"}}}
		st := keepA[0].Status.DeepCopy()
		st.UpdatedNumberScheduled, st.NumberUnavailable = 2, 0
		keepB.Status, keepB.StatusWrite = st, st.DeepCopy()
		if ms := judge(c, []*daemonset.Result{keepB}); len(ms) > 0 {
			t.Errorf("upstream's keeping bbb rejected: %v", ms)
		}
		if ms := judge(c, keepA); len(ms) > 0 {
			t.Errorf("upstream's keeping aaa (the project's plan) rejected: %v", ms)
		}
		wrong := cloneResult(keepB)
		wrong.Revisions = keepA[0].Revisions // keeps bbb, yet deletes it
		if ms := judge(c, []*daemonset.Result{wrong}); len(ms) == 0 {
			t.Error("keeping bbb with aaa's revision writes accepted")
		}
	})

	t.Run("DIFF-10: other pods deleted and other nodes created under the cap, as upstream wrote it", func(t *testing.T) {
		c := byName["generated-16-k8s-1-37"]
		s, err := c.Snapshot()
		require.NoError(t, err)
		opts, err := c.Options()
		require.NoError(t, err)
		own := planOf(t, s, opts)
		require.Len(t, own, 1)
		require.Equal(t, []string{"p01", "p02"}, deletedNames(own[0]), "the project's pick")
		// Upstream, listing the nodes in another order, deleted p05 and p07 (n3, where the pod
		// should not run) and so left n0's adopted Failed pod p01 in its status: one node fewer
		// counts as updated and available.
		other := cloneResult(own[0])
		other.Delete = []daemonset.Deletion{{Namespace: "ns", Name: "p05"}, {Namespace: "ns", Name: "p07"}}
		other.Create = otherCreates(t, own[0].Create, "n0", "n2", "n5")
		st := own[0].Status.DeepCopy()
		st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable = st.UpdatedNumberScheduled-1, st.NumberAvailable-1, st.NumberUnavailable+1
		other.Status, other.StatusWrite = st, st.DeepCopy()
		if ms := judge(c, []*daemonset.Result{other}); len(ms) > 0 {
			t.Errorf("upstream's pick rejected: %v", ms)
		}
		if ms := judge(c, own); len(ms) > 0 {
			t.Errorf("the project's pick rejected: %v", ms)
		}
		stale := cloneResult(other)
		stale.StatusWrite = own[0].StatusWrite // the status of the project's pick, not of this one
		if ms := judge(c, []*daemonset.Result{stale}); len(ms) != 1 || ms[0].Rule != "STAT-14" {
			t.Errorf("upstream's pick with the project's status write: %v, want one STAT-14 mismatch", ms)
		}
		over := cloneResult(other)
		over.Delete = append(over.Delete, daemonset.Deletion{Namespace: "ns", Name: "p08"})
		if ms := judge(c, []*daemonset.Result{over}); len(ms) == 0 {
			t.Error("three deletions under a burst cap of 2 accepted")
		}
	})
}

func deletedNames(r *daemonset.Result) []string {
	var out []string
	for _, d := range r.Delete {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// otherCreates returns creates for the nodes of candidates that creates does not use, as many
// as creates has, each the pod of creates[0] bound to its node instead.
func otherCreates(t *testing.T, creates []daemonset.Creation, candidates ...string) []daemonset.Creation {
	t.Helper()
	require.NotEmpty(t, creates)
	used := map[string]bool{}
	for _, c := range creates {
		used[c.Node] = true
	}
	var out []daemonset.Creation
	for _, n := range candidates {
		if used[n] || len(out) == len(creates) {
			continue
		}
		pod := creates[0].Pod.DeepCopy()
		pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values = []string{n}
		out = append(out, daemonset.Creation{Node: n, Pod: pod})
	}
	require.Len(t, out, 1, "one node the project did not pick")
	return append(out, creates[1:]...)
}
