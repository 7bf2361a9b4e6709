// Package affinity decides whether a node satisfies a pod's required placement:
// spec.nodeSelector AND required node affinity, exactly as Kubernetes v1.36 does. It never
// contacts an API server and never mutates its inputs.
package affinity

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Required is the compiled required placement of a pod spec. It is immutable and safe for
// concurrent use.
type Required struct{}

// Compile compiles spec.nodeSelector and the required node affinity of spec. It never fails:
// a malformed term is recorded (with its path under fldPath) and never matches (AFF-8), as
// upstream. fldPath may be nil.
func Compile(spec *v1.PodSpec, fldPath *field.Path) *Required {
	panic("affinity: not implemented yet")
}

// Validate reports what API validation rejects in the node selector and node affinity of spec
// (VAL-18, VAL-19).
func Validate(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	panic("affinity: not implemented yet")
}

// Matches reports whether node satisfies the node selector and the required node affinity.
// It allocates nothing.
func (r *Required) Matches(node *v1.Node) bool { panic("affinity: not implemented yet") }

// BindToNode returns a copy of a with its required node affinity replaced by the single term
// matchFields metadata.name In [nodeName] (POD-6). a is not modified.
func BindToNode(a *v1.Affinity, nodeName string) *v1.Affinity { panic("affinity: not implemented yet") }

// TargetNodeName returns the node a daemon pod is meant for (OWN-9): spec.nodeName, else the
// single value of the first metadata.name In matchFields requirement of its required affinity.
func TargetNodeName(pod *v1.Pod) (string, bool) { panic("affinity: not implemented yet") }
