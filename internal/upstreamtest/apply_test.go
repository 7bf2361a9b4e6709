package upstreamtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	kubectlutil "k8s.io/kubectl/pkg/util"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	dsstrategy "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	kjson "sigs.k8s.io/json"
)

// The client-side `kubectl apply` of a manifest over a stored DaemonSet, as kubectl and the API
// server of the linked release do it, against apiserver.Apply (D-14).
//
// kubectl's side is its own code where it is importable cheaply: pkg/util's
// GetModifiedConfiguration and GetOriginalConfiguration (what is sent and the last-applied
// annotation) and CreateApplyAnnotation's encoding on create; the three-way merge is
// strategicpatch.CreateThreeWayMergePatch with the patch meta of the typed struct, the call
// pkg/cmd/apply's Patcher makes (buildStrategicMergeFromBuiltins, unexported; pkg/cmd/apply
// itself drags cli-runtime, a REST client and OpenAPI, and the live API server's OpenAPI v3 path
// gives the same patch meta for a built-in type). The API server's side is the patch handler's
// steps (strategicpatch.StrategicMergeMapPatch over the stored object in unstructured form,
// decoding, the scheme's defaulting and conversion to the internal type) and then
// rest.BeforeCreate / rest.BeforeUpdate with the real DaemonSet strategy (PrepareForCreate,
// PrepareForUpdate, Validate, ValidateUpdate), then the conversion back and the storage round
// trip.

// upstreamApply returns what the API server stores after kubectl applies manifest (the file,
// as kubectl reads it) over stored (nil: none), or the causes of its refusal. validation is the
// request's fieldValidation (metav1.FieldValidationStrict, kubectl's default, or
// FieldValidationIgnore): under Strict the body of a create is decoded by the API server's
// strict JSON serializer, and a patched object by the converter with validation, as the create
// and patch handlers do (k8s.io/apiserver pkg/endpoints/handlers); each unknown field of their
// strict decoding error becomes a cause of type FieldValueForbidden at its path, the form
// apiserver.ApplyJSON gives it (the API server words it "strict decoding error: unknown field
// \"spec.foo\"", in a BadRequest on create, under the field "patch" on update).
func upstreamApply(t *testing.T, stored *appsv1.DaemonSet, manifest map[string]any, validation string) (*appsv1.DaemonSet, []metav1.StatusCause) {
	t.Helper()
	data, err := json.Marshal(manifest)
	must(t, err)
	return upstreamApplyJSON(t, stored, data, validation)
}

// upstreamApplyJSON is upstreamApply of the manifest's JSON as the file spells it, keys given
// twice included: kubectl decodes it into an unstructured object (integers as int64, the last
// of a key given twice replacing the others, pkg/cmd/apply through cli-runtime's builder), and
// everything it sends, the create, the patch and the last-applied annotation, is computed from
// that object.
func upstreamApplyJSON(t *testing.T, stored *appsv1.DaemonSet, data []byte, validation string) (*appsv1.DaemonSet, []metav1.StatusCause) {
	t.Helper()
	strict := validation == metav1.FieldValidationStrict
	obj := &unstructured.Unstructured{}
	must(t, obj.UnmarshalJSON(data))
	if stored == nil {
		ctx := requestContext(obj.GetNamespace(), obj.GetName(), "create")
		// kubectl apply of an object that does not exist: the annotation, then a create.
		modified, err := kubectlutil.GetModifiedConfiguration(obj, false, unstructured.UnstructuredJSONScheme)
		must(t, err)
		annots := obj.GetAnnotations()
		if annots == nil {
			annots = map[string]string{}
		}
		annots[v1.LastAppliedConfigAnnotation] = string(modified)
		obj.SetAnnotations(annots)
		if strict {
			body, err := runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
			must(t, err)
			_, _, err = strictSerializer.Decode(body, nil, &appsv1.DaemonSet{})
			if unknown := strictCauses(t, err); unknown != nil {
				return nil, unknown
			}
		}
		versioned := &appsv1.DaemonSet{}
		must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, versioned))
		legacyscheme.Scheme.Default(versioned)
		internal := &apps.DaemonSet{}
		must(t, legacyscheme.Scheme.Convert(versioned, internal, nil))
		internal.UID, internal.CreationTimestamp = "uid-stored", metav1.Unix(1_700_000_000, 0)
		if err := rest.BeforeCreate(dsstrategy.Strategy, ctx, internal); err != nil {
			return nil, causes(t, err)
		}
		return storedVersioned(t, internal), nil
	}

	modified, err := kubectlutil.GetModifiedConfiguration(obj, true, unstructured.UnstructuredJSONScheme)
	must(t, err)
	current, err := json.Marshal(stored)
	must(t, err)
	original, err := kubectlutil.GetOriginalConfiguration(stored)
	must(t, err)
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.DaemonSet{})
	must(t, err)
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	must(t, err)
	if string(patch) == "{}" {
		return stored.DeepCopy(), nil
	}

	// The API server's patch handler: the stored object in unstructured form, the patch
	// applied with the schema of the versioned type, decoded, defaulted, converted.
	currentMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored)
	must(t, err)
	var patchMap map[string]any
	must(t, json.Unmarshal(patch, &patchMap))
	patchedMap, err := strategicpatch.StrategicMergeMapPatch(currentMap, patchMap, &appsv1.DaemonSet{})
	must(t, err)
	versioned := &appsv1.DaemonSet{}
	if strict {
		// The patch handler's strict errors: the patch's own (a key given twice), then the
		// patched object's unknown fields.
		patchErrs, err := kjson.UnmarshalStrict(patch, &map[string]any{})
		must(t, err)
		err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patchedMap, versioned, true)
		if se, ok := runtime.AsStrictDecodingError(err); ok {
			patchErrs = append(patchErrs, se.Errors()...)
		} else {
			must(t, err)
		}
		if len(patchErrs) > 0 {
			return nil, strictCauses(t, runtime.NewStrictDecodingError(patchErrs))
		}
	}
	must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(patchedMap, versioned))
	legacyscheme.Scheme.Default(versioned)
	newInternal, oldInternal := &apps.DaemonSet{}, &apps.DaemonSet{}
	if err := legacyscheme.Scheme.Convert(versioned, newInternal, nil); err != nil {
		// A template generation that is not an integer fails conversion.
		return nil, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "metadata.annotations[" + appsv1.DeprecatedTemplateGeneration + "]"}}
	}
	must(t, legacyscheme.Scheme.Convert(stored.DeepCopy(), oldInternal, nil))
	ctx := requestContext(stored.Namespace, stored.Name, "patch")
	if err := rest.BeforeUpdate(dsstrategy.Strategy, ctx, newInternal, oldInternal); err != nil {
		return nil, causes(t, err)
	}
	return storedVersioned(t, newInternal), nil
}

// requestContext is the context the API server's filters give a request for the DaemonSet
// namespace/name: its namespace and its request info (WithRequestInfo), which the declarative
// validation of 1.37 reads for the group, version and subresource it validates; without one it
// refuses every object.
func requestContext(namespace, name, verb string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Path:              "/apis/apps/v1/namespaces/" + namespace + "/daemonsets/" + name,
		Verb:              verb,
		APIPrefix:         "apis",
		APIGroup:          "apps",
		APIVersion:        "v1",
		Namespace:         namespace,
		Resource:          "daemonsets",
		Name:              name,
		Parts:             []string{"daemonsets", name},
	})
}

// storedVersioned converts the internal object back to apps/v1 and through the storage's
// protobuf round trip, as a GET returns it.
func storedVersioned(t *testing.T, internal *apps.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	out := &appsv1.DaemonSet{}
	must(t, legacyscheme.Scheme.Convert(internal, out, nil))
	return roundTrip(t, out)
}

func roundTrip(t *testing.T, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	data, err := ds.Marshal()
	must(t, err)
	back := &appsv1.DaemonSet{}
	must(t, back.Unmarshal(data))
	back.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
	return back
}

// strictSerializer is the API server's JSON decoder of a request body under
// fieldValidation=Strict.
var strictSerializer = kjsonserializer.NewSerializerWithOptions(kjsonserializer.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme,
	kjsonserializer.SerializerOptions{Strict: true})

// strictCauses returns the unknown fields of err, a strict decoding error, as causes of type
// FieldValueForbidden at their paths; nil when err is nil. Any other error fails the test.
func strictCauses(t *testing.T, err error) []metav1.StatusCause {
	t.Helper()
	if err == nil {
		return nil
	}
	se, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		t.Fatalf("not a strict decoding error: %v", err)
	}
	var out []metav1.StatusCause
	for _, e := range se.Errors() {
		path, ok := strings.CutPrefix(e.Error(), "unknown field ")
		if !ok {
			t.Fatalf("a strict decoding error that is no unknown field: %v", e)
		}
		unquoted, err := strconv.Unquote(path)
		must(t, err)
		out = append(out, metav1.StatusCause{Type: metav1.CauseType(fieldpath.ErrorTypeForbidden), Field: unquoted})
	}
	return out
}

func causes(t *testing.T, err error) []metav1.StatusCause {
	t.Helper()
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Details == nil {
		t.Fatalf("not a refusal with causes: %v", err)
	}
	return status.ErrStatus.Details.Causes
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// randomManifest is a DaemonSet manifest as a user writes it, drawn from choices that reach
// every rule the update path models: the selector and the template labels, the image, the
// node selector, tolerations, annotations, minReadySeconds and the update strategy, valid or
// not.
func randomManifest(r *rand.Rand) map[string]any {
	pick := func(vs ...any) any { return vs[r.IntN(len(vs))] }
	app := pick("a", "b").(string)
	tmplLabels := map[string]any{"app": app}
	if r.IntN(8) == 0 {
		tmplLabels["app"] = "other"
	}
	if r.IntN(3) == 0 {
		tmplLabels["tier"] = "node"
	}
	container := map[string]any{"name": "agent", "image": pick("agent:1", "agent:2", "agent:latest")}
	if r.IntN(3) == 0 {
		container["resources"] = map[string]any{"requests": map[string]any{"cpu": pick("100m", "0.1", "1")}}
	}
	podSpec := map[string]any{"containers": []any{container}}
	if r.IntN(2) == 0 {
		podSpec["nodeSelector"] = map[string]any{"disk": pick("ssd", "hdd")}
	}
	if r.IntN(3) == 0 {
		podSpec["tolerations"] = []any{map[string]any{"operator": "Exists"}}
	}
	template := map[string]any{"metadata": map[string]any{"labels": tmplLabels}, "spec": podSpec}
	if r.IntN(4) == 0 {
		template["metadata"].(map[string]any)["annotations"] = map[string]any{"note": pick("x", "y")}
	}
	spec := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": app}}, "template": template}
	if r.IntN(3) == 0 {
		// A spelt-out 0 is lost in decoding to the typed object apiserver.Apply takes (its
		// doc says so); apiserver.ApplyJSON keeps it.
		spec["minReadySeconds"] = pick(5, -1, 0)
	}
	if r.IntN(4) == 0 {
		podSpec["hostNetwork"] = pick(true, false)
	}
	if r.IntN(4) == 0 {
		spec["revisionHistoryLimit"] = pick(3, 10)
	}
	switch r.IntN(8) {
	case 0:
		spec["updateStrategy"] = map[string]any{"type": "OnDelete"}
	case 1:
		spec["updateStrategy"] = map[string]any{"rollingUpdate": map[string]any{"maxSurge": pick(1, "10%")}}
	case 2:
		spec["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}
	case 3:
		spec["updateStrategy"] = map[string]any{"rollingUpdate": map[string]any{"maxUnavailable": pick(2, "10%", "110%", 0)}}
	}
	meta := map[string]any{"name": "agent", "namespace": "kube-system"}
	if r.IntN(3) == 0 {
		meta["labels"] = map[string]any{"team": pick("infra", "obs")}
	}
	if r.IntN(4) == 0 {
		meta["annotations"] = map[string]any{"note": pick("x", "y")}
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta, "spec": spec}
}

// typed decodes a manifest into the type apiserver.Apply takes, as package manifest reads it:
// keys matched exactly.
func typed(t *testing.T, manifest map[string]any) *appsv1.DaemonSet {
	t.Helper()
	data, err := json.Marshal(manifest)
	must(t, err)
	ds := &appsv1.DaemonSet{}
	must(t, kjson.UnmarshalCaseSensitivePreserveInts(data, ds))
	return ds
}

// withOtherCapitals returns a copy of manifest with, on one pair in five, a key spelt with
// other capitals beside the real one ("Resources", "MinReadySeconds"): the API server decodes
// keys exactly, so it is a field the type does not know, where encoding/json fills the field
// from it. It draws nothing from the random source, so the pairs stay those of before.
func withOtherCapitals(t *testing.T, manifest map[string]any, pair int) map[string]any {
	t.Helper()
	if pair%5 != 1 && pair%5 != 3 {
		return manifest
	}
	data, err := json.Marshal(manifest)
	must(t, err)
	var out map[string]any
	must(t, json.Unmarshal(data, &out))
	spec := out["spec"].(map[string]any)
	if pair%5 == 1 {
		container := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		container["Resources"] = map[string]any{"requests": map[string]any{"cpu": "3"}}
	} else {
		spec["MinReadySeconds"] = int64(7)
	}
	return out
}

// withKeysGivenTwice returns data, the JSON of a manifest as json.Marshal writes it (keys
// sorted, no spaces), with, on three pairs in seven, keys given twice before the real ones: a
// whole spec before the real one, holding an unknown field, a quantity bomb and another
// minReadySeconds; labels before the first labels (merged into the real ones, the typed
// decoding would keep "dup"); another image before the container's. kubectl keeps the last of
// each, so the manifest applies as data does; the API server's strict decoding
// (sigs.k8s.io/json's UnmarshalStrict) refuses the text itself ("duplicate field"), which
// kubectl never sends. It draws nothing from the
// random source, so the pairs stay those of before.
func withKeysGivenTwice(t *testing.T, data []byte, pair int) []byte {
	t.Helper()
	var out []byte
	switch pair % 7 {
	case 2:
		first := `{"spec":{"minReadySeconds":9,"Bogus":1,"template":{"spec":{"containers":[{"name":"x","resources":{"requests":{"cpu":"1e-999999999"}}}]}}},`
		out = append([]byte(first), data[1:]...)
	case 4:
		out = bytes.Replace(data, []byte(`"labels":{`), []byte(`"labels":{"dup":"first"},"labels":{`), 1)
	case 6:
		out = bytes.Replace(data, []byte(`"image":`), []byte(`"image":"other:0","image":`), 1)
	default:
		return data
	}
	// Into a map, as the patch handler checks a patch: the typed decoding would parse the bomb.
	strictErrs, err := kjson.UnmarshalStrict(out, &map[string]any{})
	must(t, err)
	if len(strictErrs) == 0 || !strings.Contains(strictErrs[0].Error(), "duplicate field") {
		t.Fatalf("the API server's strict decoding of %s: %v, want a duplicate field", out, strictErrs)
	}
	return out
}

// randomStored returns a DaemonSet the API server stores after kubectl applied a random
// manifest, then, at random, `kubectl rollout restart` (a template annotation, through the
// strategy), a status, and the loss of the last-applied annotation (an object kubectl create
// made); nil at random (the apply creates).
func randomStored(t *testing.T, r *rand.Rand) (*appsv1.DaemonSet, map[string]any) {
	t.Helper()
	if r.IntN(8) == 0 {
		return nil, nil
	}
	for {
		first := randomManifest(r)
		ds, refused := upstreamApply(t, nil, first, metav1.FieldValidationIgnore)
		if refused != nil {
			continue
		}
		ds.ResourceVersion = "7"
		if r.IntN(3) == 0 {
			restarted := ds.DeepCopy()
			restarted.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-27T10:00:00Z"}
			newInternal, oldInternal := &apps.DaemonSet{}, &apps.DaemonSet{}
			must(t, legacyscheme.Scheme.Convert(restarted, newInternal, nil))
			must(t, legacyscheme.Scheme.Convert(ds.DeepCopy(), oldInternal, nil))
			ctx := requestContext(ds.Namespace, ds.Name, "patch")
			must(t, rest.BeforeUpdate(dsstrategy.Strategy, ctx, newInternal, oldInternal))
			ds = storedVersioned(t, newInternal)
		}
		if r.IntN(2) == 0 {
			ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberReady: 3, ObservedGeneration: ds.Generation}
		}
		if r.IntN(4) == 0 {
			delete(ds.Annotations, v1.LastAppliedConfigAnnotation)
		}
		return ds, first
	}
}

func fieldsOf(cs []metav1.StatusCause) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Type)+" "+c.Field)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestApplyAgainstUpstream(t *testing.T) {
	const pairs = 3000
	r := rand.New(rand.NewPCG(22, 14))
	var accepted, refused, unchanged, refusedUnknown, twice, twiceStored int
	for i := range pairs {
		stored, first := randomStored(t, r)
		manifest := randomManifest(r)
		if first != nil && r.IntN(3) == 0 {
			manifest = first // applied unchanged
		}
		manifest = withOtherCapitals(t, manifest, i)
		var storedIn *appsv1.DaemonSet
		if stored != nil {
			storedIn = stored.DeepCopy()
		}
		data, err := json.Marshal(manifest)
		must(t, err)
		data = withKeysGivenTwice(t, data, i)
		if i%7 == 2 || i%7 == 4 || i%7 == 6 {
			twice++
		}
		ignored, ignoredRefused := upstreamApplyJSON(t, stored, data, metav1.FieldValidationIgnore)
		// Both forms of the manifest: the file's JSON (kubectl's patch exactly), with
		// --validate=ignore and with kubectl's default, strict (D-21), and the typed object
		// where the file spells out no zero the type drops.
		forms := []string{"json", "json strict"}
		if !spellsDroppedZero(manifest) {
			forms = append(forms, "typed")
		}
		for _, form := range forms {
			wantObj, wantRefused := ignored, ignoredRefused
			var got *appsv1.DaemonSet
			var errs fieldpath.ErrorList
			switch form {
			case "json":
				got, errs = apiserver.ApplyJSON(stored, data, apiserver.Options{Version: release, FieldValidation: apiserver.FieldValidationIgnore})
			case "json strict":
				wantObj, wantRefused = upstreamApplyJSON(t, stored, data, metav1.FieldValidationStrict)
				got, errs = apiserver.ApplyJSON(stored, data, apiserver.Options{Version: release})
				if wantRefused != nil && ignoredRefused == nil {
					refusedUnknown++
				}
			default:
				got, errs = apiserver.Apply(stored, typed(t, manifest), apiserver.Options{Version: release})
			}
			want := wantObj.DeepCopy()
			name := fmt.Sprintf("pair %d, %s: manifest %v", i, form, manifest)
			if diff := cmp.Diff(storedIn, stored); diff != "" {
				t.Fatalf("%s: Apply modified stored:\n%s", name, diff)
			}
			if wantRefused != nil {
				var gotFields []string
				for _, e := range errs {
					gotFields = append(gotFields, string(e.Type)+" "+e.Field)
				}
				slices.Sort(gotFields)
				if diff := cmp.Diff(fieldsOf(wantRefused), slices.Compact(gotFields)); diff != "" {
					t.Fatalf("%s: refusal (-upstream +ours):\n%s\nupstream: %v\nours: %v", name, diff, wantRefused, errs)
				}
				if form == "json" {
					refused++
				}
				continue
			}
			if len(errs) > 0 {
				t.Fatalf("%s: upstream stores it, ours refuses: %v", name, errs)
			}
			if form == "json strict" && (i%7 == 2 || i%7 == 4 || i%7 == 6) {
				twiceStored++
			}
			if form == "json" {
				accepted++
				if stored != nil && want.Generation == stored.Generation {
					unchanged++
				}
			}
			// The storage round trip drops empty lists and maps on both sides; managedFields
			// and resourceVersion are the API server's to write.
			got = roundTrip(t, got)
			// The last-applied configurations of the typed form are compared as the typed
			// objects they hold: kubectl keeps the file's spelling ("0.1" where the type says
			// "100m"); the JSON form keeps it too, byte for byte.
			for _, ds := range []*appsv1.DaemonSet{want, got} {
				if form != "typed" {
					ds.ManagedFields, ds.ResourceVersion = nil, ""
					continue
				}
				ds.ManagedFields, ds.ResourceVersion = nil, ""
				if a, ok := ds.Annotations[v1.LastAppliedConfigAnnotation]; ok {
					var cfg appsv1.DaemonSet
					must(t, kjson.UnmarshalCaseSensitivePreserveInts([]byte(a), &cfg))
					canonical, err := json.Marshal(&cfg)
					must(t, err)
					ds.Annotations[v1.LastAppliedConfigAnnotation] = string(canonical)
				}
			}
			if stored == nil {
				got.UID, got.CreationTimestamp = want.UID, want.CreationTimestamp
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: stored object (-upstream +ours):\n%s", name, diff)
			}
		}
	}
	t.Logf("%d pairs: %d stored (%d with the generation unchanged), %d refused; %d more refused for unknown fields under strict validation; %d with keys given twice, %d of them stored under strict validation",
		pairs, accepted, unchanged, refused, refusedUnknown, twice, twiceStored)
	if accepted < pairs/4 || refused < pairs/20 || unchanged < pairs/20 || refusedUnknown < pairs/20 || twiceStored < pairs/20 {
		t.Fatalf("the pairs do not reach every outcome: %d stored, %d unchanged, %d refused, %d refused for unknown fields, %d with keys given twice stored under strict validation",
			accepted, unchanged, refused, refusedUnknown, twiceStored)
	}
}

// spellsDroppedZero reports whether manifest spells out a zero that the typed DaemonSet drops
// (an omitempty int or bool): the typed apiserver.Apply then sends less than kubectl.
func spellsDroppedZero(manifest map[string]any) bool {
	spec := manifest["spec"].(map[string]any)
	if v, ok := spec["minReadySeconds"]; ok && v == 0 {
		return true
	}
	podSpec := spec["template"].(map[string]any)["spec"].(map[string]any)
	v, ok := podSpec["hostNetwork"]
	return ok && v == false
}
