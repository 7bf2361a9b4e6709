package upstreamtest

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // registers the apps/v1 defaulting functions
	api "k8s.io/kubernetes/pkg/apis/core"
	"sigs.k8s.io/randfill"
)

// stored returns ds as the linked release's API server stores it when it is created and gives it
// back: the scheme's defaulting (SetObjectDefaults_DaemonSet), the strategy's drop of the
// template fields of disabled gates (PrepareForCreate: DropDisabledTemplateFields with no old
// template, at the linked release's default gates; VER-10, VER-11), then the protobuf round trip
// of storage, which drops empty lists and maps.
func stored(t testing.TB, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	return storedUpdate(t, ds, nil)
}

// storedUpdate is stored for an update of old, as the API server holds it (nil: a create):
// PrepareForUpdate passes old's template to DropDisabledTemplateFields, which keeps the fields
// of disabled gates that old's template already uses.
func storedUpdate(t testing.TB, ds, old *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	out := ds.DeepCopy()
	legacyscheme.Scheme.Default(out)
	// The API server decodes into the internal types and stores what converts back: the
	// conversion keeps serviceAccount, the deprecated alias, equal to serviceAccountName.
	internal := &apps.DaemonSet{}
	if err := legacyscheme.Scheme.Convert(out, internal, nil); err != nil {
		t.Fatal(err)
	}
	var oldTemplate *api.PodTemplateSpec
	if old != nil {
		oldInternal := &apps.DaemonSet{}
		if err := legacyscheme.Scheme.Convert(old.DeepCopy(), oldInternal, nil); err != nil {
			t.Fatal(err)
		}
		oldTemplate = &oldInternal.Spec.Template
	}
	podutil.DropDisabledTemplateFields(&internal.Spec.Template, oldTemplate)
	out = &appsv1.DaemonSet{}
	if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
		t.Fatal(err)
	}
	data, err := out.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back := &appsv1.DaemonSet{}
	if err := back.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	return back
}

// fieldsV1Raw compares managedFields' raw bytes as bytes: apimachinery v0.35's protobuf round trip
// gives an empty Raw back as []byte{} where later releases and the library keep nil, a difference
// only inside a template's volume claim template's managedFields (VER-8 lists it).
var fieldsV1Raw = cmp.Comparer(func(a, b metav1.FieldsV1) bool { return bytes.Equal(a.Raw, b.Raw) })

// ours is daemonsched's defaulting of a DaemonSet read from a manifest (DFLT-1 to DFLT-3).
func ours(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	return release.WithTemplateDefaults(daemonset.WithDefaults(ds))
}

// oursUpdate is daemonsched's defaulting of ds replacing old, as apiserver.Update does it.
func oursUpdate(ds, old *appsv1.DaemonSet) *appsv1.DaemonSet {
	return daemonset.Options{Version: release}.WithTemplateDefaults(daemonset.WithDefaults(ds), old)
}

// images are references of every shape the pull-policy default reads.
var images = []string{
	"", "nginx", "nginx:latest", "nginx:1.27", "library/nginx", "docker.io/nginx", "index.docker.io/nginx:latest",
	"registry.k8s.io/pause:3.10", "localhost/app", "localhost:5000/app", "localhost:5000/app:latest", "[::1]:5000/app",
	"example.com:443/team/app@sha256:" + hex64, "app@sha256:" + hex64, "app:v1@sha256:" + hex64, "app@sha256:" + hex64[:60],
	"app@sha512:" + hex64, "app@md5:" + hex64, "NGINX", "Registry.example.com/app", "example.com/App", "app:",
	":tag", "app:-x", "a/b//c", "a__b", "a___b", "a--b", hex64, "sha256:" + hex64, "app:" + string(make([]byte, 129)),
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// newFiller fills pod templates with every field set or unset at random, the quantities with
// values that need rounding, and container images from images.
func newFiller(seed uint64) *randfill.Filler {
	r := rand.NewSource(int64(seed))
	return randfill.New().NilChance(0.4).NumElements(0, 2).RandSource(r).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewScaledQuantity(c.Int63n(100000), resource.Scale(-6+c.Intn(10)))
		},
		func(i *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*i = intstr.FromInt32(c.Int31n(100))
			} else {
				*i = intstr.FromString("http")
			}
		},
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Unix(c.Int63n(1<<31), 0) },
		func(s *v1.Container, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Image = images[c.Intn(len(images))]
			if c.Bool() {
				s.ImagePullPolicy = ""
			}
		},
		func(p *v1.Probe, c randfill.Continue) {
			c.FillNoCustom(p)
			if c.Bool() {
				p.TimeoutSeconds, p.PeriodSeconds = 0, 0
			}
			if c.Bool() {
				p.SuccessThreshold, p.FailureThreshold = 0, 0
			}
		},
		func(s *string, c randfill.Continue) {
			if c.Intn(3) == 0 {
				*s = ""
			} else {
				*s = c.String(8)
			}
		},
	)
}

// blank unsets, each with probability 1/2, every pointer to a scalar and every scalar reachable
// from v, so that each default is exercised both ways: the filler sets almost all of them.
func blank(v reflect.Value, r *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if k := v.Elem().Kind(); k != reflect.Struct && k != reflect.Slice && k != reflect.Map && r.Intn(2) == 0 {
			v.SetZero()
			return
		}
		blank(v.Elem(), r)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[resource.Quantity]() {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				blank(v.Field(i), r)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			blank(v.Index(i), r)
		}
	case reflect.String, reflect.Int32, reflect.Int64:
		if r.Intn(2) == 0 {
			v.SetZero()
		}
	}
}

// randomDaemonSet is a DaemonSet whose template sets every field or not at random, the fields
// of every feature gate included (the filler reaches each with probability 0.6), and, one seed
// in three, a volume without a source.
func randomDaemonSet(seed uint64) *appsv1.DaemonSet {
	f := newFiller(seed)
	ds := &appsv1.DaemonSet{}
	f.Fill(&ds.Spec.Template)
	blank(reflect.ValueOf(&ds.Spec.Template).Elem(), rand.New(rand.NewSource(int64(seed))))
	if seed%3 == 0 {
		ds.Spec.Template.Spec.Volumes = append(ds.Spec.Template.Spec.Volumes, v1.Volume{Name: "no-source"})
	}
	return ds
}

// Every DaemonSet defaulted by daemonsched is the one the API server stores: the same value,
// with nil and empty collections where it has them (DFLT-3), and without the fields of the gates
// the release turns off (VER-10, VER-11): the whole template is compared.
func TestTemplateDefaultsAreTheStoredObject(t *testing.T) {
	for seed := range uint64(2000) {
		ds := randomDaemonSet(seed)
		want := stored(t, ds)
		got := ours(ds)
		if diff := cmp.Diff(want.Spec.Template, got.Spec.Template, fieldsV1Raw); diff != "" {
			t.Fatalf("seed %d: template mismatch (-stored +daemonsched):\n%s", seed, diff)
		}
		if diff := cmp.Diff(want.Spec.UpdateStrategy, got.Spec.UpdateStrategy); diff != "" {
			t.Fatalf("seed %d: updateStrategy mismatch (-stored +daemonsched):\n%s", seed, diff)
		}
	}
}

// An update keeps the fields of disabled gates that the stored template uses, and drops the
// others, as PrepareForUpdate does (VER-11): the new template is compared whole, against stored
// templates that use a random part of the gated fields.
func TestTemplateUpdateKeepsWhatTheStoredUses(t *testing.T) {
	for seed := range uint64(1000) {
		old := stored(t, randomDaemonSet(seed+1_000_000))
		// The stored template of an update holds the fields of disabled gates it was created
		// with before the gate was turned off, or that an older update kept: they are put back
		// from the unfiltered template half the time.
		if seed%2 == 0 {
			old = randomDaemonSet(seed + 1_000_000)
			legacyscheme.Scheme.Default(old)
		}
		ds := randomDaemonSet(seed)
		want := storedUpdate(t, ds, old)
		got := oursUpdate(ds, old)
		if diff := cmp.Diff(want.Spec.Template, got.Spec.Template, fieldsV1Raw); diff != "" {
			t.Fatalf("seed %d: template mismatch (-stored +daemonsched):\n%s", seed, diff)
		}
	}
}

// The image pull policy follows the tag exactly as upstream parses image references.
func TestImagePullPolicyAsUpstream(t *testing.T) {
	for _, image := range images {
		checkPullPolicy(t, image)
	}
}

func FuzzImagePullPolicy(f *testing.F) {
	for _, image := range images {
		f.Add(image)
	}
	f.Fuzz(checkPullPolicy)
}

func checkPullPolicy(t *testing.T, image string) {
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
		Containers: []v1.Container{{Name: "c", Image: image}},
		Volumes:    []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: image}}}},
	}}}}
	want, got := stored(t, ds).Spec.Template.Spec, ours(ds).Spec.Template.Spec
	if w, g := want.Containers[0].ImagePullPolicy, got.Containers[0].ImagePullPolicy; w != g {
		t.Errorf("image %q: container pull policy %s, upstream %s", image, g, w)
	}
	// Before 1.35 the API server drops the image volume (VER-10); from 1.35 it defaults its pull
	// policy as a container's.
	if diff := cmp.Diff(want.Volumes, got.Volumes); diff != "" {
		t.Errorf("image %q: image volume mismatch (-upstream +daemonsched):\n%s", image, diff)
	}
}

// With every modelled gate that is off by default turned on, the API server keeps the fields
// it drops at the defaults, and so does the library given the same gates (VER-5, VER-11): the
// override brings the fields back, checked whole against the release's own code.
func TestTemplateDefaultsWithTheGatesOn(t *testing.T) {
	// Gates the API server requires on with them (kube_features.go's dependencies from 1.35):
	// they guard APIs, not template fields, so they are set first, where the release knows them.
	for _, dep := range []featuregate.Feature{"ClusterTrustBundle", "AuthorizeNodeWithSelectors"} {
		if _, known := utilfeature.DefaultMutableFeatureGate.GetAll()[dep]; known {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, dep, true)
		}
	}
	checkTemplateDefaultsWith(t, turnGates(t, true))
}
