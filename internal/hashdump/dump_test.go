package hashdump_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utildump "k8s.io/utils/dump"
	"sigs.k8s.io/randfill"

	"github.com/daemonsched/daemonsched/internal/hashdump"
	shapenew "github.com/daemonsched/daemonsched/internal/hashdump/internal/shapenew"
	shapeold "github.com/daemonsched/daemonsched/internal/hashdump/internal/shapeold"
)

// templateFiller fills a v1.PodTemplateSpec with every field drawn, nil and empty
// collections, quantities, times in UTC and in a fixed zone, and both kinds of IntOrString.
func templateFiller(seed int64) *randfill.Filler {
	zone := time.FixedZone("X", 3600)
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).MaxDepth(9).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
			if c.Bool() {
				_ = q.String() // caches the canonical string in the value, which the dump shows
			}
		},
		func(tm *metav1.Time, c randfill.Continue) {
			at := time.Unix(c.Int63n(1<<31), c.Int63n(1e9))
			if c.Bool() {
				*tm = metav1.NewTime(at.UTC())
			} else {
				*tm = metav1.NewTime(at.In(zone))
			}
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(5))
			}
		},
	)
}

// TestDumpIsForHashForTheLinkedRelease compares the dump of the linked release with
// dump.ForHash byte for byte on 300 random templates (UPD-15).
func TestDumpIsForHashForTheLinkedRelease(t *testing.T) {
	t.Parallel()
	minor := linkedMinor(t)
	d, err := hashdump.Compile(hashdump.Fields(), minor, templateType)
	require.NoError(t, err)
	f := templateFiller(21)
	for i := range 300 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		want := utildump.ForHash(tmpl)
		got := string(d.AppendDump(nil, reflect.ValueOf(tmpl)))
		if got != want {
			t.Fatalf("template %d: the dump of release 1.%d differs from dump.ForHash at byte %d:\n got: …%s\nwant: …%s",
				i, minor, firstDiff(got, want), around(got, firstDiff(got, want)), around(want, firstDiff(got, want)))
		}
		if sum, want := d.Sum32(reflect.ValueOf(&tmpl).Elem(), []byte{1, 0, 0, 0, 0, 0, 0, 0}), fnv(want+"\x01\x00\x00\x00\x00\x00\x00\x00"); sum != want {
			t.Fatalf("template %d: Sum32 %d, FNV-1a of the dump %d", i, sum, want)
		}
	}
}

func fnv(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(s string, i int) string {
	return s[max(0, i-80):min(len(s), i+80)]
}

// shapeTable is the hand-written table of the shapeold (release 1) and shapenew (release 2)
// packages, keyed for the package at path.
func shapeTable(path string) hashdump.Table {
	k := func(name string) string { return path + "." + name }
	both := func(name, typ string, kind reflect.Kind) hashdump.Field {
		return hashdump.Field{Name: name, Type: typ, Kind: kind, Since: 1, Until: 2}
	}
	only := func(minor int, name, typ string, kind reflect.Kind) hashdump.Field {
		return hashdump.Field{Name: name, Type: typ, Kind: kind, Since: minor, Until: minor}
	}
	return hashdump.Table{
		k("Template"): {
			both("Name", "string", reflect.String),
			both("Labels", "map[string]string", reflect.Map),
			{Name: "Spec", Type: "shape.Spec", Kind: reflect.Struct, Struct: k("Spec"), Since: 1, Until: 2},
		},
		k("Spec"): {
			both("Items", "[]*shape.Item", reflect.Slice),
			only(1, "Gone", "*string", reflect.Pointer),
			only(2, "AddedAfterItems", "*shape.Item", reflect.Pointer),
			both("Count", "int32", reflect.Int32),
			only(2, "AddedString", "string", reflect.String),
			both("Ratio", "float64", reflect.Float64),
			both("Flag", "bool", reflect.Bool),
			both("ByName", "map[string]*shape.Item", reflect.Map),
			both("Nested", "*shape.Nested", reflect.Pointer),
			both("Raw", "[]uint8", reflect.Slice),
			both("Arr", "[2]uint16", reflect.Array),
			both("PP", "**shape.Item", reflect.Pointer),
			only(2, "AddedMap", "map[string]string", reflect.Map),
			{Name: "AddedValue", Type: "shape.Extra", Kind: reflect.Struct, Struct: k("Extra"), Since: 2, Until: 2},
			only(2, "AddedSlice", "[]shape.Item", reflect.Slice),
			only(2, "AddedNumber", "uint64", reflect.Uint64),
		},
		k("Item"): {
			both("Key", "string", reflect.String),
			only(2, "Added", "bool", reflect.Bool),
			both("Value", "*int64", reflect.Pointer),
			only(2, "AddedInt", "int64", reflect.Int64),
		},
		k("Extra"): {
			only(2, "A", "string", reflect.String),
			only(2, "B", "*int32", reflect.Pointer),
			only(2, "C", "[]string", reflect.Slice),
			{Name: "D", Type: "shape.Deep", Kind: reflect.Struct, Struct: k("Deep"), Since: 2, Until: 2},
		},
		k("Deep"): {
			only(2, "N", "uint8", reflect.Uint8),
			only(2, "F", "float32", reflect.Float32),
		},
		k("Nested"): {
			both("Items", "[]shape.Item", reflect.Slice),
			both("Shared", "*shape.Item", reflect.Pointer),
			both("Again", "*shape.Item", reflect.Pointer),
		},
	}
}

// upgrade returns o in shapenew's types, pointers shared as in o, the new fields zero and
// Gone dropped.
func upgrade(o *shapeold.Template) *shapenew.Template {
	items := map[*shapeold.Item]*shapenew.Item{}
	item := func(p *shapeold.Item) *shapenew.Item {
		if p == nil {
			return nil
		}
		if n, ok := items[p]; ok {
			return n
		}
		n := &shapenew.Item{Key: p.Key, Value: p.Value}
		items[p] = n
		return n
	}
	n := &shapenew.Template{Name: o.Name, Labels: o.Labels}
	s := o.Spec
	n.Spec = shapenew.Spec{Count: s.Count, Ratio: s.Ratio, Flag: s.Flag, Raw: s.Raw, Arr: s.Arr}
	if s.Items != nil {
		n.Spec.Items = make([]*shapenew.Item, len(s.Items))
		for i, p := range s.Items {
			n.Spec.Items[i] = item(p)
		}
	}
	if s.ByName != nil {
		n.Spec.ByName = map[string]*shapenew.Item{}
		for k, p := range s.ByName {
			n.Spec.ByName[k] = item(p)
		}
	}
	if s.Nested != nil {
		nested := &shapenew.Nested{Shared: item(s.Nested.Shared), Again: item(s.Nested.Again)}
		if s.Nested.Items != nil {
			nested.Items = make([]shapenew.Item, len(s.Nested.Items))
			for i, it := range s.Nested.Items {
				nested.Items[i] = shapenew.Item{Key: it.Key, Value: it.Value}
			}
		}
		n.Spec.Nested = nested
	}
	if s.PP != nil {
		p := item(*s.PP)
		n.Spec.PP = &p
	}
	return n
}

// TestAddedFieldsLeaveEveryReleaseUnchanged dumps the same values through two releases of
// the same types, as k8s.io/api v0.N and v0.N+1 would be linked: release 1's dump and release
// 2's dump are each the same whichever shape is linked, and equal to go-spew's dump (through
// dump.ForHash) of that release's own shape. Release 2 adds fields of every kind, in the
// middle, at the end, in a nested struct and a new struct held by value, and drops one; the
// values include go-spew's quirks (a slice ending in a nil pointer leaves the next field's
// type unprinted, a pointer seen twice on one path prints <shown>, pointers to pointers).
func TestAddedFieldsLeaveEveryReleaseUnchanged(t *testing.T) {
	t.Parallel()
	oldType, newType := reflect.TypeFor[shapeold.Template](), reflect.TypeFor[shapenew.Template]()
	oldTable, newTable := shapeTable(oldType.PkgPath()), shapeTable(newType.PkgPath())
	dumper := func(table hashdump.Table, minor int, root reflect.Type) *hashdump.Dumper {
		d, err := hashdump.Compile(table, minor, root)
		require.NoError(t, err)
		return d
	}
	old1, old2 := dumper(oldTable, 1, oldType), dumper(oldTable, 2, oldType)
	new1, new2 := dumper(newTable, 1, newType), dumper(newTable, 2, newType)

	shared := &shapeold.Item{Key: "s"}
	gone := "gone"
	var nilItem *shapeold.Item
	values := []*shapeold.Template{
		{},
		{Spec: shapeold.Spec{Items: []*shapeold.Item{{Key: "a"}, nil}, Count: 3}},
		{Spec: shapeold.Spec{Items: []*shapeold.Item{shared}, Nested: &shapeold.Nested{Shared: shared, Again: shared}}},
		{Spec: shapeold.Spec{PP: &nilItem, ByName: map[string]*shapeold.Item{"b": nil, "a": shared}}},
		{Spec: shapeold.Spec{Gone: &gone, Items: []*shapeold.Item{}, Raw: []byte{}}},
	}
	f := randfill.NewWithSeed(2).NilChance(0.3).NumElements(0, 3)
	for range 300 {
		var o shapeold.Template
		f.Fill(&o)
		values = append(values, &o)
	}
	for i, o := range values {
		n := upgrade(o)
		withoutGone := *o
		withoutGone.Spec.Gone = nil
		want1, want2 := utildump.ForHash(*o), utildump.ForHash(*n)
		wantGone1 := utildump.ForHash(withoutGone)
		for _, tt := range []struct {
			name string
			d    *hashdump.Dumper
			v    reflect.Value
			want string
		}{
			{"release 1 with release 1 linked", old1, reflect.ValueOf(*o), want1},
			{"release 2 with release 1 linked", old2, reflect.ValueOf(*o), want2},
			{"release 1 with release 2 linked", new1, reflect.ValueOf(*n), wantGone1},
			{"release 2 with release 2 linked", new2, reflect.ValueOf(*n), want2},
		} {
			got := string(tt.d.AppendDump(nil, tt.v))
			if got != tt.want {
				at := firstDiff(got, tt.want)
				t.Fatalf("value %d, %s: differs from go-spew at byte %d:\n got: …%s\nwant: …%s", i, tt.name, at, around(got, at), around(tt.want, at))
			}
		}
	}
}
