package manifest

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
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
