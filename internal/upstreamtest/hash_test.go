package upstreamtest

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// TestComputeHashForAgainstController compares daemonset.ComputeHashFor 1.36 (and ComputeHash)
// with the v1.36.3 controller's own ComputeHash (pkg/controller) on 500 random templates with
// every field set or unset, for collision counts nil, 0 and 5 (UPD-15, VER-2). The other
// releases are checked against their own k8s.io/api by daemonset's TestReleaseHashCorpus.
func TestComputeHashForAgainstController(t *testing.T) {
	t.Parallel()
	v136, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		t.Fatal(err)
	}
	zero, five := int32(0), int32(5)
	counts := []*int32{nil, &zero, &five}
	f := newFiller(36)
	for i := range 500 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		cc := counts[i%len(counts)]
		want := controller.ComputeHash(&tmpl, cc)
		if got := daemonset.ComputeHashFor(v136, &tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHashFor(1.36.3) = %s, the controller's ComputeHash %s", i, got, want)
		}
		if got := daemonset.ComputeHash(&tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHash = %s, the controller's ComputeHash %s", i, got, want)
		}
	}
}
