package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// tableView is what the plan table shows beside the plan: the DaemonSets as read (their
// stored status, node selector and age), the instant the plan was made at, and whether every
// action gets its own line (-o wide).
type tableView struct {
	daemonSets map[[2]string]*appsv1.DaemonSet
	now        time.Time
	wide       bool
	// nowFromInput says that now is the latest time the input records, not --now.
	nowFromInput bool
	// nowFromClock says that now is the clock, read once (a live cluster), not --now.
	nowFromClock bool
	// holders names, by namespace and name, what holds the update budget of a DaemonSet whose
	// rolling update acts but finds nothing to do (budgetHolders).
	holders map[[2]string]string
}

func newTableView(dss []*appsv1.DaemonSet, now time.Time, wide bool) tableView {
	v := tableView{daemonSets: make(map[[2]string]*appsv1.DaemonSet, len(dss)), now: now, wide: wide}
	for _, ds := range dss {
		v.daemonSets[[2]string{ds.Namespace, ds.Name}] = ds
	}
	return v
}

// renderTable writes one kubectl-like row per DaemonSet, each count the planned one, "stored→planned"
// where the stored status differs, then the actions of each DaemonSet and the instant used.
func renderTable(w io.Writer, c *daemonset.ClusterResult, v tableView) {
	if len(c.DaemonSets) == 0 {
		fmt.Fprintln(w, "No DaemonSets in the input.")
		return
	}
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tDESIRED\tCURRENT\tREADY\tUP-TO-DATE\tAVAILABLE\tMISSCHEDULED\tNODE-SELECTOR\tAGE")
	for _, r := range c.DaemonSets {
		ds := v.daemonSets[[2]string{r.Namespace, r.Name}]
		var stored *appsv1.DaemonSetStatus
		selector, age := "<none>", "<unknown>"
		if ds != nil {
			stored = &ds.Status
			selector = nodeSelectorText(ds.Spec.Template.Spec.NodeSelector)
			if !ds.CreationTimestamp.IsZero() {
				age = duration.HumanDuration(v.now.Sub(ds.CreationTimestamp.Time))
			}
		}
		counts := []string{"-", "-", "-", "-", "-", "-"}
		if s := r.Status; s != nil {
			planned := statusCounts(s)
			var before []int32
			if stored != nil && stored.ObservedGeneration > 0 {
				before = statusCounts(stored)
			}
			for i, n := range planned {
				counts[i] = strconv.Itoa(int(n))
				if before != nil && before[i] != n {
					counts[i] = fmt.Sprintf("%d→%d", before[i], n)
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q(r.Namespace), q(r.Name), strings.Join(counts, "\t"), selector, age)
	}
	tw.Flush()
	for _, r := range c.DaemonSets {
		fmt.Fprintln(w)
		renderActions(w, r, v.wide, v.holders[[2]string{r.Namespace, r.Name}])
	}
	switch {
	case v.nowFromInput && v.now.Equal(time.Unix(0, 0)):
		fmt.Fprintf(w, "\nPlanned at %s: the input records no time (--now sets one).\n", formatNow(v.now))
	case v.nowFromInput:
		fmt.Fprintf(w, "\nPlanned at %s, the latest time the input records (--now sets another).\n", formatNow(v.now))
	case v.nowFromClock:
		fmt.Fprintf(w, "\nPlanned at %s, the time it was read from the cluster (--now sets another).\n", formatNow(v.now))
	default:
		fmt.Fprintf(w, "\nPlanned at %s (--now).\n", formatNow(v.now))
	}
}

// statusCounts are the table's counts of a status, in column order.
func statusCounts(s *appsv1.DaemonSetStatus) []int32 {
	return []int32{s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberReady, s.UpdatedNumberScheduled,
		s.NumberAvailable, s.NumberMisscheduled}
}

// nodeSelectorText is a nodeSelector as kubectl's wide DaemonSet table prints it.
func nodeSelectorText(sel map[string]string) string {
	if len(sel) == 0 {
		return "<none>"
	}
	parts := make([]string, 0, len(sel))
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		parts = append(parts, q(k)+"="+q(sel[k]))
	}
	return strings.Join(parts, ",")
}

// actionCounts says how many pods the sync creates and deletes: " 2 creates, 1 delete", or "".
func actionCounts(r *daemonset.Result) string {
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{len(r.Create), "create"}, {len(r.Delete), "delete"}, {len(r.Adopt), "adopt"}, {len(r.Release), "release"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.noun)
		case c.n > 1:
			parts = append(parts, strconv.Itoa(c.n)+" "+c.noun+"s")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}

// groupOver is how many actions of one verb and reason are listed one per line without -o wide.
const groupOver = 10

// groupable is one action line, with the reason and node it is grouped by.
type groupable struct {
	reason, node, text string
}

// writeGrouped writes the actions of one verb: one line each when wide or when there are at
// most groupOver of them, else one line per reason with the count and the first three nodes.
func writeGrouped(line func(verb, format string, a ...any), verb, noun string, actions []groupable, wide bool) {
	if wide || len(actions) <= groupOver {
		for _, a := range actions {
			line(verb, "%s", a.text)
		}
		return
	}
	var reasons []string
	byReason := map[string][]string{}
	for _, a := range actions {
		if _, ok := byReason[a.reason]; !ok {
			reasons = append(reasons, a.reason)
		}
		byReason[a.reason] = append(byReason[a.reason], q(a.node))
	}
	for _, reason := range reasons {
		nodes := byReason[reason]
		shown := strings.Join(nodes[:min(3, len(nodes))], ", ")
		if len(nodes) > 3 {
			shown += fmt.Sprintf(" and %d more", len(nodes)-3)
		}
		line(verb, "%d %s (%s) on nodes %s; -o wide lists each", len(nodes), noun, reason, shown)
	}
}
