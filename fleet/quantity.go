package fleet

import (
	"math/big"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxQuantityDigits bounds the resource quantities of the DaemonSets [Compile] accepts: a
// quantity whose value has more than this many decimal digits, or is scaled by a power of ten
// beyond ±MaxQuantityDigits, is refused. Adding quantities costs time in their digits and in
// the distance between their scales, so 10^10000000 next to 1m took [PodRequests] seconds; no
// resource needs more than a few dozen digits (the manifest reader refuses far less).
const MaxQuantityDigits = 1000

// log2of10 is log2(10), to count decimal digits from bits.
const log2of10 = 3.3219280948873626

// quantityTooLarge reports whether q has more digits, or a larger scale, than
// MaxQuantityDigits. It never formats q (which is what takes the time) and does not modify it.
func quantityTooLarge(q resource.Quantity) bool {
	c := q // AsDec converts c's own representation, not q's
	d := c.AsDec()
	if s := int64(d.Scale()); s > MaxQuantityDigits || s < -MaxQuantityDigits {
		return true
	}
	return float64(new(big.Int).Abs(d.UnscaledBig()).BitLen())/log2of10 > MaxQuantityDigits
}

// checkQuantities returns an error for each quantity of ds's pod template that PodRequests
// would add or compare and that quantityTooLarge refuses, paths rooted at fldPath (ds), in
// field order.
func checkQuantities(ds *appsv1.DaemonSet, fldPath *field.Path) field.ErrorList {
	spec := &ds.Spec.Template.Spec
	specPath := fldPath.Child("spec", "template", "spec")
	var errs field.ErrorList
	requirements := func(r *v1.ResourceRequirements, path *field.Path) {
		errs = append(errs, hugeQuantities(r.Requests, path.Child("requests"))...)
		errs = append(errs, hugeQuantities(r.Limits, path.Child("limits"))...)
	}
	for i := range spec.InitContainers {
		requirements(&spec.InitContainers[i].Resources, specPath.Child("initContainers").Index(i).Child("resources"))
	}
	for i := range spec.Containers {
		requirements(&spec.Containers[i].Resources, specPath.Child("containers").Index(i).Child("resources"))
	}
	errs = append(errs, hugeQuantities(spec.Overhead, specPath.Child("overhead"))...)
	if spec.Resources != nil {
		requirements(spec.Resources, specPath.Child("resources"))
	}
	return errs
}
