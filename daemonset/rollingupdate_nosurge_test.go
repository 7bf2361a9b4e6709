package daemonset

// The rolling step without surge (maxSurge 0): old pods are deleted within maxUnavailable
// (UPD-5, UPD-6, UPD-8, UPD-9, UPD-10).

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// TestRollingUpdateWithoutSurge covers UPD-8, UPD-9 and UPD-10 and the scenarios SCN-72..SCN-84
// reduced to the step.
func TestRollingUpdateWithoutSurge(t *testing.T) {
	t.Parallel()
	runRollingCases(t, []ruCase{
		{
			name:        "UPD-8 UPD-9 SCN-72 3 old Available pods and mu 1 delete the first by node name, interchangeably",
			ds:          ruStrategy(apitest.Int(1), nil),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:       "UPD-9 SCN-73 6 old Available pods and mu 2 delete exactly two, interchangeably",
			ds:         ruStrategy(apitest.Int(2), nil),
			states:     ruOldNodes(6),
			wantReport: ruActed(2, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-9 a budget covering every candidate deletes them all, not interchangeable",
			ds:         ruStrategy(apitest.Int(5), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(5, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, false),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, false),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, false),
			},
		},
		{
			name:        "UPD-9 a budget equal to the candidates deletes them all, not interchangeable",
			ds:          ruStrategy(apitest.Int(1), nil),
			states:      []nodeState{ruRun("n0", ruNew("a")), ruRun("n1", ruOld("b"))},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 SCN-74 an unavailable new pod spends one of mu 2",
			ds:   ruStrategy(apitest.Int(2), nil),
			states: []nodeState{
				ruRun("n0", ruNewNotReady("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
				ruRun("n3", ruOld("d")), ruRun("n4", ruOld("e")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 an available new pod spends nothing",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 SCN-75 unavailable old pods are deleted budget-free and spend the budget",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOldNotReady("b")), ruRun("n2", ruOld("c")),
			},
			wantReport: ruActed(1, 0),
			wantDeletes: []Deletion{
				ruDel("a", "n0", ReasonUpdateOldUnavailable, false),
				ruDel("b", "n1", ReasonUpdateOldUnavailable, false),
			},
		},
		{
			name: "UPD-8 unavailable old pods are deleted even under a negative budget",
			ds:   ruStrategy(apitest.Int(-1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a")), ruRun("n1", ruOldNotReady("b")),
			},
			wantReport:  ruActed(-1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldUnavailable, false)},
		},
		{
			name: "UPD-8 SCN-76 a node holding only a terminating old pod spends the budget",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a"))), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 a terminating pod beside an old one is ignored, the old one is a candidate",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruTerminating(ruOld("a")), ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n0", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 UPD-10 a desired node without pods spends the budget",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0"), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 two old pods on a node spend the budget and are left to the base diff",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruOld("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 two new pods on a node spend the budget",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a1"), ruNew("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-24 an old and a new pod on a node spend the budget",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNew("a2")), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 mu 2 with one node spent leaves one deletion",
			ds:   ruStrategy(apitest.Int(2), nil),
			states: []nodeState{
				ruRun("n0", ruOld("a1"), ruNew("a2")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 candidates met before the unavailable nodes still count, then U is subtracted",
			ds:   ruStrategy(apitest.Int(2), nil),
			states: []nodeState{
				ruRun("a", ruOld("pa")), ruRun("b", ruOld("pb")), ruRun("c", ruNewNotReady("pc")),
			},
			wantReport:  ruActed(2, 0),
			wantDeletes: []Deletion{ruDel("pa", "a", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-8 candidates met after the budget is spent are not recorded and nothing is deleted",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("a", ruNewNotReady("pa")), ruRun("b", ruOld("pb")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-12 an old Ready pod within minReadySeconds is unavailable and deleted budget-free",
			ds:   ruWithMinReady(ruStrategy(apitest.Int(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruOld("a"), ruNow.Add(-29*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldUnavailable, false)},
		},
		{
			name: "UPD-8 UPD-12 an old pod Ready exactly minReadySeconds ago is a candidate",
			ds:   ruWithMinReady(ruStrategy(apitest.Int(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruOld("a"), ruNow.Add(-30*time.Second))),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-8 UPD-12 a new pod Ready one second short of minReadySeconds spends the budget",
			ds:   ruWithMinReady(ruStrategy(apitest.Int(1), nil), 30),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruNew("a"), ruNow.Add(-29*time.Second))), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-8 UPD-12 a new pod Ready with a zero transition time and minReadySeconds spends the budget",
			ds:   ruWithMinReady(ruStrategy(apitest.Int(1), nil), 1),
			states: []nodeState{
				ruRun("n0", ruReadySince(ruNew("a"), time.Time{})), ruRun("n1", ruOld("b")),
			},
			wantReport: ruActed(1, 0),
		},
		{
			name: "UPD-13 a Ready condition set to False makes an old pod unavailable",
			ds:   ruStrategy(apitest.Int(0), apitest.Int(0)),
			states: []nodeState{
				ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldUnavailable, false)},
		},
		{
			name:       "UPD-5 SCN-77 mu 10% of 5 deletes 1",
			ds:         ruStrategy(apitest.Str("10%"), nil),
			states:     ruOldNodes(5),
			wantReport: ruActed(1, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-77 mu 50% of 5 deletes 3",
			ds:         ruStrategy(apitest.Str("50%"), nil),
			states:     ruOldNodes(5),
			wantReport: ruActed(3, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, true),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, true),
			},
		},
		{
			name:       "UPD-5 SCN-77 mu 99% of 3 deletes 3",
			ds:         ruStrategy(apitest.Str("99%"), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(3, 0),
			wantDeletes: []Deletion{
				ruDel("p-n0", "n0", ReasonUpdateOldCandidate, false),
				ruDel("p-n1", "n1", ReasonUpdateOldCandidate, false),
				ruDel("p-n2", "n2", ReasonUpdateOldCandidate, false),
			},
		},
		{
			name:        "UPD-5 SCN-77 mu 1% of 3 deletes 1",
			ds:          ruStrategy(apitest.Str("1%"), nil),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 mu 0 and ms 0 delete 1",
			ds:          ruStrategy(apitest.Int(0), apitest.Int(0)),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 mu 0% and ms 0% delete 1",
			ds:          ruStrategy(apitest.Str("0%"), apitest.Str("0%")),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:        "UPD-6 SCN-78 a nil rollingUpdate deletes 1",
			ds:          ruNilRollingUpdate(),
			states:      ruOldNodes(3),
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("p-n0", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name:       "UPD-6 without desired nodes a nil rollingUpdate deletes nothing",
			ds:         ruNilRollingUpdate(),
			states:     []nodeState{ruIneligible("n0", ruOld("a"))},
			wantReport: ruActed(0, 0),
		},
		{
			name:       "UPD-5 SCN-79 a nil maxUnavailable with rollingUpdate present is an error and no action",
			ds:         ruStrategy(nil, nil),
			states:     []nodeState{ruRun("n0", ruOldNotReady("a")), ruRun("n1", ruOld("b"))},
			wantReport: budgetFailure("couldn't get unavailable numbers: invalid value for MaxUnavailable: nil value for IntOrString"),
		},
		{
			name:       "UPD-5 SCN-79 maxUnavailable \"2\" is an error and no action",
			ds:         ruStrategy(apitest.Str("2"), nil),
			states:     ruOldNodes(3),
			wantReport: budgetFailure("couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"),
		},
		{
			name:       "UPD-5 maxSurge \"5\" is an error and no action",
			ds:         ruStrategy(apitest.Int(1), apitest.Str("5")),
			states:     ruOldNodes(3),
			wantReport: budgetFailure("couldn't get unavailable numbers: invalid value for MaxSurge: invalid value for IntOrString: invalid type: string is not a percentage"),
		},
		{
			name:       "UPD-5 SCN-80 mu -1 deletes nothing",
			ds:         ruStrategy(apitest.Int(-1), nil),
			states:     ruOldNodes(3),
			wantReport: ruActed(-1, 0),
		},
		{
			name: "UPD-3 SCN-81 a pod whose pod-template-generation equals the annotation is not replaced",
			ds:   ruWithGeneration(ruStrategy(apitest.Int(1), nil), "4"),
			states: []nodeState{
				ruRun("n0", ruWithGenerationLabel(ruOld("a"), "4")), ruRun("n1", ruWithGenerationLabel(ruOld("b"), "3")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("b", "n1", ReasonUpdateOldCandidate, false)},
		},
		{
			name: "UPD-10 SCN-83 an old pod on an ineligible node that may continue is a candidate (first by name)",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruIneligible("n0", ruOld("a")), ruRun("n1", ruOld("b")), ruRun("n2", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("a", "n0", ReasonUpdateOldCandidate, true)},
		},
		{
			name: "UPD-10 SCN-84 an old pod bound to a missing node is a candidate",
			ds:   ruStrategy(apitest.Int(1), nil),
			states: []nodeState{
				ruRun("n0", ruNew("a")), ruRun("n1", ruNew("b")), ruMissing("n9", ruOld("c")),
			},
			wantReport:  ruActed(1, 0),
			wantDeletes: []Deletion{ruDel("c", "n9", ReasonUpdateOldCandidate, false)},
		},
		{
			name:       "UPD-8 a rollout that is complete does nothing",
			ds:         ruStrategy(apitest.Int(1), nil),
			states:     []nodeState{ruRun("n0", ruNew("a")), ruRun("n1", ruNew("b"))},
			wantReport: ruActed(1, 0),
		},
		{
			name:       "UPD-8 an empty map does nothing",
			ds:         ruStrategy(apitest.Int(1), nil),
			wantReport: ruActed(1, 0),
		},
	})
}

// budgetFailure is the report of a step stopped by budgets that do not resolve (UPD-5): the
// error as both Error and BudgetError.
func budgetFailure(msg string) RollingUpdate {
	return RollingUpdate{Reason: RollingReasonError, Error: msg, BudgetError: msg}
}
