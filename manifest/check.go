package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/internal/jsongate"
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
	if problem := jsongate.Oversized(s, l.withDefaults().quantities()); problem != "" {
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
	if d, ok := jsongate.FirstDuplicate(data); ok {
		line := bytes.Count(data[:d.Offset], []byte("\n")) + 1
		return fmt.Errorf("line %d: %w", line, field.Duplicate(d.Path, d.Key))
	}
	return nil
}
