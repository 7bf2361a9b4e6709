package fleet

// This file holds what a WhatIf needs to decide node templates (WHATIF-2): for every label
// key a placement reads, a partition of its possible states (absent, each value some placement
// names, the other values between the Gt and Lt bounds) into classes on which every
// requirement of every DaemonSet answers alike; and each placement as a disjunction of terms,
// each term a set of allowed classes per key. A template is then a set of allowed classes per
// key, and three-valued evaluation is set arithmetic.

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/daemonsched/daemonsched/internal/decimal"
)

// classSet is a set of classes of one key, one bit each.
type classSet []uint64

func newClassSet(n int) classSet { return make(classSet, (n+63)/64) }

func (s classSet) add(c int)      { s[c/64] |= 1 << (c % 64) }
func (s classSet) has(c int) bool { return s[c/64]&(1<<(c%64)) != 0 }
func (s classSet) intersects(o classSet) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// within reports whether s is a subset of o.
func (s classSet) within(o classSet) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (s classSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// universe is the partition of one key's states into classes: 0 is absent, 1..len(values)
// the values some placement names, then the other non-integer values, then the other
// integers, one class per region between Gt and Lt bounds.
type universe struct {
	key     string
	isName  bool // the node's name (spec.nodeName, matchFields), never absent
	values  []string
	index   map[string]int
	regions [][2]int64 // inclusive, non-empty
}

func (u *universe) classes() int     { return 2 + len(u.values) + len(u.regions) }
func (u *universe) nonInteger() int  { return 1 + len(u.values) }
func (u *universe) region(r int) int { return 2 + len(u.values) + r }
func (u *universe) mentioned(v string) bool {
	_, ok := u.index[v]
	return ok
}

// classOf returns the class of a present value.
func (u *universe) classOf(v string) int {
	if i, ok := u.index[v]; ok {
		return 1 + i
	}
	n, ok := decimal.ParseInt64(v)
	if !ok {
		return u.nonInteger()
	}
	for r, reg := range u.regions {
		if n >= reg[0] && n <= reg[1] {
			return u.region(r)
		}
	}
	return u.nonInteger() // unreachable: the regions cover every integer but the bounds
}

// representative returns a state of class c.
func (u *universe) representative(c int) (string, bool) {
	switch {
	case c == 0:
		return "", false
	case c <= len(u.values):
		return u.values[c-1], true
	case c == u.nonInteger():
		v := "x"
		for u.mentioned(v) {
			v += "x"
		}
		return v, true
	}
	reg := u.regions[c-u.region(0)]
	n := reg[0]
	if n == math.MinInt64 {
		n = min(reg[1], 0)
	}
	digits := strconv.FormatUint(uint64(max(n, -n)), 10)
	if n == math.MinInt64 {
		digits = strconv.FormatInt(n, 10)[1:]
	}
	sign := ""
	if n < 0 {
		sign = "-"
	}
	v := sign + digits
	for u.mentioned(v) {
		digits = "0" + digits
		v = sign + digits
	}
	return v, true
}

func (u *universe) finish(bounds []int64) {
	slices.Sort(u.values)
	u.values = slices.Compact(u.values)
	u.index = make(map[string]int, len(u.values))
	for i, v := range u.values {
		u.index[v] = i
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	lo := int64(math.MinInt64)
	add := func(a, b int64) {
		if a <= b {
			u.regions = append(u.regions, [2]int64{a, b})
		}
	}
	for _, b := range bounds {
		if b > math.MinInt64 {
			add(lo, b-1)
		}
		add(b, b)
		if b == math.MaxInt64 {
			return
		}
		lo = b + 1
	}
	add(lo, math.MaxInt64)
}

// keyClasses is a constraint on one key: the classes allowed.
type keyClasses struct {
	key int
	set classSet
}

// term is a conjunction of constraints, one per key, sorted by key; empty holds everywhere.
type term []keyClasses

// dnf is a disjunction of terms; empty holds nowhere.
type dnf []term

var always = dnf{term{}}

// and returns the conjunction of two terms (the key sets intersected).
func (t term) and(o term) term {
	out := make(term, 0, len(t)+len(o))
	i, j := 0, 0
	for i < len(t) || j < len(o) {
		switch {
		case j == len(o) || (i < len(t) && t[i].key < o[j].key):
			out = append(out, t[i])
			i++
		case i == len(t) || o[j].key < t[i].key:
			out = append(out, o[j])
			j++
		default:
			s := slices.Clone(t[i].set)
			for w := range s {
				s[w] &= o[j].set[w]
			}
			out = append(out, keyClasses{t[i].key, s})
			i++
			j++
		}
	}
	return out
}

// and returns the conjunction of two disjunctions.
func (f dnf) and(o dnf) dnf {
	var out dnf
	for _, a := range f {
		for _, b := range o {
			out = append(out, a.and(b))
		}
	}
	return out
}

// tri is a three-valued truth.
type tri uint8

const (
	triTrue tri = iota
	triFalse
	triUnknown
)

// domain is the allowed classes of every key.
type domain []classSet

func (t term) possible(d domain) bool {
	for _, kc := range t {
		if !kc.set.intersects(d[kc.key]) {
			return false
		}
	}
	return true
}

func (t term) certain(d domain) bool {
	for _, kc := range t {
		if !d[kc.key].within(kc.set) {
			return false
		}
	}
	return true
}

// eval decides f on every state d allows: true on all, false on none, or unknown.
func (f dnf) eval(d domain) tri {
	possible := 0
	for _, t := range f {
		if t.certain(d) {
			return triTrue
		}
		if t.possible(d) {
			possible++
		}
	}
	switch possible {
	case 0:
		return triFalse
	case 1:
		return triUnknown
	}
	open := make([]term, 0, possible)
	for _, t := range f {
		if t.possible(d) {
			open = append(open, t)
		}
	}
	if covered(d, open) {
		return triTrue
	}
	return triUnknown
}

// covered reports whether the states d allows all satisfy some term of ts: it splits d on a
// key the first term does not decide, into the part the term holds on and the rest.
func covered(d domain, ts []term) bool {
	for len(ts) > 0 {
		t := ts[0]
		if t.certain(d) {
			return true
		}
		if !t.possible(d) {
			ts = ts[1:]
			continue
		}
		for _, kc := range t {
			if d[kc.key].within(kc.set) {
				continue
			}
			in, out := slices.Clone(d), slices.Clone(d)
			in[kc.key], out[kc.key] = slices.Clone(d[kc.key]), slices.Clone(d[kc.key])
			for w := range kc.set {
				in[kc.key][w] &= kc.set[w]
				out[kc.key][w] &^= kc.set[w]
			}
			return covered(in, ts) && covered(out, ts[1:])
		}
	}
	return false
}

// keys returns the keys f constrains, sorted.
func (f dnf) keys() []int {
	var keys []int
	for _, t := range f {
		for _, kc := range t {
			keys = append(keys, kc.key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
