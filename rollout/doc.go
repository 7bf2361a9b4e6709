// Package rollout carries the one-sync plans of package daemonset across time: it applies a
// plan to a snapshot (Apply), runs the DaemonSet controller over a virtual clock against a
// kubelet model (Simulate), predicts how a template change rolls out (Forecast), and says
// whether a rollout is complete, progressing or stuck (Progress), looking at the nodes and the
// pods rather than at status counters that may be stale.
//
// Everything is deterministic: the same inputs and seed give the same trajectory, names and
// uids. Inputs are never mutated. Nothing reads the wall clock.
//
// The objects Simulate hands out (to a Scheduler or a Kubelet's Fate, to AfterSync, in the
// Trajectory's End) are read-only: an object it did not change is the input's, a changed one
// shares with the object before it what did not change, and the pods it created share with
// each other their labels, containers, tolerations and the rest of the template. Copy one
// (DeepCopy) before changing it.
//
// Two sync models are offered (SyncModel): the plan as package daemonset computes it, where a
// sync does not see its own writes (SyncUnobserved), and the sync whose writes are observed in
// time (SyncObserved, the default of Simulate), where the rolling-update step runs on the state
// after the base diff and the status counts the pods just created, as the live v1.36 controller
// usually does. docs/sync-models.md in the repository compares them with upstream's
// syncDaemonSet, manage, rollingUpdate and expectations.
//
// Apply writes the plan's ControllerRevision writes (Result.Revisions, ROLL-4) as they are, and
// the failed-pod back-off of Simulate is package daemonset's (Options.Backoff, Result.Backoff,
// UpdateBackoff; ROLL-6).
//
// Simulate re-plans only the nodes an event touched and joins them into the plan of the whole
// snapshot where that join is exact (ROLL-12), so a rolling update of 10,000 nodes, about
// 29,000 syncs, takes a fraction of a second rather than minutes.
//
// Rule identifiers in comments (ROLL-3, ...) name entries of docs/rules/rollout.md in the
// repository.
package rollout
