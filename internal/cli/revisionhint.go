package cli

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/rollout"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// oldRevisionHints names, for each pod of ds on the explained nodes that is not of the current
// revision (UPD-3: its controller-revision-hash label is not the current hash, nor does its
// pod-template-generation match), the revision it is labelled with and what the update does
// with it: this sync's delete, the surge pod created beside it, the wait for the update budget
// or for the base diff, OnDelete's wait for someone to delete it, or the error that stops the
// rolling update. On a node that should not run ds (ELIG-1) the pod is deleted and nothing takes
// its place, and the hint says so. An old pod waiting for the update budget is told what holds
// it, as rollout status names it (budgetHolders). s is the planned snapshot, opts the plan's.
// Terminating pods are already going and get no hint.
func oldRevisionHints(ds *appsv1.DaemonSet, nodes []*v1.Node, s daemonset.Snapshot, plan *daemonset.ClusterResult, opts daemonset.Options) []string {
	i := slices.IndexFunc(plan.DaemonSets, func(r *daemonset.Result) bool { return r.Namespace == ds.Namespace && r.Name == ds.Name })
	if i < 0 || plan.DaemonSets[i].Skipped != "" || plan.DaemonSets[i].RevisionHash == "" {
		return nil
	}
	explained := shouldRunOn(ds, nodes, opts) // the explained nodes, each with whether it should run ds
	r := plan.DaemonSets[i]
	var old []*v1.Pod
	current := map[string]bool{} // the nodes holding a pod of the current revision
	for _, pod := range s.Pods {
		if pod == nil || pod.DeletionTimestamp != nil || !opts.Version.IsControlledBy(pod, ds) {
			continue
		}
		if daemonset.IsPodUpdated(ds, r.RevisionHash, pod) {
			if node, ok := affinity.TargetNodeName(pod); ok {
				current[node] = true
			}
			continue
		}
		node, _ := affinity.TargetNodeName(pod)
		if _, ok := explained[node]; ok {
			old = append(old, pod)
		}
	}
	slices.SortFunc(old, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	holders := ""
	if ru := r.RollingUpdate; len(old) > 0 && ru != nil && ru.Acted && len(r.Create)+len(r.Delete) == 0 {
		holders = budgetHolders(s, ds, opts) // only where some old pod waits for the budget
	}
	if len(old) > hintPodsListed {
		return []string{oldRevisionSummary(ds, r, old, current, explained, holders)}
	}
	out := make([]string, 0, len(old))
	for _, pod := range old {
		node, _ := affinity.TargetNodeName(pod)
		label := "without a controller-revision-hash label"
		if h, ok := pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; ok {
			label = "labelled controller-revision-hash=" + q(h)
		}
		out = append(out, fmt.Sprintf("pod %s/%s on node %s is of an old revision (%s, the current one is %s; UPD-3): %s",
			q(pod.Namespace), q(pod.Name), q(node), label, q(r.RevisionHash), oldPodFate(r, pod, node, current[node], explained[node], holders)))
	}
	return out
}

// hintPodsListed is how many old pods of one DaemonSet get a hint each; more get one hint that
// counts them by fate (a rollout over thousands of nodes would otherwise print thousands).
const hintPodsListed = 10

// oldRevisionSummary is the one hint for the old pods of ds when there are more than
// hintPodsListed: how many, then how many meet each fate, the most common first.
func oldRevisionSummary(ds *appsv1.DaemonSet, r *daemonset.Result, old []*v1.Pod, current, runs map[string]bool, holders string) string {
	counts := map[string]int{}
	for _, pod := range old {
		node, _ := affinity.TargetNodeName(pod)
		counts[oldPodFate(r, pod, node, current[node], runs[node], holders)]++
	}
	fates := slices.Collect(maps.Keys(counts))
	slices.SortFunc(fates, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	parts := make([]string, len(fates))
	for i, f := range fates {
		parts[i] = fmt.Sprintf("%d: %s", counts[f], f)
	}
	return fmt.Sprintf("%d pods of DaemonSet %s/%s on the explained nodes are of an old revision (the current one is %s; UPD-3; explain --pod NAME says which): %s",
		len(old), q(ds.Namespace), q(ds.Name), q(r.RevisionHash), strings.Join(parts, "; "))
}

// oldPodFate says what the plan r does with the old pod on node, and what comes next;
// beside says that a pod of the current revision is on the node too, runs that the node
// should run the DaemonSet (ELIG-1). On a node that should not, the rolling update deletes the
// old pod and no pod of the current revision follows it (DIFF-4, UPD-8, UPD-11): the fate says
// deleted, never replaced. holders names what holds the update budget (budgetHolders), or is
// "" when nothing is named.
func oldPodFate(r *daemonset.Result, pod *v1.Pod, node string, beside, runs bool, holders string) string {
	const noneFollows = "; the node should not run the DaemonSet (ELIG-1), so no pod takes its place"
	if j := slices.IndexFunc(r.Delete, func(d daemonset.Deletion) bool { return d.Namespace == pod.Namespace && d.Name == pod.Name }); j >= 0 {
		d := r.Delete[j]
		switch {
		case !runs:
			return fmt.Sprintf("this sync deletes it (%s)%s", reasonText(d.Reason, d.Interchangeable), noneFollows)
		case d.Reason == daemonset.ReasonUpdateOldCandidate, d.Reason == daemonset.ReasonUpdateOldUnavailable:
			return fmt.Sprintf("this sync deletes it (%s), and a later sync creates a pod of the current revision in its place (UPD-8)", reasonText(d.Reason, d.Interchangeable))
		default:
			return fmt.Sprintf("this sync deletes it (%s)", reasonText(d.Reason, d.Interchangeable))
		}
	}
	if slices.ContainsFunc(r.Create, func(c daemonset.Creation) bool { return c.Node == node }) {
		return "this sync creates a pod of the current revision beside it; it goes once that pod is available (UPD-11)"
	}
	ru := r.RollingUpdate
	switch {
	case ru == nil:
		return "the sync does nothing with it"
	case ru.Reason == daemonset.RollingReasonOnDelete && !runs:
		return "updateStrategy OnDelete keeps it until something deletes it" + noneFollows + " (UPD-1)"
	case ru.Reason == daemonset.RollingReasonOnDelete:
		return "updateStrategy OnDelete keeps it until something deletes it; the controller then creates a pod of the current revision (UPD-1)"
	case ru.BudgetError != "" && !runs:
		return "the rolling update cannot delete it: " + printable.Escape(ru.BudgetError) + " (UPD-5)"
	case ru.BudgetError != "":
		return "the rolling update cannot replace it: " + printable.Escape(ru.BudgetError) + " (UPD-5)"
	case ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty && !runs:
		return fmt.Sprintf("the rolling update deletes it in a later sync, once this sync's creates and deletes are done (UPD-2; maxUnavailable %d, maxSurge %d)%s",
			ru.MaxUnavailable, ru.MaxSurge, noneFollows)
	case ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty:
		return fmt.Sprintf("the rolling update replaces it in a later sync, once this sync's creates and deletes are done (UPD-2; maxUnavailable %d, maxSurge %d)",
			ru.MaxUnavailable, ru.MaxSurge)
	case ru.Error != "":
		return "the rolling update is stopped: " + printable.Escape(ru.Error)
	case beside && ru.MaxSurge > 0:
		return "a pod of the current revision runs beside it; it goes once that pod is available (UPD-11)"
	case !runs && ru.MaxSurge > 0:
		return fmt.Sprintf("the rolling update deletes it once more pods are available than nodes should run one (maxSurge %d; UPD-11)%s",
			ru.MaxSurge, noneFollows)
	case !runs:
		return fmt.Sprintf("the rolling update deletes it when the update budget allows (maxUnavailable %d, maxSurge %d; UPD-8)%s",
			ru.MaxUnavailable, ru.MaxSurge, noneFollows)
	}
	if holders != "" {
		return fmt.Sprintf("it waits for the update budget (maxUnavailable %d, maxSurge %d; UPD-8, UPD-11), held by %s",
			ru.MaxUnavailable, ru.MaxSurge, holders)
	}
	return fmt.Sprintf("it waits for the update budget, which the other nodes' replacements use (maxUnavailable %d, maxSurge %d; UPD-8, UPD-11)",
		ru.MaxUnavailable, ru.MaxSurge)
}

// shouldRunOn maps the name of each of nodes to whether it should run ds (ELIG-1), with opts
// the plan's. Compile's errors (a bad update budget, say) are the plan's to report; its planner
// still decides eligibility, as explain's rows do.
func shouldRunOn(ds *appsv1.DaemonSet, nodes []*v1.Node, opts daemonset.Options) map[string]bool {
	out := make(map[string]bool, len(nodes))
	p, _ := daemonset.Compile(ds, opts)
	for _, n := range nodes {
		out[n.Name] = p != nil && p.Eligibility(n).ShouldRun
	}
	return out
}

// budgetHolders names what holds ds's update budget as rollout status names it: the blockers
// and the nodes on their way of [rollout.Progress] (never those waiting for the budget
// themselves), those with a pod first, at most three then how many more; "" when no old pod
// waits for the budget or nothing is named. opts are the plan's.
func budgetHolders(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts daemonset.Options) string {
	r, err := rollout.Progress(s, ds, rollout.ProgressOptions{Now: opts.Now, Workers: opts.Workers, Version: opts.Version, FeatureGates: opts.FeatureGates})
	if err != nil || r.WaitingForBudget == 0 {
		return ""
	}
	var withPod, rest []string
	for _, b := range append(slices.Clone(r.Blocking), r.Waiting...) {
		if b.Reason == rollout.WaitBudget {
			continue
		}
		text := "node " + q(b.Node)
		detail := string(b.Reason)
		if b.Message != "" {
			detail += ": " + printable.Escape(b.Message)
		}
		if b.Pod != "" {
			withPod = append(withPod, text+" (pod "+q(b.Pod)+", "+detail+")")
		} else {
			rest = append(rest, text+" ("+detail+")")
		}
	}
	all := append(withPod, rest...)
	if len(all) == 0 {
		return ""
	}
	out := strings.Join(all[:min(3, len(all))], ", ")
	if len(all) > 3 {
		out += fmt.Sprintf(" and %d more", len(all)-3)
	}
	return out
}
