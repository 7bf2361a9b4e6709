// Package requeue splits the requeue of one sync of one DaemonSet (SYNC-8) by what asked for
// it, where daemonset's Result.RequeueAfter reports only the smallest. Package daemonset
// computes the parts in its plan, the one place of the rules behind them; package rollout reads
// them, because under its SyncObserved model one sync queues the failed-pod back-off's part of
// its first plan and the minReadySeconds part of the plan whose status it writes. It does not
// decide anything itself, and it stays out of daemonset's public API (docs/decisions.md, "The
// verifier's choice sets are internal": the same bridge, a method whose result type outside
// code cannot name).
package requeue

import "time"

// Parts is the requeue of one sync by cause; a zero part asks for nothing.
type Parts struct {
	// Backoff is the smallest delay the failed-pod back-off asks for while the sync walks
	// the nodes (DIFF-12, DIFF-17), whatever status the sync writes afterwards.
	Backoff time.Duration
}
