package manifest

import (
	"cmp"
	"slices"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/taints"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Nodes and pods are validated as the API server validates the fields the plan reads (VAL-24):
// the name, a pod's namespace, the labels, a node's taints and resource quantities, a pod's
// spec.nodeName and the quantities of its containers. Fields the plan does not read are left
// to the API server: an ownerReference without uid, which the API server refuses, is how a
// hand-written manifest shows a pod its DaemonSet does not own (D-5).
// An object read from the API server (it carries metadata.resourceVersion, which only the
// server sets) that fails is a warning: the server took it under rules of its own version, and
// the plan still reads it as the controller would. A hand-written one is an error: the API
// server would never have stored it ([Options.WarnInvalidObjects] makes it a warning too).
// DaemonSets have their own validation (VAL-1..VAL-23,
// [daemonset.Validate]).

// fromServer reports whether an object was read from the API server rather than written by hand.
func fromServer(obj metav1.Object) bool { return obj.GetResourceVersion() != "" }

// HandWritten says whether obj was written by hand rather than read from the API server: it has
// neither metadata.resourceVersion nor metadata.managedFields, which only the API server sets.
// (A uid alone does not count: hand-written test clusters give uids to link pods to their
// DaemonSets.) [Options.StrictHandWritten] reads such objects strictly.
func HandWritten(obj metav1.Object) bool {
	return obj.GetResourceVersion() == "" && len(obj.GetManagedFields()) == 0
}

// validateObject returns what the API server would reject in a Node or a Pod, with paths
// rooted at the object, sorted by path so that the order is the same on every read; nil for
// other kinds.
func validateObject(obj any) field.ErrorList {
	var errs field.ErrorList
	switch o := obj.(type) {
	case *v1.Node:
		errs = validateNode(o)
	case *v1.Pod:
		errs = validatePod(o)
	default:
		return nil
	}
	sortErrors(errs)
	return errs
}

// validateMeta checks the name, the namespace of a namespaced object (empty is the request's,
// D-5) and the labels.
func validateMeta(m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	path := field.NewPath("metadata")
	var errs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(m.Name, false) {
		errs = append(errs, field.Invalid(path.Child("name"), m.Name, msg))
	}
	if namespaced && m.Namespace != "" {
		for _, msg := range apivalidation.ValidateNamespaceName(m.Namespace, false) {
			errs = append(errs, field.Invalid(path.Child("namespace"), m.Namespace, msg))
		}
	}
	return append(errs, metav1validation.ValidateLabels(m.Labels, path.Child("labels"))...)
}

func validateNode(n *v1.Node) field.ErrorList {
	errs := validateMeta(&n.ObjectMeta, false)
	errs = append(errs, taints.ValidateNodeTaints(n.Spec.Taints, field.NewPath("spec", "taints"))...)
	status := field.NewPath("status")
	errs = append(errs, validateResourceList(n.Status.Capacity, status.Child("capacity"))...)
	errs = append(errs, validateResourceList(n.Status.Allocatable, status.Child("allocatable"))...)
	return errs
}

func validatePod(p *v1.Pod) field.ErrorList {
	errs := validateMeta(&p.ObjectMeta, true)
	spec := field.NewPath("spec")
	if p.Spec.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(p.Spec.NodeName, false) {
			errs = append(errs, field.Invalid(spec.Child("nodeName"), p.Spec.NodeName, msg))
		}
	}
	containers := func(name string, n int, res func(i int) *v1.ResourceRequirements) {
		for i := range n {
			r := res(i)
			if validResourceList(r.Requests) && validResourceList(r.Limits) {
				continue // no path to build: 5 allocations per container
			}
			path := spec.Child(name).Index(i).Child("resources")
			errs = append(errs, validateResourceList(r.Requests, path.Child("requests"))...)
			errs = append(errs, validateResourceList(r.Limits, path.Child("limits"))...)
		}
	}
	containers("containers", len(p.Spec.Containers), func(i int) *v1.ResourceRequirements { return &p.Spec.Containers[i].Resources })
	containers("initContainers", len(p.Spec.InitContainers), func(i int) *v1.ResourceRequirements { return &p.Spec.InitContainers[i].Resources })
	errs = append(errs, validateResourceList(p.Spec.Overhead, spec.Child("overhead"))...)
	return errs
}

// validateResourceList refuses negative quantities and resource names that are not qualified
// names, as core validation's ValidateResourceQuantityValue and validateResourceName do. A
// resource's path is built only when it has an error: one allocation per resource of every
// node and container otherwise.
func validateResourceList(list v1.ResourceList, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, q := range list {
		msgs := validation.IsQualifiedName(string(name))
		negative := q.Cmp(resource.Quantity{}) < 0
		if len(msgs) == 0 && !negative {
			continue
		}
		path := fldPath.Key(string(name))
		for _, msg := range msgs {
			errs = append(errs, field.Invalid(path, string(name), msg))
		}
		if negative {
			errs = append(errs, field.Invalid(path, q.String(), "must be greater than or equal to 0"))
		}
	}
	return errs
}

// validResourceList reports whether validateResourceList finds nothing in list.
func validResourceList(list v1.ResourceList) bool {
	return len(validateResourceList(list, nil)) == 0
}

// sortErrors orders errs by path, then message: validation walks maps (labels, annotations,
// resources) in random order.
func sortErrors(errs field.ErrorList) {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Error(), b.Error()))
	})
}

// shortened returns e with a long string value cut (a 1 GiB label value stays a short line).
func shortened(e *field.Error) *field.Error {
	if v, ok := e.BadValue.(string); ok && len(v) > errlist.ValueBytes {
		c := *e
		c.BadValue = shortValue(v)
		return &c
	}
	return e
}
