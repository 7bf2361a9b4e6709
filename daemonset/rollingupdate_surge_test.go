package daemonset

// The rolling step with surge (maxSurge > 0): new pods beside available old ones, within
// maxSurge, and the old ones deleted once their replacement is available (UPD-7, UPD-11).

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// TestRollingUpdateWithSurge covers UPD-7 and UPD-11 and the scenarios SCN-86..SCN-98 reduced to
// the step.
func TestRollingUpdateWithSurge(t *testing.T) {
	t.Parallel()
	runRollingCases(t, []ruCase{
		{
			name:        "UPD-11 SCN-86 4 old Available pods and ms 1 create on the first node by name, interchangeably",
			ds:          ruStrategy(apitest.Int(0), apitest.Int(1)),
			states:      ruOldNodes(4),
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n0", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-11 SCN-87 an unavailable old pod gets its create budget-free, plus one surge candidate",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")), ruRun("n2", ruOld("c")), ruRun("n3", ruOld("d")),
			},
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, true),
				ruCreate("n1", ReasonSurgeOldUnavailable, false),
			},
		},
		{
			name: "UPD-11 SCN-88 a new pod not yet Available spends the surge; unavailable old pods still get creates",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNewNotReady("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")), ruRun("n3", ruOldNotReady("d")),
			},
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n3", ReasonSurgeOldUnavailable, false)},
		},
		{
			name: "UPD-11 a candidate met before the surge is spent is recorded, but S is final when counting",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("a", ruOld("pa")), ruRun("b", ruOld("pb1"), ruNewNotReady("pb2")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 an old pod beside an Available new pod is deleted",
			ds:   ruWithGeneration(ruStrategy(apitest.Int(0), apitest.Int(1)), "2"),
			states: []nodeState{
				// New by pod-template-generation only, so the base diff (hash only) keeps both.
				ruRun("n0", ruOld("a1"), ruWithGenerationLabel(ruOld("a2"), "2")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a1", "n0", ReasonSurgeReplaced, false)},
		},
		{
			name: "UPD-11 two old pods on a node spend the surge",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruOld("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 two new pods on a node spend the surge",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(2)),
			states: []nodeState{
				ruRun("n0", ruNew("a1"), ruNew("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(0, 2),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-11 nodes without an old pod do nothing, also empty ones",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("n0"), ruRun("n1", ruNewNotReady("b")), ruRun("n2", ruNew("c")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 terminating pods are ignored",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a1")), ruNewNotReady("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(0, 1),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeCandidate, false)},
		},
		{
			name:       "UPD-5 SCN-92 ms 25% of 4 creates one",
			ds:         ruStrategy(apitest.Int(0), apitest.Str("25%")),
			states:     ruOldNodes(4),
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-92 ms 100% of 4 creates four, not interchangeable",
			ds:         ruStrategy(apitest.Int(0), apitest.Str("100%")),
			states:     ruOldNodes(4),
			wantReport: ruActed(0, 4),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, false),
				ruCreate("n1", ReasonSurgeCandidate, false),
				ruCreate("n2", ReasonSurgeCandidate, false),
				ruCreate("n3", ReasonSurgeCandidate, false),
			},
		},
		{
			name: "UPD-11 SCN-93 an ineligible old Available pod goes once more pods are available than desired",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNew("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, false)},
		},
		{
			name: "UPD-11 SCN-94 an ineligible old pod stays while a new pod is not Available",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNewNotReady("c")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 SCN-95 an ineligible old pod that is not Available is deleted at once",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOldNotReady("a")), ruRun("n1", ruNew("b")), ruRun("n2", ruNewNotReady("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeOldUnavailableIneligible, false)},
		},
		{
			name: "UPD-11 only A minus desired ineligible candidates go, the first by name, interchangeably",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruIneligible("n1", ruOld("b")),
				ruRun("n2", ruNew("c")), ruRun("n3", ruNewNotReady("d")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, true)},
		},
		{
			name: "UPD-11 all ineligible candidates go when A minus desired covers them",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruIneligible("n1", ruOld("b")),
				ruRun("n2", ruNew("c")), ruRun("n3", ruNew("d")),
			},
			wantReport: ruActed(0, 1),
			wantDeletes: []Deletion{
				ruDel("a", "n0", ReasonSurgeIneligibleExcess, false),
				ruDel("b", "n1", ReasonSurgeIneligibleExcess, false),
			},
		},
		{
			name: "UPD-11 availability of old pods counts towards A even beside a new pod",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(1)),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruOld("b1"), ruNewNotReady("b2")), ruRun("n2", ruNew("c")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonSurgeIneligibleExcess, false)},
		},
		{
			name:       "UPD-11 SCN-96 an old Available pod bound to a missing node fails the step",
			ds:         ruStrategy(apitest.Int(0), apitest.Int(1)),
			states:     []nodeState{ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b")), ruMissing("n9", ruOld("c"))},
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: `couldn't get node for nodeName "n9": node "n9" not found`, MaxSurge: 1},
		},
		{
			name:       "UPD-11 an old unavailable pod bound to a missing node fails the step, naming the first such node",
			ds:         ruStrategy(apitest.Int(0), apitest.Int(1)),
			states:     []nodeState{ruMissing("m1", ruOldNotReady("a")), ruMissing("m2", ruOld("b"))},
			wantReport: RollingUpdate{Reason: RollingReasonError, Error: `couldn't get node for nodeName "m1": node "m1" not found`, MaxSurge: 1},
		},
		{
			name: "UPD-11 a missing node with an old and an Available new pod deletes the old one without looking the node up",
			ds:   ruWithGeneration(ruStrategy(apitest.Int(0), apitest.Int(1)), "2"),
			states: []nodeState{
				ruMissing("n9", ruOld("a1"), ruWithGenerationLabel(ruOld("a2"), "2")),
			},
			wantReport:  ruActed(0, 1),
			wantDeletes: []Deletion{ruDel("a1", "n9", ReasonSurgeReplaced, false)},
		},
		{
			name:       "UPD-11 a missing node with only a new pod is not looked up",
			ds:         ruStrategy(apitest.Int(0), apitest.Int(1)),
			states:     []nodeState{ruMissing("n9", ruNew("a")), ruRun("n0", ruOld("b"))},
			wantReport: ruActed(0, 1),
			wantCreates: []Creation{
				ruCreate("n0", ReasonSurgeCandidate, false),
			},
		},
		{
			name:        "UPD-7 SCN-98 mu 2 and ms 1 together run the surge algorithm: one create",
			ds:          ruStrategy(apitest.Int(2), apitest.Int(1)),
			states:      ruOldNodes(3),
			wantReport:  ruActed(2, 1),
			wantCreates: []Creation{ruCreate("n0", ReasonSurgeCandidate, true)},
		},
		{
			name: "UPD-7 a negative maxSurge runs the surge algorithm with no surge candidates",
			ds:   ruStrategy(apitest.Int(1), apitest.Int(-1)),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")),
			},
			wantReport:  ruActed(1, -1),
			wantCreates: []Creation{ruCreate("n1", ReasonSurgeOldUnavailable, false)},
		},
		{
			name: "UPD-11 UPD-12 a new pod one second short of minReadySeconds spends the surge",
			ds:   ruWithMinReady(ruStrategy(apitest.Int(0), apitest.Int(1)), 10),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruReadySince(ruNew("a2"), ruNow.Add(-9*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(0, 1),
		},
		{
			name: "UPD-11 ms 0 with mu 0 falls back to the non-surge algorithm (UPD-6)",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(0)),
			states: []nodeState{
				ruRun("n0", ruOld("a")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, false)},
		},
	})
}
