package apiserver_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

const manifestYAML = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, labels: {app: agent}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: agent, image: agent:1}]
`

func decode(t *testing.T, s string) *appsv1.DaemonSet {
	t.Helper()
	var ds appsv1.DaemonSet
	require.NoError(t, yaml.UnmarshalStrict([]byte(s), &ds))
	return &ds
}

// stored returns the DaemonSet the API server holds after `kubectl apply` of manifestYAML and a
// few syncs: uid, resourceVersion, status, generation 3 and template generation 2.
func stored(t *testing.T) *appsv1.DaemonSet {
	t.Helper()
	ds, errs := apiserver.Apply(nil, decode(t, manifestYAML), apiserver.Options{})
	require.Empty(t, errs)
	ds.UID, ds.ResourceVersion, ds.Generation = "uid-1", "42", 3
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = "2"
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, ObservedGeneration: 3}
	return ds
}

func edit(t *testing.T, f func(ds *appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := decode(t, manifestYAML)
	f(ds)
	return ds
}

// Apply is kubectl's client-side apply followed by the DaemonSet strategy and its validation
// (D-14).
func TestApply(t *testing.T) {
	t.Parallel()
	restarted := stored(t)
	restarted.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-27T10:00:00Z"}
	restarted.Generation, restarted.Annotations[appsv1.DeprecatedTemplateGeneration] = 4, "3"
	noLastApplied := stored(t)
	delete(noLastApplied.Annotations, v1.LastAppliedConfigAnnotation)
	noLastApplied.Spec.Template.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	noLastApplied.Labels["team"] = "infra"

	tests := []struct {
		name            string
		stored          *appsv1.DaemonSet
		manifest        *appsv1.DaemonSet
		wantErrs        field.ErrorList
		wantGeneration  int64
		wantTemplateGen string
		check           func(t *testing.T, got *appsv1.DaemonSet)
	}{
		{name: "the manifest applied unchanged changes nothing", stored: stored(t), manifest: decode(t, manifestYAML),
			wantGeneration: 3, wantTemplateGen: "2"},
		{name: "after rollout restart the unchanged manifest keeps restartedAt and changes nothing", stored: restarted, manifest: decode(t, manifestYAML),
			wantGeneration: 4, wantTemplateGen: "3", check: func(t *testing.T, got *appsv1.DaemonSet) {
				require.Equal(t, "2026-11-27T10:00:00Z", got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"])
			}},
		{name: "a new image moves the generation and the template generation", stored: stored(t),
			manifest:       edit(t, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" }),
			wantGeneration: 4, wantTemplateGen: "3"},
		{name: "a spec change outside the template moves the generation only", stored: stored(t),
			manifest:       edit(t, func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 10 }),
			wantGeneration: 4, wantTemplateGen: "2"},
		{name: "a field the last applied manifest set and this one does not is removed", stored: stored(t),
			manifest:       edit(t, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = nil }),
			wantGeneration: 4, wantTemplateGen: "3", check: func(t *testing.T, got *appsv1.DaemonSet) {
				require.Empty(t, got.Spec.Template.Spec.NodeSelector)
			}},
		{name: "without last-applied nothing is removed, as on kubectl's first apply", stored: noLastApplied,
			manifest:       edit(t, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = nil }),
			wantGeneration: 3, wantTemplateGen: "2", check: func(t *testing.T, got *appsv1.DaemonSet) {
				require.Equal(t, map[string]string{"disk": "ssd"}, got.Spec.Template.Spec.NodeSelector)
				require.Len(t, got.Spec.Template.Spec.Tolerations, 1)
				require.Equal(t, "infra", got.Labels["team"])
				require.Contains(t, got.Annotations, v1.LastAppliedConfigAnnotation)
			}},
		{name: "a changed selector is refused as immutable", stored: stored(t),
			manifest: edit(t, func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchLabels = map[string]string{"app": "agent2"}
				ds.Spec.Template.Labels = map[string]string{"app": "agent2"}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), nil, "")}},
		{name: "a template that its selector does not match is refused", stored: stored(t),
			manifest: edit(t, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"app": "other"} }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "template", "metadata", "labels"), nil, "")}},
		{name: "maxSurge beside the defaulted maxUnavailable is refused", stored: stored(t),
			manifest: edit(t, func(ds *appsv1.DaemonSet) {
				one := intstr.FromInt32(1)
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &one}}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge"), nil, "")}},
		{name: "another uid is refused as immutable", stored: stored(t),
			manifest: edit(t, func(ds *appsv1.DaemonSet) { ds.UID = "uid-2" }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "uid"), nil, "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storedIn, manifestIn := tt.stored.DeepCopy(), tt.manifest.DeepCopy()
			got, errs := apiserver.Apply(tt.stored, tt.manifest, apiserver.Options{})
			if diff := cmp.Diff(storedIn, tt.stored); diff != "" {
				t.Errorf("Apply modified stored (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(manifestIn, tt.manifest); diff != "" {
				t.Errorf("Apply modified manifest (-before +after):\n%s", diff)
			}
			if tt.wantErrs != nil {
				field.ErrorMatcher{}.ByType().ByField().Test(t, tt.wantErrs, errs)
				require.Nil(t, got)
				return
			}
			require.Empty(t, errs)
			require.Equal(t, tt.wantGeneration, got.Generation)
			require.Equal(t, tt.wantTemplateGen, got.Annotations[appsv1.DeprecatedTemplateGeneration])
			require.EqualValues(t, "uid-1", got.UID)
			require.Equal(t, "42", got.ResourceVersion)
			require.EqualValues(t, 3, got.Status.DesiredNumberScheduled)
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// A DaemonSet applied where there is none is created at generation 1 and template generation
// 1, with the last applied configuration kubectl sets, whatever generations the file says.
func TestApplyCreates(t *testing.T) {
	t.Parallel()
	m := decode(t, manifestYAML)
	m.Generation = 7
	m.Status.NumberReady = 2
	got, errs := apiserver.Apply(nil, m, apiserver.Options{})
	require.Empty(t, errs)
	require.EqualValues(t, 1, got.Generation)
	require.Equal(t, "1", got.Annotations[appsv1.DeprecatedTemplateGeneration])
	require.Zero(t, got.Status.NumberReady)
	require.JSONEq(t, `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"annotations":{},"generation":7,"labels":{"app":"agent"},"name":"agent","namespace":"kube-system"},`+
		`"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},`+
		`"spec":{"containers":[{"image":"agent:1","name":"agent"}],"nodeSelector":{"disk":"ssd"}}}}}`,
		got.Annotations[v1.LastAppliedConfigAnnotation])
	require.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, got.Spec.UpdateStrategy.Type)
	require.Equal(t, v1.RestartPolicyAlways, got.Spec.Template.Spec.RestartPolicy, "pod template defaults")
}

// Update moves the generations as the DaemonSet strategy does, whatever the caller set.
func TestUpdateOwnsTheGenerations(t *testing.T) {
	t.Parallel()
	old := stored(t)
	next := old.DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "agent:2"
	next.Generation = 99
	next.Annotations[appsv1.DeprecatedTemplateGeneration] = "99"
	next.Status = appsv1.DaemonSetStatus{}
	got, errs := apiserver.Update(old, next, apiserver.Options{})
	require.Empty(t, errs)
	require.EqualValues(t, 4, got.Generation)
	require.Equal(t, "3", got.Annotations[appsv1.DeprecatedTemplateGeneration])
	require.EqualValues(t, 3, got.Status.DesiredNumberScheduled)

	// Updating with the result again changes nothing more.
	again, errs := apiserver.Update(old, got, apiserver.Options{})
	require.Empty(t, errs)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("Update not idempotent (-first +second):\n%s", diff)
	}
}

// ApplyJSON sends the file's JSON as kubectl does, so a spelt-out zero or false replaces what
// only the stored object holds, where the typed Apply drops it (D-14).
func TestApplyJSONSendsSpeltOutZeros(t *testing.T) {
	t.Parallel()
	live := stored(t)
	live.Spec.MinReadySeconds = 30
	live.Spec.Template.Spec.HostNetwork = true // set by someone else: not in the last-applied configuration
	zeros := `{"apiVersion": "apps/v1", "kind": "DaemonSet",
	  "metadata": {"name": "agent", "namespace": "kube-system", "labels": {"app": "agent"}},
	  "spec": {"selector": {"matchLabels": {"app": "agent"}}, "minReadySeconds": 0,
	    "template": {"metadata": {"labels": {"app": "agent"}},
	      "spec": {"hostNetwork": false, "nodeSelector": {"disk": "ssd"}, "containers": [{"name": "agent", "image": "agent:1"}]}}}}`
	in := live.DeepCopy()
	got, errs := apiserver.ApplyJSON(live, []byte(zeros), apiserver.Options{})
	require.Empty(t, errs)
	if diff := cmp.Diff(in, live); diff != "" {
		t.Fatalf("ApplyJSON modified stored (-before +after):\n%s", diff)
	}
	require.Zero(t, got.Spec.MinReadySeconds)
	require.False(t, got.Spec.Template.Spec.HostNetwork)
	require.EqualValues(t, 4, got.Generation)
	require.Equal(t, "3", got.Annotations[appsv1.DeprecatedTemplateGeneration])
	require.Contains(t, got.Annotations[v1.LastAppliedConfigAnnotation], `"minReadySeconds":0`)

	typed, errs := apiserver.Apply(live, decode(t, zeros), apiserver.Options{})
	require.Empty(t, errs)
	require.EqualValues(t, 30, typed.Spec.MinReadySeconds, "the typed object cannot send the zero")
	require.True(t, typed.Spec.Template.Spec.HostNetwork, "the typed object cannot send the false")

	for _, bad := range []string{`[]`, `{"spec": 1}`, `{} {}`, `not json`} {
		_, errs := apiserver.ApplyJSON(live, []byte(bad), apiserver.Options{})
		field.ErrorMatcher{}.ByType().ByField().Test(t, field.ErrorList{field.Invalid(nil, nil, "")}, errs)
	}
}

// The API server reads a body's apiVersion and kind before the body, under case folding, the
// last key winning (apimachinery's json SimpleMetaFactory.Interpret), in the body kubectl sends,
// whose keys are sorted (D-21): "ApiVersion" and "Kind" come before the real keys wherever the
// file writes them, and "apiversion" after "apiVersion", making it another object; "apiversion"
// alone is an apiVersion there, but none to the typed decoding or to kubectl, which does not
// send it (D-14). A type that reads right there is then decoded strictly, where "ApiVersion"
// and "Kind" are unknown fields (D-21).
func TestApplyJSONReadsTheTypeAsTheAPIServer(t *testing.T) {
	t.Parallel()
	body := func(typeMeta string) string {
		return `{` + typeMeta + `"metadata": {"name": "agent", "namespace": "kube-system"},
		  "spec": {"selector": {"matchLabels": {"app": "agent"}},
		    "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "agent", "image": "agent:1"}]}}}}`
	}
	tests := []struct {
		name       string
		typeMeta   string
		want       field.ErrorList // with FieldValidationIgnore
		wantStrict field.ErrorList // with the default, when it differs
	}{
		{name: "D-14 ApiVersion and Kind written after the real keys are sent before them, and lose", typeMeta: `"apiVersion": "apps/v1", "kind": "DaemonSet", "ApiVersion": "apps/v2", "Kind": "Pod",`,
			wantStrict: field.ErrorList{field.Forbidden(field.NewPath("ApiVersion"), ""), field.Forbidden(field.NewPath("Kind"), "")}},
		{name: "D-14 apiversion written before apiVersion is sent after it, and wins", typeMeta: `"apiversion": "apps/v2", "apiVersion": "apps/v1", "kind": "DaemonSet",`,
			want: field.ErrorList{field.NotSupported[string](field.NewPath("apiVersion"), "apps/v2", nil)}},
		{name: "D-14 the real keys after ApiVersion and Kind win", typeMeta: `"ApiVersion": "apps/v2", "Kind": "Pod", "apiVersion": "apps/v1", "kind": "DaemonSet",`,
			wantStrict: field.ErrorList{field.Forbidden(field.NewPath("ApiVersion"), ""), field.Forbidden(field.NewPath("Kind"), "")}},
		{name: "D-14 another kind", typeMeta: `"apiVersion": "v1", "kind": "Pod",`,
			want: field.ErrorList{field.NotSupported[string](field.NewPath("apiVersion"), "v1", nil), field.NotSupported[string](field.NewPath("kind"), "Pod", nil)}},
		{name: "D-14 neither", typeMeta: ``, want: field.ErrorList{field.Required(field.NewPath("apiVersion"), ""), field.Required(field.NewPath("kind"), "")}},
		{name: "D-14 apiversion alone is no apiVersion to the typed decoding", typeMeta: `"apiversion": "apps/v1", "kind": "DaemonSet",`,
			want: field.ErrorList{field.Required(field.NewPath("apiVersion"), "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []apiserver.FieldValidation{apiserver.FieldValidationIgnore, ""} {
				want := tt.want
				if v == "" && tt.wantStrict != nil {
					want = tt.wantStrict
				}
				for _, live := range []*appsv1.DaemonSet{nil, stored(t)} {
					got, errs := apiserver.ApplyJSON(live, []byte(body(tt.typeMeta)), apiserver.Options{FieldValidation: v})
					if want == nil {
						require.Empty(t, errs)
						require.Equal(t, "apps/v1", got.APIVersion)
						continue
					}
					field.ErrorMatcher{}.ByType().ByField().Test(t, want, errs)
				}
			}
		})
	}
}

// ApplyJSON decodes the file's JSON as the API server does (sigs.k8s.io/json, keys matched
// exactly), not as encoding/json does (a key equal under case folding fills the field): a key
// spelt with other capitals is a field the type does not know, which fills nothing (D-14) with
// --validate=ignore and is refused with its path by default, as --validate=strict has the API
// server refuse it (D-21).
func TestApplyJSONMatchesKeysExactly(t *testing.T) {
	t.Parallel()
	// agent is manifestYAML's DaemonSet as JSON, with extra spec fields and container fields.
	agent := func(top, spec, container string) string {
		return `{"apiVersion": "apps/v1", "kind": "DaemonSet",` + top + `
		  "metadata": {"name": "agent", "namespace": "kube-system", "labels": {"app": "agent"}},
		  "spec": {"selector": {"matchLabels": {"app": "agent"}},` + spec + `
		    "template": {"metadata": {"labels": {"app": "agent"}},
		      "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "agent", "image": "agent:1"` + container + `}]}}}}`
	}
	tests := []struct {
		name        string
		manifest    string
		check       func(t *testing.T, got *appsv1.DaemonSet) // with FieldValidationIgnore
		wantUnknown []string                                  // the paths refused by default
	}{{
		name:     "D-14 D-21 a container's Resources is an unknown field, not its resources",
		manifest: agent("", "", `, "Resources": {"requests": {"cpu": "1"}}`),
		check: func(t *testing.T, got *appsv1.DaemonSet) {
			require.Empty(t, got.Spec.Template.Spec.Containers[0].Resources.Requests)
		},
		wantUnknown: []string{"spec.template.spec.containers[0].Resources"},
	}, {
		// It was refused as a quantity while keys were matched under case folding.
		name:     "D-14 D-21 a quantity bomb under Resources is an unknown field, never parsed",
		manifest: agent("", "", `, "Resources": {"Requests": {"cpu": "1e-999999999"}}`),
		check: func(t *testing.T, got *appsv1.DaemonSet) {
			require.Empty(t, got.Spec.Template.Spec.Containers[0].Resources.Requests)
		},
		wantUnknown: []string{"spec.template.spec.containers[0].Resources"},
	}, {
		name:     "D-14 D-21 MinReadySeconds is an unknown field, not minReadySeconds",
		manifest: agent("", ` "MinReadySeconds": 5,`, ""),
		check: func(t *testing.T, got *appsv1.DaemonSet) {
			require.Zero(t, got.Spec.MinReadySeconds)
		},
		wantUnknown: []string{"spec.MinReadySeconds"},
	}, {
		name:     "D-21 every unknown field is named, in text order",
		manifest: agent(` "foo": 1,`, ` "bar": {"baz": 2},`, `, "imagePullPolicyy": "Always"`),
		check: func(t *testing.T, got *appsv1.DaemonSet) {
			require.NotEqual(t, v1.PullAlways, got.Spec.Template.Spec.Containers[0].ImagePullPolicy)
		},
		wantUnknown: []string{"foo", "spec.bar", "spec.template.spec.containers[0].imagePullPolicyy"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wantErrs field.ErrorList
			for _, p := range tt.wantUnknown {
				wantErrs = append(wantErrs, field.Forbidden(field.NewPath(p), ""))
			}
			for _, live := range []*appsv1.DaemonSet{nil, stored(t)} {
				got, errs := apiserver.ApplyJSON(live, []byte(tt.manifest), apiserver.Options{FieldValidation: apiserver.FieldValidationIgnore})
				require.Empty(t, errs)
				tt.check(t, got)

				for _, v := range []apiserver.FieldValidation{"", apiserver.FieldValidationStrict} {
					got, errs = apiserver.ApplyJSON(live, []byte(tt.manifest), apiserver.Options{FieldValidation: v})
					require.Nil(t, got)
					field.ErrorMatcher{}.ByType().ByField().Test(t, wantErrs, errs)
				}
			}
		})
	}
}

// A key given twice keeps its last value, whole, under either field validation (D-21): kubectl
// reads the file into an unstructured object (the last of a key replaces the others) and sends
// that object's JSON, so the API server, whose strict decoding refuses a "duplicate field",
// never sees one. Each manifest applies as the one without the first of its keys given twice;
// before, all were refused ("Duplicate value"), though kubectl applies them.
// internal/upstreamtest's TestApplyAgainstUpstream checks it against kubectl's own decoding.
func TestApplyJSONKeepsTheLastOfAKeyGivenTwice(t *testing.T) {
	t.Parallel()
	// agent is manifestYAML's DaemonSet as JSON, with the node selector and container fields
	// given.
	agent := func(top, nodeSelector, container string) string {
		return `{"apiVersion": "apps/v1", "kind": "DaemonSet",` + top + `
		  "metadata": {"name": "agent", "namespace": "kube-system", "labels": {"app": "agent"}},
		  "spec": {"selector": {"matchLabels": {"app": "agent"}},
		    "template": {"metadata": {"labels": {"app": "agent"}},
		      "spec": {` + nodeSelector + `"containers": [{"name": "agent"` + container + `}]}}}}`
	}
	ssd := `"nodeSelector": {"disk": "ssd"}, `
	tests := []struct {
		name     string
		manifest string
		sent     string // what kubectl sends: the manifest with the last of each key only
	}{{
		name:     "D-21 the last of a scalar given twice is applied",
		manifest: agent("", ssd, `, "image": "agent:0", "image": "agent:2"`),
		sent:     agent("", ssd, `, "image": "agent:2"`),
	}, {
		name:     "D-21 an object given twice is the last one, not the two merged",
		manifest: agent("", `"nodeSelector": {"disk": "hdd", "zone": "a"}, "nodeSelector": {"disk": "ssd"}, `, `, "image": "agent:1"`),
		sent:     agent("", ssd, `, "image": "agent:1"`),
	}, {
		name:     "D-21 an unknown field in the first of a key given twice is not sent, so strict validation refuses nothing",
		manifest: agent("", ssd, `, "image": "agent:1", "resources": {"Requests": {"cpu": "1"}}, "resources": {"requests": {"cpu": "1"}}`),
		sent:     agent("", ssd, `, "image": "agent:1", "resources": {"requests": {"cpu": "1"}}`),
	}, {
		name:     "D-21 a quantity bomb in the first of a key given twice is not sent, and never parsed",
		manifest: agent("", ssd, `, "image": "agent:1", "resources": {"requests": {"cpu": "1e-999999999"}}, "resources": {}`),
		sent:     agent("", ssd, `, "image": "agent:1", "resources": {}`),
	}, {
		name:     "D-21 a kind given twice is the last one",
		manifest: agent(` "kind": "Pod", "kind": "DaemonSet",`, ssd, `, "image": "agent:1"`),
		sent:     agent("", ssd, `, "image": "agent:1"`),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, live := range []*appsv1.DaemonSet{nil, stored(t)} {
				for _, v := range []apiserver.FieldValidation{apiserver.FieldValidationIgnore, apiserver.FieldValidationStrict} {
					opts := apiserver.Options{FieldValidation: v}
					want, errs := apiserver.ApplyJSON(live, []byte(tt.sent), opts)
					require.Empty(t, errs)
					data := []byte(tt.manifest)
					got, errs := apiserver.ApplyJSON(live, data, opts)
					require.Empty(t, errs, "%s, over a stored DaemonSet: %t", v, live != nil)
					require.Equal(t, tt.manifest, string(data), "ApplyJSON modified its manifest")
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("ApplyJSON() under %s, over a stored DaemonSet: %t, mismatch (-sent alone +given twice):\n%s", v, live != nil, diff)
					}
				}
			}
		})
	}
}

// An Options.FieldValidation that is neither Strict nor Ignore is refused, naming it (D-21).
func TestApplyJSONRefusesAnUnknownFieldValidation(t *testing.T) {
	t.Parallel()
	_, errs := apiserver.ApplyJSON(nil, []byte(`{}`), apiserver.Options{FieldValidation: "Warn"})
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, field.ErrorList{
		field.NotSupported[string](field.NewPath("Options", "FieldValidation"), "Warn", nil)}, errs)
}

// BenchmarkApplyJSON applies manifestYAML's DaemonSet, as JSON, over the stored DaemonSet, under
// strict field validation (D-21).
func BenchmarkApplyJSON(b *testing.B) {
	data, err := yaml.YAMLToJSON([]byte(manifestYAML))
	if err != nil {
		b.Fatal(err)
	}
	live := stored(&testing.T{})
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := apiserver.ApplyJSON(live, data, apiserver.Options{}); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// A JSON number in a quantity is read as kubectl sends it, whether or not the file gives a key
// twice (D-21, issue 25 item 2): kubectl reads the file into an unstructured object (numbers
// as int64, or float64) and sends that object's JSON, so the API server parses the float's
// text. The file's own text was judged and parsed when no key was given twice: 1e-999999999
// was refused where kubectl stores 0, and 0.1000000000000000000001 was 100000001n where
// kubectl stores 100m.
func TestApplyJSONReadsANumberAsKubectlSendsIt(t *testing.T) {
	t.Parallel()
	requests := field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "requests")
	tests := []struct {
		name     string
		cpu      string // a JSON number
		wantCPU  string // the stored request; "" when refused
		wantErrs field.ErrorList
	}{
		{name: "D-21 a number beyond the gate's exponent as written is kubectl's float, 0", cpu: "1e-999999999", wantCPU: "0"},
		{name: "D-21 a number of more digits than a float holds is kubectl's float", cpu: "0.1000000000000000000001", wantCPU: "100m"},
		{name: "D-21 an integer beyond int64 is kubectl's float", cpu: "100000000000000000001", wantCPU: "100E"},
		{name: "D-21 a float beyond the gate's exponent is refused at its path", cpu: "1e200",
			wantErrs: field.ErrorList{field.Invalid(requests.Key("cpu"), "1e+200", "")}},
		{name: "D-21 a number beyond float64 is refused whole, as kubectl refuses the file", cpu: "1e400",
			wantErrs: field.ErrorList{field.Invalid(nil, nil, "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, twice := range []bool{false, true} {
				image := `"image": "agent:1"`
				if twice {
					image = `"image": "agent:0", "image": "agent:1"`
				}
				manifest := `{"apiVersion": "apps/v1", "kind": "DaemonSet",
				  "metadata": {"name": "agent", "namespace": "kube-system", "labels": {"app": "agent"}},
				  "spec": {"selector": {"matchLabels": {"app": "agent"}},
				    "template": {"metadata": {"labels": {"app": "agent"}},
				      "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "agent", ` + image + `,
				        "resources": {"requests": {"cpu": ` + tt.cpu + `}}}]}}}}`
				for _, live := range []*appsv1.DaemonSet{nil, stored(t)} {
					got, errs := apiserver.ApplyJSON(live, []byte(manifest), apiserver.Options{})
					if tt.wantErrs != nil {
						matcher := field.ErrorMatcher{}.ByType().ByField()
						if tt.wantErrs[0].Field != "<nil>" {
							matcher = matcher.ByValue()
						}
						matcher.Test(t, tt.wantErrs, errs)
						continue
					}
					require.Empty(t, errs, "key given twice: %t, over a stored DaemonSet: %t", twice, live != nil)
					cpu := got.Spec.Template.Spec.Containers[0].Resources.Requests[v1.ResourceCPU]
					require.Equal(t, tt.wantCPU, cpu.String(), "key given twice: %t, over a stored DaemonSet: %t", twice, live != nil)
				}
			}
		})
	}
}

// Unknown fields are named in the API server's order, not the file's (D-21, issue 25 item 3).
// kubectl sends encoding/json of its unstructured object, keys sorted, so a create, which the
// API server decodes strictly as it reads the body (runtime/serializer/json), names them in
// sorted key order, depth first; a patch, whose patched object the converter checks
// (runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation), names them sorted by
// message, `unknown field "path"`: "resources-x" before "resources.zeta", as '-' sorts before
// '.', where the create names "resources.zeta" first ("resources" sorts before "resources-x").
func TestApplyJSONNamesUnknownFieldsInTheAPIServersOrder(t *testing.T) {
	t.Parallel()
	manifest := `{"apiVersion": "apps/v1", "kind": "DaemonSet",
	  "metadata": {"name": "agent", "namespace": "kube-system", "labels": {"app": "agent"}},
	  "spec": {"selector": {"matchLabels": {"app": "agent"}},
	    "template": {"metadata": {"labels": {"app": "agent"}},
	      "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "agent", "image": "agent:1",
	        "zeta": 1, "resources-x": 1, "resources": {"zeta": 1}, "alpha": 1}]}}}}`
	container := field.NewPath("spec", "template", "spec", "containers").Index(0)
	unknown := func(paths ...*field.Path) field.ErrorList {
		var errs field.ErrorList
		for _, p := range paths {
			errs = append(errs, field.Forbidden(p, ""))
		}
		return errs
	}
	tests := []struct {
		name   string
		stored *appsv1.DaemonSet
		want   field.ErrorList
	}{
		{name: "D-21 a create names them in sorted key order, depth first", want: unknown(
			container.Child("alpha"), container.Child("resources", "zeta"), container.Child("resources-x"), container.Child("zeta"))},
		{name: "D-21 a patch names them sorted by message", stored: stored(t), want: unknown(
			container.Child("alpha"), container.Child("resources-x"), container.Child("resources", "zeta"), container.Child("zeta"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, errs := apiserver.ApplyJSON(tt.stored, []byte(manifest), apiserver.Options{})
			var got, want []string
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			for _, e := range tt.want {
				want = append(want, string(e.Type)+" "+e.Field)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ApplyJSON() unknown fields (-want +got):\n%s", diff)
			}
		})
	}
}
