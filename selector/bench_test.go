package selector_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daemonsched/daemonsched/selector"
)

// BenchmarkMatches compares the compiled selector with apimachinery doing the same job: a
// labels.Selector converted once from the API object (as the controller does once per sync),
// and the conversion plus match done per call from the API object.
func BenchmarkMatches(b *testing.B) {
	ls := realisticSelector()
	lbls := realisticLabels()
	b.Run("impl=compiled", func(b *testing.B) {
		s, errs := selector.Compile(ls, nil)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = s.Matches(lbls)
		}
	})
	b.Run("impl=upstream-precompiled", func(b *testing.B) {
		s, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = s.Matches(labels.Set(lbls))
		}
	})
	b.Run("impl=upstream-from-api-object", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, _ := metav1.LabelSelectorAsSelector(ls)
			sinkBool = s.Matches(labels.Set(lbls))
		}
	})
}

// BenchmarkCompile measures the one-time cost of compiling the realistic selector.
func BenchmarkCompile(b *testing.B) {
	ls := realisticSelector()
	b.ReportAllocs()
	for b.Loop() {
		sinkSelector, _ = selector.Compile(ls, nil)
	}
}
