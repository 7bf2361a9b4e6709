// Package jsongate refuses, before a typed decoder reads it, JSON from outside on which
// decoding would take hours or lose what it says without a word: a resource quantity whose
// parsing builds 10^|exponent| (kubernetes #141306), and a key given twice in one object. It
// decodes nothing itself: package manifest (every manifest, the candidate plans of package
// conformance) and package apiserver (ApplyJSON) call it before theirs.
package jsongate

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/daemonsched/daemonsched/internal/errlist"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits bound the resource quantities the gate passes: Length the characters of one (spaces
// trimmed), Exponent the magnitude of the exponent it writes after e or E. Neither may be
// zero: package manifest's Limits give the defaults. LengthOption and ExponentOption name the
// caller's settings of the two bounds in messages ("QuantityLength": "(limit
// QuantityLength)" follows the bound); empty when it has none (package apiserver).
type Limits struct {
	Length, Exponent             int
	LengthOption, ExponentOption string
}

// Limit is one bound of [Limits].
type Limit int

const (
	// LimitLength is Limits.Length.
	LimitLength Limit = iota + 1
	// LimitExponent is Limits.Exponent.
	LimitExponent
)

// QuantityError is a resource quantity Quantities refuses: the field error (its path, the
// value cut, the bound passed) and which bound. Option is how the caller names the setting of
// that bound, "" when it has none: a command that sets the bound from a flag may name the
// flag too.
type QuantityError struct {
	Err    error // a *field.Error, or a RootError when the quantity is the whole of the data
	Limit  Limit
	Option string
}

func (e *QuantityError) Error() string { return e.Err.Error() }

func (e *QuantityError) Unwrap() error { return e.Err }

// The defaults of package manifest's limits on quantities, and the limits of package
// apiserver, which takes none.
const (
	// DefaultLength is 64 characters: the largest quantity the API types hold, in
	// nano units, has 28 digits.
	DefaultLength = 64
	// DefaultExponent is 100: 10^100 is beyond any resource, and 10^-100 rounds to 1n.
	DefaultExponent = 100
)

// Defaults are the default Limits.
var Defaults = Limits{Length: DefaultLength, Exponent: DefaultExponent}

// Quantities refuses, before the typed decoding parses them, the resource quantities of data
// (a JSON value to be decoded as obj, its keys matched exactly) that are longer than
// lim.Length or write an exponent beyond lim.Exponent: apimachinery's ParseQuantity builds
// 10^|exponent|, so "1e-999999999" would take hours, and a million-digit quantity seconds.
// The error is a *QuantityError, around a field error whose path leads from the top of data
// to the quantity.
//
// A fast scan looks for such numbers anywhere in data; only when it finds one is the object
// walked beside its type, to tell a quantity from, say, a label value. The walk reads data as
// a map, where the last of a key given twice is kept, while a typed decoder parses every one:
// so a key given twice is refused first (issue 25), with its path, and the walk then sees
// every value the decoder will parse.
func Quantities(data []byte, obj any, lim Limits) error {
	if !hasOversizedNumber(data, lim) {
		return nil
	}
	if d, ok := FirstDuplicate(data); ok {
		return FieldError(field.Duplicate(d.Path, d.Key), d.Path)
	}
	v, err := Generic(data)
	if err != nil {
		return nil // the typed decoding reports it
	}
	return Walk(reflect.TypeOf(obj), v, nil, func(t reflect.Type, v any, path *field.Path) error {
		if t != quantityType {
			return nil
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case json.Number:
			s = string(v)
		default:
			return nil
		}
		if which, problem := oversized(s, lim); problem != "" {
			option := lim.LengthOption
			if which == LimitExponent {
				option = lim.ExponentOption
			}
			return &QuantityError{Err: FieldError(field.Invalid(path, errlist.Cut(s, errlist.ValueBytes), problem), path), Limit: which, Option: option}
		}
		return nil
	})
}

var quantityType = reflect.TypeFor[resource.Quantity]()

// Duplicate is a key given twice in one object of JSON text.
type Duplicate struct {
	// Path leads from the top of the text to the key's second occurrence, the key last
	// ("daemonSets[0].name"): keys of objects as children, indices of arrays as indices.
	Path *field.Path
	// Key is the key, unescaped.
	Key string
	// Offset is the byte offset of the second occurrence's opening quote.
	Offset int
}

// FirstDuplicate returns the first key given twice in one object of data, in text order.
// Text that is not JSON has none, or one it repeats before it goes wrong: the decoding that
// follows reports it. It reads data once, holding the keys of the objects open at one time,
// and allocates only for objects of many keys.
func FirstDuplicate(data []byte) (Duplicate, bool) {
	type frame struct {
		object    bool
		expectKey bool                // in an object, the next string is a key
		key       []byte              // in an object, the key whose value is read
		index     int                 // in an array, the index of the element read
		keys      [][]byte            // the keys of an object, while few
		set       map[string]struct{} // and then
	}
	stack := make([]frame, 0, 16)
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			// Reuse the frame of the last object at this depth, and its keys' array.
			if len(stack) < cap(stack) {
				stack = stack[:len(stack)+1]
			} else {
				stack = append(stack, frame{})
			}
			f := &stack[len(stack)-1]
			*f = frame{object: data[i] == '{', expectKey: data[i] == '{', keys: f.keys[:0]}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 {
				if top := &stack[len(stack)-1]; top.object {
					top.expectKey = true
				} else {
					top.index++
				}
			}
		case '"':
			j, escaped := stringEnd(data, i)
			if j >= len(data) {
				return Duplicate{}, false // not JSON
			}
			if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey {
				top := &stack[len(stack)-1]
				key := data[i+1 : j]
				if escaped {
					var k string
					if json.Unmarshal(data[i:j+1], &k) != nil {
						return Duplicate{}, false // not JSON
					}
					key = []byte(k)
				}
				if seenKey(&top.keys, &top.set, key) {
					path := (*field.Path)(nil)
					for _, f := range stack[:len(stack)-1] {
						if f.object {
							path = path.Child(string(f.key))
						} else {
							path = path.Index(f.index)
						}
					}
					return Duplicate{Path: path.Child(string(key)), Key: string(key), Offset: i}, true
				}
				top.key, top.expectKey = key, false
			}
			i = j
		}
	}
	return Duplicate{}, false
}

// seenKey reports whether key is among the keys of an object, and adds it when not: in the
// slice while there are at most 16 (no allocation for most objects), in the set beyond.
func seenKey(keys *[][]byte, set *map[string]struct{}, key []byte) bool {
	if *set == nil {
		for _, k := range *keys {
			if bytes.Equal(k, key) {
				return true
			}
		}
		if len(*keys) < 16 {
			*keys = append(*keys, key)
			return false
		}
		*set = make(map[string]struct{}, 2*len(*keys))
		for _, k := range *keys {
			(*set)[string(k)] = struct{}{}
		}
		*keys = nil
	}
	if _, ok := (*set)[string(key)]; ok {
		return true
	}
	(*set)[string(key)] = struct{}{}
	return false
}
