package upstreamtest

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// TestComputeHashForAgainstController compares daemonset.ComputeHashFor of the linked release
// (and ComputeHash, when that release is 1.36) with that release's controller's own ComputeHash
// (pkg/controller) on 500 random templates with every field set or unset, for collision counts
// nil, 0 and 5 (UPD-15, VER-2). release.sh runs it against every supported release.
func TestComputeHashForAgainstController(t *testing.T) {
	t.Parallel()
	zero, five := int32(0), int32(5)
	counts := []*int32{nil, &zero, &five}
	f := newFiller(36)
	for i := range 500 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		cc := counts[i%len(counts)]
		want := controller.ComputeHash(&tmpl, cc)
		if got := daemonset.ComputeHashFor(release, &tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHashFor(%s) = %s, the controller's ComputeHash %s", i, release, got, want)
		}
		if release.Minor() != 36 {
			continue
		}
		if got := daemonset.ComputeHash(&tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHash = %s, the controller's ComputeHash %s", i, got, want)
		}
	}
}
