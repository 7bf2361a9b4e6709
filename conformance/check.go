package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/choice"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Options are the inputs of a check besides the snapshot and the candidate.
type Options struct {
	// Now is the instant of the sync (UPD-12); required.
	Now time.Time
	// BurstLimit is the controller's burst cap (DIFF-10), as [daemonset.Options.BurstLimit]:
	// 0 means the controller's 250 ([daemonset.DefaultBurstLimit]), a negative value
	// ([daemonset.NoBurstLimit]) no cap (D-18).
	BurstLimit int
	// Version is the Kubernetes release whose controller judges the candidate
	// ([daemonset.Options.Version]); the zero Version is the default release.
	Version daemonset.Version
	// FeatureGates sets feature gates over the release's defaults
	// ([daemonset.Options.FeatureGates]; TAINT-10, D-7).
	FeatureGates daemonset.FeatureGates
	// Backoff is the failed-pod back-off in force at the start of the sync
	// ([daemonset.Options.Backoff], DIFF-12), for judging a controller in the middle of its
	// life; nil means none, as in every corpus case.
	Backoff []daemonset.BackoffEntry
	// Reasons also compares the reason of every create and delete.
	Reasons bool
	// Revisions requires the candidate to report its ControllerRevision writes: a plan
	// without revisions where the controller writes some is a mismatch (UPD-14, UPD-22).
	// Without it, a plan that leaves revisions out is taken as one that does not model them
	// and is not faulted for it, while a plan that reports them is checked in full. The corpus
	// requires them in the rolling profile.
	Revisions bool
}

// burstCap is the cap in force under a BurstLimit (D-18): the controller's 250 for 0, and 0
// (none, as verifySelection reads it) for a negative one.
func burstCap(limit int) int {
	switch {
	case limit == 0:
		return daemonset.DefaultBurstLimit
	case limit < 0:
		return 0
	}
	return limit
}

func (o Options) planOptions() daemonset.Options {
	return daemonset.Options{Now: o.Now, Version: o.Version, BurstLimit: o.BurstLimit, FeatureGates: o.FeatureGates, Backoff: o.Backoff}
}

// Mismatch is one way a candidate plan differs from every plan the controller could produce.
type Mismatch struct {
	// DaemonSet is the namespace/name of the plan the mismatch is in; empty for the candidate
	// as a whole.
	DaemonSet string `json:"daemonSet,omitempty"`
	// Action is what differs: create, delete, adopt, release, status, rollingUpdate,
	// revisionHash, skipped, collisionCount, revisions or plan.
	Action string `json:"action"`
	// Object is the node, pod or field concerned.
	Object string `json:"object,omitempty"`
	// Rule is the rule of the specification the candidate breaks.
	Rule string `json:"rule"`
	// Message says what differs, in words.
	Message string `json:"message"`
	// Diff is a go-cmp diff (-want +got) where a pod or the status differs; of one DaemonSet's
	// creates, the first MaxMismatches pods that differ have one, the others say so.
	Diff string `json:"diff,omitempty"`
}

// String renders m on one line: DaemonSet, action, object, rule and message.
func (m Mismatch) String() string {
	ds := m.DaemonSet
	if ds == "" {
		ds = "-"
	}
	obj := m.Object
	if obj == "" {
		obj = "-"
	}
	return fmt.Sprintf("%s %s %s %s: %s", ds, m.Action, obj, m.Rule, m.Message)
}

// Expected is what every conforming plan of one DaemonSet agrees on, and the choices it may
// make: the deterministic fields of the project's plan and the choice sets of the sync.
// A corpus case stores it (testdata/case.schema.json).
type Expected struct {
	Namespace      string                   `json:"namespace"`
	Name           string                   `json:"name"`
	RevisionHash   string                   `json:"revisionHash"`
	Skipped        daemonset.Skip           `json:"skipped,omitempty"`
	Adopt          []daemonset.ObjectRef    `json:"adopt"`
	Release        []daemonset.ObjectRef    `json:"release"`
	RollingUpdate  *daemonset.RollingUpdate `json:"rollingUpdate,omitempty"`
	Status         *appsv1.DaemonSetStatus  `json:"status"`
	CollisionCount *int32                   `json:"collisionCount,omitempty"`
	// Revisions are the revision writes of the sync (UPD-14, UPD-21, UPD-22, OWN-12).
	Revisions *daemonset.RevisionWrites `json:"revisions,omitempty"`
	// StatusWrite, Backoff and RequeueAfter are the plan's (STAT-14, DIFF-12, SYNC-8); a
	// candidate that gives them is checked against them.
	StatusWrite  *appsv1.DaemonSetStatus  `json:"statusWrite,omitempty"`
	Backoff      []daemonset.BackoffEntry `json:"backoff,omitempty"`
	RequeueAfter metav1.Duration          `json:"requeueAfter,omitzero"`
	// Orders are the choice sets of the sync: every order and pick of the controller a
	// conforming plan may make. A corpus case stores them as its orders
	// (testdata/case.schema.json).
	Orders *Orders `json:"orders"`
	// StatusDeletes are the plan's deletions of the pods Orders.Status names: Status is
	// counted for them, and recounted for a candidate that picked others (STAT-16).
	StatusDeletes []daemonset.ObjectRef `json:"statusDeletes,omitempty"`
	// Alternatives are the expectations had the controller kept another of several current
	// ControllerRevisions with the same revision number (UPD-14 ties: upstream keeps the one
	// it lists last, in arbitrary order): another RevisionHash and all that follows from it.
	// A plan conforms when it conforms to this Expected or to one of them.
	Alternatives []Expected `json:"alternatives,omitempty"`
}

// Expect computes the Expected of every DaemonSet of s, sorted by namespace/name. The error
// reports a snapshot that cannot be planned (daemonset.Snapshot.Check) or a zero Now.
func Expect(s daemonset.Snapshot, opts Options) ([]Expected, error) {
	want, _, err := expectPlain(s, opts)
	if err != nil {
		return nil, err
	}
	return withTies(s, opts, want)
}

// expectPlain is Expect without the alternatives of UPD-14 ties; it also returns the plans.
func expectPlain(s daemonset.Snapshot, opts Options) ([]Expected, *daemonset.ClusterResult, error) {
	if opts.Now.IsZero() {
		return nil, nil, fmt.Errorf("conformance: Options.Now is required")
	}
	plans, err := s.Plan(opts.planOptions())
	if err != nil {
		return nil, nil, err
	}
	ords, err := s.Orders(opts.planOptions())
	if err != nil {
		return nil, nil, err
	}
	out := make([]Expected, len(plans.DaemonSets))
	for i, w := range plans.DaemonSets {
		out[i] = Expected{Namespace: w.Namespace, Name: w.Name, RevisionHash: w.RevisionHash, Skipped: w.Skipped,
			Adopt: w.Adopt, Release: w.Release, RollingUpdate: w.RollingUpdate, Status: w.Status,
			CollisionCount: w.CollisionCount, Revisions: w.Revisions, StatusWrite: w.StatusWrite, Backoff: w.Backoff,
			RequeueAfter: w.RequeueAfter, Orders: &Orders{sets: ords[i]}, StatusDeletes: statusDeletes(ords[i], w.Delete)}
	}
	return out, plans, nil
}

// Check decides whether candidate, the plans of every DaemonSet of s, is one the v1.36
// controller could have produced in one sync; it is ExpectAll followed by VerifyAny.
//
// Where the controller picks at random (D-1: rolling-update and surge candidates, UPD-9 and
// UPD-23; the Failed pod of a node, DIFF-17; the part of a list over the burst cap, DIFF-10;
// the kept one of tied current revisions, UPD-14; the DaemonSet that adopts a shared orphan,
// D-2) any valid choice is accepted. The write-ready keys (the uids of pods, statusWrite, backoff,
// requeueAfter) are optional and checked when given. Interchangeable marks, events, conflicts and
// invalid lists are explanations and are not compared; reasons (of actions and of the
// rolling-update report) and error texts only with Options.Reasons; revision writes when the
// candidate reports them or Options.Revisions requires them. A rolling-update report of a step
// that did not act may leave its budgets out (0/0, no budgetError; UPD-5). Created pods are
// compared as ComparePods does. What the controller's own
// requests do not carry may be left empty: revisionHash, the node of a delete. A plan marked
// pending (Planner.PlanPending) is a SYNC-9 mismatch: Check judges the sync with its
// expectations met. The mismatches come sorted by DaemonSet; none means the candidate conforms.
func Check(s daemonset.Snapshot, candidate []*daemonset.Result, opts Options) ([]Mismatch, error) {
	wants, err := ExpectAll(s, opts)
	if err != nil {
		return nil, err
	}
	return VerifyAny(wants, candidate, opts), nil
}

// Verify checks candidate against want (from Expect or a corpus case); only opts.Reasons and
// opts.Revisions are read.
func Verify(want []Expected, candidate []*daemonset.Result, opts Options) []Mismatch {
	var out []Mismatch
	got := map[string]*daemonset.Result{}
	for i, r := range candidate {
		if r == nil {
			out = append(out, Mismatch{Action: "plan", Object: fmt.Sprintf("daemonSets[%d]", i), Rule: "SYNC-2", Message: "null plan"})
			continue
		}
		key := r.Namespace + "/" + r.Name
		if _, dup := got[key]; dup {
			out = append(out, Mismatch{DaemonSet: key, Action: "plan", Rule: "SYNC-2", Message: "two plans for one DaemonSet"})
			continue
		}
		got[key] = r
	}
	known := map[string]bool{}
	for i := range want {
		w := &want[i]
		key := w.Namespace + "/" + w.Name
		known[key] = true
		g, ok := got[key]
		if !ok {
			out = append(out, Mismatch{DaemonSet: key, Action: "plan", Rule: "SYNC-2", Message: "no plan for this DaemonSet"})
			continue
		}
		out = append(out, checkTied(key, w, g, opts)...)
	}
	for _, key := range slices.Sorted(maps.Keys(got)) {
		if !known[key] {
			out = append(out, Mismatch{DaemonSet: key, Action: "plan", Rule: "SYNC-2", Message: "plan for a DaemonSet the snapshot does not hold"})
		}
	}
	slices.SortStableFunc(out, func(a, b Mismatch) int {
		return strings.Compare(a.DaemonSet, b.DaemonSet)
	})
	return out
}

// checkTied compares g with w and, when it does not conform, with each of w's alternatives
// (UPD-14 ties): none conforming, the mismatches are those against the alternative whose hash
// g names, or against w.
func checkTied(key string, w *Expected, g *daemonset.Result, opts Options) []Mismatch {
	out := checkOne(key, w, g, opts)
	if len(out) == 0 {
		return nil
	}
	for i := range w.Alternatives {
		alt := &w.Alternatives[i]
		m := checkOne(key, alt, g, opts)
		if len(m) == 0 {
			return nil
		}
		if g.RevisionHash != "" && g.RevisionHash == alt.RevisionHash {
			out = m
		}
	}
	return out
}

// checkOne compares the candidate plan g of one DaemonSet with w.
func checkOne(key string, w *Expected, g *daemonset.Result, opts Options) []Mismatch {
	o := w.Orders.choices()
	var out []Mismatch
	add := func(action, object, rule, format string, args ...any) {
		out = append(out, Mismatch{DaemonSet: key, Action: action, Object: object, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if g.Pending {
		// The expectations are those of a sync with its earlier writes observed; judging a
		// pending sync's plan against them would call every missing create a mismatch.
		add("pending", "", "SYNC-9", "the plan is of a sync with expectations pending (Planner.PlanPending); conformance judges the sync that runs once they are met: plan again then")
		return out
	}
	// skipped and collisionCount are optional in the contract: leaving them out is not a
	// mismatch (the actions and the status still are), naming the wrong value is.
	if g.Skipped != "" && g.Skipped != w.Skipped {
		add("skipped", "", skipRule(w.Skipped, g.Skipped), "skipped %q, want %q", g.Skipped, w.Skipped)
	}
	// An empty revisionHash is "not given": the created pods' labels carry the hash anyway.
	if g.RevisionHash != "" && g.RevisionHash != w.RevisionHash {
		add("revisionHash", "", "UPD-14", "revision hash %q, want %q", g.RevisionHash, w.RevisionHash)
	}
	if g.CollisionCount != nil && (w.CollisionCount == nil || *g.CollisionCount != *w.CollisionCount) {
		add("collisionCount", "", "UPD-21", "collisionCount %s, want %s", int32Ptr(g.CollisionCount), int32Ptr(w.CollisionCount))
	}
	out = append(out, comparePodRefs(key, "adopt", "OWN-4", g.Adopt, w.Adopt)...)
	out = append(out, comparePodRefs(key, "release", "OWN-3", g.Release, w.Release)...)
	wantStatus, recounted := w.Status, false
	if len(o.Status) > 0 {
		// The deletions picked decide what the status counts (STAT-16).
		wantStatus = o.StatusWith(w.Status, deletedIn(asDeletions(w.StatusDeletes)), deletedIn(g.Delete))
		recounted = wantStatus != w.Status
	}
	out = append(out, checkStatus(key, g.Status, wantStatus)...)
	out = append(out, checkRevisions(key, w.Revisions, g.Revisions, opts)...)
	out = append(out, checkWrites(key, w, g, wantStatus, recounted)...)
	if g.RollingUpdate != nil && w.RollingUpdate != nil {
		gr, wr := comparableRolling(*g.RollingUpdate, *w.RollingUpdate, opts.Reasons)
		if gr != wr {
			out = append(out, Mismatch{DaemonSet: key, Action: "rollingUpdate", Rule: "UPD-5",
				Message: "the rolling-update report differs", Diff: cmp.Diff(wr, gr)})
		}
	}
	out = append(out, checkCreates(key, o, g.Create, opts)...)
	out = append(out, checkDeletes(key, o, g.Delete, opts)...)
	return out
}

// comparableRolling returns the candidate's rolling-update report g and the expected one w as
// they are compared. A report of a step that did not act with budgets 0/0 and no budgetError
// gives no budgets (the contract before they were reported whatever the step did, and other
// implementations that leave them out): the expected ones stand in. Without reasons, the reason
// and the error texts are not compared, only whether a budget error is reported.
func comparableRolling(g, w daemonset.RollingUpdate, reasons bool) (daemonset.RollingUpdate, daemonset.RollingUpdate) {
	if !g.Acted && g.MaxUnavailable == 0 && g.MaxSurge == 0 && g.BudgetError == "" {
		g.MaxUnavailable, g.MaxSurge, g.BudgetError = w.MaxUnavailable, w.MaxSurge, w.BudgetError
	}
	if !reasons {
		g.Reason, w.Reason, g.Error, w.Error = "", "", "", ""
		for _, r := range []*daemonset.RollingUpdate{&g, &w} {
			if r.BudgetError != "" {
				r.BudgetError = "(reported)"
			}
		}
	}
	return g, w
}

func skipRule(want, got daemonset.Skip) string {
	if want != "" {
		return string(want)
	}
	if strings.Contains(string(got), "-") {
		return string(got)
	}
	return "SYNC-2"
}

func int32Ptr(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// comparePodRefs compares adoptions or releases as sets.
func comparePodRefs(key, action, rule string, got, want []daemonset.ObjectRef) []Mismatch {
	var out []Mismatch
	g, w := refSet(got), refSet(want)
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if !g[k] {
			out = append(out, Mismatch{DaemonSet: key, Action: action, Object: k, Rule: rule, Message: "missing " + action + " of pod " + k})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if !w[k] {
			out = append(out, Mismatch{DaemonSet: key, Action: action, Object: k, Rule: rule, Message: "extra " + action + " of pod " + k})
		}
	}
	for _, k := range duplicates(got, func(r daemonset.ObjectRef) string { return r.Namespace + "/" + r.Name }) {
		out = append(out, Mismatch{DaemonSet: key, Action: action, Object: k, Rule: rule, Message: "pod " + k + " listed twice"})
	}
	wantUID := map[string]types.UID{}
	for _, r := range want {
		wantUID[r.Namespace+"/"+r.Name] = r.UID
	}
	for _, r := range got {
		k := r.Namespace + "/" + r.Name
		if uid, ok := wantUID[k]; ok && r.UID != "" && r.UID != uid {
			out = append(out, uidMismatch(key, action, k, r.UID, uid))
		}
	}
	return out
}

func refSet(refs []daemonset.ObjectRef) map[string]bool {
	m := map[string]bool{}
	for _, r := range refs {
		m[r.Namespace+"/"+r.Name] = true
	}
	return m
}

// duplicates returns the keys that occur more than once, sorted.
func duplicates[T any](xs []T, key func(T) string) []string {
	seen := map[string]int{}
	for _, x := range xs {
		seen[key(x)]++
	}
	var out []string
	for k, n := range seen {
		if n > 1 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// checkStatus compares the status counters (STAT-*); a candidate without status is accepted
// only when the controller writes none (STAT-10).
func checkStatus(key string, got, want *appsv1.DaemonSetStatus) []Mismatch {
	switch {
	case got == nil && want == nil:
		return nil
	case got == nil:
		return []Mismatch{{DaemonSet: key, Action: "status", Rule: "STAT-1", Message: "no status, want one"}}
	case want == nil:
		return []Mismatch{{DaemonSet: key, Action: "status", Rule: "STAT-10", Message: "a status, want none: the sync does nothing"}}
	}
	counters := []struct {
		name string
		rule string
		g, w int64
	}{
		{"currentNumberScheduled", "STAT-3", int64(got.CurrentNumberScheduled), int64(want.CurrentNumberScheduled)},
		{"numberMisscheduled", "STAT-4", int64(got.NumberMisscheduled), int64(want.NumberMisscheduled)},
		{"desiredNumberScheduled", "STAT-2", int64(got.DesiredNumberScheduled), int64(want.DesiredNumberScheduled)},
		{"numberReady", "STAT-5", int64(got.NumberReady), int64(want.NumberReady)},
		{"observedGeneration", "STAT-8", got.ObservedGeneration, want.ObservedGeneration},
		{"updatedNumberScheduled", "STAT-5", int64(got.UpdatedNumberScheduled), int64(want.UpdatedNumberScheduled)},
		{"numberAvailable", "STAT-5", int64(got.NumberAvailable), int64(want.NumberAvailable)},
		{"numberUnavailable", "STAT-6", int64(got.NumberUnavailable), int64(want.NumberUnavailable)},
	}
	var out []Mismatch
	for _, c := range counters {
		if c.g != c.w {
			out = append(out, Mismatch{DaemonSet: key, Action: "status", Object: "status." + c.name, Rule: c.rule,
				Message: fmt.Sprintf("status.%s is %d, want %d", c.name, c.g, c.w)})
		}
	}
	if len(out) > 0 {
		out[0].Diff = cmp.Diff(want, got)
	}
	return out
}

// statusDeletes returns the deletions of del that name a pod of o.Status (STAT-16).
func statusDeletes(o *orders, del []daemonset.Deletion) []daemonset.ObjectRef {
	if len(o.Status) == 0 { // the rule: the status is the same whatever the pick
		return nil
	}
	var out []daemonset.ObjectRef
	for _, d := range del {
		for _, n := range o.Status {
			if slices.ContainsFunc(n.Pods, func(p choice.StatusPod) bool { return p.Namespace == d.Namespace && p.Name == d.Name }) {
				out = append(out, daemonset.ObjectRef{Namespace: d.Namespace, Name: d.Name})
			}
		}
	}
	return out
}

func asDeletions(refs []daemonset.ObjectRef) []daemonset.Deletion {
	out := make([]daemonset.Deletion, len(refs))
	for i, r := range refs {
		out[i] = daemonset.Deletion{Namespace: r.Namespace, Name: r.Name}
	}
	return out
}
