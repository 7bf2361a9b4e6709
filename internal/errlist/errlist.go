// Package errlist turns a long list of errors into one bounded error or a bounded listing: at
// most [Shown] of them, then how many more ("... and N more"), each cut to [LineBytes]. It
// never drops the first problems, and it does not decide which errors there are.
package errlist

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Shown is how many errors of one list are written; the others are counted. verify's mismatches,
// conformance run's and every command's error lines share it, so a list wrong in a million ways
// prints a screenful.
const Shown = 100

// LineBytes bounds one error as written: a message quoting a huge value (a 1.5 MB name) is cut.
const LineBytes = 1000

// ValueBytes bounds a value a message quotes (a label value, a resource quantity, text that is
// not the JSON of an object): enough to know it again, where a 1 GiB label value would be
// quoted whole.
const ValueBytes = 40

// Cut cuts s to at most n bytes, at a rune boundary, saying how many bytes were left out.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)-cut) + " bytes more)"
}

// Write calls show for each of the first Shown of n items, then, when some are left out (those
// beyond Shown and more, which the caller counted without holding), writes prefix and
// "... and N more".
func Write(w io.Writer, prefix string, n, more int, show func(i int)) {
	for i := range min(n, Shown) {
		show(i)
	}
	if more += max(0, n-Shown); more > 0 {
		fmt.Fprintf(w, "%s... and %d more\n", prefix, more)
	}
}

// Aggregate is errs as one error, worded as errs.ToAggregate() words it (duplicates dropped;
// one error alone, else "[a, b]"), but with at most Shown errors, each cut to LineBytes, then
// "... and N more", and built in time linear in the list: apimachinery's aggregate appends each
// message to the string so far, quadratic in their number (lint of a DaemonSet with 20,000
// invalid tolerations did not end in 10 s; issue 25, F14). nil when errs is empty. It unwraps to
// every error of errs, duplicates dropped.
func Aggregate(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(errs))
	a := aggregate{}
	for _, e := range errs {
		msg := e.Error()
		if seen[msg] {
			continue
		}
		seen[msg] = true
		a.errs = append(a.errs, e)
		if len(a.msgs) < Shown {
			a.msgs = append(a.msgs, Cut(msg, LineBytes))
		}
	}
	return a
}

type aggregate struct {
	errs []error
	msgs []string // the first Shown messages, cut
}

func (a aggregate) Error() string {
	if len(a.errs) == 1 {
		return a.msgs[0]
	}
	s := "[" + strings.Join(a.msgs, ", ")
	if more := len(a.errs) - len(a.msgs); more > 0 {
		s += fmt.Sprintf(", ... and %d more", more)
	}
	return s + "]"
}

func (a aggregate) Unwrap() []error { return a.errs }

// CompareNatural compares a and b as strings, except that runs of digits compare by their
// number, so that field paths sort by index: tolerations[9] before tolerations[10] and
// tolerations[99] (as strings they sort [0], [10000], [1008], ..., [9]).
// Strings of equal numbers ("x01", "x1") compare as strings.
func CompareNatural(a, b string) int {
	return cmp.Or(compareNatural(a, b), strings.Compare(a, b))
}

func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
