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

// key is a struct's table key.
func key(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

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
