// Package taints decides which of a node's taints a pod's tolerations leave untolerated, exactly
// as Kubernetes does in every supported release (1.33 to 1.37; [Options] holds the one gate
// that differs). It never contacts an API server and never mutates its inputs.
//
// [Compile] turns a pod's tolerations into an immutable [Tolerations] value once; its hot-path
// methods ([Tolerations.Tolerates], [Tolerations.FirstUntolerated]) then answer for any number of
// nodes without allocating. Matching follows v1.Toleration.ToleratesTaint (TAINT-1, TAINT-2,
// TAINT-10) even for tolerations that API validation rejects; [Validate] reports those (VAL-17).
package taints

import (
	"math/bits"

	v1 "k8s.io/api/core/v1"
)

// Effects is a set of taint effects.
type Effects uint8

// The taint effects, as bits of an Effects set, and the two sets the DaemonSet controller
// filters taints with.
const (
	NoSchedule Effects = 1 << iota
	PreferNoSchedule
	NoExecute

	// Placement is the set of effects whose untolerated taints keep a new daemon pod off a node
	// (TAINT-4; pkg/controller/daemon: predicates).
	Placement = NoSchedule | NoExecute
	// Eviction is the set of effects whose untolerated taints make a running daemon pod leave a
	// node (TAINT-5; pkg/controller/daemon: NodeShouldRunDaemonPod).
	Eviction = NoExecute
)

// effectOf returns the single-bit set for effect, or the empty set for an empty or unknown
// effect. An empty or unknown effect is therefore never selected by any Effects filter, which
// is why the controller ignores such taints (TAINT-6).
func effectOf(effect v1.TaintEffect) Effects {
	switch effect {
	case v1.TaintEffectNoSchedule:
		return NoSchedule
	case v1.TaintEffectPreferNoSchedule:
		return PreferNoSchedule
	case v1.TaintEffectNoExecute:
		return NoExecute
	default:
		return 0
	}
}

// String lists the effects of the set in the order NoSchedule, PreferNoSchedule, NoExecute,
// joined by "|", or "" for the empty set. Bits outside the three effects are ignored. It is what
// fmt prints for a set, so that a caller logging [Placement] reads names, not a number.
func (e Effects) String() string {
	s := ""
	for _, b := range [...]struct {
		bit  Effects
		name v1.TaintEffect
	}{{NoSchedule, v1.TaintEffectNoSchedule}, {PreferNoSchedule, v1.TaintEffectPreferNoSchedule}, {NoExecute, v1.TaintEffectNoExecute}} {
		if e&b.bit == 0 {
			continue
		}
		if s != "" {
			s += "|"
		}
		s += string(b.name)
	}
	return s
}

// Options holds the feature gates that change toleration matching. The zero value is the
// default of every supported release, 1.37 included.
type Options struct {
	// ComparisonOperators enables the Lt and Gt toleration operators (feature gate
	// TaintTolerationComparisonOperators: unknown before 1.35, alpha and off by default from
	// 1.35 to 1.37; TAINT-10, D-7).
	ComparisonOperators bool
}

// opKind is how a compiled toleration compares values.
type opKind uint8

const (
	opEqual  opKind = iota // "" or Equal: byte-equal values
	opExists               // any value
	opLt                   // taint value < toleration value, both canonical integers
	opGt                   // taint value > toleration value, both canonical integers
)

// toleration is one toleration that can tolerate something, with its operator decoded and, for
// Lt and Gt, its value parsed once.
type toleration struct {
	key    string
	value  string
	effect v1.TaintEffect
	op     opKind
	// sig is keySignature(key): 0 for the empty key, which matches every taint key (TAINT-1),
	// else a taint key can equal key only if its signature is sig.
	sig uint32
	num int64
}

// keySignature packs the length and the last two bytes of a key: equal keys have equal
// signatures, and the keys of one node mostly differ in one or the other (the
// node.kubernetes.io/ condition taints share their prefix, and "-pressure" and
// "unschedulable" their last byte), so a toleration's key is compared byte by byte only when
// it very likely matches. The empty key's signature is 0, which no other key has: the length
// is capped at 0xffff, so that no length wraps to 0 (a 65,536-byte key must not read as the
// empty key's wildcard).
func keySignature(key string) uint32 {
	switch n := len(key); n {
	case 0:
		return 0
	case 1:
		return 1<<16 | uint32(key[0])
	default:
		return uint32(min(n, 0xffff))<<16 | uint32(key[n-2])<<8 | uint32(key[n-1])
	}
}

// matchesKey reports whether c's key applies to a taint key whose signature is sig: c's key is
// empty, or equal to key.
func (c *toleration) matchesKey(key string, sig uint32) bool {
	return c.sig == 0 || (c.sig == sig && c.key == key)
}

// Tolerations is a compiled list of tolerations. It is immutable and safe for concurrent use.
// A nil *Tolerations tolerates nothing, like an empty list.
type Tolerations struct {
	tols []toleration
	// byEffect indexes tols by the effect of a taint (NoSchedule, PreferNoSchedule, NoExecute):
	// the tolerations whose effect is empty or that effect, so that the hot path compares no
	// effect strings.
	byEffect [3]effectTolerations
}

// effectTolerations is what can tolerate a taint of one known effect.
type effectTolerations struct {
	// all is set when an Exists toleration with an empty key applies: it tolerates every
	// taint of the effect (TAINT-1).
	all  bool
	tols []toleration
}

// Compile compiles tols. Matching follows v1.Toleration.ToleratesTaint even for tolerations
// that API validation would reject (TAINT-2); see Validate for those. A nil or empty tols
// tolerates nothing. Compile copies what it keeps, so tols may be changed afterwards.
func Compile(tols []v1.Toleration, opts Options) *Tolerations {
	out := &Tolerations{tols: make([]toleration, 0, len(tols))}
	for i := range tols {
		t := &tols[i]
		c := toleration{key: t.Key, value: t.Value, effect: t.Effect, sig: keySignature(t.Key)}
		switch t.Operator {
		case "", v1.TolerationOpEqual:
			c.op = opEqual
		case v1.TolerationOpExists:
			c.op = opExists
		case v1.TolerationOpLt, v1.TolerationOpGt:
			// With the gate off, or with a toleration value that is not a canonical int64, upstream
			// never tolerates (TAINT-1, TAINT-10), so the toleration is dropped here; parsing it
			// now saves upstream's per-match ParseInt and its error allocation.
			if !opts.ComparisonOperators {
				continue
			}
			n, ok := parseDecimal(t.Value)
			if !ok {
				continue
			}
			c.num = n
			c.op = opGt
			if t.Operator == v1.TolerationOpLt {
				c.op = opLt
			}
		default:
			// Any other operator never tolerates (TAINT-1).
			continue
		}
		out.tols = append(out.tols, c)
	}
	for k, effect := range [...]v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute} {
		e := &out.byEffect[k]
		for _, c := range out.tols {
			if c.effect != "" && c.effect != effect {
				continue
			}
			if c.key == "" && c.op == opExists {
				e.all = true
			}
			e.tols = append(e.tols, c)
		}
	}
	return out
}

// Tolerates reports whether any toleration tolerates taint (TAINT-1, TAINT-3). tolerationSeconds
// and the taint's timeAdded play no part (TAINT-7). It allocates nothing. The DaemonSet planner
// asks [Tolerations.Untolerated] instead; Tolerates is the one-taint question a scheduler or
// simulator asks, with the same answer as v1.Toleration.ToleratesTaint over the list.
func (t *Tolerations) Tolerates(taint *v1.Taint) bool {
	if t == nil {
		return false
	}
	if e := effectOf(taint.Effect); e != 0 {
		// The Effects bits index byEffect, which holds the tolerations that apply to a taint
		// of that effect.
		return t.byEffect[bits.TrailingZeros8(uint8(e))].tolerates(taint)
	}
	// An empty or unknown effect: only tolerations with an empty or that same effect apply.
	v := taintValue{s: taint.Value}
	for i := range t.tols {
		c := &t.tols[i]
		if c.effect != "" && c.effect != taint.Effect {
			continue
		}
		if c.key != "" && c.key != taint.Key {
			continue
		}
		if c.admits(&v) {
			return true
		}
	}
	return false
}

// taintValue is a taint's value, parsed as an integer at most once, and only if an Lt or Gt
// toleration reaches it.
type taintValue struct {
	s      string
	parsed bool
	ok     bool
	num    int64
}

func (v *taintValue) number() (int64, bool) {
	if !v.parsed {
		v.num, v.ok = parseDecimal(v.s)
		v.parsed = true
	}
	return v.num, v.ok
}

// admits reports whether c, whose key and effect already apply to the taint, tolerates its
// value (TAINT-1 (c), TAINT-10).
func (c *toleration) admits(v *taintValue) bool {
	switch c.op {
	case opEqual:
		return c.value == v.s
	case opExists:
		return true
	case opLt, opGt:
		n, ok := v.number()
		return ok && ((c.op == opLt && n < c.num) || (c.op == opGt && n > c.num))
	}
	return false
}

// FirstUntolerated returns the first taint of taints, in order, whose effect is in effects and
// that no toleration tolerates (TAINT-9). It allocates nothing. Taints with an empty or unknown
// effect are never returned (TAINT-6). A nil taints has nothing untolerated.
func (t *Tolerations) FirstUntolerated(taints []v1.Taint, effects Effects) (v1.Taint, bool) {
	for i := range taints {
		taint := &taints[i]
		e := effectOf(taint.Effect)
		if effects&e == 0 {
			continue
		}
		// The Effects bits index byEffect: Tolerates for a taint of a known effect.
		if t == nil || !t.byEffect[bits.TrailingZeros8(uint8(e))].tolerates(taint) {
			return *taint, true
		}
	}
	return v1.Taint{}, false
}

// Untolerated is FirstUntolerated for the two effect sets the DaemonSet controller asks about,
// in one walk over taints: placement is the index of the first taint with effect NoSchedule
// or NoExecute that no toleration tolerates (TAINT-4), eviction that of the first such NoExecute
// taint (TAINT-5); -1 when there is none. It allocates nothing.
func (t *Tolerations) Untolerated(taints []v1.Taint) (placement, eviction int) {
	placement, eviction = -1, -1
	for i := range taints {
		taint := &taints[i]
		var k int
		switch taint.Effect {
		case v1.TaintEffectNoSchedule:
			if placement >= 0 {
				continue // only a NoExecute taint can still change the answer
			}
			k = 0
		case v1.TaintEffectNoExecute:
			k = 2
		default:
			continue
		}
		if t != nil && t.byEffect[k].tolerates(taint) {
			continue
		}
		if placement < 0 {
			placement = i
		}
		if k == 2 {
			return placement, i
		}
	}
	return placement, eviction
}

// tolerates is Tolerates for a taint whose effect is the one e was indexed for.
func (e *effectTolerations) tolerates(taint *v1.Taint) bool {
	if e.all {
		return true
	}
	v := taintValue{s: taint.Value}
	sig := keySignature(taint.Key)
	for i := range e.tols {
		c := &e.tols[i]
		if !c.matchesKey(taint.Key, sig) {
			continue
		}
		switch c.op { // admits, with its two common cases inline
		case opExists:
			return true
		case opEqual:
			if c.value == taint.Value {
				return true
			}
		default:
			if c.admits(&v) {
				return true
			}
		}
	}
	return false
}

// parseDecimal parses s as Kubernetes (1.35 to 1.37) parses Lt/Gt operands (TAINT-10): a canonical decimal integer
// (an optional "-", then "0" alone or a first digit 1-9, no "+", no "-0") that fits an int64,
// as apimachinery's content.IsDecimalInteger followed by strconv.ParseInt. Unlike ParseInt it
// allocates nothing on failure.
func parseDecimal(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	neg := false
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		neg = true
		digits = digits[1:]
	}
	if len(digits) == 0 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	// Accumulate as a negative number so that the int64 minimum fits.
	const minInt64 = -1 << 63
	var n int64
	for i := 0; i < len(digits); i++ {
		d := digits[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if n < minInt64/10 {
			return 0, false
		}
		n *= 10
		v := int64(d - '0')
		if n < minInt64+v {
			return 0, false
		}
		n -= v
	}
	if neg {
		return n, true
	}
	if n == minInt64 {
		return 0, false
	}
	return -n, true
}
