package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Two choices of the controller follow no D-1 rule inside one plan but shape the whole plan of
// a DaemonSet, or of several:
//
//   - UPD-14 ties: of several current ControllerRevisions with the same, highest revision
//     number, upstream keeps the one it lists last, and list order is arbitrary. The kept
//     revision's hash is the one the created pods carry and the one that makes pods updated,
//     so every action of the sync may follow either. Expected.Alternatives holds the
//     expectation of each other tied revision.
//   - D-2 orders: which DaemonSet adopts an orphan several of them select, and whether a pod
//     one DaemonSet releases is adopted by another in the same round, depend on the order the
//     controller's work queue syncs them in, which is arbitrary (docs/decisions.md, D-2).
//     ExpectAll returns the expectations of every order of the DaemonSets that interact.

// maxOrdered is the most DaemonSets whose orders ExpectAll enumerates (6! = 720 plans).
const maxOrdered = 6

// withTies adds to each entry of want the expectations under the other current revisions tied
// with the one the project keeps (UPD-14, D-1). A tied revision is found by raising its number
// above the kept one's in a copy of s, which makes the project keep it; only revisions whose
// raise changes the hash are alternatives (the others are not current, or not claimed).
func withTies(s daemonset.Snapshot, opts Options, want []Expected) ([]Expected, error) {
	for i := range want {
		w := &want[i]
		if w.Skipped != "" {
			continue
		}
		top, found := int64(0), false
		for _, r := range s.Revisions {
			if r != nil && r.Namespace == w.Namespace && revisionHash(r) == w.RevisionHash && (!found || r.Revision > top) {
				top, found = r.Revision, true
			}
		}
		if !found {
			continue
		}
		seen := map[string]bool{w.RevisionHash: true}
		for j, r := range s.Revisions {
			if r == nil || r.Namespace != w.Namespace || r.Revision != top || seen[revisionHash(r)] {
				continue
			}
			raised := r.DeepCopy()
			raised.Revision = top + 1
			alt := s
			alt.Revisions = slices.Clone(s.Revisions)
			alt.Revisions[j] = raised
			plans, err := expectPlain(alt, opts)
			if err != nil {
				return nil, err
			}
			for _, p := range plans {
				if p.Namespace == w.Namespace && p.Name == w.Name && !seen[p.RevisionHash] {
					seen[p.RevisionHash] = true
					w.Alternatives = append(w.Alternatives, p)
				}
			}
		}
	}
	return want, nil
}

// revisionHash is the hash a current revision gives: its label, or its name without one.
func revisionHash(r *appsv1.ControllerRevision) string {
	if h, ok := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; ok {
		return h
	}
	return r.Name
}

// ExpectAll returns the expectations of every order the controller's work queue may sync the
// DaemonSets of s in (D-2), the one the project plans (Expect) first: when several
// DaemonSets select one orphan, or one releases a pod another selects, each order of those
// DaemonSets may give another plan. Orders giving the same expectations are listed once. The
// error is Expect's, or says that more than six DaemonSets interact so, which is not
// enumerated.
func ExpectAll(s daemonset.Snapshot, opts Options) ([][]Expected, error) {
	first, err := Expect(s, opts)
	if err != nil {
		return nil, err
	}
	out := [][]Expected{first}
	plans, err := daemonset.PlanCluster(s, opts.planOptions())
	if err != nil {
		return nil, err
	}
	inter := interacting(s, plans)
	if len(inter) < 2 {
		return out, nil
	}
	if len(inter) > maxOrdered {
		return nil, fmt.Errorf("conformance: %d DaemonSets share orphans or released pods (%s); at most %d are supported",
			len(inter), strings.Join(inter, ", "), maxOrdered)
	}
	seen := map[string]bool{fingerprint(first): true}
	for _, order := range permutations(inter) {
		alt, err := Expect(reordered(s, order), opts)
		if err != nil {
			return nil, err
		}
		if fp := fingerprint(alt); !seen[fp] {
			seen[fp] = true
			out = append(out, alt)
		}
	}
	return out, nil
}

// interacting lists the DaemonSets whose plan may depend on the order of the queue: those an
// orphan conflict names, and each DaemonSet that releases a pod with every other DaemonSet
// whose selector matches that pod (visited after the release, it adopts the pod).
func interacting(s daemonset.Snapshot, plans *daemonset.ClusterResult) []string {
	in := map[string]bool{}
	pods := map[string]map[string]string{}
	for _, p := range s.Pods {
		if p != nil {
			pods[p.Namespace+"/"+p.Name] = p.Labels
		}
	}
	for _, p := range plans.DaemonSets {
		for _, c := range p.Conflicts {
			in[p.Namespace+"/"+p.Name], in[c.AdoptedBy] = true, true
		}
		for _, r := range p.Release {
			for _, ds := range s.DaemonSets {
				if ds == nil || ds.Namespace != r.Namespace || ds.DeletionTimestamp != nil || ds.Spec.Selector == nil {
					continue
				}
				sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
				if err == nil && !sel.Empty() && sel.Matches(labels.Set(pods[r.Namespace+"/"+r.Name])) {
					in[p.Namespace+"/"+p.Name], in[ds.Namespace+"/"+ds.Name] = true, true
				}
			}
		}
	}
	var out []string
	for _, p := range plans.DaemonSets {
		if in[p.Namespace+"/"+p.Name] {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// reordered is s with the creation times of the named DaemonSets rewritten so that the
// project visits them in order (PlanCluster goes by creationTimestamp, which nothing else of a
// plan reads); the other DaemonSets do not interact with them and keep theirs.
func reordered(s daemonset.Snapshot, order []string) daemonset.Snapshot {
	pos := map[string]int{}
	for i, k := range order {
		pos[k] = i
	}
	out := s
	out.DaemonSets = slices.Clone(s.DaemonSets)
	for i, ds := range out.DaemonSets {
		if ds == nil {
			continue
		}
		if p, ok := pos[ds.Namespace+"/"+ds.Name]; ok {
			c := ds.DeepCopy()
			c.CreationTimestamp = metav1.NewTime(time.Unix(0, int64(p)))
			out.DaemonSets[i] = c
		}
	}
	return out
}

// permutations returns every order of xs, xs itself first.
func permutations(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{slices.Clone(xs)}
	}
	var out [][]string
	for i := range xs {
		rest := slices.Concat(xs[:i:i], xs[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}

func fingerprint(e []Expected) string {
	data, err := json.Marshal(e)
	if err != nil {
		panic(err) // Expected holds API types and plain values only
	}
	return string(data)
}

// VerifyAny checks candidate against each of wants (from ExpectAll, or a corpus case's
// expected and alternatives): none means it conforms to one of them. Otherwise it returns
// the mismatches against the closest one (the fewest mismatches, the earliest on a tie).
func VerifyAny(wants [][]Expected, candidate []*daemonset.Result, opts Options) []Mismatch {
	var best []Mismatch
	for i, want := range wants {
		m := Verify(want, candidate, opts)
		if len(m) == 0 {
			return nil
		}
		if i == 0 || len(m) < len(best) {
			best = m
		}
	}
	return best
}
