package daemonset_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
)

// TestReasonCodes is the complete list of released reason codes: renaming one, or adding one
// without listing it here, shows up as a diff (STYLE: codes are never renamed).
func TestReasonCodes(t *testing.T) {
	t.Parallel()
	got := []daemonset.Reason{
		daemonset.ReasonNodeNameMismatch,
		daemonset.ReasonNodeSelectorMismatch,
		daemonset.ReasonNodeAffinityMismatch,
		daemonset.ReasonTaintNotTolerated,
		daemonset.ReasonNoExecuteTaintNotTolerated,
		daemonset.ReasonMissingPod,
		daemonset.ReasonSurgeOldUnavailable,
		daemonset.ReasonSurgeCandidate,
		daemonset.ReasonNodeNotEligible,
		daemonset.ReasonFailedPod,
		daemonset.ReasonSucceededPod,
		daemonset.ReasonDuplicatePod,
		daemonset.ReasonSurgeOldNotReady,
		daemonset.ReasonSurgeNewAvailable,
		daemonset.ReasonUnscheduledOnMissingNode,
		daemonset.ReasonUpdateOldUnavailable,
		daemonset.ReasonUpdateOldCandidate,
		daemonset.ReasonSurgeOldUnavailableIneligible,
		daemonset.ReasonSurgeReplaced,
		daemonset.ReasonSurgeIneligibleExcess,
		daemonset.ReasonFailedDaemonPod,
		daemonset.ReasonSucceededDaemonPod,
		daemonset.ReasonSelectingAll,
	}
	want := []daemonset.Reason{
		"NodeNameMismatch", "NodeSelectorMismatch", "NodeAffinityMismatch", "TaintNotTolerated",
		"NoExecuteTaintNotTolerated", "MissingPod", "SurgeOldUnavailable", "SurgeCandidate",
		"NodeNotEligible", "FailedPod", "SucceededPod", "DuplicatePod", "SurgeOldNotReady",
		"SurgeNewAvailable", "UnscheduledOnMissingNode", "UpdateOldUnavailable", "UpdateOldCandidate",
		"SurgeOldUnavailableIneligible", "SurgeReplaced", "SurgeIneligibleExcess",
		"FailedDaemonPod", "SucceededDaemonPod", "SelectingAll",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reason codes changed (-want +got):\n%s", diff)
	}
	skips := []daemonset.Skip{daemonset.SkipSelectingAll, daemonset.SkipBeingDeleted, daemonset.SkipInvalidSelector, daemonset.SkipHashCollision}
	if diff := cmp.Diff([]daemonset.Skip{"SYNC-3", "SYNC-4", "SYNC-5", "UPD-21"}, skips); diff != "" {
		t.Errorf("skip codes changed (-want +got):\n%s", diff)
	}
	rolling := []daemonset.RollingReason{daemonset.RollingReasonOnDelete, daemonset.RollingReasonBaseDiffNotEmpty, daemonset.RollingReasonError}
	if diff := cmp.Diff([]daemonset.RollingReason{"OnDelete", "BaseDiffNotEmpty", "Error"}, rolling); diff != "" {
		t.Errorf("rolling-update reasons changed (-want +got):\n%s", diff)
	}
}
