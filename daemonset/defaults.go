package daemonset

import appsv1 "k8s.io/api/apps/v1"

// WithDefaults returns a copy of ds with the DaemonSet-level API defaults applied (DFLT-1,
// DFLT-2, D-4). ds is not modified.
func WithDefaults(ds *appsv1.DaemonSet) *appsv1.DaemonSet { panic("daemonset: not implemented yet") }
