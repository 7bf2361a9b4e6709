//go:build speworacle

// This file checks the go-spew re-implementation behind ComputeHash against go-spew itself,
// through k8s.io/utils/dump.ForHash (which apimachinery's dump.ForHash wraps). It needs
// github.com/davecgh/go-spew in go.mod, which the module does not require, hence the tag:
//
//	go test -tags speworacle -run 'Spew' ./daemonset/
package daemonset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/dump"
	"sigs.k8s.io/randfill"
)

// revUpstreamHash is UPD-15 written from its definition, with go-spew doing the dump.
func revUpstreamHash(tmpl *v1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*tmpl))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return strings.Map(func(r rune) rune { return rune("456789bcdf"[r-'0']) }, fmt.Sprint(h.Sum32()))
}

// TestComputeHashGoldenWithSpew recomputes every value pinned in revGolden and in
// ExampleComputeHash.
func TestComputeHashGoldenWithSpew(t *testing.T) {
	example := &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}}
	if got := revUpstreamHash(example, nil); got != "7f88ddc98d" {
		t.Errorf("ExampleComputeHash without collisionCount: upstream formula gives %s", got)
	}
	if got := revUpstreamHash(example, revPtr[int32](0)); got != "6bf7bd7768" {
		t.Errorf("ExampleComputeHash with collisionCount 0: upstream formula gives %s", got)
	}
	templates := revTemplates()
	for _, tt := range revGolden {
		tmpl := templates[tt.template]
		if got := revUpstreamHash(&tmpl, tt.collisionCount); got != tt.want {
			t.Errorf("%s template, collisionCount %v: upstream formula gives %s, pinned %s", tt.template, tt.collisionCount, got, tt.want)
		}
	}
}

func spewDump(v any) string {
	var b bytes.Buffer
	writeHashDump(&b, v)
	return b.String()
}

// TestSpewDumpMatchesForHash compares writeHashDump with dump.ForHash, and ComputeHash with
// the upstream formula, on 1,000 random
// templates (UPD-15), with nil and empty collections, pointers, quantities and times.
func TestSpewDumpMatchesForHash(t *testing.T) {
	f := randfill.NewWithSeed(15).NilChance(0.3).NumElements(0, 3).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
			if c.Bool() {
				*q = resource.MustParse("1.5Gi")
			}
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(5))
			}
		},
	)
	for i := range 1000 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		if got, want := spewDump(tmpl), dump.ForHash(tmpl); got != want {
			t.Fatalf("template %d: dumps differ\n got: %s\nwant: %s", i, got, want)
		}
		var cc *int32
		if i%2 == 0 {
			cc = revPtr(int32(i - 500))
		}
		if got, want := ComputeHash(&tmpl, cc), revUpstreamHash(&tmpl, cc); got != want {
			t.Fatalf("template %d: ComputeHash %s, upstream formula %s", i, got, want)
		}
	}
}

// TestSpewDumpEdgeCases covers shapes random filling rarely produces: nil and empty slices
// and maps, a nil pointer after a slice of pointers, interfaces, cycles and local times.
func TestSpewDumpEdgeCases(t *testing.T) {
	type node struct {
		Next  *node
		Any   any
		Ptrs  []*int
		After *string
	}
	cyc := &node{}
	cyc.Next = cyc
	one := 1
	s := "s"
	for i, v := range []any{
		v1.PodTemplateSpec{},
		v1.PodTemplateSpec{Spec: v1.PodSpec{Tolerations: []v1.Toleration{}}},
		v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"b": "2", "a": "1", "": ""}}},
		v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Unix(1e9, 5).Local())}},
		node{Ptrs: []*int{nil, &one, nil}, After: &s},
		node{Ptrs: []*int{&one, nil}},
		node{Any: &one, Next: &node{Any: nil}},
		node{Any: []any{nil, 1, "x", &s}},
		*cyc,
		map[int]string{3: "c", -1: "a", 2: "b"},
		[]map[string]*string{nil, {}, {"k": nil}},
		(*int)(nil),
		nil,
	} {
		if got, want := spewDump(v), dump.ForHash(v); got != want {
			t.Errorf("value %d: dumps differ\n got: %s\nwant: %s", i, got, want)
		}
	}
}

// BenchmarkSpewForHash is the upstream dump of the template BenchmarkComputeHash hashes, for
// comparison.
func BenchmarkSpewForHash(b *testing.B) {
	tmpl := revTemplates()["typical"]
	b.ReportAllocs()
	for b.Loop() {
		revSinkHash = dump.ForHash(tmpl)
	}
}
