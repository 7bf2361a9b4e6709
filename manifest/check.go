package manifest

import (
	"errors"
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
