package upstreamtest

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// TestComputeHashAgainstController compares daemonset's Version.ComputeHash at the linked
// release with that release's controller's own ComputeHash
// (pkg/controller) on 500 random templates with every field set or unset, for collision counts
// nil, 0 and 5 (UPD-15, VER-2). release.sh runs it against every supported release.
func TestComputeHashAgainstController(t *testing.T) {
	t.Parallel()
	zero, five := int32(0), int32(5)
	counts := []*int32{nil, &zero, &five}
	f := newFiller(36)
	for i := range 500 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		cc := counts[i%len(counts)]
		want := controller.ComputeHash(&tmpl, cc)
		if got := release.ComputeHash(&tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHash at %s = %s, the controller's ComputeHash %s", i, release, got, want)
		}
	}
}
