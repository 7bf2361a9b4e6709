// Package lint finds DaemonSet specs that will stall: a rolling update that can never finish, a
// daemon pod that can never run where it is meant to, two DaemonSets fighting over pods. It
// judges specs with the controller's own decisions (package daemonset) and the pod's cost as the
// scheduler counts it (package fleet), and never contacts an API server.
//
// [Lint] checks the DaemonSets of a snapshot. The rules that need a cluster (the nodes' taints,
// readiness, labels and allocatable) run only when the snapshot holds nodes; the others read the
// spec alone. Each finding carries a stable rule ID (LINT-1 ...), documented in the
// repository's docs/rules/lint.md, a severity, the field path it is about and, with nodes, the
// nodes concerned. [Rules] lists every rule.
package lint
