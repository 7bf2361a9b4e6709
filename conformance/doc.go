// Package conformance decides whether another implementation's plan for a sync is one the
// Kubernetes DaemonSet controller could have made: it is the oracle kit for controllers in any
// language, simulators and what-if code. It judges plans only: it never contacts an API server.
//
// The controller picks at random in a few places (D-1): which available old pods a rolling
// update replaces (UPD-9), which surge candidates get a pod and which ineligible old pods go
// (UPD-23), which Failed pod of a node is deleted (DIFF-17) and which part of a list over the
// burst cap is submitted (DIFF-10). A correct implementation can therefore differ from the
// plan daemonset.Plan returns and still be right. [Check] decides whether a candidate plan is
// one the controller could have produced, accepting every valid choice and naming the rule
// each mismatch breaks. Two more choices shape whole plans: of several current revisions with
// one revision number, which the controller keeps (UPD-14; [Expected].Alternatives), and the
// order its work queue syncs DaemonSets in, which decides who adopts an orphan several of
// them select (D-2; [ExpectAll], [VerifyAny]).
//
// [Expect] computes what every conforming plan agrees on ([Expected]: the deterministic fields
// and the choice sets of the sync, an opaque [Orders]) and [Verify] checks a candidate
// against it; Check is the two together. [ComparePods] says whether a created pod is the daemon pod.
//
// The corpus under testdata/ holds cases in plain YAML (schema: testdata/case.schema.json):
// the manifests, the clock, the burst cap, the expected plan with choice sets, the rules each
// case exercises, its source and the Kubernetes version. It has a case for every Surprise of
// the specification, every SCN scenario and every fidelity difference a snapshot can express
// (most generated from daemonset's scenario tables); testdata/left-out.yaml says why the
// others have none. [Corpus] reads it. [Run] runs it
// against a Go implementation; for any other language, `daemonsched conformance run --
// PROGRAM` sends each case as a numbered [Request] line on PROGRAM's stdin
// (testdata/protocol.schema.json), judges each answer line ([JudgeResponse]) and writes one [Report] per profile (testdata/result.schema.json), so that
// an implementation can claim some [Profiles] only. testdata/known-divergences.yaml lists the
// upstream behaviours the corpus reproduces on purpose.
//
// The rules cited are those of docs/ in the repository.
package conformance
