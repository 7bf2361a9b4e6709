// Package daemonset decides what the Kubernetes v1.36 DaemonSet controller does in one sync of
// one DaemonSet: which nodes should run a daemon pod, which pods to create, delete, adopt and
// release, what the rolling update does next and what the status counters read. It is a set of
// pure functions over k8s.io/api objects: it never contacts an API server, reads no clock and
// never mutates its inputs.
//
// Rule identifiers in comments (ELIG-3, DIFF-7, ...) refer to the project's behavioural
// specification; decision identifiers (D-1, ...) to its recorded decisions.
package daemonset
