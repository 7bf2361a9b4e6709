package apiserver_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func emptyImageVolume(ds *appsv1.DaemonSet) {
	ds.Spec.Template.Spec.Volumes = append(ds.Spec.Template.Spec.Volumes,
		v1.Volume{Name: "data", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{}}})
}

// TestUpdateImageVolumeRatchets: from 1.37 Create refuses a template image volume without a
// reference, and so does Update unless the stored object already had one (VER-7); 1.36 accepts
// it both ways.
func TestUpdateImageVolumeRatchets(t *testing.T) {
	t.Parallel()
	v137 := daemonset.NewestVersion()
	v136, err := daemonset.ParseVersion("1.36.3")
	require.NoError(t, err)
	wantErrs := field.ErrorList{field.Required(field.NewPath("spec", "template", "spec", "volumes").Index(0).Child("image", "reference"), "")}

	_, errs := apiserver.Create(edit(t, emptyImageVolume), apiserver.Options{Version: v136})
	require.Empty(t, errs, "VER-7 1.36 accepts the template")
	_, errs = apiserver.Create(edit(t, emptyImageVolume), apiserver.Options{Version: v137})
	field.ErrorMatcher{}.ByType().ByField().Test(t, wantErrs, errs)

	// An update that adds the volume is refused in 1.37; one whose stored object had it is not.
	old := stored(t)
	next := old.DeepCopy()
	emptyImageVolume(next)
	_, errs = apiserver.Update(old, next, apiserver.Options{Version: v137})
	field.ErrorMatcher{}.ByType().ByField().Test(t, wantErrs, errs)
	_, errs = apiserver.Update(old, next, apiserver.Options{Version: v136})
	require.Empty(t, errs, "VER-7 1.36 accepts the update")

	withVolume := old.DeepCopy()
	emptyImageVolume(withVolume)
	again := withVolume.DeepCopy()
	again.Spec.Template.Spec.Containers[0].Image = "agent:2"
	_, errs = apiserver.Update(withVolume, again, apiserver.Options{Version: v137})
	require.Empty(t, errs, "VER-7 ratcheting: the stored object had the volume")
}

// TestUpdateKeepsGatedFieldsInUse: with a gate off, Create drops its template fields and Update
// keeps them only when the stored template already uses them (VER-10, VER-11, ADM-8), as the
// strategy's PrepareForUpdate passes the old template to DropDisabledTemplateFields; a gate
// turned on keeps them on create.
func TestUpdateKeepsGatedFieldsInUse(t *testing.T) {
	t.Parallel()
	v133, err := daemonset.ParseVersion("1.33.13")
	require.NoError(t, err)
	image := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Volumes = append(ds.Spec.Template.Spec.Volumes,
			v1.Volume{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "models/llm:1"}}})
	}
	podLevel := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}
	}
	both := func(ds *appsv1.DaemonSet) { image(ds); podLevel(ds) }
	has := func(ds *appsv1.DaemonSet) (images, resources bool) {
		spec := ds.Spec.Template.Spec
		return slices.ContainsFunc(spec.Volumes, func(v v1.Volume) bool { return v.Image != nil }), spec.Resources != nil
	}
	tests := []struct {
		name          string
		opts          apiserver.Options
		storedUses    func(*appsv1.DaemonSet) // nil: Create
		wantImages    bool
		wantResources bool
	}{
		{name: "VER-10 ADM-8 1.33 create drops image volumes and pod-level resources", opts: apiserver.Options{Version: v133}},
		{name: "VER-11 1.33 update whose stored template uses neither drops both", opts: apiserver.Options{Version: v133},
			storedUses: func(*appsv1.DaemonSet) {}},
		{name: "VER-11 1.33 update keeps the image volumes the stored template has", opts: apiserver.Options{Version: v133},
			storedUses: image, wantImages: true},
		{name: "VER-11 1.33 update keeps the pod-level resources the stored template has", opts: apiserver.Options{Version: v133},
			storedUses: podLevel, wantResources: true},
		{name: "VER-5 1.33 create with both gates on keeps both",
			opts:       apiserver.Options{Version: v133, FeatureGates: daemonset.FeatureGates{daemonset.GateImageVolume: true, daemonset.GatePodLevelResources: true}},
			wantImages: true, wantResources: true},
		{name: "VER-11 1.37 create keeps both", wantImages: true, wantResources: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *appsv1.DaemonSet
			var errs field.ErrorList
			if tt.storedUses == nil {
				got, errs = apiserver.Create(edit(t, both), tt.opts)
			} else {
				old := stored(t)
				tt.storedUses(old)
				next := old.DeepCopy()
				both(next)
				next.Spec.Template.Spec.Containers[0].Image = "agent:2"
				before := old.DeepCopy()
				got, errs = apiserver.Update(old, next, tt.opts)
				require.Empty(t, cmp.Diff(before, old), "Update modified stored")
			}
			require.Empty(t, errs)
			images, resources := has(got)
			require.Equal(t, tt.wantImages, images, "image volumes kept")
			require.Equal(t, tt.wantResources, resources, "pod-level resources kept")
		})
	}
}

// TestGatesTheReleaseRefusesAreRefused: a gate the release does not know and a locked (GA) gate
// set against its default are refused at the gate's key by Create, Update and Apply, as
// kube-apiserver refuses to start with them (VER-5); before, the image volumes of a 1.37
// template were dropped under ImageVolume=false and an unknown gate passed without a word.
func TestGatesTheReleaseRefusesAreRefused(t *testing.T) {
	t.Parallel()
	gates := field.NewPath("Options", "FeatureGates")
	for _, tt := range []struct {
		name  string
		gates daemonset.FeatureGates
		want  field.ErrorList
	}{
		{name: "VER-5 ImageVolume is locked on in 1.37", gates: daemonset.FeatureGates{daemonset.GateImageVolume: false},
			want: field.ErrorList{field.Forbidden(gates.Key(string(daemonset.GateImageVolume)), "")}},
		{name: "VER-5 an unknown gate", gates: daemonset.FeatureGates{"Bogus": true},
			want: field.ErrorList{field.NotSupported[daemonset.Gate](gates.Key("Bogus"), "Bogus", nil)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := apiserver.Options{Version: daemonset.NewestVersion(), FeatureGates: tt.gates}
			_, errs := apiserver.Create(edit(t, emptyImageVolume), opts)
			field.ErrorMatcher{}.ByType().ByField().Test(t, tt.want, errs)
			_, errs = apiserver.Update(stored(t), stored(t), opts)
			field.ErrorMatcher{}.ByType().ByField().Test(t, tt.want, errs)
			_, errs = apiserver.Apply(nil, edit(t, emptyImageVolume), opts)
			field.ErrorMatcher{}.ByType().ByField().Test(t, tt.want, errs)
		})
	}
}
