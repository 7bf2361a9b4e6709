package fleet

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonsched/daemonsched/selector"
)

// TestAllowedAgreesWithOracle: the reduced, linear allowed and openValues answer as the first
// algorithm, which checked every value against every requirement (kept below as the oracle),
// on random requirements and universes of one key (issue 25, F5).
func TestAllowedAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	alphabet := []string{"", "a", "b", "c", "x", "7", "07", "+7", "8", "-3", "16", "016", "9223372036854775807", "-9223372036854775808"}
	bounds := []string{"7", "8", "-3", "16", "0", "9223372036854775807", "-9223372036854775808", "9223372036854775806"}
	ops := []selector.Operator{selector.In, selector.NotIn, selector.Exists, selector.DoesNotExist, selector.Gt, selector.Lt}
	pick := func(from []string) []string {
		var out []string
		for range 1 + r.IntN(4) {
			out = append(out, from[r.IntN(len(from))])
		}
		return out
	}
	checked, open := 0, 0
	for range 20000 {
		var rs []selector.Requirement
		for range 1 + r.IntN(5) {
			op := ops[r.IntN(len(ops))]
			var values []string
			switch op {
			case selector.In, selector.NotIn:
				values = pick(alphabet)
			case selector.Gt, selector.Lt:
				values = []string{bounds[r.IntN(len(bounds))]}
			}
			req, errs := selector.NewRequirement("k", op.String(), values, selector.NodeSelectorOperators, nil)
			if len(errs) > 0 {
				continue // "-3" and "+7" are no valid label values, but a universe may name them
			}
			rs = append(rs, req)
		}
		if len(rs) == 0 {
			continue
		}
		u := universe{key: "k", values: pick(alphabet)}
		var ubounds []int64
		for range r.IntN(3) {
			b := bounds[r.IntN(len(bounds))]
			n, _ := strconv.ParseInt(b, 10, 64)
			ubounds = append(ubounds, n)
		}
		u.finish(ubounds)
		if got, want := u.allowed(rs), oracleAllowed(&u, rs); !slices.Equal(got, want) {
			t.Fatalf("allowed(%v) over %v %v = %b, the oracle says %b", rs, u.values, u.regions, got, want)
		}
		got, want := openValues(rs), oracleOpenValues(rs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("openValues(%v) mismatch (-oracle +got):\n%s", rs, diff)
		}
		checked++
		if got {
			open++
		}
	}
	if open < checked/10 || open > checked*9/10 {
		t.Fatalf("%d of %d requirement sets open: the draw does not exercise both answers", open, checked)
	}
}

// oracleOpenValues is the first openValues: it reports whether some state (absence included) satisfies every requirement of rs.
func oracleOpenValues(rs []selector.Requirement) bool {
	u := universe{key: rs[0].Key()}
	var bounds []int64
	for _, r := range rs {
		switch r.Operator() {
		case selector.Gt, selector.Lt:
			n, _ := strconv.ParseInt(r.Values()[0], 10, 64)
			bounds = append(bounds, n)
		default:
			u.values = append(u.values, r.Values()...)
		}
	}
	u.finish(bounds)
	return oracleAllowed(&u, rs).count() > 0
}

// oracleAllowed is the first allowed, quadratic: it returns the classes of u in which some state satisfies every requirement of rs.
func oracleAllowed(u *universe, rs []selector.Requirement) classSet {
	s := newClassSet(u.classes())
	labels := make(map[string]string, 1)
	all := func(v string, present bool) bool {
		clear(labels)
		if present {
			labels[u.key] = v
		}
		for i := range rs {
			if !rs[i].Matches(labels) {
				return false
			}
		}
		return true
	}
	if all("", false) {
		s.add(0)
	}
	for i, v := range u.values {
		if all(v, true) {
			s.add(1 + i)
		}
	}
	// A class of other values holds values no requirement names. With an In, those are its
	// values outside the class's named ones; without, every integer has endless spellings
	// ("7", "07", ...) and NotIn excludes finitely many, so only the bounds and the operators
	// that need a number or no value matter.
	var in []string
	lo, hi := int64(-1<<63), int64(1<<63-1)
	numeric, none := false, false
	for i := range rs {
		switch rs[i].Operator() {
		case selector.In:
			if in == nil {
				in = rs[i].Values()
			}
		case selector.DoesNotExist:
			none = true
		case selector.Gt:
			n, _ := strconv.ParseInt(rs[i].Values()[0], 10, 64)
			numeric = true
			// The first algorithm compared n with hi, which an earlier Lt may have lowered: n+1
			// then overflowed and "Lt 8, Gt 9223372036854775807" allowed every integer up to 7.
			if n == 1<<63-1 {
				none = true
			}
			lo = max(lo, n+1)
		case selector.Lt:
			n, _ := strconv.ParseInt(rs[i].Values()[0], 10, 64)
			numeric = true
			if n == -1<<63 {
				none = true
			}
			hi = min(hi, n-1)
		}
	}
	if none {
		return s
	}
	if in != nil {
		for _, v := range in {
			if !u.mentioned(v) && all(v, true) {
				s.add(u.classOf(v))
			}
		}
		return s
	}
	if !numeric {
		s.add(u.nonInteger())
	}
	for r, reg := range u.regions {
		if max(reg[0], lo) <= min(reg[1], hi) {
			s.add(u.region(r))
		}
	}
	return s
}
