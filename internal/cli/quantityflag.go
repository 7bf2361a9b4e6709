package cli

import (
	"errors"
	"strings"

	"github.com/daemonsched/daemonsched/internal/jsongate"
	"github.com/daemonsched/daemonsched/manifest"
)

// limitFlags are the flags that set the bounds of manifest.Limits (decode.go), by the name
// the library gives each bound in its messages.
var limitFlags = map[string]string{
	"InputBytes":       "--max-input-bytes",
	"Objects":          "--max-objects",
	"ObjectBytes":      "--max-object-bytes",
	"QuantityLength":   "--max-quantity-length",
	"QuantityExponent": "--max-quantity-exponent",
}

// limitFlagged passes on what reading the inputs returned, with, when err refuses the input
// at a bound the reading flags set (the input's size, its objects, an object's size, a
// resource quantity), the flag named beside the bound the library names: "(limit
// QuantityExponent)" reads "(limit QuantityExponent, --max-quantity-exponent)", "(limit
// ObjectBytes; the API server's is 3 MiB)" reads "(limit ObjectBytes, --max-object-bytes; the
// API server's is 3 MiB)". The library does not name the flags (apiserver and conformance
// have none). Only what is read at the bounds of the flags goes through here: the inputs,
// the files beside them (read at --max-input-bytes), and verify's candidate plan, whose
// quantities are read at --max-quantity-* (its other bounds are conformance.PlanLimits', which
// no flag here sets but --max-input-bytes, and name no flag of this table).
func limitFlagged[T any](v T, err error) (T, error) {
	var (
		qe    *jsongate.QuantityError
		le    *manifest.LimitError
		bound string
		inner error
	)
	switch {
	case errors.As(err, &qe) && qe.Option != "":
		bound, inner = qe.Option, qe
	case errors.As(err, &le):
		bound, inner = le.Limit, le
	default:
		return v, err
	}
	flag, ok := limitFlags[bound]
	note := "(limit " + bound
	// The bound's message ends the line, and its note ends that.
	msg := err.Error()
	at := strings.LastIndex(msg, note)
	if !ok || !strings.HasSuffix(msg, inner.Error()) || at < len(msg)-len(inner.Error()) {
		return v, err
	}
	at += len(note)
	return v, flagged{err, msg[:at] + ", " + flag + msg[at:]}
}

// flagged is err worded as msg.
type flagged struct {
	err error
	msg string
}

func (f flagged) Error() string { return f.msg }

func (f flagged) Unwrap() error { return f.err }
