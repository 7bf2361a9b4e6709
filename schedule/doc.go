// Package schedule decides whether the kube-scheduler would bind a daemon pod to the node it
// targets once the DaemonSet controller has created it: the scheduler filters that can still
// refuse a pod the controller placed (NodeResourcesFit, NodePorts, NodeDeclaredFeatures), with
// the numbers, and whether the default preemption would make room and which pods it would
// evict. It is a set of pure functions over k8s.io/api objects: it never contacts an API
// server, reads no clock and never mutates its inputs.
//
// The controller already decides taints, node name, node selector and required node affinity
// (package daemonset, ELIG-*), so the filters here are only those that look at what else runs
// on the node. Volume limits, inter-pod affinity, topology spread and dynamic resources are not
// modelled (docs/rules/schedule.md says why).
//
// [Compile] reads a pod once (its requests as the scheduler counts them, its host ports, the
// node features it needs, its priority); [Pod.Fit] judges one node with the pods bound to it;
// [FitEach] and [FitAll] bind several pods to one node one after another, as the scheduler's
// queue and cache do; [PodsByNode] indexes a snapshot's pods as the scheduler's cache holds them. Each decision
// follows the release of [Options.Version].
//
// Rule identifiers in comments (SCHED-1, ...) name entries of the repository's
// docs/rules/schedule.md.
package schedule
