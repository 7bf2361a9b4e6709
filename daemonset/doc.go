// Package daemonset decides what the Kubernetes DaemonSet controller (of the release
// [Options.Version] selects, 1.33 to 1.37, the newest by default) does in one sync of one
// DaemonSet: which nodes should run a daemon pod, which pods to create, delete, adopt and
// release, what the rolling update does next and what the status counters read. It is a set of
// pure functions over k8s.io/api objects: it never contacts an API server, reads no clock and
// never mutates its inputs.
//
// [Compile] turns a DaemonSet into a [Planner] once: selector, node placement, the template's
// tolerations merged with the default daemon tolerations, and the daemon pod prototype.
// [Planner.Eligibility] then decides a node without allocating, [Planner.Explain] says why in
// words, [Planner.NewPod] builds the pod the controller would submit, and [Planner.Plan] plans a
// whole sync on a [Snapshot]. [Plan] is Compile followed by Planner.Plan; [Snapshot.Plan] plans
// every DaemonSet of a snapshot and arbitrates orphans between them (D-2). A Planner is safe
// for concurrent use; [Options.Workers] lets one plan share its per-node and per-pod work among
// goroutines, with the same result.
//
// Many DaemonSets and node-centric questions (which DaemonSets would this possibly
// hypothetical node run, what would their pods request, which decisions does a node change
// touch?) are package fleet's, which builds on this one.
//
// A plan is the one-sync model of the specification: expectations satisfied at the start of
// the sync (SYNC-9; [Result.Expectations] and [Expectations.Observed] tell a controller when they
// are) and the failed-pod back-off of [Options.Backoff] in force (DIFF-12, none by default).
// While they are not, [Planner.PlanPending] gives the sync upstream runs instead: the revision
// writes, the pod claims and the status with observedGeneration as stored (STAT-13), and no
// pod create or delete.
// Besides the actions it gives what a controller sends as it is: the pods' uids, the owner
// patches ([ObjectRef.AdoptPatch], [ObjectRef.ReleasePatch]) and relabels
// ([Relabel.Patch]), the status to write or none ([Result.StatusWrite]), the back-off
// after the sync ([Result.Backoff], carried with [UpdateBackoff]) and when to sync
// again without an event ([Result.RequeueAfter], SYNC-8). Where upstream leaves a choice (map iteration
// order, the burst cap), the plan chooses by node name, then pod namespace/name, and marks the
// action Interchangeable (D-1). Objects are evaluated as given, never defaulted (D-4); see
// [WithDefaults].
//
// Rule identifiers in comments (ELIG-3, DIFF-7, ...) name entries of the specification in the
// repository's docs/ directory (docs/rules/eligibility.md#elig-3, ...); decision identifiers
// (D-1, ...) name entries of docs/decisions.md.
package daemonset
