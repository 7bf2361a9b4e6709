// Package taints decides which of a node's taints a pod's tolerations leave untolerated, exactly
// as Kubernetes v1.36 does. It never contacts an API server and never mutates its inputs.
package taints

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Effects is a set of taint effects.
type Effects uint8

// The taint effects, as bits of an Effects set.
const (
	NoSchedule Effects = 1 << iota
	PreferNoSchedule
	NoExecute
)

// Options holds the feature gates that change toleration matching. The zero value is the
// Kubernetes v1.36 default.
type Options struct {
	// ComparisonOperators enables the Lt and Gt toleration operators (feature gate
	// TaintTolerationComparisonOperators, alpha and off by default in v1.36; TAINT-10, D-7).
	ComparisonOperators bool
}

// Tolerations is a compiled list of tolerations. It is immutable and safe for concurrent use.
type Tolerations struct{}

// Compile compiles tols. Matching follows v1.Toleration.ToleratesTaint even for tolerations
// that API validation would reject (TAINT-2); see Validate for those.
func Compile(tols []v1.Toleration, opts Options) *Tolerations { panic("taints: not implemented yet") }

// Validate reports what API validation rejects in tols (VAL-17).
func Validate(tols []v1.Toleration, fldPath *field.Path, opts Options) field.ErrorList {
	panic("taints: not implemented yet")
}

// FirstUntolerated returns the first taint of taints, in order, whose effect is in effects and
// that no toleration tolerates (TAINT-9). It allocates nothing.
func (t *Tolerations) FirstUntolerated(taints []v1.Taint, effects Effects) (v1.Taint, bool) {
	panic("taints: not implemented yet")
}
