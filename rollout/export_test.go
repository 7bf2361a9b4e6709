package rollout

import "github.com/daemonsched/daemonsched/daemonset"

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
