package manifest

import (
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

// nodeV1 is the apiVersion of RuntimeClass.
const nodeV1 = "node.k8s.io/v1"

// Admission is what the API server's admission reads when a daemon pod is created, as far as
// the what-if models it (package fleet's Admission): the LimitRanges of every namespace and
// every RuntimeClass, in input order, each with where it was read.
type Admission struct {
	LimitRanges    []*v1.LimitRange
	RuntimeClasses []*nodev1.RuntimeClass
	// LimitRangeSources and RuntimeClassSources say where each object was read, index for
	// index.
	LimitRangeSources, RuntimeClassSources []Source
}

// namespaced reports whether objects of kind live in a namespace: every kind read but Node
// and RuntimeClass.
func namespaced(kind string) bool { return kind != "Node" && kind != "RuntimeClass" }

// newAdmissionObject returns an empty object of one of the admission kinds.
func newAdmissionObject(kind string) typedObject {
	switch kind {
	case "LimitRange":
		return &v1.LimitRange{}
	case "RuntimeClass":
		return &nodev1.RuntimeClass{}
	}
	panic("manifest: no type for kind " + kind) // kinds lists only the kinds decodeValue knows
}

// admissionCollector gathers the admission objects, in input order.
type admissionCollector struct {
	limitRanges    []located[*v1.LimitRange]
	runtimeClasses []located[*nodev1.RuntimeClass]
}

func (a *admissionCollector) add(obj any, src Source) {
	switch obj := obj.(type) {
	case *v1.LimitRange:
		a.limitRanges = append(a.limitRanges, located[*v1.LimitRange]{obj, src})
	case *nodev1.RuntimeClass:
		a.runtimeClasses = append(a.runtimeClasses, located[*nodev1.RuntimeClass]{obj, src})
	}
}

func (a *admissionCollector) checkDuplicates() error {
	if err := duplicates(a.limitRanges, func(l *v1.LimitRange) string { return l.Namespace + "/" + l.Name }, "LimitRange"); err != nil {
		return err
	}
	return duplicates(a.runtimeClasses, func(r *nodev1.RuntimeClass) string { return r.Name }, "RuntimeClass")
}

func (a *admissionCollector) result() Admission {
	return Admission{
		LimitRanges: objects(a.limitRanges), RuntimeClasses: objects(a.runtimeClasses),
		LimitRangeSources: sources(a.limitRanges), RuntimeClassSources: sources(a.runtimeClasses),
	}
}
