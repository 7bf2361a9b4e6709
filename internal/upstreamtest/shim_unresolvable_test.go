//go:build !k8s_1_33

package upstreamtest

import "k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"

// insufficientHasUnresolvable says whether NodeResourcesFit's InsufficientResource says that a
// shortfall no preemption can make up is unresolvable: from 1.34 (shim_unresolvable133_test.go
// holds 1.33's).
const insufficientHasUnresolvable = true

// unresolvableOf is ir's Unresolvable.
func unresolvableOf(ir noderesources.InsufficientResource) bool { return ir.Unresolvable }
