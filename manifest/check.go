package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CheckQuantities refuses, before anything parses them, the resource quantities of data (JSON
// text to be decoded into obj, a pointer to the type it will be decoded as) that are longer
// than l.QuantityLength or write an exponent beyond l.QuantityExponent; zero limits take the
// defaults ([DefaultQuantityLength], [DefaultQuantityExponent]). The error is a field error
// whose path leads from the top of data to the quantity.
//
// Call it on JSON from outside that this package does not read, before json.Unmarshal: parsing
// "1e-999999999" into a resource.Quantity builds 10^999999999 and takes hours. Text that is
// not JSON, or does not fit obj, passes: the decoding that follows reports it.
func CheckQuantities(data []byte, obj any, l Limits) error {
	if l.QuantityLength < 0 || l.QuantityExponent < 0 {
		return errors.New("manifest: negative QuantityLength or QuantityExponent")
	}
	return checkQuantities(data, obj, l.withDefaults())
}

// ParseQuantity parses s as a resource.Quantity decoded from JSON or YAML reads it (white space
// trimmed, then resource.ParseQuantity), after refusing, in time linear in s, what
// [CheckQuantities] refuses: a quantity longer than l.QuantityLength or with an exponent
// beyond ±l.QuantityExponent (zero limits take the defaults). It is the bounded form of
// resource.ParseQuantity for text from outside: that one takes hours on "1e-999999999".
func ParseQuantity(s string, l Limits) (resource.Quantity, error) {
	if l.QuantityLength < 0 || l.QuantityExponent < 0 {
		return resource.Quantity{}, errors.New("manifest: negative QuantityLength or QuantityExponent")
	}
	if problem := oversizedQuantity(s, l.withDefaults()); problem != "" {
		return resource.Quantity{}, fmt.Errorf("%q: %s", shortValue(s), problem)
	}
	return resource.ParseQuantity(strings.TrimSpace(s))
}

// CheckJSON refuses what encoding/json accepts without a word in JSON text from outside (a
// candidate plan, a protocol line), as Read refuses it in manifests: invalid UTF-8, which it
// would replace by U+FFFD, and a key given twice in one object, of which it would keep the
// last. The error names the line and, for a key, its path from the top of data
// ("line 3: daemonSets[0].name: Duplicate value: \"name\""). Text that is not JSON passes, or
// fails on a key it repeats: the decoding that follows reports it. It reads data once, holding
// the keys of the objects open at one time, and allocates only for objects of many keys.
func CheckJSON(data []byte) error {
	if err := validUTF8(data); err != nil {
		return err
	}
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
				return nil // not JSON
			}
			if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey {
				top := &stack[len(stack)-1]
				key := data[i+1 : j]
				if escaped {
					var k string
					if json.Unmarshal(data[i:j+1], &k) != nil {
						return nil // not JSON
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
					line := bytes.Count(data[:i], []byte("\n")) + 1
					return fmt.Errorf("line %d: %w", line, field.Duplicate(path.Child(string(key)), string(key)))
				}
				top.key, top.expectKey = key, false
			}
			i = j
		}
	}
	return nil
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
