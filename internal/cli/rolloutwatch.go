package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/spf13/pflag"
)

// watchFlags are rollout status's -w/--watch and --timeout, in the kubectl plugin only: a dump
// does not change.
type watchFlags struct {
	watch   bool
	timeout time.Duration
}

func addWatchFlags(fs *pflag.FlagSet, w *watchFlags) {
	fs.BoolVarP(&w.watch, "watch", "w", false, "watch the cluster: judge again on every change, print each change of state once, and exit when every rollout is complete (0) or one is stuck (4)")
	fs.DurationVar(&w.timeout, "timeout", 0, "with --watch, give up after `DURATION` (0: never), exiting 3 when a rollout is still progressing")
}

// check refuses --timeout without --watch, --watch on files, at --now or with -o json|yaml.
func (w watchFlags) check(c *clusterFlags, format outputFormat) error {
	switch {
	case w.timeout < 0:
		return usagef("--timeout must not be negative, got %v", w.timeout)
	case w.timeout > 0 && !w.watch:
		return usagef("--timeout is how long --watch waits: give --watch too")
	case !w.watch:
		return nil
	case len(c.src.files) > 0 || c.src.example:
		return usagef("--watch watches the live cluster: it cannot be combined with -f or --example")
	case !c.now.t.IsZero():
		return usagef("--watch judges at the clock: it cannot be combined with --now")
	case format != formatTable:
		return usagef("--watch prints a line per change of state: -o %s is not supported with it", format)
	}
	return nil
}

// watchRollouts is rollout status --watch: the plugin's watch reads the cluster once and keeps
// what it read up to date from watch events (Cluster.Watch); the rollouts are judged on every
// state it sends (and again every few seconds on the last one, at the clock, for availability
// comes with time: minReadySeconds), and each DaemonSet's state is printed on stdout when it
// differs from the last one printed. It returns when every rollout is complete (nil), one is
// stuck (errStuck: it cannot progress without a change by someone, ROLL-8), or at the timeout
// with the last status (errProgressing or errStuck, ROLL-11).
func watchRollouts(e *env, c *clusterFlags, filter daemonSetFilter, timeout time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	states := make(chan *Dump)
	watchErr := make(chan error, 1)
	go func() { watchErr <- e.plugin.cluster.Watch(ctx, c.question, states) }()
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	shown := map[string]string{}
	reading := e // the first read says which input it read on stderr; the others say nothing
	var (
		l      *loaded // the last judged
		status error
	)
	for {
		select {
		case c.watched = <-states:
		case at := <-tick.C:
			if c.watched == nil {
				continue
			}
			later := *c.watched
			later.At = at.UTC()
			c.watched = &later
		case err := <-watchErr:
			return err
		case <-deadline:
			if l == nil {
				return fmt.Errorf("--timeout %v passed before the cluster was read", timeout)
			}
			return l.done(e, status)
		}
		var err error
		if l, err = c.read(reading, allFields, filter.ns.namespace); err != nil {
			return err
		}
		quiet := *e
		quiet.stderr = io.Discard
		reading = &quiet
		var reports []*rollout.Report
		if reports, status, err = judgeRollouts(l, filter); err != nil {
			return err
		}
		for _, r := range reports {
			key := r.Namespace + "/" + r.Name
			if line := stateLine(r); shown[key] != line {
				shown[key] = line
				fmt.Fprint(e.live, line)
			}
		}
		if status == nil || status == errStuck {
			return l.done(e, status)
		}
	}
}

// watchTick is how often --watch judges again without a change (availability comes with
// time).
const watchTick = 5 * time.Second

// stateLine is what --watch prints of a report: its state and message, and its counts.
func stateLine(r *rollout.Report) string {
	return fmt.Sprintf("%s/%s: %s: %s\n  desired %d, up-to-date %d, available %d; generation %d, observed %d\n",
		printable.Quote(r.Namespace), printable.Quote(r.Name), r.State, printable.Escape(r.Message),
		r.Desired, r.UpToDate, r.Available, r.Generation, r.ObservedGeneration)
}
