package apiserver

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/jsongate"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// Apply returns what the API server stores after `kubectl apply` (client-side, the default) of
// manifest, with stored the DaemonSet of its namespace and name (nil when there is none), or
// what the API server refuses.
//
// As kubectl (pkg/cmd/apply): manifest is sent with the
// kubectl.kubernetes.io/last-applied-configuration annotation set to its own JSON. Without
// stored it is created ([Create]). Otherwise the three-way strategic merge patch of the last
// applied configuration stored carries (none on a first apply over an object kubectl did not
// create, as kubectl does then), manifest and stored is computed with
// k8s.io/apimachinery/pkg/util/strategicpatch, with the patch meta of [appsv1.DaemonSet], and
// applied to stored as the API server applies it; the result is then [Update]d over stored. So
// what only stored holds survives, unless the last applied configuration held it and manifest
// no longer does: the kubectl.kubernetes.io/restartedAt annotation `kubectl rollout restart`
// puts on the template stays, and applying the manifest unchanged changes nothing.
//
// The annotation holds the JSON of manifest as decoded into [appsv1.DaemonSet], without its
// status and null creationTimestamps: the fields of the file, but not its bytes, which kubectl
// keeps (fields the linked k8s.io/api types, 1.37's, do not know are not sent, where kubectl would have the API
// server refuse them). A zero the file spells out in a field the type leaves out when zero
// (minReadySeconds: 0, hostNetwork: false) is not sent either, where kubectl sends it: the
// stored object differs when the last applied configuration lacks that field and stored holds
// another value, which is kept. [ApplyJSON] takes the file's JSON and has none of these
// differences. internal/upstreamtest checks both against kubectl and the API server.
//
// Server-side apply (`kubectl apply --server-side`) merges by field ownership
// (metadata.managedFields) instead of the annotation, and managedFields are not modelled. What
// is: for manifests one field manager applies with --force-conflicts, the fields it owns are
// those of its previous manifest, so the stored spec, generation and template generation are
// those [ApplyJSON] predicts over the stored object carrying that previous manifest as its
// last-applied configuration (server-side apply itself writes no such annotation): a field
// the manager drops is removed, one another client set and the manifest does not name stays
// (the restartedAt annotation of `kubectl rollout restart`), and one the manifest names is
// taken back from its other manager. examples/refcontroller/live checks this on a live API
// server (TestStoryKubectlApply), client-side and server-side. Not modelled: conflicts (without
// --force-conflicts the API server refuses a field another manager set to another value,
// where this merge takes it), fields several managers share (one manager dropping a field
// another also applies keeps it), and managedFields themselves.
//
// Neither argument is modified. Apply panics if manifest is nil.
func Apply(stored, manifest *appsv1.DaemonSet, opts Options) (*appsv1.DaemonSet, field.ErrorList) {
	if manifest == nil {
		panic("apiserver: Apply: nil manifest")
	}
	modified, err := modifiedConfiguration(manifest)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	return apply(stored, manifest, modified, opts)
}

// ApplyJSON is [Apply] of a manifest given as the JSON of the file (a YAML file converted to
// JSON, as kubectl reads it), and kubectl's patch exactly: the last applied configuration and
// the three-way merge are computed on that JSON, as kubectl computes them on its unstructured
// object, so a zero or false the file spells out (maxSurge: 0, minReadySeconds: 0,
// hostNetwork: false) is sent and replaces what stored holds, where [Apply] cannot tell it from
// an absent field. The caller gives the JSON the namespace `kubectl apply -n` would.
//
// manifest must be the JSON of one object; what is not (or does not decode into
// [appsv1.DaemonSet]) is refused with an error on the root, as the API server refuses a body
// it cannot decode, and so is text that is not UTF-8. What the API server receives is what
// kubectl sends, the JSON of the unstructured object it reads the file into (D-21): keys
// sorted, the last of a key given twice only, and each number as the int64 or float64 kubectl
// read (0.1000000000000000000001 is sent as 0.1, 1e-999999999 as 0, and 1e400, beyond
// float64, is refused as kubectl refuses the file). So its apiVersion and kind must be apps/v1
// and DaemonSet as the API server reads them in that JSON before the body, under case folding,
// the last key winning ("apiversion" comes after "apiVersion" and replaces it there; "ApiVersion"
// comes before). A key given twice in one object keeps its last value, whole (an object given
// twice is the last one, not the two merged), under either field validation. A resource
// quantity longer than 64 characters or with an exponent beyond ±100 (package manifest's
// default limits) is refused with its path before it is parsed: parsing "1e-999999999" would
// take hours. Keys are matched to fields exactly, as the API server's
// decoder (sigs.k8s.io/json) matches them, not under case folding as encoding/json does: a key
// spelt with other capitals ("Resources") is a field the type does not know.
// A field the type does not know is refused with its path, as kubectl's default
// (--validate=strict) has the API server refuse it ("strict decoding error: unknown field
// \"spec.foo\""), every one of them, after the apiVersion and kind; with
// Options.FieldValidation [FieldValidationIgnore] (--validate=ignore, or =warn, whose warnings
// are not modelled) it is sent as it is and fills nothing. An Options.FieldValidation of
// another value is refused (D-21). manifest is not modified.
func ApplyJSON(stored *appsv1.DaemonSet, manifest []byte, opts Options) (*appsv1.DaemonSet, field.ErrorList) {
	if errs := opts.checkFieldValidation(); len(errs) > 0 {
		return nil, errs
	}
	if !utf8.Valid(manifest) {
		// encoding/json would replace each invalid byte by U+FFFD without a word.
		return nil, field.ErrorList{field.Invalid(nil, strings.ToValidUTF8(errlist.Cut(string(manifest), errlist.ValueBytes), "\uFFFD"), "must be UTF-8")}
	}
	obj, err := decodeUnstructured(manifest)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(nil, errlist.Cut(string(manifest), errlist.ValueBytes), "must be the JSON of a DaemonSet: "+err.Error())}
	}
	// kubectl reads the file into an unstructured object (cli-runtime's builder, apimachinery's
	// UnstructuredJSONScheme) and sends that object's JSON, encoding/json of a map: the
	// create, the patch and the last-applied annotation are all computed from it (pkg/cmd/apply).
	// So the API server sees the last of a key given twice only, its keys in sorted order, and
	// a number as the int64 or float64 kubectl read it (D-21): the body is that JSON, whether or
	// not the file gives a key twice.
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(nil, errlist.Cut(string(manifest), errlist.ValueBytes), "must be the JSON of a DaemonSet: "+err.Error())}
	}
	// A quantity such as "1e-999999999" takes hours to parse: refused first, at the limits of
	// package manifest's defaults. A JSON number is judged as kubectl sends it, the float's
	// text (1e-999999999 is 0), as the API server parses it.
	if err := jsongate.Quantities(body, &appsv1.DaemonSet{}, jsongate.Defaults); err != nil {
		if fe := (*field.Error)(nil); errors.As(err, &fe) {
			return nil, field.ErrorList{fe}
		}
		return nil, field.ErrorList{field.Invalid(nil, errlist.Cut(string(manifest), errlist.ValueBytes), "must be the JSON of a DaemonSet: "+err.Error())}
	}
	var typed appsv1.DaemonSet
	// The strict decoding fills typed as the case-sensitive one does, and names the fields it
	// does not know besides (body has no key given twice).
	strictErrs, err := kjson.UnmarshalStrict(body, &typed)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(nil, errlist.Cut(string(manifest), errlist.ValueBytes), "must be the JSON of a DaemonSet: "+err.Error())}
	}
	if errs := checkTypeMeta(body, &typed); len(errs) > 0 {
		return nil, errs
	}
	if opts.FieldValidation != FieldValidationIgnore {
		errs := unknownFields(strictErrs)
		if stored != nil {
			sortAsThePatchHandler(errs)
		}
		if len(errs) > 0 {
			return nil, errs
		}
	}
	modified, err := modifiedUnstructured(obj)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	return apply(stored, &typed, modified, opts)
}

// FieldValidation is how the API server treats a field of a request's body the type does not
// know: the fieldValidation parameter kubectl's --validate sets.
type FieldValidation string

const (
	// FieldValidationStrict refuses the body, naming every unknown field (kubectl's default,
	// --validate=strict); the zero FieldValidation means it.
	FieldValidationStrict FieldValidation = "Strict"
	// FieldValidationIgnore drops unknown fields (--validate=ignore; --validate=warn stores the
	// same, and warns).
	FieldValidationIgnore FieldValidation = "Ignore"
)

// checkFieldValidation refuses an Options.FieldValidation that is neither value.
func (o Options) checkFieldValidation() field.ErrorList {
	switch o.FieldValidation {
	case "", FieldValidationStrict, FieldValidationIgnore:
		return nil
	}
	return field.ErrorList{field.NotSupported(field.NewPath("Options", "FieldValidation"), string(o.FieldValidation),
		[]string{string(FieldValidationStrict), string(FieldValidationIgnore)})}
}

// unknownFields are the errors of the unknown fields among strictErrs, the strict decoding's
// findings, in the order of the body: the order in which the API server's create handler
// names them, decoding kubectl's JSON, keys sorted, strictly (D-21). The path is the
// decoder's, array indices included ("spec.template.spec.containers[0].Resources"), as the
// API server's message names it.
func unknownFields(strictErrs []error) field.ErrorList {
	var errs field.ErrorList
	for _, e := range strictErrs {
		var fe kjson.FieldError
		if errors.As(e, &fe) && strings.HasPrefix(e.Error(), "unknown field ") {
			errs = append(errs, field.Forbidden(field.NewPath(fe.FieldPath()), "unknown field: the API server refuses it under strict field validation, kubectl's default"))
		}
	}
	return errs
}

// sortAsThePatchHandler puts errs, unknown fields, in the order in which the API server's
// patch handler names them: its converter (runtime.DefaultUnstructuredConverter's
// FromUnstructuredWithValidation) checks the patched object and sorts its messages,
// `unknown field "path"`, as strings, so the closing quote sorts with the path: "a b" comes
// before "a" there (' ' sorts before '"'), though after it as a plain string.
func sortAsThePatchHandler(errs field.ErrorList) {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return strings.Compare(a.Field+`"`, b.Field+`"`)
	})
}

// checkTypeMeta refuses manifest unless it is an apps/v1 DaemonSet both as kubectl reads it
// (typed, its keys matched exactly: kubectl sends no object without an apiVersion and a kind)
// and as the API server reads its type before decoding the body (apimachinery's json
// SimpleMetaFactory.Interpret): with encoding/json, so keys match under case folding and the
// last of "apiVersion", "ApiVersion", ... in manifest, the body kubectl sends, wins. A body
// that reads there as another kind or version is one the DaemonSet endpoint refuses, whatever
// the typed decoding filled.
func checkTypeMeta(manifest []byte, typed *appsv1.DaemonSet) field.ErrorList {
	var server struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(manifest, &server); err != nil {
		return field.ErrorList{field.Invalid(nil, errlist.Cut(string(manifest), errlist.ValueBytes), "must be the JSON of a DaemonSet: "+err.Error())}
	}
	var errs field.ErrorList
	for _, f := range []struct{ path, kubectl, server, want string }{
		{"apiVersion", typed.APIVersion, server.APIVersion, "apps/v1"},
		{"kind", typed.Kind, server.Kind, "DaemonSet"},
	} {
		switch {
		case f.kubectl == "":
			errs = append(errs, field.Required(field.NewPath(f.path), "must be "+f.want))
		case f.server != f.want:
			errs = append(errs, field.NotSupported(field.NewPath(f.path), errlist.Cut(f.server, errlist.ValueBytes), []string{f.want}))
		}
	}
	return errs
}

// apply is Apply with modified, the configuration kubectl sends for manifest.
func apply(stored, manifest *appsv1.DaemonSet, modified configuration, opts Options) (*appsv1.DaemonSet, field.ErrorList) {
	if stored == nil {
		sent := manifest.DeepCopy()
		sent.Annotations = withLastApplied(manifest.Annotations, modified.original)
		return Create(sent, opts)
	}
	current, err := json.Marshal(stored)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	var original []byte
	if s, ok := stored.Annotations[v1.LastAppliedConfigAnnotation]; ok {
		original = []byte(s)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.DaemonSet{})
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified.annotated, current, meta, true)
	if err != nil {
		// Only a last applied configuration that is not a JSON object gets here: kubectl
		// fails the same way before it sends anything.
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(v1.LastAppliedConfigAnnotation),
			errlist.Cut(string(original), errlist.ValueBytes), "must be the JSON of an object: "+err.Error())}
	}
	if string(patch) == "{}" {
		// kubectl sends nothing.
		return stored.DeepCopy(), nil
	}
	patched, err := strategicpatch.StrategicMergePatch(current, patch, &appsv1.DaemonSet{})
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(v1.LastAppliedConfigAnnotation),
			errlist.Cut(string(original), errlist.ValueBytes), "the merge patch cannot be applied: "+err.Error())}
	}
	// The patch carries the manifest's keys: matched exactly, as the API server decodes it.
	var next appsv1.DaemonSet
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, &next); err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	return Update(stored, &next, opts)
}

// configuration is the JSON kubectl sends: original without the last-applied annotation,
// annotated with it set to original.
type configuration struct {
	original, annotated []byte
}

// modifiedConfiguration returns manifest as kubectl encodes it (pkg/util GetModifiedConfiguration):
// its JSON without the last-applied annotation, then with the annotation set to that JSON.
func modifiedConfiguration(manifest *appsv1.DaemonSet) (configuration, error) {
	ds := manifest.DeepCopy()
	delete(ds.Annotations, v1.LastAppliedConfigAnnotation)
	// kubectl sets the annotations it took the last-applied one from back, an empty map
	// included, so the recorded configuration always has metadata.annotations.
	original, err := sparseJSON(ds, true)
	if err != nil {
		return configuration{}, err
	}
	ds.Annotations = withLastApplied(ds.Annotations, original)
	annotated, err := sparseJSON(ds, false)
	return configuration{original, annotated}, err
}

// decodeUnstructured decodes the JSON of one object as kubectl's unstructured decoding does
// (apimachinery's util/json Unmarshal, which is sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts): an integer within int64 as int64, any other number as
// float64, a number beyond float64 (1e400) refused as kubectl refuses the file, and the last
// of a key given twice replacing the others.
func decodeUnstructured(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// modifiedUnstructured returns obj as kubectl encodes it (pkg/util GetModifiedConfiguration
// over an unstructured object): without the last-applied annotation, metadata.annotations
// present (an empty object when it has no other), keys sorted, a newline at the end; then the
// same with the annotation set to that JSON. obj is taken over by the call.
func modifiedUnstructured(obj map[string]any) (configuration, error) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	delete(annotations, v1.LastAppliedConfigAnnotation)
	meta["annotations"] = annotations
	original, err := json.Marshal(obj)
	if err != nil {
		return configuration{}, err
	}
	original = append(original, '\n')
	annotations[v1.LastAppliedConfigAnnotation] = string(original)
	annotated, err := json.Marshal(obj)
	return configuration{original, append(annotated, '\n')}, err
}

// sparseJSON returns the JSON of ds without what encoding the typed object adds to a file that
// does not hold it: the status, null creationTimestamps and the empty objects of struct fields
// (an empty updateStrategy, a container's empty resources), which decode as if absent. Keys
// are sorted and a newline ends it, as kubectl's unstructured encoding writes it. With
// withAnnotations, metadata.annotations is there even when empty.
func sparseJSON(ds *appsv1.DaemonSet, withAnnotations bool) ([]byte, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	for _, path := range typedOnly {
		drop(m, path)
	}
	if withAnnotations {
		meta, ok := m["metadata"].(map[string]any)
		if !ok {
			meta = map[string]any{}
			m["metadata"] = meta
		}
		if _, ok := meta["annotations"]; !ok {
			meta["annotations"] = map[string]any{}
		}
	}
	b, err = json.Marshal(m)
	// kubectl's encoder (a json.Encoder) ends the JSON with a newline.
	return append(b, '\n'), err
}

// typedOnly are the paths where the typed encoding writes a null or an empty object for a field
// the file did not set: non-pointer structs without omitempty effect, and metav1.Time.
var typedOnly = [][]string{
	{"metadata", "creationTimestamp"},
	{"metadata"},
	{"spec", "updateStrategy"},
	{"spec", "template", "metadata", "creationTimestamp"},
	{"spec", "template", "metadata"},
	{"spec", "template", "spec", "containers", "*", "resources"},
	{"spec", "template", "spec", "initContainers", "*", "resources"},
	{"spec", "template", "spec", "ephemeralContainers", "*", "resources"},
	{"spec", "template", "spec", "volumes", "*", "ephemeral", "volumeClaimTemplate", "metadata", "creationTimestamp"},
	{"spec", "template", "spec", "volumes", "*", "ephemeral", "volumeClaimTemplate", "metadata"},
	{"spec", "template", "spec", "volumes", "*", "ephemeral", "volumeClaimTemplate", "spec", "resources"},
}

// drop removes the value at path from v when it is null or an empty object; "*" stands for
// every element of a list.
func drop(v any, path []string) {
	switch v := v.(type) {
	case []any:
		if path[0] == "*" {
			for _, e := range v {
				drop(e, path[1:])
			}
		}
	case map[string]any:
		child, ok := v[path[0]]
		if !ok {
			return
		}
		if len(path) > 1 {
			drop(child, path[1:])
			return
		}
		if o, isObject := child.(map[string]any); child == nil || isObject && len(o) == 0 {
			delete(v, path[0])
		}
	}
}

// withLastApplied returns a copy of annotations with the last-applied annotation set to config.
func withLastApplied(annotations map[string]string, config []byte) map[string]string {
	out := make(map[string]string, len(annotations)+1)
	for k, v := range annotations {
		out[k] = v
	}
	out[v1.LastAppliedConfigAnnotation] = string(config)
	return out
}
