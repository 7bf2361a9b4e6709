package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
//   - D-2 orders: which DaemonSet adopts an orphan pod or ControllerRevision several of them
//     select, and whether one that a DaemonSet releases is adopted by another in the same round, depend on the order the
//     controller's work queue syncs them in, which is arbitrary (docs/decisions.md, D-2).
//     ExpectAll returns the expectations of every order of the DaemonSets that interact.

// maxOrders is the most queue orders ExpectAll plans (D-2); only orders that can decide
// differently are planned, so this is reached only by many DaemonSets contending in many ways.
const maxOrders = 720

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
			plans, _, err := expectPlain(alt, opts)
			if err != nil {
				return nil, err
			}
			for _, p := range plans {
				if p.Namespace == w.Namespace && p.Name == w.Name && !seen[p.RevisionHash] {
					seen[p.RevisionHash] = true
					p.Revisions = unraised(p.Revisions, raised, top)
					w.Alternatives = append(w.Alternatives, p)
				}
			}
		}
	}
	return want, nil
}

// unraised is rw with the update of raised, if it carries the raised number, carrying the
// number as stored (top): the raise only made the project keep it, and the controller that
// keeps it writes no new number.
func unraised(rw *daemonset.RevisionWrites, raised *appsv1.ControllerRevision, top int64) *daemonset.RevisionWrites {
	if rw == nil {
		return nil
	}
	i := slices.IndexFunc(rw.Update, func(u *appsv1.ControllerRevision) bool {
		return u.Namespace == raised.Namespace && u.Name == raised.Name && u.Revision == top+1
	})
	if i < 0 {
		return rw
	}
	c := *rw
	c.Update = slices.Clone(rw.Update)
	u := c.Update[i].DeepCopy()
	u.Revision = top
	c.Update[i] = u
	return &c
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
// DaemonSets select one orphan, the first of them to sync adopts it; when one releases a pod
// another selects, that one adopts it only if it syncs after. Only orders that decide some
// such pod differently are planned, and orders giving the same expectations are listed once.
// The error is Expect's, or says that more than 720 orders would have to be planned.
func ExpectAll(s daemonset.Snapshot, opts Options) ([][]Expected, error) {
	first, plans, err := expectPlain(s, opts)
	if err != nil {
		return nil, err
	}
	if first, err = withTies(s, opts, first); err != nil {
		return nil, err
	}
	out := [][]Expected{first}
	cs := contests(s, plans)
	if len(cs) == 0 {
		return out, nil
	}
	var dss []string
	for _, p := range plans.DaemonSets {
		dss = append(dss, p.Namespace+"/"+p.Name)
	}
	orders, ok := decisiveOrders(cs, dss)
	if !ok {
		return nil, fmt.Errorf("conformance: the DaemonSets sharing orphans or released pods can be synced in more than %d orders that decide differently (D-2)", maxOrders)
	}
	seen := map[string]bool{fingerprint(first): true}
	for _, order := range orders {
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

// contest is a pod or ControllerRevision whose owner after the round depends on the queue
// order: an orphan that several DaemonSets select (releaser empty), or an object releaser lets
// go that others select.
type contest struct {
	releaser string
	matchers []string
}

// contests lists the contested objects of the project's plans: the orphan pods their
// conflicts name, the released pods another DaemonSet's selector matches, and the same for
// ControllerRevisions (which no conflict reports): orphans several syncing DaemonSets select and
// released ones another selects.
func contests(s daemonset.Snapshot, plans *daemonset.ClusterResult) []contest {
	orphans := map[string]map[string]bool{}
	for _, p := range plans.DaemonSets {
		for _, c := range p.Conflicts {
			key := c.Namespace + "/" + c.Name
			if orphans[key] == nil {
				orphans[key] = map[string]bool{}
			}
			orphans[key][p.Namespace+"/"+p.Name], orphans[key][c.AdoptedBy] = true, true
		}
	}
	var out []contest
	for _, key := range slices.Sorted(maps.Keys(orphans)) {
		out = append(out, contest{matchers: slices.Sorted(maps.Keys(orphans[key]))})
	}
	if len(plans.DaemonSets) < 2 {
		return out
	}
	// Pods are claimed by the syncs that run; revisions also by those that then stop at a hash
	// collision (they claim their history first).
	podClaimers, revClaimers := map[string]bool{}, map[string]bool{}
	for _, p := range plans.DaemonSets {
		key := p.Namespace + "/" + p.Name
		podClaimers[key] = p.Skipped == ""
		revClaimers[key] = p.Skipped == "" || p.Skipped == daemonset.SkipHashCollision
	}
	pods := map[string]map[string]string{}
	for _, p := range s.Pods {
		if p != nil {
			pods[p.Namespace+"/"+p.Name] = p.Labels
		}
	}
	revs := map[string]map[string]string{}
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		revs[r.Namespace+"/"+r.Name] = r.Labels
		if metav1.GetControllerOfNoCopy(r) == nil && r.DeletionTimestamp == nil {
			if m := selecting(s, revClaimers, r.Namespace, r.Labels, ""); len(m) > 1 {
				out = append(out, contest{matchers: m})
			}
		}
	}
	for _, p := range plans.DaemonSets {
		key := p.Namespace + "/" + p.Name
		for _, r := range p.Release {
			if m := selecting(s, podClaimers, r.Namespace, pods[r.Namespace+"/"+r.Name], key); len(m) > 0 {
				out = append(out, contest{releaser: key, matchers: m})
			}
		}
		if p.Revisions == nil {
			continue
		}
		for _, r := range p.Revisions.Release {
			if m := selecting(s, revClaimers, r.Namespace, revs[r.Namespace+"/"+r.Name], key); len(m) > 0 {
				out = append(out, contest{releaser: key, matchers: m})
			}
		}
	}
	return out
}

// selecting returns, in s's order, the DaemonSets of namespace ns that claim (claimers) and
// whose selector matches set, but not the one named except.
func selecting(s daemonset.Snapshot, claimers map[string]bool, ns string, set map[string]string, except string) []string {
	var out []string
	for _, ds := range s.DaemonSets {
		if ds == nil {
			continue
		}
		key := ds.Namespace + "/" + ds.Name
		if ds.Namespace != ns || key == except || !claimers[key] || ds.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(set)) {
			out = append(out, key)
		}
	}
	return out
}

// decided says whether the owner of c is fixed once the DaemonSets of prefix have synced in
// that order (at is each one's position), whatever the order of the others.
func (c contest) decided(at map[string]int) bool {
	left, first := 0, -1
	for _, m := range c.matchers {
		if i, ok := at[m]; ok {
			if first < 0 || i < first {
				first = i
			}
			continue
		}
		left++
	}
	if c.releaser == "" {
		return first >= 0 || left <= 1 // the first matcher adopts
	}
	r, ok := at[c.releaser]
	if !ok {
		return left == 0 // every matcher synced before the release: nobody adopts
	}
	for _, m := range c.matchers {
		if i, ok := at[m]; ok && i > r {
			return true // the first matcher after the release adopts
		}
	}
	return left <= 1
}

// decisiveOrders returns orders of dss (complete, the rest in dss's order) covering every way
// the contests can be decided: a search that, at each step, tries only the DaemonSets some
// undecided contest names, and stops once every contest is decided. false when there would
// be more than maxOrders.
func decisiveOrders(cs []contest, dss []string) ([][]string, bool) {
	var out [][]string
	var walk func(prefix []string) bool
	walk = func(prefix []string) bool {
		at := map[string]int{}
		for i, d := range prefix {
			at[d] = i
		}
		next := map[string]bool{}
		for _, c := range cs {
			if c.decided(at) {
				continue
			}
			for _, d := range append([]string{c.releaser}, c.matchers...) {
				if _, placed := at[d]; d != "" && !placed {
					next[d] = true
				}
			}
		}
		if len(next) == 0 {
			order := slices.Clone(prefix)
			for _, d := range dss {
				if _, placed := at[d]; !placed {
					order = append(order, d)
				}
			}
			out = append(out, order)
			return len(out) <= maxOrders
		}
		for _, d := range dss {
			if next[d] && !walk(append(slices.Clone(prefix), d)) {
				return false
			}
		}
		return true
	}
	if !walk(nil) {
		return nil, false
	}
	return out, true
}

// reordered is s with the creation times of the named DaemonSets rewritten so that the
// project visits them in order (Snapshot.Plan goes by creationTimestamp, which nothing else of a
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
