// Package apiserver decides what the API server stores when a DaemonSet is created, updated or
// applied with `kubectl apply`: the defaults, the apps/v1 create and update validation with the
// API server's field paths and messages, and the DaemonSet strategy's generation and
// template-generation bumps (D-14). It never contacts an API server, and it models the
// DaemonSet only as far as the plan reads it: container-level pod validation, admission and
// managedFields are left to the real one.
package apiserver
