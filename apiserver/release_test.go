package apiserver_test

import (
	"testing"

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
