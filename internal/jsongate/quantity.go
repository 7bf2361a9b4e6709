package jsongate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Oversized says why s, the text of a resource quantity, must not be parsed, or "" when
// it may. It reads s as resource.Quantity's UnmarshalJSON does: white space trimmed
// (strings.TrimSpace, Unicode spaces too), then ParseQuantity's form, a sign, digits, an
// optional fraction, a suffix of the letters eEinumkKMGTP, a sign and digits. Text of another
// form passes: ParseQuantity refuses it in one linear scan. Text of that form is refused when
// longer than Limits.Length, or when its suffix is an exponent (e or E and an integer,
// read as strconv.ParseInt reads it) beyond ±Limits.Exponent.
//
// The message names the bound ("a quantity with an exponent beyond ±100"), then the option
// that sets it when lim names one ("(limit QuantityExponent)").
func Oversized[T string | []byte](s T, lim Limits) string {
	_, problem := oversized(s, lim)
	return problem
}

// oversized is Oversized, and which bound s passes.
func oversized[T string | []byte](s T, lim Limits) (Limit, string) {
	t := trimSpace(s)
	suffix, ok := quantityForm(t)
	if !ok {
		return 0, ""
	}
	if len(t) > lim.Length {
		return LimitLength, fmt.Sprintf("a quantity longer than %d characters", lim.Length) + option(lim.LengthOption)
	}
	if exp, ok := exponent(t[suffix:]); ok && exp > lim.Exponent {
		return LimitExponent, fmt.Sprintf("a quantity with an exponent beyond ±%d", lim.Exponent) + option(lim.ExponentOption)
	}
	return 0, ""
}

// option is the note that names the setting of a bound, or "" when there is none.
func option(name string) string {
	if name == "" {
		return ""
	}
	return " (limit " + name + ")"
}

// quantityForm reports whether t has the form ParseQuantity reads (its parseQuantityString),
// and where its suffix starts: [+-]?[0-9]*(\.[0-9]*)?[eEinumkKMGTP]*[+-]?[0-9]*. The digits may
// be missing: ParseQuantity reads "e-5" and "+.m" too, as zero or as an error after the
// suffix is read.
func quantityForm[T string | []byte](t T) (suffix int, ok bool) {
	i, n := 0, len(t)
	if i < n && (t[i] == '+' || t[i] == '-') {
		i++
	}
	for i < n && isDigit(t[i]) {
		i++
	}
	if i < n && t[i] == '.' {
		i++
		for i < n && isDigit(t[i]) {
			i++
		}
	}
	suffix = i
	for i < n && isSuffixLetter(t[i]) {
		i++
	}
	if i < n && (t[i] == '+' || t[i] == '-') {
		i++
	}
	for i < n && isDigit(t[i]) {
		i++
	}
	return suffix, i == n
}

// isSuffixLetter reports whether c is one of the letters of a quantity's suffix.
func isSuffixLetter(c byte) bool {
	switch c {
	case 'e', 'E', 'i', 'n', 'u', 'm', 'k', 'K', 'M', 'G', 'T', 'P':
		return true
	}
	return false
}

// exponent returns the magnitude of the exponent of the suffix s ("e-9", "E+12"), capped at
// 1<<30, or false when ParseQuantity reads s as no exponent: one of its units ("E" is exa,
// "Ei" exbi), or a suffix it refuses. Like strconv.ParseInt, it takes a sign and decimal
// digits; a value beyond int64, which ParseInt refuses, counts as huge.
func exponent[T string | []byte](s T) (int, bool) {
	if len(s) < 2 || s[0] != 'e' && s[0] != 'E' {
		return 0, false
	}
	j := 1
	if s[j] == '+' || s[j] == '-' {
		j++
	}
	if j == len(s) {
		return 0, false
	}
	exp := 0
	for ; j < len(s); j++ {
		if !isDigit(s[j]) {
			return 0, false
		}
		exp = min(exp*10+int(s[j]-'0'), 1<<30)
	}
	return exp, true
}

// trimSpace trims s as strings.TrimSpace does, without copying s unless an edge holds a
// character beyond ASCII.
func trimSpace[T string | []byte](s T) T {
	start, end := 0, len(s)
	for start < end && isASCIISpace(s[start]) {
		start++
	}
	for end > start && isASCIISpace(s[end-1]) {
		end--
	}
	if start < end && (s[start] >= utf8.RuneSelf || s[end-1] >= utf8.RuneSelf) {
		return T(strings.TrimSpace(string(s[start:end])))
	}
	return s[start:end]
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// hasOversizedNumber reports whether a string or number of the JSON text data is a quantity
// oversizedQuantity refuses. Strings with escapes are unescaped first ("\u0031e9999" is
// 1e9999 to the decoder).
func hasOversizedNumber(data []byte, lim Limits) bool {
	for i := 0; i < len(data); i++ {
		for i < len(data) && !numberStart[data[i]] {
			i++ // spaces, punctuation, literals: most of the bytes outside strings
		}
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '"':
			j, escaped := stringEnd(data, i)
			if j >= len(data) {
				return false
			}
			if escaped && mayBeQuantity(data[i+1:j]) {
				var s string
				if err := json.Unmarshal(data[i:j+1], &s); err != nil || Oversized(s, lim) != "" {
					return true // the walk decides
				}
			} else if Oversized(data[i+1:j], lim) != "" {
				return true
			}
			i = j
		case c == '-' || isDigit(c):
			j := i
			for j < len(data) && (isDigit(data[j]) || data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] == '+' || data[j] == '-') {
				j++
			}
			if Oversized(data[i:j], lim) != "" {
				return true
			}
			i = j - 1
		}
	}
	return false
}

// mayBeQuantity reports whether raw, the text between the quotes of a JSON string holding an
// escape, may unescape to a quantity Oversized refuses, without unescaping it: false when a
// byte outside the escapes is ASCII and neither a space nor a character of a quantity's form,
// and every escape is well formed (json.Unmarshal would then unescape raw to text that is not
// a quantity's form, which Oversized passes). Any doubt (a control byte, a malformed escape)
// is true, and the unescaping decides. Unescaping every such string was 3 allocations and a
// second scan for each of the escaped strings of a kubectl dump (annotations holding JSON).
func mayBeQuantity(raw []byte) bool {
	ruledOut := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '\\':
			k := escapeLen(raw[i:])
			if k == 0 {
				return true
			}
			i += k - 1
		case c < 0x20:
			return true // invalid in a JSON string: json.Unmarshal's error decides
		case c >= utf8.RuneSelf || isASCIISpace(c) || isDigit(c) || isSuffixLetter(c) || c == '+' || c == '-' || c == '.':
		default:
			ruledOut = true
		}
	}
	return !ruledOut
}

// escapeLen returns the length of the well-formed JSON escape at the start of b (a backslash
// and one of "\\/bfnrt, or u and 4 hexadecimal digits), or 0 when it is malformed.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !isDigit(h) && !('a' <= h && h <= 'f') && !('A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// stringEnd returns the index of the quote that closes the JSON string opening at data[i], or
// len(data) when none does, and whether the string holds an escape (a quote after a backslash
// does not close it).
func stringEnd(data []byte, i int) (j int, escaped bool) {
	// Strings are most of a manifest's text: vectorised searches, not a loop over its bytes.
	for j = i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return len(data), escaped || bytes.IndexByte(data[j:], '\\') >= 0
		}
		b := bytes.IndexByte(data[j:j+k], '\\')
		if b < 0 {
			return j + k, escaped
		}
		escaped = true
		j += b + 2 // past the backslash and the byte it escapes
		if j >= len(data) {
			return len(data), true
		}
	}
}

// numberStart[c] is whether hasOversizedNumber looks at the byte c outside strings: a quote
// or the start of a number.
var numberStart = func() (t [256]bool) {
	for _, c := range []byte(`"-0123456789`) {
		t[c] = true
	}
	return t
}()
