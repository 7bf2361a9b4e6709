package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The typed decoding (sigs.k8s.io/json) names a field without list indices
// ("spec.containers.ports.containerPort") and a custom decoder's error (a quantity, a
// timestamp) without any field. When it fails, the object is walked again as generic JSON
// beside its Go type, to find the first value, in key order, that its type refuses, with its
// full path ("spec.containers[0].ports[1].containerPort"). The same walk finds the resource
// quantities that must not be parsed at all (checkQuantities).

// genericJSON decodes data as generic JSON, numbers kept as written.
func genericJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// visitFunc is called on each leaf: a value whose Go type decodes itself (json.Unmarshaler)
// or is a scalar. A non-nil error stops the walk.
type visitFunc func(t reflect.Type, v any, path *field.Path) error

// walk visits, in key order, every leaf of the generic JSON value v decoded as type t, and
// reports the first value of the wrong JSON kind for its type.
func walk(t reflect.Type, v any, path *field.Path, visit visitFunc) error {
	if v == nil {
		return nil // null decodes into anything
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return visit(t, v, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return walk(t.Elem(), v, path, visit)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return kindError(v, t, path)
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if f, known := fields[k]; known {
				if err := walk(f, m[k], path.Child(k), visit); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return kindError(v, t, path)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := walk(t.Elem(), m[k], path.Key(k), visit); err != nil {
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
			return kindError(v, t, path)
		}
		for i, e := range l {
			if err := walk(t.Elem(), e, path.Index(i), visit); err != nil {
				return err
			}
		}
		return nil
	case reflect.Interface:
		return nil
	}
	return visit(t, v, path)
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

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

func kindError(v any, t reflect.Type, path *field.Path) error {
	return errors.New(atPath(path, fmt.Sprintf("cannot unmarshal %s into %s", jsonKind(v), t)))
}

// atPath prefixes msg with path, as a field error does, unless path is nil: the value is then
// the whole of the data, and (*field.Path)(nil) would print as "<nil>".
func atPath(path *field.Path, msg string) string {
	if path == nil {
		return msg
	}
	return path.String() + ": " + msg
}

// rootError is a field error about the whole of the data (its path is nil): it reads as the
// error's body alone, where field.Error would print the path "<nil>".
type rootError struct{ err *field.Error }

func (e rootError) Error() string { return e.err.ErrorBody() }

func (e rootError) Unwrap() error { return e.err }

// fieldError returns fe, or fe as a rootError when its path is nil.
func fieldError(fe *field.Error, path *field.Path) error {
	if path == nil {
		return rootError{fe}
	}
	return fe
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields, inline ones included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
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
				maps.Copy(m, jsonFields(ft))
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

// leafError is the visitFunc that finds why the typed decoding failed: a value of the wrong
// JSON kind, a number out of range, or a custom decoder's error.
func leafError(t reflect.Type, v any, path *field.Path) error {
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return errors.New(atPath(path, err.Error()))
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); ok {
			return nil
		}
	case reflect.Bool:
		if _, ok := v.(bool); ok {
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := v.(json.Number); ok {
			if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
				return errors.New(atPath(path, fmt.Sprintf("cannot unmarshal number %s into %s", n, t)))
			}
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); ok {
			if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
				return errors.New(atPath(path, fmt.Sprintf("cannot unmarshal number %s into %s", n, t)))
			}
			return nil
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); ok {
			return nil
		}
	case reflect.Slice: // []byte
		if _, ok := v.(string); ok {
			return nil
		}
	default:
		return nil
	}
	return kindError(v, t, path)
}

// locateError returns the error of the first value of data (a JSON object decoded as a
// *T or T) that its type refuses, with its full path, or nil when the walk finds none.
func locateError(data []byte, obj any) error {
	v, err := genericJSON(data)
	if err != nil {
		return nil
	}
	return walk(reflect.TypeOf(obj), v, nil, leafError)
}
