package cli

import (
	"errors"
	"strings"

	"github.com/daemonsched/daemonsched/internal/jsongate"
)

// quantityFlagged passes on what reading the inputs returned, with, when err refuses a
// resource quantity at a bound the reading flags set, the flag named beside the option the
// library names: "(limit QuantityExponent)" reads "(limit QuantityExponent,
// --max-quantity-exponent)". The library does not name the flags (apiserver and conformance
// have none); the other inputs (a node template, a candidate plan) are read at the default
// bounds, which no flag changes, so only the inputs' reading goes through here.
func quantityFlagged[T any](v T, err error) (T, error) {
	var qe *jsongate.QuantityError
	if !errors.As(err, &qe) || qe.Option == "" {
		return v, err
	}
	flag := "--max-quantity-length"
	if qe.Limit == jsongate.LimitExponent {
		flag = "--max-quantity-exponent"
	}
	// The quantity's message ends the line, and its option note ends that.
	msg := err.Error()
	if !strings.HasSuffix(msg, qe.Error()) || !strings.HasSuffix(msg, ")") {
		return v, err
	}
	return v, flagged{err, msg[:len(msg)-1] + ", " + flag + ")"}
}

// flagged is err worded as msg.
type flagged struct {
	err error
	msg string
}

func (f flagged) Error() string { return f.msg }

func (f flagged) Unwrap() error { return f.err }
