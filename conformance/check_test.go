package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCheckOptionalAndRequired: what the contract marks optional may be left out; a wrong value
// is still a mismatch, with the rule it breaks.
func TestCheckOptionalAndRequired(t *testing.T) {
	const waitingCase = "scenario-surprise-21-scn-71-upd-2-a-non-empty-base-diff-blocks-the-rolling-update"
	tests := []struct {
		name, corpusCase string
		mutate           func(*daemonset.Result)
		rule             string // "" when accepted
	}{
		{"SYNC-9: a pending sync's plan is not judged as an acting one", "upd-9-two-of-four", func(r *daemonset.Result) { r.Pending = true }, "SYNC-9"},
		{"SYNC-3: skipped left out", "sync-3-selecting-all", func(r *daemonset.Result) { r.Skipped = ""; r.Events = nil }, ""},
		{"SYNC-3: another skip rule", "sync-3-selecting-all", func(r *daemonset.Result) { r.Skipped = daemonset.SkipBeingDeleted }, "SYNC-3"},
		{"STAT-10: a status where none is written", "sync-3-selecting-all", func(r *daemonset.Result) { r.Status = planStatus() }, "STAT-10"},
		{"UPD-21: a collisionCount out of nowhere", "status-counters", func(r *daemonset.Result) { r.CollisionCount = new(int32) }, "UPD-21"},
		{"rollingUpdate, events and marks left out", "upd-9-two-of-four", func(r *daemonset.Result) {
			r.RollingUpdate, r.Events = nil, nil
			for i := range r.Delete {
				r.Delete[i].Interchangeable = false
			}
		}, ""},
		{"UPD-5: another budget", "upd-9-two-of-four", func(r *daemonset.Result) { r.RollingUpdate.MaxUnavailable = 3 }, "UPD-5"},
		{"UPD-2 UPD-5: budgets left out where the base diff acts (plans before they were always given)", waitingCase, func(r *daemonset.Result) {
			r.RollingUpdate.MaxUnavailable, r.RollingUpdate.MaxSurge = 0, 0
		}, ""},
		{"UPD-2 UPD-5: another budget where the base diff acts", waitingCase, func(r *daemonset.Result) { r.RollingUpdate.MaxUnavailable = 2 }, "UPD-5"},
		{"UPD-5: a budget error where the budgets resolve", waitingCase, func(r *daemonset.Result) { r.RollingUpdate.BudgetError = "nope" }, "UPD-5"},
		{"UPD-5: budgetError left out", "scn-79-max-unavailable-integer-string", func(r *daemonset.Result) { r.RollingUpdate.BudgetError = "" }, ""},
		{"UPD-5: budgets where they do not resolve", "scn-79-max-unavailable-integer-string", func(r *daemonset.Result) { r.RollingUpdate.MaxUnavailable = 1 }, "UPD-5"},
		{"UPD-14: revisionHash left out", "upd-9-two-of-four", func(r *daemonset.Result) { r.RevisionHash = "" }, ""},
		{"UPD-14: another revisionHash", "upd-9-two-of-four", func(r *daemonset.Result) { r.RevisionHash = "abc" }, "UPD-14"},
		{"OWN-9: a delete without its node", "upd-9-two-of-four", func(r *daemonset.Result) { r.Delete[0].Node = "" }, ""},
		{"OWN-9: a delete on another node", "upd-9-two-of-four", func(r *daemonset.Result) { r.Delete[0].Node = "n9" }, "OWN-9"},
		{"OWN-4: an adoption left out", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) { r.Adopt = nil }, "OWN-4"},
		{"OWN-3: an extra release", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) {
			r.Release = append(r.Release, daemonset.ObjectRef{Namespace: "ns", Name: "f1"})
		}, "OWN-3"},
		{"DIFF-2: a create left out", "what-if-hypothetical-node", func(r *daemonset.Result) { r.Create = nil }, "DIFF-2"},
		{"POD-8: two creates on one node", "what-if-hypothetical-node", func(r *daemonset.Result) { r.Create = append(r.Create, r.Create[0]) }, "POD-8"},
		{"POD-1: a pod without generateName", "what-if-hypothetical-node", func(r *daemonset.Result) { r.Create[0].Pod.GenerateName = "" }, "POD-1"},
		{"POD-1: a create without a pod", "what-if-hypothetical-node", func(r *daemonset.Result) { r.Create[0].Pod = nil }, "POD-1"},
		{"DIFF-16: a wrong reason is ignored unless asked", "what-if-hypothetical-node", func(r *daemonset.Result) { r.Create[0].Reason = "X" }, ""},
		{"STAT-14: statusWrite, backoff and requeueAfter left out", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) {
			r.StatusWrite, r.Backoff, r.RequeueAfter = nil, nil, metav1.Duration{}
		}, ""},
		{"STAT-14: another status written", "status-counters", func(r *daemonset.Result) {
			w := *r.StatusWrite
			w.NumberReady++
			r.StatusWrite = &w
		}, "STAT-14"},
		{"STAT-10: a status write where the sync does nothing", "sync-3-selecting-all", func(r *daemonset.Result) { r.StatusWrite = planStatus() }, "STAT-10"},
		{"DIFF-12: another back-off", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) {
			r.Backoff = []daemonset.BackoffEntry{{Node: "elsewhere", Delay: metav1.Duration{Duration: time.Second}}}
		}, "DIFF-12"},
		{"SYNC-8: another requeue", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) { r.RequeueAfter.Duration = time.Hour }, "SYNC-8"},
		{"SYNC-8: a requeue where none is due", "status-counters", func(r *daemonset.Result) { r.RequeueAfter.Duration = time.Second }, "SYNC-8"},
		{"OWN-15: an adoption naming another uid", "diff-17-controlled-failed-before-adopted", func(r *daemonset.Result) { r.Adopt[0].UID = "forged" }, "OWN-15"},
		{"OWN-15: a delete naming another uid", "upd-9-two-of-four", func(r *daemonset.Result) { r.Delete[0].UID = "forged" }, "OWN-15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := corpusCase(t, tt.corpusCase)
			s, err := c.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			opts, _ := c.Options()
			plan := cloneResult(planOf(t, s, opts)[0])
			tt.mutate(plan)
			ms, err := Check(s, []*daemonset.Result{plan}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.rule == "" {
				if len(ms) > 0 {
					t.Fatalf("rejected: %v", ms)
				}
				return
			}
			for _, m := range ms {
				if m.Rule == tt.rule {
					return
				}
			}
			t.Fatalf("want a %s mismatch, got %v", tt.rule, ms)
		})
	}
	c := corpusCase(t, "what-if-hypothetical-node")
	s, _ := c.Snapshot()
	opts, _ := c.Options()
	plan := cloneResult(planOf(t, s, opts)[0])
	plan.Create[0].Reason = "X"
	opts.Reasons = true
	if ms, _ := Check(s, []*daemonset.Result{plan}, opts); len(ms) != 1 || ms[0].Rule != "DIFF-16" {
		t.Errorf("with Reasons, a wrong reason: %v", ms)
	}
}

func planStatus() *appsv1.DaemonSetStatus { return &appsv1.DaemonSetStatus{} }

// A candidate whose every create differs is judged pod by pod, but worded with at most
// maxPodDiffs go-cmp diffs a DaemonSet: 5,000 differing creates took over a minute to verify
// (issue 25), a diff a pod, for output that shows MaxMismatches.
func TestCheckWordsABoundedNumberOfPodDiffs(t *testing.T) {
	s := freshCluster(maxPodDiffs + 30)
	opts := Options{Now: epoch.Add(time.Hour), BurstLimit: daemonset.NoBurstLimit}
	plan, err := s.Plan(opts.planOptions())
	if err != nil {
		t.Fatal(err)
	}
	res := cloneResult(plan.DaemonSets[0])
	for i := range res.Create {
		res.Create[i].Pod.Spec.Containers[0].Image = "other:1"
	}
	ms, err := Check(s, []*daemonset.Result{res}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != maxPodDiffs+30 {
		t.Fatalf("%d mismatches, want one a create (%d)", len(ms), maxPodDiffs+30)
	}
	worded := 0
	for _, m := range ms {
		if m.Rule != "POD-6" {
			t.Fatalf("rule %s, want POD-6: %+v", m.Rule, m)
		}
		if m.Diff != "" {
			worded++
		} else if !strings.Contains(m.Message, "diff left out") {
			t.Fatalf("a mismatch without a diff says nothing of it: %s", m.Message)
		}
	}
	if worded != maxPodDiffs {
		t.Fatalf("%d diffs worded, want %d", worded, maxPodDiffs)
	}
}
