package conformance

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestRuleOfCitesTheReasonTable: a missing action cites the rule daemonset's table gives its
// reason (DIFF-16), or for a budgeted candidate the rule of the budget's pick (UPD-9, UPD-23).
func TestRuleOfCitesTheReasonTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason daemonset.Reason
		want   string
	}{
		{"a Failed pod is deleted by the phase rule DIFF-3, not the one-per-node rule DIFF-17", daemonset.ReasonFailedPod, "DIFF-3"},
		{"a Succeeded pod is deleted by DIFF-3", daemonset.ReasonSucceededPod, "DIFF-3"},
		{"an empty eligible node gets a pod by DIFF-2", daemonset.ReasonMissingPod, "DIFF-2"},
		{"an unscheduled pod of a missing node goes by DIFF-8", daemonset.ReasonUnscheduledOnMissingNode, "DIFF-8"},
		{"an old unavailable pod goes budget-free by UPD-8", daemonset.ReasonUpdateOldUnavailable, "UPD-8"},
		{"which old candidates go is UPD-9's pick", daemonset.ReasonUpdateOldCandidate, "UPD-9"},
		{"which surge candidates get a pod is UPD-23's pick", daemonset.ReasonSurgeCandidate, "UPD-23"},
		{"which ineligible old pods go under surge is UPD-23's pick", daemonset.ReasonSurgeIneligibleExcess, "UPD-23"},
		{"a replaced old pod goes by UPD-11", daemonset.ReasonSurgeReplaced, "UPD-11"},
		{"an unknown code cites DIFF-1", daemonset.Reason("NoSuchReason"), "DIFF-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ruleOf(tt.reason); got != tt.want {
				t.Errorf("ruleOf(%s) = %s, want %s", tt.reason, got, tt.want)
			}
		})
	}
}
