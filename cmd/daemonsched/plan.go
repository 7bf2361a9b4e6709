package main

import (
	"cmp"
	"fmt"
	"runtime"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
)

// newPlanCommand returns plan, or, when demo, the demo command: plan over the built-in example.
func newPlanCommand(e *env, demo bool) *cobra.Command {
	var (
		src    inputs
		format = formatTable
		now    timeFlag
		ns     namespaceFlags
		burst  int
	)
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print what one sync of the DaemonSet controller would do to every DaemonSet",
		Long: `plan prints what one sync of the v1.36 DaemonSet controller would do to every DaemonSet of
the snapshot: the pods it creates and deletes, the rolling update's step and the status it
writes (the cluster-wide plan, D-12). -n shows the DaemonSets of one namespace only; the plan
is made over the whole snapshot either way.

` + inputHelp,
		Example: `  kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml | daemonsched plan
  daemonsched plan -f cluster.yaml -o json
  daemonsched plan -f cluster.yaml --apply agent.yaml      # what would this manifest change?`,
		Args: noArgs,
	}
	if demo {
		src.example = true
		cmd.Use = "demo"
		cmd.Short = "Plan the built-in example cluster (plan --example)"
		cmd.Long = "demo is plan --example: the plan of the built-in example cluster, to see what daemonsched prints."
		cmd.Example = "  daemonsched demo\n  daemonsched demo -o yaml"
	}
	fs := cmd.Flags()
	if !demo {
		addInputFlags(fs, &src)
	}
	fs.Var(&now, "now", "the instant readiness is judged at")
	addOutputFlag(fs, &format, formatTable, formatWide, formatJSON, formatYAML)
	addNamespaceFlags(fs, &ns)
	fs.IntVar(&burst, "burst", 0, "cap creates and deletes of each action list at `N` (0: no cap; the controller uses 250)")
	strictness := addStrictFlags(fs)
	reading := addReadFlags(fs)
	cmd.RunE = func(*cobra.Command, []string) error {
		if err := cmp.Or(reading.check(), ns.check()); err != nil {
			return err
		}
		if burst < 0 {
			return usagef("--burst must not be negative, got %d", burst)
		}
		mode, err := strictness.mode()
		if err != nil {
			return err
		}
		// A command has the machine to itself: every core shares the decoding, and each plan's
		// nodes and pods.
		src.namespace = ns.namespace
		in, err := load(src, e.stdin, e.stderr, lean(reading.options(mode, runtime.GOMAXPROCS(0))))
		if err != nil {
			return err
		}
		if err := ns.present(in.Snapshot.DaemonSets); err != nil {
			return err
		}
		opts := daemonset.Options{Now: now.t, BurstLimit: burst, Workers: runtime.GOMAXPROCS(0)}
		if opts.Now.IsZero() {
			opts.Now = manifest.Latest(in.Snapshot)
		}
		// A DaemonSet the API server would refuse is refused (by default only a hand-written
		// one), as kubectl apply would answer; one read from the API server is planned as
		// stored, with a warning.
		problems, err := mode.admit(in, func(ds *appsv1.DaemonSet) bool { return ns.keep(ds.Namespace) }, opts)
		if err != nil {
			return err
		}
		cluster, err := daemonset.PlanCluster(in.Snapshot, opts)
		if err != nil {
			return fmt.Errorf("inconsistent snapshot: %w", err)
		}
		if ns.namespace != "" {
			shown := *cluster
			shown.DaemonSets = nil
			for _, r := range cluster.DaemonSets {
				if ns.keep(r.Namespace) {
					shown.DaemonSets = append(shown.DaemonSets, r)
				}
			}
			cluster = &shown
		}
		// e.out is run's buffer, which an error discards.
		switch format {
		case formatJSON:
			err = renderJSON(e.out, cluster, opts.Now)
		case formatYAML:
			err = renderYAML(e.out, cluster, opts.Now)
		default:
			view := newTableView(in.Snapshot.DaemonSets, opts.Now, format == formatWide)
			view.nowFromInput = now.t.IsZero()
			renderTable(e.out, cluster, view)
		}
		if err != nil {
			return err
		}
		warn(e.stderr, in, problems, reading.limits.Warnings)
		return nil
	}
	return cmd
}

// problemList is every validation problem, one line each (VAL-23), when --strict makes them
// errors.
type problemList []error

func (l problemList) Error() string {
	msgs := make([]string, len(l))
	for i, p := range l {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\ndaemonsched: ")
}

func (l problemList) Unwrap() []error { return l }
