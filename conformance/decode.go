package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	kjson "sigs.k8s.io/json"
)

// requiredFields are the fields of one plan the JSON contract always prints; the others
// (skipped, rollingUpdate, collisionCount, revisions, events, conflicts, invalid, statusWrite,
// backoff, requeueAfter, the uids of pods) are optional.
var requiredFields = []string{"namespace", "name", "revisionHash", "create", "delete", "adopt", "release", "status"}

// PlanLimits bound what [ReadPlan] accepts, so that a hostile candidate ends quickly with one
// error instead of taking all memory. A zero field means its default.
type PlanLimits struct {
	// Bytes bounds the whole candidate (default [manifest.DefaultInputBytes]).
	Bytes int64
	// DaemonSets bounds the plans of daemonSets, null ones included (default
	// [DefaultPlanDaemonSets]).
	DaemonSets int
	// PlanBytes bounds the text of one plan (default [DefaultPlanBytes]); it is checked as the
	// plan is read, so that one endless plan is not held whole.
	PlanBytes int64
	// QuantityLength and QuantityExponent bound the resource quantities of the plans as
	// [manifest.Limits] bounds those of manifests (defaults [manifest.DefaultQuantityLength]
	// and [manifest.DefaultQuantityExponent]), so that a program reads its candidates at the
	// bounds it reads its manifests at; a refusal names them as manifest's do ("(limit
	// QuantityExponent)").
	QuantityLength, QuantityExponent int
}

// The defaults of [PlanLimits].
const (
	// DefaultPlanDaemonSets is 10,000 plans, far beyond the DaemonSets of any cluster.
	DefaultPlanDaemonSets = 10_000
	// DefaultPlanBytes is 256 MiB: the plan of a 100,000-node DaemonSet creating a daemon pod
	// of a few KB on every node.
	DefaultPlanBytes = 256 << 20
)

func (l PlanLimits) withDefaults() PlanLimits {
	if l.Bytes == 0 {
		l.Bytes = manifest.DefaultInputBytes
	}
	if l.DaemonSets == 0 {
		l.DaemonSets = DefaultPlanDaemonSets
	}
	if l.PlanBytes == 0 {
		l.PlanBytes = DefaultPlanBytes
	}
	return l
}

// Candidate is a candidate plan as [ReadPlan] reads it.
type Candidate struct {
	// DaemonSets are the plans of daemonSets, in order; a null plan is nil.
	DaemonSets []*daemonset.Result
	// Now is the JSON text of the top-level now (plan -o json prints it; other
	// implementations may not), nil when there is none.
	Now json.RawMessage
	// Kubernetes is the release the candidate names in a top-level kubernetes string (plan -o
	// json prints "v1.37.2"), as written; empty when there is none or it is not a string, which
	// other implementations may use as they like. ReadPlan does not parse it.
	Kubernetes string
}

// DecodePlan reads a candidate in the shape `daemonsched plan -o json` prints: an object whose
// daemonSets lists one plan per DaemonSet. It is [ReadPlan] of data with the default limits.
func DecodePlan(data []byte) ([]*daemonset.Result, error) {
	c, err := ReadPlan(bytes.NewReader(data), PlanLimits{})
	return c.DaemonSets, err
}

// ReadPlan reads a candidate in the shape `daemonsched plan -o json` prints, from r as a
// stream: an object whose daemonSets lists one plan per DaemonSet. Keys are matched exactly
// (as the API server matches them), and unknown keys are ignored. Each plan is decoded as it
// is read, so that the text of one plan at most is held besides what is decoded. It is an
// error, naming where: text that is not JSON or not UTF-8, a key given twice in the
// candidate's object or a plan's, a missing required field, a value of the wrong type, a
// resource quantity beyond lim's QuantityLength or QuantityExponent
// ([manifest.CheckQuantities]), and a candidate, a plan or a count of plans beyond lim.
func ReadPlan(r io.Reader, lim PlanLimits) (Candidate, error) {
	if lim.Bytes < 0 || lim.DaemonSets < 0 || lim.PlanBytes < 0 || lim.QuantityLength < 0 || lim.QuantityExponent < 0 {
		return Candidate{}, errors.New("conformance: negative PlanLimits")
	}
	lim = lim.withDefaults()
	in := &checkedReader{r: r, limit: lim.Bytes}
	dec := json.NewDecoder(in)
	c, err := readCandidate(dec, in, lim)
	if err != nil {
		var syntax *json.SyntaxError
		switch {
		case in.err != nil && !errors.Is(in.err, errPlanTooLong):
			err = in.err
		case errors.As(err, &syntax):
			err = fmt.Errorf("not valid JSON at byte %d: %w", syntax.Offset, err)
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			err = fmt.Errorf("not valid JSON at byte %d: unexpected end of JSON input", in.n)
		}
		return Candidate{}, fmt.Errorf("candidate: %w", err)
	}
	return c, nil
}

func readCandidate(dec *json.Decoder, in *checkedReader, lim PlanLimits) (Candidate, error) {
	var c Candidate
	if err := wantDelim(dec, '{', "an object"); err != nil {
		return c, err
	}
	seen := map[string]bool{}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return c, err
		}
		key := tok.(string)
		if seen[key] {
			return c, fmt.Errorf("%s: duplicate key", key)
		}
		seen[key] = true
		switch key {
		case "daemonSets":
			found = true
			if c.DaemonSets, err = readPlans(dec, in, lim); err != nil {
				return c, err
			}
		case "now":
			if err := dec.Decode(&c.Now); err != nil {
				return c, err
			}
			if string(c.Now) == "null" {
				c.Now = nil
			}
		case "kubernetes":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return c, err
			}
			if len(raw) > 0 && raw[0] == '"' {
				if err := json.Unmarshal(raw, &c.Kubernetes); err != nil {
					return c, fmt.Errorf("kubernetes: %w", err)
				}
			}
		default:
			if err := skipValue(dec); err != nil {
				return c, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return c, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("text after the candidate's object")
		}
		return c, err
	}
	if !found {
		return c, errors.New("daemonSets: required field is missing")
	}
	if c.DaemonSets == nil {
		// daemonSets: null is no list.
		return c, errors.New("daemonSets: required field is missing")
	}
	return c, nil
}

// readPlans reads the value of daemonSets, one plan at a time.
func readPlans(dec *json.Decoder, in *checkedReader, lim PlanLimits) ([]*daemonset.Result, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("daemonSets: want a list, got %s", describe(tok))
	}
	out := []*daemonset.Result{}
	for i := 0; dec.More(); i++ {
		if i == lim.DaemonSets {
			return nil, fmt.Errorf("daemonSets: more than %d plans (limit PlanLimits.DaemonSets)", lim.DaemonSets)
		}
		var raw json.RawMessage
		// The decoder reads ahead into a buffer up to about twice the largest value it held:
		// the reader stops well past the limit, and the exact check follows.
		in.planEnd = planEnd(dec.InputOffset(), lim.PlanBytes)
		err := dec.Decode(&raw)
		in.planEnd = 0
		if errors.Is(in.err, errPlanTooLong) || err == nil && int64(len(raw)) > lim.PlanBytes {
			return nil, fmt.Errorf("daemonSets[%d]: a plan longer than %d bytes (limit PlanLimits.PlanBytes)", i, lim.PlanBytes)
		}
		if err != nil {
			return nil, err
		}
		r, err := decodeOnePlan(raw, lim.quantities())
		if err != nil {
			return nil, fmt.Errorf("daemonSets[%d]%w", i, err)
		}
		out = append(out, r)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// planEnd is the offset past which the reader stops a plan starting at off, 3*planBytes+4096
// further on; math.MaxInt64 when that is beyond it, where 3*planBytes+4096 would wrap to a
// negative offset and stop every plan.
func planEnd(off, planBytes int64) int64 {
	if planBytes > (math.MaxInt64-4096-off)/3 {
		return math.MaxInt64
	}
	return off + 3*planBytes + 4096
}

// quantities are the bounds of lim on resource quantities, as manifest.CheckQuantities takes
// them (zero: the default).
func (l PlanLimits) quantities() manifest.Limits {
	return manifest.Limits{QuantityLength: l.QuantityLength, QuantityExponent: l.QuantityExponent}
}

// decodeOnePlan decodes the text of one plan, its quantities bounded by lim; its errors start
// with the path below the plan (".create[0]...", or ": ..." for the plan itself).
func decodeOnePlan(raw json.RawMessage, lim manifest.Limits) (*daemonset.Result, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	keys, ok := topLevelKeys(raw)
	if !ok {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf(": %w", err)
		}
		keys = fields
	}
	for _, f := range requiredFields {
		if _, ok := keys[f]; !ok {
			return nil, fmt.Errorf(".%s: required field is missing", f)
		}
	}
	var r daemonset.Result
	// A quantity such as 1e-999999999 takes hours to parse: refuse it first.
	if err := manifest.CheckQuantities(raw, &r, lim); err != nil {
		return nil, fmt.Errorf(".%w", err)
	}
	strict, err := kjson.UnmarshalStrict(raw, &r, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf(": %w", strict[0])
	}
	return &r, nil
}

// topLevelKeys returns the keys of the JSON object raw (valid JSON, as the decoder read it),
// without decoding its values: json.Unmarshal into a map of json.RawMessage copied every value,
// a whole plan, only to learn its keys. ok is false when raw is not an object or a key holds an
// escape; the caller then asks encoding/json.
func topLevelKeys(raw []byte) (keys map[string]json.RawMessage, ok bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	keys = map[string]json.RawMessage{}
	depth, wantKey := 0, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '"':
			end := i + 1
			for {
				k := bytes.IndexByte(t[end:], '"')
				if k < 0 {
					return nil, false
				}
				end += k
				backslashes := 0
				for j := end - 1; j > i && t[j] == '\\'; j-- {
					backslashes++
				}
				if backslashes%2 == 0 {
					break
				}
				end++
			}
			if depth == 1 && wantKey {
				key := t[i+1 : end]
				if bytes.IndexByte(key, '\\') >= 0 {
					return nil, false
				}
				keys[string(key)] = nil
				wantKey = false
			}
			i = end
		case '{', '[':
			depth++
			wantKey = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			wantKey = depth == 1
		}
	}
	return keys, true
}

// wantDelim reads the next token, which must be d.
func wantDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("want %s, got %s", what, describe(tok))
	}
	return nil
}

// describe names the JSON type of a token.
func describe(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// skipValue reads the next value token by token, holding no more than one token of it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// errPlanTooLong is checkedReader's error past planEnd; readPlans words it.
var errPlanTooLong = errors.New("a plan too long")

// checkedReader passes r on, failing once more than limit bytes were read, once the byte
// planEnd (when not 0) is passed, or at the first byte that is not UTF-8.
type checkedReader struct {
	r       io.Reader
	limit   int64
	planEnd int64
	n       int64
	tail    []byte // an incomplete rune at the end of the last read
	err     error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if c.n+int64(n) > c.limit {
		c.err = fmt.Errorf("larger than %d bytes", c.limit)
		return 0, c.err
	}
	if c.planEnd != 0 && c.n+int64(n) > c.planEnd {
		c.err = errPlanTooLong
		return 0, c.err
	}
	if bad := c.invalidUTF8(p[:n], err != nil); bad >= 0 {
		c.err = fmt.Errorf("invalid UTF-8 at byte %d", bad)
		return 0, c.err
	}
	c.n += int64(n)
	return n, err
}

// invalidUTF8 returns the offset in the whole stream of the first byte of chunk (following
// c.tail) that is not UTF-8, or -1; at the end, an incomplete rune is invalid too.
func (c *checkedReader) invalidUTF8(chunk []byte, end bool) int64 {
	start := c.n - int64(len(c.tail))
	buf := chunk
	if len(c.tail) > 0 {
		buf = append(c.tail, chunk...)
	}
	i := 0
	for i < len(buf) {
		if buf[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !utf8.FullRune(buf[i:]) && !end {
			break
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 {
			return start + int64(i)
		}
		i += size
	}
	c.tail = append(c.tail[:0:0], buf[i:]...)
	return -1
}
