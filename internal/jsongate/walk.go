package jsongate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The typed decoding (sigs.k8s.io/json) names a field without list indices
// ("spec.containers.ports.containerPort") and a custom decoder's error (a quantity, a
// timestamp) without any field. The object is walked as generic JSON beside its Go type, to
// find, with its full path ("spec.containers[0].ports[1].containerPort"), the resource
// quantities that must not be parsed at all (Quantities) and, in package manifest, the first
// value its type refuses.

// Generic decodes data as generic JSON, numbers kept as written.
func Generic(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// VisitFunc is called on each leaf: a value whose Go type decodes itself (json.Unmarshaler)
// or is a scalar. A non-nil error stops the walk.
type VisitFunc func(t reflect.Type, v any, path *field.Path) error

// Walk visits, in key order, every leaf of the generic JSON value v decoded as type t, and
// reports the first value of the wrong JSON kind for its type. Keys are matched to fields
// exactly, as sigs.k8s.io/json (and the API server) matches them: a key spelt with other
// capitals is a field the type does not know, which decodes nothing.
func Walk(t reflect.Type, v any, path *field.Path, visit VisitFunc) error {
	if v == nil {
		return nil // null decodes into anything
	}
	if reflect.PointerTo(t).Implements(UnmarshalerType) {
		return visit(t, v, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Walk(t.Elem(), v, path, visit)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return KindError(v, t, path)
		}
		fields := Fields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if f, known := fields[k]; known {
				if err := Walk(f, m[k], path.Child(k), visit); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return KindError(v, t, path)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := Walk(t.Elem(), m[k], path.Key(k), visit); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return visit(t, v, path) // base64 text
		}
		l, ok := v.([]any)
		if !ok {
			return KindError(v, t, path)
		}
		for i, e := range l {
			if err := Walk(t.Elem(), e, path.Index(i), visit); err != nil {
				return err
			}
		}
		return nil
	case reflect.Interface:
		return nil
	}
	return visit(t, v, path)
}

// UnmarshalerType is json.Unmarshaler's type.
var UnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// jsonKind names the JSON kind of a generic value as encoding/json's messages do.
func jsonKind(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number " + string(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// KindError is the error of the generic value v, at path, that cannot decode into t.
func KindError(v any, t reflect.Type, path *field.Path) error {
	return errors.New(AtPath(path, fmt.Sprintf("cannot unmarshal %s into %s", jsonKind(v), t)))
}

// AtPath prefixes msg with path, as a field error does, unless path is nil: the value is then
// the whole of the data, and (*field.Path)(nil) would print as "<nil>".
func AtPath(path *field.Path, msg string) string {
	if path == nil {
		return msg
	}
	return path.String() + ": " + msg
}

// RootError is a field error about the whole of the data (its path is nil): it reads as the
// error's body alone, where field.Error would print the path "<nil>".
type RootError struct{ Err *field.Error }

func (e RootError) Error() string { return e.Err.ErrorBody() }

func (e RootError) Unwrap() error { return e.Err }

// FieldError returns fe, or fe as a RootError when its path is nil.
func FieldError(fe *field.Error, path *field.Path) error {
	if path == nil {
		return RootError{fe}
	}
	return fe
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// Fields maps the JSON names of a struct's fields, inline ones included, to their types. The
// map is shared: it must not be modified.
func Fields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				maps.Copy(m, Fields(ft))
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	fieldCache.Store(t, m)
	return m
}
