package conformance

import (
	"cmp"
	"fmt"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/reasonrule"
)

// ruleOf is the rule a missing action of reason r cites: for a budgeted candidate the rule under
// which the budget picks the candidates (UPD-9, UPD-23), for any other action the rule that
// gives its reason (DIFF-16), both from daemonset's table of reasons; DIFF-1 for a code the
// table does not hold.
func ruleOf(r daemonset.Reason) string {
	e, ok := reasonrule.Of(string(r))
	if !ok {
		return "DIFF-1"
	}
	return cmp.Or(e.Budget, e.Rule)
}

// phaseRule is the rule that explains why no action of a kind is possible at all.
func phaseRule(o *orders) string {
	if o.Phase == "rolling" {
		return "UPD-2"
	}
	return "DIFF-1"
}

// maxPodDiffs bounds the pod diffs one DaemonSet's creates are worded with: a go-cmp diff of a
// daemon pod takes milliseconds, and a candidate whose 5,000 creates all differ took over a
// minute to verify (issue 25) for diffs no one reads past MaxMismatches. Every pod is still
// compared, and every difference a Mismatch.
const maxPodDiffs = MaxMismatches

// checkCreates checks the candidate's creates: each on a node where the controller could create
// a pod in this sync, the selection a valid one (DIFF-10, UPD-23), each pod as ComparePods
// accepts it.
func checkCreates(key string, o *orders, got []daemonset.Creation, opts Options) []Mismatch {
	ix := newListIndex("create", o.Creates)
	var out []Mismatch
	diffs := 0 // pod diffs worded
	sel := map[string]bool{}
	for i, c := range got {
		if sel[c.Node] {
			out = append(out, Mismatch{DaemonSet: key, Action: "create", Object: c.Node, Rule: "POD-8",
				Message: "two creates on node " + c.Node + ": one sync creates one pod per node"})
			continue
		}
		sel[c.Node] = true
		it, ok := ix.items[c.Node]
		if !ok {
			out = append(out, Mismatch{DaemonSet: key, Action: "create", Object: c.Node, Rule: phaseRule(o),
				Message: "extra create on node " + nodeLabel(c.Node) + ": the controller creates no pod there in this sync"})
			continue
		}
		if opts.Reasons && c.Reason != it.create.Reason {
			out = append(out, Mismatch{DaemonSet: key, Action: "create", Object: c.Node, Rule: "DIFF-16",
				Message: fmt.Sprintf("reason %s, want %s", c.Reason, it.create.Reason)})
		}
		if c.Pod == nil {
			out = append(out, Mismatch{DaemonSet: key, Action: "create", Object: c.Node, Rule: "POD-1",
				Message: fmt.Sprintf("creates[%d] has no pod", i)})
			continue
		}
		if w, g, equal := comparablePods(it.create.Pod, c.Pod); !equal {
			m := Mismatch{DaemonSet: key, Action: "create", Object: c.Node, Rule: comparableRule(w, g),
				Message: "the pod to create on node " + c.Node + " differs from the daemon pod"}
			if diffs < maxPodDiffs {
				m.Diff, diffs = podDiff(w, g), diffs+1
			} else {
				m.Message += fmt.Sprintf(" (diff left out: the first %d of this DaemonSet have one)", maxPodDiffs)
			}
			out = append(out, m)
		}
	}
	for _, p := range ix.verifySelection(sel, burstCap(o.BurstLimit)) {
		out = append(out, Mismatch{DaemonSet: key, Action: "create", Object: p.object, Rule: p.rule, Message: p.msg})
	}
	return out
}

func nodeLabel(n string) string {
	if n == "" {
		return `""`
	}
	return n
}

// checkDeletes checks the candidate's deletes: each of a pod the controller could delete in
// this sync, on its node, and the selection a valid one (DIFF-10, DIFF-17, UPD-9, UPD-23).
func checkDeletes(key string, o *orders, got []daemonset.Deletion, opts Options) []Mismatch {
	ix := newListIndex("delete", o.Deletes)
	var out []Mismatch
	sel := map[string]bool{}
	for _, d := range got {
		k := d.Namespace + "/" + d.Name
		if sel[k] {
			out = append(out, Mismatch{DaemonSet: key, Action: "delete", Object: k, Rule: "DIFF-15", Message: "pod " + k + " deleted twice"})
			continue
		}
		sel[k] = true
		it, ok := ix.items[k]
		if !ok {
			out = append(out, Mismatch{DaemonSet: key, Action: "delete", Object: k, Rule: phaseRule(o),
				Message: "extra delete of pod " + k + ": the controller does not delete it in this sync"})
			continue
		}
		// The controller deletes by name: a candidate may leave the node out, never name another.
		if d.Node != "" && d.Node != it.delete.Node {
			out = append(out, Mismatch{DaemonSet: key, Action: "delete", Object: k, Rule: "OWN-9",
				Message: fmt.Sprintf("pod %s on node %s, want node %s", k, nodeLabel(d.Node), nodeLabel(it.delete.Node))})
		}
		if d.UID != "" && d.UID != it.delete.UID {
			out = append(out, uidMismatch(key, "delete", k, d.UID, it.delete.UID))
		}
		if opts.Reasons && d.Reason != it.delete.Reason {
			out = append(out, Mismatch{DaemonSet: key, Action: "delete", Object: k, Rule: "DIFF-16",
				Message: fmt.Sprintf("reason %s, want %s", d.Reason, it.delete.Reason)})
		}
	}
	for _, p := range ix.verifySelection(sel, burstCap(o.BurstLimit)) {
		out = append(out, Mismatch{DaemonSet: key, Action: "delete", Object: p.object, Rule: p.rule, Message: p.msg})
	}
	return out
}
