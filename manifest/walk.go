package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/daemonsched/daemonsched/internal/jsongate"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The typed decoding (sigs.k8s.io/json) names a field without list indices
// ("spec.containers.ports.containerPort") and a custom decoder's error (a quantity, a
// timestamp) without any field. When it fails, the object is walked again as generic JSON
// beside its Go type (jsongate.Walk, the walk of the quantity gate), to find the first value,
// in key order, that its type refuses, with its full path
// ("spec.containers[0].ports[1].containerPort").

// leafError is the visitFunc that finds why the typed decoding failed: a value of the wrong
// JSON kind, a number out of range, or a custom decoder's error.
func leafError(t reflect.Type, v any, path *field.Path) error {
	if reflect.PointerTo(t).Implements(jsongate.UnmarshalerType) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return errors.New(jsongate.AtPath(path, err.Error()))
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
				return errors.New(jsongate.AtPath(path, fmt.Sprintf("cannot unmarshal number %s into %s", n, t)))
			}
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); ok {
			if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
				return errors.New(jsongate.AtPath(path, fmt.Sprintf("cannot unmarshal number %s into %s", n, t)))
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
	return jsongate.KindError(v, t, path)
}

// locateError returns the error of the first value of data (a JSON object decoded as a
// *T or T) that its type refuses, with its full path, or nil when the walk finds none.
func locateError(data []byte, obj any) error {
	v, err := jsongate.Generic(data)
	if err != nil {
		return nil
	}
	return jsongate.Walk(reflect.TypeOf(obj), v, nil, leafError)
}
