package manifest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkQuantities refuses, before the typed decoding parses them, the resource quantities of
// data (a JSON object to be decoded as obj) that are longer than Limits.QuantityLength or
// write an exponent beyond Limits.QuantityExponent: apimachinery's ParseQuantity builds
// 10^|exponent| (kubernetes #141306), so "1e-999999999" would take hours, and a million-digit
// quantity seconds. A fast scan looks for such numbers anywhere in data; only when it finds
// one is the object walked beside its type, to tell a quantity from, say, a label value.
func checkQuantities(data []byte, obj any, lim Limits) error {
	if !hasOversizedNumber(data, lim) {
		return nil
	}
	v, err := genericJSON(data)
	if err != nil {
		return nil // the typed decoding reports it
	}
	return walk(reflect.TypeOf(obj), v, nil, func(t reflect.Type, v any, path *field.Path) error {
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
		if problem := oversizedQuantity(s, lim); problem != "" {
			return field.Invalid(path, shortValue(s), problem)
		}
		return nil
	})
}

var quantityType = reflect.TypeFor[resource.Quantity]()

// shortValue cuts a long value for messages.
func shortValue(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-10:]
	}
	return s
}

// oversizedQuantity says why s, written as a quantity ([+-]digits[.digits][suffix]), must not
// be parsed, or "" when it may (or is no quantity, which ParseQuantity refuses quickly).
func oversizedQuantity[T string | []byte](s T, lim Limits) string {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	if i == start {
		return ""
	}
	if len(s) > lim.QuantityLength {
		return fmt.Sprintf("a quantity longer than %d characters (limit QuantityLength, --max-quantity-length)", lim.QuantityLength)
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if s[j] == '+' || s[j] == '-' {
			j++
		}
		exp := 0
		for ; j < len(s) && isDigit(s[j]); j++ {
			exp = min(exp*10+int(s[j]-'0'), 1<<30)
		}
		if j == len(s) && exp > lim.QuantityExponent {
			return fmt.Sprintf("a quantity with an exponent beyond ±%d (limit QuantityExponent, --max-quantity-exponent)", lim.QuantityExponent)
		}
	}
	return ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// hasOversizedNumber reports whether a string or number of the JSON text data is a quantity
// oversizedQuantity refuses. Strings with escapes are unescaped first ("\u0031e9999" is
// 1e9999 to the decoder).
func hasOversizedNumber(data []byte, lim Limits) bool {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			j, escaped := i+1, false
			for ; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(data) {
				return false
			}
			if escaped {
				var s string
				if err := json.Unmarshal(data[i:j+1], &s); err != nil || oversizedQuantity(s, lim) != "" {
					return true // the walk decides
				}
			} else if oversizedQuantity(data[i+1:j], lim) != "" {
				return true
			}
			i = j
		case c == '-' || isDigit(c):
			j := i
			for j < len(data) && (isDigit(data[j]) || data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] == '+' || data[j] == '-') {
				j++
			}
			if oversizedQuantity(data[i:j], lim) != "" {
				return true
			}
			i = j - 1
		}
	}
	return false
}
