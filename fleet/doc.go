// Package fleet answers the questions of many DaemonSets at once, node by node, for simulators,
// autoscalers and controllers that watch a whole cluster: which DaemonSets would this node,
// possibly a hypothetical one with labels and taints but no name, run; what would their daemon
// pods request and which host ports would they claim; and which decisions does a change to a
// node or to a DaemonSet touch. Every decision is exactly [daemonset.Planner.Eligibility]'s.
//
// [Compile] turns DaemonSets into a [Set] once. [Set.DecideNode] decides one node into a
// reusable [NodeDecision], with the request totals and host ports of the daemon pods that should
// run there, allocating nothing once warm. [Set.Decide] builds the [Matrix] of every DaemonSet
// on every node of a cluster, which [Matrix.UpdateNode], [Matrix.RemoveNode] and
// [Matrix.UpdateDaemonSet] keep up to date, returning only the decisions that changed.
// [PodRequests] and [PodHostPorts] say what one pod costs on its node, as the scheduler counts
// it.
//
// The Options a Set is compiled with are daemonset's: Options.Workers is how many goroutines
// share the nodes of [Set.Decide], as it is for a plan's nodes and pods.
//
// Rule identifiers in comments (ELIG-3, TAINT-5, ...) name entries of the specification in the
// repository's docs/ directory, as in package daemonset.
package fleet
