package cli

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
)

// newPlanCommand returns plan, or, when demo, the demo command: plan over the built-in example.
func newPlanCommand(e *env, demo bool) *cobra.Command {
	var (
		format = formatTable
		ns     namespaceFlags
		burst  int
		sched  bool
	)
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print what one sync of the DaemonSet controller would do to every DaemonSet",
		Long: `plan prints what one sync of the DaemonSet controller would do to every DaemonSet of the
snapshot: the pods it creates and deletes, the rolling update's step and the status it writes
(the cluster-wide plan, D-12). The controller is that of the release --kubernetes-version names
(1.33 to 1.37; 1.37.2 by default), with its template hash, availability and ownership rules
(docs/rules/versions.md), and --feature-gates over its default gates; plan -o json names the
release (kubernetes). -n shows the DaemonSets of one namespace only; the plan is made over
the whole snapshot either way.

` + inputHelp,
		Example: `  kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml | daemonsched plan
  daemonsched plan -f cluster.yaml -o json
  daemonsched plan -f cluster.yaml --apply agent.yaml      # what would this manifest change?`,
		Args: noArgs,
	}
	if demo {
		cmd.Use = "demo"
		cmd.Short = "Plan the built-in example cluster (plan --example)"
		cmd.Long = "demo is plan --example: the plan of the built-in example cluster, to see what daemonsched prints."
		cmd.Example = "  daemonsched demo\n  daemonsched demo -o yaml"
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{example: demo}, "the instant readiness is judged at")
	addOutputFlag(fs, &format, formatTable, formatWide, formatJSON, formatYAML)
	addNamespaceFlags(fs, &ns, e)
	fs.BoolVar(&sched, "scheduler", false, "add the scheduler's verdict on each pod the plan creates and each unbound Pending daemon pod (-o json|yaml: scheduler; the table: as -o wide), reading every field")
	fs.IntVar(&burst, "burst", daemonset.DefaultBurstLimit, "cap creates and deletes of each action list at `N`, as the controller does (0: its 250; negative: no cap)")
	cmd.RunE = func(*cobra.Command, []string) error {
		if err := cmp.Or(c.reading.check(), ns.check()); err != nil {
			return err
		}
		if err := ns.resolve(e, c); err != nil {
			return err
		}
		if err := c.check(); err != nil {
			return err
		}
		c.question = Question{Namespace: ns.namespace} // a live cluster: -n's namespace alone
		fields := planFields
		if format == formatWide || sched {
			fields = allFields // the scheduler's verdicts read containers and allocatable (SCHED-7)
		}
		l, err := c.read(e, fields, ns.namespace)
		if err != nil {
			return err
		}
		// The plan is made over the whole snapshot (D-12); -n filters what is shown.
		shown := daemonSetFilter{ns: ns}
		if _, err := shown.pick(l.in.Snapshot.DaemonSets); err != nil {
			return err
		}
		opts := daemonset.Options{Now: l.at, Version: l.version, FeatureGates: l.gates, BurstLimit: burst, Workers: runtime.GOMAXPROCS(0)}
		// A DaemonSet the API server would refuse is refused (by default only a hand-written
		// one), as kubectl apply would answer; one read from the API server is planned as
		// stored, with a warning.
		if err := l.admit(shown.keep, opts); err != nil {
			return err
		}
		cluster, err := l.in.Snapshot.Plan(opts)
		if err != nil {
			return fmt.Errorf("inconsistent snapshot: %w", err)
		}
		if ns.namespace != "" {
			kept := *cluster
			kept.DaemonSets = nil
			for _, r := range cluster.DaemonSets {
				if ns.keep(r.Namespace) {
					kept.DaemonSets = append(kept.DaemonSets, r)
				}
			}
			cluster = &kept
		}
		// e.out is run's buffer, which an error discards. -o json is the oracle contract.
		data := func() any {
			doc := newPlanDocument(cluster, opts.Now, opts.Version)
			if sched {
				doc.Scheduler = planVerdicts(l.in.Snapshot, cluster, opts)
			}
			return doc
		}
		err = render(e.out, format, data, func() {
			view := newTableView(l.in.Snapshot.DaemonSets, opts.Now, format == formatWide)
			view.nowFromInput = c.now.t.IsZero() && !l.clock
			view.nowFromClock = c.now.t.IsZero() && l.clock
			view.holders = planHolders(l.in.Snapshot, cluster, opts)
			renderTable(e.out, cluster, view)
			if format == formatWide || sched {
				renderUnbindable(e.out, l.in.Snapshot, cluster, opts)
			}
		})
		if err != nil {
			return err
		}
		return l.done(e, nil)
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

// planHolders names what holds the update budget of each planned DaemonSet whose rolling update
// acts but finds nothing to do while some node is not up to date, as rollout status names it
// (budgetHolders), by namespace and name; the others are left out, and a finished rollout
// costs no second plan.
func planHolders(s daemonset.Snapshot, cluster *daemonset.ClusterResult, opts daemonset.Options) map[[2]string]string {
	var out map[[2]string]string
	for _, r := range cluster.DaemonSets {
		if ru := r.RollingUpdate; ru == nil || !ru.Acted || len(r.Create)+len(r.Delete) > 0 {
			continue
		}
		if st := r.Status; st == nil || st.UpdatedNumberScheduled >= st.DesiredNumberScheduled {
			continue // every node that should run one is up to date: no second plan for it
		}
		i := slices.IndexFunc(s.DaemonSets, func(ds *appsv1.DaemonSet) bool {
			return ds != nil && ds.Namespace == r.Namespace && ds.Name == r.Name
		})
		if i < 0 {
			continue
		}
		if held := budgetHolders(s, s.DaemonSets[i], opts); held != "" {
			if out == nil {
				out = map[[2]string]string{}
			}
			out[[2]string{r.Namespace, r.Name}] = held
		}
	}
	return out
}
