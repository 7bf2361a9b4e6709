package daemonset

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/internal/choice"
)

// statusNodes returns the choice.StatusNodes of ix (STAT-16): the listed nodes holding a pod
// the sync adopts (adopted) that would go at once if deleted, with the facts of their pods in
// the order the counters read them, for a verifier to recount the status of another pick
// (choice.Orders.StatusWith). Nil when there are none, which is the rule.
func statusNodes(ix *podIndex, adopted []ObjectRef) []choice.StatusNode {
	if len(adopted) == 0 {
		return nil
	}
	isAdopted := make(map[ObjectRef]bool, len(adopted))
	for _, r := range adopted {
		isAdopted[ObjectRef{Namespace: r.Namespace, Name: r.Name}] = true
	}
	atOnce := func(pod *v1.Pod) bool {
		return isAdopted[ObjectRef{Namespace: pod.Namespace, Name: pod.Name}] && goesAtOnce(pod)
	}
	var out []choice.StatusNode
	for i, name := range ix.names {
		pods := ix.podsOf(i)
		if !slices.ContainsFunc(pods, func(dp daemonPod) bool { return atOnce(dp.pod) }) {
			continue
		}
		n := choice.StatusNode{Node: name, ShouldRun: ix.elig[i].shouldRun(), Pods: make([]choice.StatusPod, len(pods))}
		for j, dp := range pods {
			n.Pods[j] = choice.StatusPod{Namespace: dp.pod.Namespace, Name: dp.pod.Name, Ready: dp.facts.has(factReady),
				Available: dp.facts.has(factAvailable), Updated: dp.facts.has(factUpdated), AtOnce: atOnce(dp.pod)}
		}
		out = append(out, n)
	}
	return out
}
