package manifest

import (
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/jsongate"
)

// checkQuantities refuses, before the typed decoding parses them, the resource quantities of
// data (a JSON object to be decoded as obj by sigs.k8s.io/json, its keys matched exactly)
// that are longer than Limits.QuantityLength or write an exponent beyond
// Limits.QuantityExponent, and, when it finds one, a key given twice (jsongate.Quantities).
func checkQuantities(data []byte, obj any, lim Limits) error {
	return jsongate.Quantities(data, obj, lim.quantities())
}

// quantities are the limits of the quantity gate; its messages name the fields of Limits that
// set them ("(limit QuantityExponent)"), and a command may add the flag that sets those.
func (l Limits) quantities() jsongate.Limits {
	return jsongate.Limits{Length: l.QuantityLength, Exponent: l.QuantityExponent,
		LengthOption: "QuantityLength", ExponentOption: "QuantityExponent"}
}

// shortValue cuts a long value for messages, as the quantity gate cuts it.
func shortValue(s string) string { return errlist.Cut(s, errlist.ValueBytes) }
