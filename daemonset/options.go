package daemonset

import "time"

// Options are the explicit inputs of a plan that are not API objects. The zero value of every
// field except Now means the default of the selected Kubernetes release, the newest by default.
type Options struct {
	// Now is the instant at which readiness and minReadySeconds are judged (UPD-12). It has no
	// default: a zero Now is a programming error and Compile panics.
	Now time.Time

	// Version is the Kubernetes release whose controller the plan models (VER-1): its rules
	// decide: its template hash (VER-2), availability (VER-3), ownership (VER-4), feature-gate
	// defaults (VER-5) and validation (VER-7). The zero Version means the newest supported
	// release, NewestVersion (1.37.2).
	Version Version

	// BurstLimit caps the creates and the deletes of one action list, as the controller's
	// BurstReplicas does (DIFF-10). Zero means the controller's [DefaultBurstLimit] (250); a
	// negative value ([NoBurstLimit]) reports the whole diff.
	BurstLimit int

	// FeatureGates sets the Kubernetes feature gates that change a decision over the defaults
	// of the selected release (VER-5, D-7): GateTaintTolerationComparisonOperators (TAINT-10),
	// GateStaleControllerConsistencyDaemonSet (VER-6). nil keeps every default. A gate the
	// release does not know is misuse: Compile panics, naming it (see CheckFeatureGates). The
	// map is only read.
	FeatureGates FeatureGates

	// Workers is how many goroutines share the per-node and per-pod work of one plan (deciding
	// every node, claiming every pod), and the nodes of a fleet.Set's matrix; 0 and 1 mean the
	// calling goroutine only. The result is the same whatever the number. Negative panics.
	Workers int

	// Backoff is the failed-pod back-off in force at the start of the sync (DIFF-12), as a
	// controller keeps it with [UpdateBackoff]; nil means none. Only entries with the
	// DaemonSet's uid and its status.observedGeneration count, for the nodes whose Failed pods
	// the sync would delete; entries of other DaemonSets or generations, of nodes not in the
	// snapshot, expired ones (last use more than twice the maximum delay of 15 minutes before
	// Now) and ones that can never be in force (delay not positive, zero time) hold nothing
	// back. Of two entries of one key the later counts. The slice is only read.
	Backoff []BackoffEntry
}

// release is the Version the options select: Version, or the newest release when it is zero.
func (o Options) release() Version { return o.Version.OrNewest() }
