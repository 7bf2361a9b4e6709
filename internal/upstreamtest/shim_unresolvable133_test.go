//go:build k8s_1_33

package upstreamtest

import "k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"

// insufficientHasUnresolvable is false: 1.33's InsufficientResource has no Unresolvable (new in
// 1.34), so the scheduler differential compares the shortfalls without it there.
const insufficientHasUnresolvable = false

// unresolvableOf is false: 1.33 does not say.
func unresolvableOf(noderesources.InsufficientResource) bool { return false }
