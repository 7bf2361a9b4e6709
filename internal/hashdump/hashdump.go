// Package hashdump writes the dump Kubernetes hashes a pod template with (go-spew's "%#v" under
// apimachinery dump.ForHash: methods off, map keys sorted, no pointer addresses or capacities)
// as the types of a chosen release print it, whatever k8s.io/api is linked: struct fields the
// release lacks are left out, and fields it has that the linked types lack are printed as the
// zero value they must be. It does not hash or decide anything else.
//
// The dump prints every field, nil ones included ("Field:(*v1.T)<nil>"), so each k8s.io/api
// release that adds a field changes every hash. Which fields each release has is the generated
// table in fields_gen.go (go generate reads each release's sources from the module cache).
package hashdump

//go:generate go run ./gen fields_gen.go

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Field is one struct field as the releases Since to Until (minor versions, inclusive)
// declare it.
type Field struct {
	// Name is the Go field name; an embedded field's is its type's name.
	Name string
	// Type is the field's type as reflect's Type.String spells it ("*v1.Affinity").
	Type string
	// Kind is the kind of the field type's underlying type.
	Kind reflect.Kind
	// Struct is, for a struct kind, the struct's key (import path "." type name).
	Struct string
	// Since and Until are the first and last release (minor) that declare the field.
	Since, Until int
}

// Table lists the fields of structs by key (import path "." type name) in declaration order.
// A struct with no entry is dumped with all its linked fields (time.Time, inf.Dec).
type Table map[string][]Field

// Fields returns the generated table of the supported releases. It is shared: do not modify.
func Fields() Table { return releaseFields }

// Oldest and Newest are the minor versions of the first and last release the generated table
// covers.
const (
	Oldest = oldest
	Newest = newest
)

// Dumper writes the dump of values of one root type as one release prints them. A Dumper is
// immutable and safe for concurrent use.
type Dumper struct {
	structs map[reflect.Type]*structPlan
}

// structPlan is the fields of one linked struct type a release prints, in its order.
type structPlan struct {
	fields []fieldPlan
}

// fieldPlan is one printed field: the linked field's index, or (index -1) a field the linked
// type lacks, printed as its zero value.
type fieldPlan struct {
	name  string
	index int
	// For an absent field: its type as printed, its kind and its zero value as printed
	// after the type.
	typ  string
	kind reflect.Kind
	zero string
}

// Compile returns the Dumper of root's values as release minor of table prints them. It fails
// when the dump cannot be exact: a field the release declares with another type than the
// linked one, an absent field whose zero value the table cannot spell (a struct it does not
// list), or a kind the hashed types never use (interfaces, channels, functions, complex
// numbers, map keys other than strings, integers and booleans).
func Compile(table Table, minor int, root reflect.Type) (*Dumper, error) {
	d := &Dumper{structs: map[reflect.Type]*structPlan{}}
	if err := d.visit(table, minor, root, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Dumper) visit(table Table, minor int, t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return d.visit(table, minor, t.Elem(), seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return fmt.Errorf("%s: map key kind %s is not supported", t, t.Key().Kind())
		}
		return d.visit(table, minor, t.Elem(), seen)
	case reflect.Struct:
		fields, ok := table[key(t)]
		if !ok {
			for i := range t.NumField() {
				if err := d.visit(table, minor, t.Field(i).Type, seen); err != nil {
					return err
				}
			}
			return nil
		}
		plan := &structPlan{}
		for _, f := range fields {
			if f.Since > minor || f.Until < minor {
				continue
			}
			sf, ok := directField(t, f.Name)
			if !ok {
				zero, err := zeroOf(table, minor, f)
				if err != nil {
					return fmt.Errorf("%s.%s: %w", t, f.Name, err)
				}
				plan.fields = append(plan.fields, fieldPlan{name: f.Name, index: -1, typ: f.Type, kind: f.Kind, zero: zero})
				continue
			}
			if got := sf.Type.String(); got != f.Type {
				return fmt.Errorf("%s.%s is %s in the linked types and %s in release 1.%d", t, f.Name, got, f.Type, minor)
			}
			plan.fields = append(plan.fields, fieldPlan{name: f.Name, index: sf.Index[0]})
			if err := d.visit(table, minor, sf.Type, seen); err != nil {
				return err
			}
		}
		d.structs[t] = plan
		return nil
	}
	return fmt.Errorf("%s: kind %s is not supported", t, t.Kind())
}

// key is a struct's table key.
func key(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func directField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// zeroOf is how go-spew prints the zero value of field f after its type: nil pointers, slices,
// maps and interfaces as <nil>, a zero struct with each of its fields typed.
func zeroOf(table Table, minor int, f Field) (string, error) {
	switch f.Kind {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return "<nil>", nil
	case reflect.String:
		return "", nil
	case reflect.Bool:
		return "false", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "0", nil
	case reflect.Struct:
		fields, ok := table[f.Struct]
		if !ok {
			return "", fmt.Errorf("the zero %s cannot be spelled: the table does not list %s", f.Type, f.Struct)
		}
		var b strings.Builder
		b.WriteByte('{')
		first := true
		for _, g := range fields {
			if g.Since > minor || g.Until < minor {
				continue
			}
			zero, err := zeroOf(table, minor, g)
			if err != nil {
				return "", err
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(g.Name + ":(" + g.Type + ")" + zero)
		}
		b.WriteByte('}')
		return b.String(), nil
	}
	return "", fmt.Errorf("the zero value of kind %s cannot be spelled", f.Kind)
}

// AppendDump appends to dst the dump of v (a value of the root type, as dump.ForHash(v)
// receives it) and returns the extended slice.
func (d *Dumper) AppendDump(dst []byte, v reflect.Value) []byte {
	s := state{d: d, capture: true, buf: dst}
	s.ptrs = s.ptrsArray[:0]
	s.value(v)
	return s.buf
}

// Sum32 returns the 32-bit FNV-1a sum of the dump of v followed by suffix: k8s.io/kubernetes
// pkg/controller ComputeHash's sum when suffix is the collision count's bytes. It allocates
// only to sort map keys.
func (d *Dumper) Sum32(v reflect.Value, suffix []byte) uint32 {
	s := state{d: d, sum: fnvOffset}
	s.ptrs = s.ptrsArray[:0]
	s.value(v)
	s.bytes(suffix)
	return s.sum
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
	stars     = "****************"
)

// ptrAt is a pointer go-spew has followed and the depth it was followed at, which is how it
// detects a cycle (a pointer seen at a lower depth prints "<shown>").
type ptrAt struct {
	addr  uintptr
	depth int
}

// state is one dump in progress; it mirrors go-spew's formatState, whose quirks the dump keeps:
// a nil pointer printed without its type (inside a slice or map) leaves the next value's type
// unprinted too.
type state struct {
	d *Dumper
	// ignoreType is go-spew's ignoreNextType: the next value's type is not printed.
	ignoreType bool
	depth      int
	ptrs       []ptrAt
	ptrsArray  [16]ptrAt
	sum        uint32
	capture    bool
	buf        []byte
	num        [32]byte
}

func (s *state) str(x string) {
	if s.capture {
		s.buf = append(s.buf, x...)
		return
	}
	h := s.sum
	for i := 0; i < len(x); i++ {
		h ^= uint32(x[i])
		h *= fnvPrime
	}
	s.sum = h
}

func (s *state) bytes(x []byte) {
	if s.capture {
		s.buf = append(s.buf, x...)
		return
	}
	h := s.sum
	for _, c := range x {
		h ^= uint32(c)
		h *= fnvPrime
	}
	s.sum = h
}

func (s *state) typeOf(t string) {
	s.str("(")
	s.str(t)
	s.str(")")
}

func (s *state) value(v reflect.Value) {
	kind := v.Kind()
	if kind == reflect.Pointer {
		s.pointer(v)
		return
	}
	if !s.ignoreType {
		s.typeOf(v.Type().String())
	}
	s.ignoreType = false
	switch kind {
	case reflect.Bool:
		if v.Bool() {
			s.str("true")
		} else {
			s.str("false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.bytes(strconv.AppendInt(s.num[:0], v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.bytes(strconv.AppendUint(s.num[:0], v.Uint(), 10))
	case reflect.Float32:
		s.bytes(strconv.AppendFloat(s.num[:0], v.Float(), 'g', -1, 32))
	case reflect.Float64:
		s.bytes(strconv.AppendFloat(s.num[:0], v.Float(), 'g', -1, 64))
	case reflect.String:
		s.str(v.String())
	case reflect.Slice, reflect.Array:
		if kind == reflect.Slice && v.IsNil() {
			s.str("<nil>")
			return
		}
		s.str("[")
		s.depth++
		for i := range v.Len() {
			if i > 0 {
				s.str(" ")
			}
			s.ignoreType = true
			s.value(v.Index(i))
		}
		s.depth--
		s.str("]")
	case reflect.Map:
		if v.IsNil() {
			s.str("<nil>")
			return
		}
		s.str("map[")
		s.depth++
		keys := v.MapKeys()
		sortKeys(keys)
		for i, k := range keys {
			if i > 0 {
				s.str(" ")
			}
			s.ignoreType = true
			s.value(k)
			s.str(":")
			s.ignoreType = true
			s.value(v.MapIndex(k))
		}
		s.depth--
		s.str("]")
	case reflect.Struct:
		s.str("{")
		s.depth++
		if plan := s.d.structs[v.Type()]; plan != nil {
			for i, f := range plan.fields {
				if i > 0 {
					s.str(" ")
				}
				s.str(f.name)
				s.str(":")
				if f.index >= 0 {
					s.value(v.Field(f.index))
				} else {
					s.absent(f)
				}
			}
		} else {
			t := v.Type()
			for i := range v.NumField() {
				if i > 0 {
					s.str(" ")
				}
				s.str(t.Field(i).Name)
				s.str(":")
				s.value(v.Field(i))
			}
		}
		s.depth--
		s.str("}")
	default:
		// Compile refuses the other kinds.
		panic(fmt.Sprintf("hashdump: kind %s", kind))
	}
}

// absent prints a field the linked type lacks as go-spew prints its zero value: a nil pointer
// when the type is not to be printed is "<nil>" and leaves the next type unprinted.
func (s *state) absent(f fieldPlan) {
	switch {
	case f.kind == reflect.Interface:
		s.typeOf(f.typ)
	case !s.ignoreType:
		s.typeOf(f.typ)
	case f.kind == reflect.Pointer:
		s.str("<nil>")
		return
	}
	s.ignoreType = false
	s.str(f.zero)
}

// pointer follows go-spew's formatPtr with types shown and addresses hidden.
func (s *state) pointer(v reflect.Value) {
	if v.IsNil() && s.ignoreType {
		s.str("<nil>")
		return
	}
	kept := s.ptrs[:0]
	for _, p := range s.ptrs {
		if p.depth < s.depth {
			kept = append(kept, p)
		}
	}
	s.ptrs = kept

	nilFound, cycle := false, false
	indirects := 0
	ve := v
	for ve.Kind() == reflect.Pointer {
		if ve.IsNil() {
			nilFound = true
			break
		}
		indirects++
		addr := ve.Pointer()
		i := slices.IndexFunc(s.ptrs, func(p ptrAt) bool { return p.addr == addr })
		if i >= 0 && s.ptrs[i].depth < s.depth {
			cycle = true
			indirects--
			break
		}
		if i >= 0 {
			s.ptrs[i].depth = s.depth
		} else {
			s.ptrs = append(s.ptrs, ptrAt{addr: addr, depth: s.depth})
		}
		ve = ve.Elem()
	}

	if !s.ignoreType {
		s.str("(")
		s.stars(indirects)
		s.str(ve.Type().String())
		s.str(")")
	} else {
		if nilFound || cycle {
			indirects += strings.Count(ve.Type().String(), "*")
		}
		s.str("<")
		s.stars(indirects)
		s.str(">")
	}
	switch {
	case nilFound:
		s.str("<nil>")
	case cycle:
		s.str("<shown>")
	default:
		s.ignoreType = true
		s.value(ve)
	}
}

func (s *state) stars(n int) {
	for n > len(stars) {
		s.str(stars)
		n -= len(stars)
	}
	s.str(stars[:n])
}

// sortKeys sorts map keys as go-spew does with SortKeys for the kinds Compile allows.
func sortKeys(keys []reflect.Value) {
	if len(keys) < 2 {
		return
	}
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		switch a.Kind() {
		case reflect.String:
			return strings.Compare(a.String(), b.String())
		case reflect.Bool:
			ab, bb := a.Bool(), b.Bool()
			switch {
			case ab == bb:
				return 0
			case !ab:
				return -1
			}
			return 1
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x, y := a.Int(), b.Int()
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
		x, y := a.Uint(), b.Uint()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
}

// Linked returns the release of table whose fields are exactly those of the struct types
// reachable from root as linked (names, types and order; structs of k8s.io packages must be
// listed), between the minors oldest and newest. The error lists how each release differs.
func Linked(table Table, root reflect.Type, oldest, newest int) (int, error) {
	var diffs []string
	for minor := oldest; minor <= newest; minor++ {
		d := linkedDiff(table, minor, root, map[reflect.Type]bool{})
		if d == "" {
			return minor, nil
		}
		diffs = append(diffs, d)
	}
	return 0, fmt.Errorf("no release of the table has exactly the linked fields:\n%s", strings.Join(diffs, "\n"))
}

// linkedDiff returns "" when the structs reachable from t have exactly the fields release
// minor lists, and else the first difference.
func linkedDiff(table Table, minor int, t reflect.Type, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return linkedDiff(table, minor, t.Elem(), seen)
	case reflect.Map:
		return linkedDiff(table, minor, t.Key(), seen) + linkedDiff(table, minor, t.Elem(), seen)
	case reflect.Struct:
	default:
		return ""
	}
	fields, ok := table[key(t)]
	if !ok {
		if strings.HasPrefix(t.PkgPath(), "k8s.io/") {
			return fmt.Sprintf("1.%d: %s is in no release", minor, t)
		}
		return ""
	}
	var want, got []string
	for _, f := range fields {
		if f.Since <= minor && minor <= f.Until {
			want = append(want, f.Name+" "+f.Type)
		}
	}
	for i := range t.NumField() {
		got = append(got, t.Field(i).Name+" "+t.Field(i).Type.String())
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("1.%d: %s: linked fields\n  %s\nrelease 1.%d's\n  %s", minor, t,
			strings.Join(got, ", "), minor, strings.Join(want, ", "))
	}
	for i := range t.NumField() {
		if d := linkedDiff(table, minor, t.Field(i).Type, seen); d != "" {
			return d
		}
	}
	return ""
}
