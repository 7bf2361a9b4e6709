// Package printable keeps names and values read from input on one printable line: a node named
// "x\ny" would otherwise forge a line of output, and a terminal escape would reach the
// terminal.
package printable

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Quote returns s unchanged when every rune of it is printable and not a space other than
// ' ' (letters, marks, numbers, punctuation, symbols), and otherwise s in Go double-quoted
// form, escapes visible ("x\ny" reads "x\ny" with a backslash). The empty string is unchanged.
func Quote(s string) string {
	if Safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// Safe reports whether s is valid UTF-8 and every rune is graphic (unicode.IsGraphic) and no
// space other than ' ': what Quote leaves unchanged.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// Escape returns s with every rune Safe refuses written as its Go escape (\n, \x1b, \u202e),
// without quotes: for a whole line of output, such as an error message, whose parts were not
// all quoted.
func Escape(s string) string {
	if Safe(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = fmt.Appendf(b, `\x%02x`, s[i])
		case r == ' ' || r >= ' ' && r < utf8.RuneSelf && r != 0x7f || r >= utf8.RuneSelf && unicode.IsGraphic(r) && !unicode.IsSpace(r):
			b = append(b, s[i:i+size]...)
		default:
			q := strconv.QuoteRune(r) // '\n', '\u202e'
			b = append(b, q[1:len(q)-1]...)
		}
		i += size
	}
	return string(b)
}
