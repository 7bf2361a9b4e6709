package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
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
