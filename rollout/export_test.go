package rollout

import (
	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
)

// WithoutIncremental returns opts making every plan of the simulation a whole-snapshot plan.
func WithoutIncremental(opts Options) Options {
	opts.noIncremental = true
	return opts
}

// WithBackoff returns opts with the failed-pod back-off b in force at Start.
func WithBackoff(opts Options, b []daemonset.BackoffEntry) Options {
	opts.backoff = b
	return opts
}

// FatesKept runs Simulate and returns, with its trajectory, how many pods the simulation kept
// a kubelet fate for when it ended.
func FatesKept(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts Options) (*Trajectory, int, error) {
	sm, err := newSim(s, ds, opts)
	if err != nil {
		return nil, 0, err
	}
	traj, err := sm.run()
	return traj, len(sm.fates), err
}

// Compiles runs Simulate and returns, with its trajectory, how many times the simulation
// compiled a DaemonSet.
func Compiles(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts Options) (*Trajectory, int, error) {
	sm, err := newSim(s, ds, opts)
	if err != nil {
		return nil, 0, err
	}
	traj, err := sm.run()
	return traj, sm.compiles, err
}
