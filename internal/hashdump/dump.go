package hashdump

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

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
