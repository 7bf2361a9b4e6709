package daemonset

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/selector"
	"github.com/daemonsched/daemonsched/taints"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate reports, with paths rooted at the object, everything API validation would reject in
// ds that matters to scheduling (VAL-1..VAL-21), every problem at once, sorted by path, then
// message (VAL-23). An empty list means valid. Only opts.Version and opts.FeatureGates are read (VAL-17, D-7). Validate panics if
// ds is nil.
//
// It follows k8s/pkg/apis/apps/validation ValidateDaemonSet of v1.36.3 for a newly created
// object, with the types, paths and values upstream reports:
//   - metadata (VAL-1): name a DNS-1123 subdomain, namespace, labels, annotations, owner
//     references, finalizers; an empty namespace is not reported, since the API server takes
//     it from the request (D-5);
//   - spec.selector (VAL-2..VAL-5): its syntax at spec.selector...; an empty selector is
//     Invalid at spec.selector; a selector that converts but does not match the template labels
//     (a nil selector included, VAL-2) is Invalid at spec.template.metadata.labels;
//   - the pod template as far as scheduling goes: labels and annotations at
//     spec.template.labels and spec.template.annotations (VAL-6); restartPolicy other than
//     Always, an empty one counting as the defaulted Always (VAL-7); activeDeadlineSeconds,
//     Forbidden, plus Invalid when outside 1..2^31-1 as pod validation adds (VAL-8); nodeSelector
//     and node affinity (VAL-18, VAL-19); nodeName a DNS-1123 subdomain (VAL-20); tolerations
//     (VAL-17);
//   - minReadySeconds and revisionHistoryLimit not negative (VAL-9, VAL-10); the template
//     generation carried by the deprecated.daemonset.template.generation annotation (DFLT-4)
//     not negative, at spec.templateGeneration, as after conversion;
//   - spec.updateStrategy (VAL-11..VAL-15), with a nil maxUnavailable or maxSurge read as the
//     integer 0, as conversion to the internal type does. No defaults are applied first (D-4):
//     an empty type is Unsupported; see [WithDefaults].
//
// Container-level and other pod validation (containers, volumes, security context, DNS, ...)
// is the API server's job and is not repeated here, but for the one rule of volumes that
// differs by release: from 1.37 an image volume needs a reference (VER-7); nor are update-only rules (VAL-16) and
// status. VAL-21 (node taints) is [taints.ValidateNodeTaints]. Validate panics if ds is nil.
func Validate(ds *appsv1.DaemonSet, opts Options) field.ErrorList {
	if ds == nil {
		panic("daemonset: Validate: nil DaemonSet")
	}
	errs := validateMeta(ds)
	specPath := field.NewPath("spec")
	spec := &ds.Spec

	// VAL-2..VAL-5. The selector is compiled as upstream converts it: only a selector that
	// converts is matched against the template labels.
	sel, selErrs := selector.Compile(spec.Selector, specPath.Child("selector"))
	errs = append(errs, selErrs...)
	if len(selErrs) == 0 && !sel.Matches(spec.Template.Labels) {
		errs = append(errs, field.Invalid(specPath.Child("template", "metadata", "labels"), spec.Template.Labels,
			"selector does not match template labels"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(specPath.Child("selector"), spec.Selector, "empty selector is invalid for daemonset"))
	}

	errs = append(errs, validateTemplate(&spec.Template, specPath.Child("template"), opts)...)

	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	errs = append(errs, validateTemplateGeneration(ds)...)
	errs = append(errs, validateUpdateStrategy(&spec.UpdateStrategy, specPath.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		// Zero is valid: it keeps no old revision.
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), specPath.Child("revisionHistoryLimit"))...)
	}
	// Labels, annotations and node selectors are maps, which upstream validates in random
	// order: the list is sorted by path, then message, so that equal DaemonSets give equal
	// lists and Result.Invalid equal bytes (VAL-23). Indexes compare by number
	// (tolerations[9] before tolerations[10]), not as strings.
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(errlist.CompareNatural(a.Field, b.Field), strings.Compare(a.Error(), b.Error()))
	})
	return errs
}

// standardFinalizers are the finalizer names that need no domain (core validation
// IsStandardFinalizerName).
var standardFinalizers = [...]string{string(v1.FinalizerKubernetes), "orphan", "foregroundDeletion"}

// validateMeta is VAL-1: apimachinery's object-meta rules with a DNS-1123 subdomain name, plus
// core validation's rule that a finalizer without a "/" must be a standard one.
func validateMeta(ds *appsv1.DaemonSet) field.ErrorList {
	metaPath := field.NewPath("metadata")
	meta := ds.ObjectMeta // a shallow copy: only the namespace is changed, nothing is written through
	if meta.Namespace == "" {
		meta.Namespace = "default"
	}
	errs := apivalidation.ValidateObjectMeta(&meta, true, apivalidation.NameIsDNSSubdomain, metaPath)
	for i, f := range ds.Finalizers {
		if strings.Contains(f, "/") {
			continue
		}
		standard := false
		for _, s := range standardFinalizers {
			standard = standard || f == s
		}
		if !standard {
			errs = append(errs, field.Invalid(metaPath.Child("finalizers").Index(i), f,
				"name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// validateTemplate is the scheduling part of core ValidatePodTemplateSpec and the DaemonSet's
// own template rules (VAL-6..VAL-8, VAL-17..VAL-20).
func validateTemplate(tmpl *v1.PodTemplateSpec, fldPath *field.Path, opts Options) field.ErrorList {
	// VAL-6: upstream validates the template's labels at spec.template.labels, not
	// spec.template.metadata.labels.
	errs := metav1validation.ValidateLabels(tmpl.Labels, fldPath.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(tmpl.Annotations, fldPath.Child("annotations"))...)

	spec := &tmpl.Spec
	specPath := fldPath.Child("spec")
	restartPath := specPath.Child("restartPolicy")
	switch spec.RestartPolicy {
	case "", v1.RestartPolicyAlways:
		// Empty is what pod defaulting turns into Always (DFLT-3, VAL-7).
	case v1.RestartPolicyOnFailure, v1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(restartPath, spec.RestartPolicy, []string{string(v1.RestartPolicyAlways)}))
	default:
		// Pod validation rejects the unknown value first, then the DaemonSet rule again.
		errs = append(errs, field.NotSupported(restartPath, spec.RestartPolicy,
			[]v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever}))
		errs = append(errs, field.NotSupported(restartPath, spec.RestartPolicy, []string{string(v1.RestartPolicyAlways)}))
	}

	errs = append(errs, affinity.Validate(spec, specPath)...)
	if spec.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(specPath.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if ads := spec.ActiveDeadlineSeconds; ads != nil {
		if *ads < 1 || *ads > math.MaxInt32 {
			errs = append(errs, field.Invalid(specPath.Child("activeDeadlineSeconds"), *ads,
				validation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	errs = append(errs, taints.Validate(spec.Tolerations, specPath.Child("tolerations"),
		taints.Options{ComparisonOperators: opts.Enabled(GateTaintTolerationComparisonOperators)})...)
	errs = append(errs, validateImageVolumes(spec, specPath, opts.release())...)

	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(specPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not supported"))
	}
	return errs
}

// validateTemplateGeneration checks the template generation that the apps/v1 annotation
// deprecated.daemonset.template.generation carries into the internal object (DFLT-4). Upstream
// fails to decode an object whose annotation is not an integer; that is reported here as Invalid
// validateImageVolumes is VER-7: from 1.37 on, an image volume of the template needs a
// reference, as of a pod (pkg/apis/core/validation: validateImageVolumeSource); until 1.36
// templates may leave it empty. The type, path and (empty) detail are upstream's.
func validateImageVolumes(spec *v1.PodSpec, specPath *field.Path, v Version) field.ErrorList {
	if !v.AtLeast(1, 37, 0) {
		return nil
	}
	var errs field.ErrorList
	for i := range spec.Volumes {
		if img := spec.Volumes[i].Image; img != nil && img.Reference == "" {
			errs = append(errs, field.Required(specPath.Child("volumes").Index(i).Child("image", "reference"), ""))
		}
	}
	return errs
}

// at the annotation.
func validateTemplateGeneration(ds *appsv1.DaemonSet) field.ErrorList {
	value, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return nil
	}
	gen, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration),
			value, "must be an integer")}
	}
	return apivalidation.ValidateNonnegativeField(gen, field.NewPath("spec", "templateGeneration"))
}

// validateUpdateStrategy is VAL-11..VAL-15.
func validateUpdateStrategy(strategy *appsv1.DaemonSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch strategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		// VAL-15: rollingUpdate is not looked at.
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if strategy.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdate(strategy.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		// VAL-11: reported at updateStrategy itself, with the whole strategy as the value.
		return field.ErrorList{field.NotSupported(fldPath, strategy.DeepCopy(),
			[]string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)})}
	}
}

// validateRollingUpdate is VAL-13 and VAL-14 on the values conversion produces: a nil pointer
// is the integer 0.
func validateRollingUpdate(ru *appsv1.RollingUpdateDaemonSet, fldPath *field.Path) field.ErrorList {
	unavailable, surge := derefIntOrString(ru.MaxUnavailable), derefIntOrString(ru.MaxSurge)
	unavailablePath, surgePath := fldPath.Child("maxUnavailable"), fldPath.Child("maxSurge")
	errs := validateIntOrPercent(unavailable, unavailablePath)
	errs = append(errs, validateIntOrPercent(surge, surgePath)...)
	errs = append(errs, notAbove100Percent(unavailable, unavailablePath)...)
	errs = append(errs, notAbove100Percent(surge, surgePath)...)
	hasUnavailable, hasSurge := intOrPercentValue(unavailable) != 0, intOrPercentValue(surge) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, field.Invalid(surgePath, surge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(unavailablePath, "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

func derefIntOrString(p *intstr.IntOrString) intstr.IntOrString {
	if p == nil {
		return intstr.IntOrString{}
	}
	return *p
}

// validateIntOrPercent accepts a non-negative integer or a string of digits followed by "%".
func validateIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		var errs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fldPath, v, msg))
		}
		return errs
	case intstr.Int:
		return apivalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)
	default:
		return field.ErrorList{field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%')")}
	}
}

// percentValue returns the number of a valid percentage string.
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// intOrPercentValue is the number VAL-14 compares with zero: a valid percentage's number,
// otherwise IntValue, which reads a non-percentage string such as "5" with Atoi (0 when that
// fails).
func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

func notAbove100Percent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(fldPath, v, "must not be greater than 100%")}
	}
	return nil
}
