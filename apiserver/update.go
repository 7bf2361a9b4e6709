package apiserver

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Options say how the API server is modelled. The zero value is the API server of the
// default release ([daemonset.Options.Version]).
type Options struct {
	// Version is the Kubernetes release whose API server is modelled, as
	// [daemonset.Options.Version]; the zero Version is the default release.
	Version daemonset.Version

	// SkipTemplateDefaults leaves the pod template as given instead of applying the API
	// server's pod defaults to it ([daemonset.Options.WithTemplateDefaults] at Version and FeatureGates, DFLT-3). For callers whose
	// stored objects were read without them (manifest.DefaultPodTemplate skipped, as the
	// conformance corpus is read), so that an unchanged template stays unchanged.
	SkipTemplateDefaults bool
	// FeatureGates sets feature gates over the release's defaults, as
	// [daemonset.Options.FeatureGates] (the Lt and Gt toleration operators, TAINT-10, D-7).
	FeatureGates daemonset.FeatureGates
	// FieldValidation is how [ApplyJSON] treats a field the DaemonSet type does not know, as
	// kubectl's --validate sets the API server's fieldValidation: the zero value is
	// [FieldValidationStrict], kubectl's default. [Apply] takes a typed object, which has none.
	FieldValidation FieldValidation
}

// validation returns the daemonset options validation reads.
func (o Options) validation() daemonset.Options {
	return daemonset.Options{Version: o.Version, FeatureGates: o.FeatureGates}
}

// checkGates refuses, at Options.FeatureGates[gate], a gate the release does not know and a
// locked (GA) one set against its default, as kube-apiserver refuses to start with either
// (VER-5): the object is not stored.
func (o Options) checkGates() field.ErrorList {
	return o.validation().CheckFeatureGates(field.NewPath("Options", "FeatureGates"))
}

// Create returns ds as the API server stores it when it is created (POST), or what the API
// server refuses in it. As the apps/v1 DaemonSet strategy of opts.Version
// (pkg/registry/apps/daemonset: PrepareForCreate): the defaults are applied, the status is cleared, metadata.generation is 1
// and the template generation (the deprecated.daemonset.template.generation annotation) is the
// one given, or 1 when it is missing or below 1; then the object is validated as
// [daemonset.Validate] validates a new DaemonSet. metadata.uid, resourceVersion and
// creationTimestamp are the caller's: the API server would assign them. ds is not modified.
// Create panics if ds is nil.
func Create(ds *appsv1.DaemonSet, opts Options) (*appsv1.DaemonSet, field.ErrorList) {
	if ds == nil {
		panic("apiserver: Create: nil DaemonSet")
	}
	if errs := opts.checkGates(); len(errs) > 0 {
		return nil, errs
	}
	out := defaulted(ds, nil, opts)
	gen, errs := templateGeneration(out)
	if len(errs) > 0 {
		return nil, errs
	}
	out.Status = appsv1.DaemonSetStatus{}
	out.Generation = 1
	setTemplateGeneration(out, max(gen, 1))
	if errs := daemonset.Validate(out, opts.validation()); len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// Update returns what the API server stores when ds replaces stored (PUT, and the last step of
// every patch), or what it refuses, every problem at once with the API server's paths and
// messages, sorted by path. stored is taken as the API server holds it (a kubectl dump is so).
//
// As the apps/v1 DaemonSet strategy of opts.Version (pkg/registry/apps/daemonset:
// PrepareForUpdate, ValidateUpdate) and the generic update (rest.BeforeUpdate): the defaults are applied to ds
// (and a nil maxUnavailable or maxSurge of an OnDelete strategy's rollingUpdate is 0, as
// the round trip through the internal type stores it);
// the status, metadata.generation, the template generation and creationTimestamp are
// stored's, and an empty uid is stored's; a spec change moves metadata.generation on by one,
// and a template change moves the template generation on by one too. Then ds is validated as a
// new DaemonSet ([daemonset.Validate]) and as an update (pkg/apis/apps/validation:
// ValidateDaemonSetUpdate): spec.selector is immutable, and metadata name, namespace and uid
// too. The list holds each problem once, where upstream may report one twice (it validates
// the metadata both as new and as updated).
//
// The template-generation annotation that ds carries is never kept: only the API server moves
// it. A stored object without it (never returned by the API server, but hand-written inputs
// have none) keeps none while its template is unchanged, where the API server would write "0".
// metadata.resourceVersion and managedFields are stored's: the API server would write new
// ones, which the plan does not read. Neither argument is modified; Update panics if either is
// nil.
func Update(stored, ds *appsv1.DaemonSet, opts Options) (*appsv1.DaemonSet, field.ErrorList) {
	if stored == nil || ds == nil {
		panic("apiserver: Update: nil DaemonSet")
	}
	if errs := opts.checkGates(); len(errs) > 0 {
		return nil, errs
	}
	out := defaulted(ds, stored, opts)
	if _, errs := templateGeneration(out); len(errs) > 0 {
		return nil, errs
	}
	oldGen, _ := templateGeneration(stored)
	out.Status = *stored.Status.DeepCopy()
	out.Generation = stored.Generation
	out.ResourceVersion = stored.ResourceVersion
	out.ManagedFields = stored.ManagedFields
	if out.UID == "" {
		out.UID = stored.UID
	}
	if !stored.CreationTimestamp.IsZero() {
		out.CreationTimestamp = stored.CreationTimestamp
	}
	newGen := oldGen
	switch old := asConverted(stored); {
	case !equality.Semantic.DeepEqual(old.Spec.Template, out.Spec.Template):
		newGen++
		out.Generation++
	case !equality.Semantic.DeepEqual(old.Spec, out.Spec):
		out.Generation++
	}
	if _, ok := stored.Annotations[appsv1.DeprecatedTemplateGeneration]; ok || newGen != 0 {
		setTemplateGeneration(out, newGen)
	} else {
		delete(out.Annotations, appsv1.DeprecatedTemplateGeneration)
	}

	errs := daemonset.Validate(out, opts.validation())
	if hasEmptyImageReference(&stored.Spec.Template.Spec) {
		errs = withoutImageReferenceErrors(errs)
	}
	// The generic update sends the stored resourceVersion when the caller has none, so its
	// absence is never refused here.
	meta := out.ObjectMeta
	if meta.ResourceVersion == "" {
		meta.ResourceVersion = "0"
	}
	oldMeta := stored.ObjectMeta
	errs = append(errs, apivalidation.ValidateObjectMetaUpdate(&meta, &oldMeta, field.NewPath("metadata"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(out.Spec.Selector, stored.Spec.Selector, field.NewPath("spec", "selector"))...)
	if errs = unique(errs); len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// defaulted returns a copy of ds with the API server's defaults, as converted to the internal
// type and back, and without the template fields of disabled gates that stored, the object ds
// replaces (nil on create), does not use already (VER-11).
func defaulted(ds, stored *appsv1.DaemonSet, opts Options) *appsv1.DaemonSet {
	out := daemonset.WithDefaults(ds)
	if !opts.SkipTemplateDefaults {
		out = opts.validation().WithTemplateDefaults(out, stored)
	}
	converted(out)
	return out
}

// converted sets in ds, which it owns, what the round trip through the internal type stores:
// there maxUnavailable and maxSurge are values, so a nil one of a rollingUpdate that is set
// (an OnDelete strategy's, which is not defaulted) comes back as the integer 0.
func converted(ds *appsv1.DaemonSet) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return
	}
	zero := intstr.FromInt32(0)
	if ru.MaxUnavailable == nil {
		ru.MaxUnavailable = &zero
	}
	if ru.MaxSurge == nil {
		ru.MaxSurge = &zero
	}
}

// asConverted returns stored as the API server compares it: a copy when the round trip through
// the internal type changes it.
func asConverted(stored *appsv1.DaemonSet) *appsv1.DaemonSet {
	if ru := stored.Spec.UpdateStrategy.RollingUpdate; ru != nil && (ru.MaxUnavailable == nil || ru.MaxSurge == nil) {
		stored = stored.DeepCopy()
		converted(stored)
	}
	return stored
}

// templateGeneration returns the template generation ds carries in its annotation, 0 without
// one; an annotation that is not an integer fails, as its conversion to the internal type
// fails in the API server.
func templateGeneration(ds *appsv1.DaemonSet) (int64, field.ErrorList) {
	v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return 0, nil
	}
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration), v, "must be an integer")}
	}
	return gen, nil
}

// setTemplateGeneration writes gen into the annotations of ds, which it owns.
func setTemplateGeneration(ds *appsv1.DaemonSet, gen int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)
}

// unique sorts errs by path, then message, and drops repeats.
func unique(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Error(), b.Error()))
	})
	return slices.CompactFunc(errs, func(a, b *field.Error) bool { return a.Field == b.Field && a.Error() == b.Error() })
}

// hasEmptyImageReference reports whether spec has an image volume without a reference, which
// lets an update keep such volumes from 1.37 on (VER-7: pkg/api/pod: hasEmptyImageVolumeReference
// sets AllowEmptyImageVolumeReference from the stored object).
func hasEmptyImageReference(spec *v1.PodSpec) bool {
	return slices.ContainsFunc(spec.Volumes, func(v v1.Volume) bool { return v.Image != nil && v.Image.Reference == "" })
}

// withoutImageReferenceErrors drops the VER-7 errors of daemonset.Validate: Required at
// spec.template.spec.volumes[i].image.reference.
func withoutImageReferenceErrors(errs field.ErrorList) field.ErrorList {
	return slices.DeleteFunc(errs, func(e *field.Error) bool {
		return e.Type == field.ErrorTypeRequired && strings.HasPrefix(e.Field, "spec.template.spec.volumes[") && strings.HasSuffix(e.Field, "].image.reference")
	})
}
