package rollout

// WithoutIncremental returns opts making every plan of the simulation a whole-snapshot plan.
func WithoutIncremental(opts Options) Options {
	opts.noIncremental = true
	return opts
}
