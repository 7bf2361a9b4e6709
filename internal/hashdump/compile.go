package hashdump

import (
	"fmt"
	"reflect"
	"strings"
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
