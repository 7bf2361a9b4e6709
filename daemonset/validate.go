package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate reports, with paths rooted at the object, everything API validation would reject in
// ds that matters to scheduling (VAL-1..VAL-21).
func Validate(ds *appsv1.DaemonSet, opts Options) field.ErrorList {
	panic("daemonset: not implemented yet")
}
