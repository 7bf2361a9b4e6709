package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The scalars of yamlConv: quoted and literal ones decoded, plain ones resolved as goyaml.v2
// resolves them, and strings written as json.Marshal writes them.

// quoted decodes the quoted scalar at the start of b, on one line, into c.str, and returns its
// length with the quotes.
func (c *yamlConv) quoted(b []byte) (n int, ok bool) {
	c.str = c.str[:0]
	q := b[0]
	for i := 1; i < len(b); i++ {
		switch ch := b[i]; {
		case ch == q && q == '\'':
			if i+1 < len(b) && b[i+1] == '\'' {
				c.str = append(c.str, '\'')
				i++
				continue
			}
			return i + 1, true
		case ch == q:
			return i + 1, true
		case ch == '\\' && q == '"':
			if i+1 >= len(b) {
				return 0, false // a line continued
			}
			i++
			var code int
			switch b[i] {
			case '0':
				c.str = append(c.str, 0)
			case 'a':
				c.str = append(c.str, 7)
			case 'b':
				c.str = append(c.str, 8)
			case 't':
				c.str = append(c.str, 9)
			case 'n':
				c.str = append(c.str, 10)
			case 'v':
				c.str = append(c.str, 11)
			case 'f':
				c.str = append(c.str, 12)
			case 'r':
				c.str = append(c.str, 13)
			case 'e':
				c.str = append(c.str, 27)
			case ' ', '"', '\'', '\\':
				c.str = append(c.str, b[i])
			case 'N':
				c.str = utf8.AppendRune(c.str, 0x85)
			case '_':
				c.str = utf8.AppendRune(c.str, 0xa0)
			case 'L':
				c.str = utf8.AppendRune(c.str, 0x2028)
			case 'P':
				c.str = utf8.AppendRune(c.str, 0x2029)
			case 'x':
				code = 2
			case 'u':
				code = 4
			case 'U':
				code = 8
			default:
				return 0, false
			}
			if code > 0 {
				if i+code >= len(b) {
					return 0, false
				}
				v, err := strconv.ParseUint(string(b[i+1:i+1+code]), 16, 32)
				if err != nil || v >= 0xd800 && v <= 0xdfff || v > 0x10ffff || b[i+1] == '+' {
					return 0, false
				}
				c.str = utf8.AppendRune(c.str, rune(v))
				i += code
			}
		default:
			c.str = append(c.str, ch)
		}
	}
	return 0, false // not closed on its line
}

// literal writes the literal block scalar whose header ("|" or "|-") is rest, ending the line at
// end, in a mapping of column indent.
func (c *yamlConv) literal(rest []byte, end, indent int) bool {
	var strip bool
	switch string(bytes.TrimRight(rest, " ")) {
	case "|":
	case "|-":
		strip = true
	default:
		return false
	}
	c.nextLine(end)
	// The content's indentation is its first line's, which must be more than the mapping's:
	// leading blank lines go to sigs.k8s.io/yaml.
	p := c.pos
	k := 0
	for p+k < len(c.src) && c.src[p+k] == ' ' {
		k++
	}
	if k <= indent || p+k >= len(c.src) || c.src[p+k] == '\n' {
		return false
	}
	c.str = c.str[:0]
	breaks := 0 // line feeds not yet written
	for p < len(c.src) {
		e := c.lineEnd(p)
		line := c.src[p:e]
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		switch {
		case sp > 0 && sp == len(line):
			return false // spaces alone: sigs.k8s.io/yaml decides
		case sp == 0 && len(line) == 0:
			breaks++ // an empty line
		case sp < k:
			goto done
		default:
			for range breaks {
				c.str = append(c.str, '\n')
			}
			c.str = append(c.str, line[k:]...)
			if e == len(c.src) {
				return false // no line feed at the end
			}
			breaks = 1
		}
		p = e
		if p < len(c.src) {
			p++
		}
	}
done:
	// Clip keeps the last line feed of the content, strip none; blank lines after it are not
	// content.
	if !strip {
		c.str = append(c.str, '\n')
	}
	c.pos = p
	if p < len(c.src) && c.src[p-1] != '\n' {
		return false
	}
	c.out = appendJSONString(c.out, c.str)
	ls, ind := c.peek()
	return ls < 0 || ind <= indent
}

// The kinds of value a plain scalar resolves to, for keys.
const (
	convString = iota
	convOther
)

// resolvesTo tells whether the plain scalar s resolves to a string, as goyaml.v2 resolves it.
func resolvesTo(s []byte) int {
	if lit, ok := resolvePlain(s); ok && lit == "" {
		return convString
	}
	return convOther
}

// plain writes the plain scalar s as goyaml.v2 resolves it and json.Marshal writes it.
func (c *yamlConv) plain(s []byte) bool {
	lit, ok := resolvePlain(s)
	if !ok {
		return false
	}
	if lit == "" {
		c.out = appendJSONString(c.out, s)
	} else {
		c.out = append(c.out, lit...)
	}
	return true
}

// resolvePlain returns the JSON of the plain scalar s when it resolves to a null, a boolean or
// a number, as goyaml.v2's resolve does it (YAML 1.1: yes/no/on/off, 0x, 0o, 0b and octal
// integers, underscores, .inf), "" when it resolves to a string (a timestamp stays its text,
// as sigs.k8s.io/yaml keeps it); ok is false for what JSON cannot write (.inf, .nan).
func resolvePlain(s []byte) (lit string, ok bool) {
	if len(s) == 0 {
		return "null", true
	}
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch string(s) {
		case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
			return "true", true
		case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
			return "false", true
		case "~", "null", "Null", "NULL":
			return "null", true
		}
		return "", true
	case '.':
		switch string(s) {
		case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
			return "", false
		}
		if f, err := strconv.ParseFloat(string(s), 64); err == nil {
			return jsonFloat(f)
		}
		return "", true
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return "", true
	}
	switch string(s) {
	case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "", false
	}
	if onlyDigits(s) && len(s) < 19 && (s[0] != '0' || len(s) == 1) {
		return string(s), true // the common case: a decimal integer as it is written
	}
	in := string(s)
	if parseTimestampLike(in) {
		return "", true
	}
	p := strings.ReplaceAll(in, "_", "")
	if v, err := strconv.ParseInt(p, 0, 64); err == nil {
		return strconv.FormatInt(v, 10), true
	}
	if v, err := strconv.ParseUint(p, 0, 64); err == nil {
		return strconv.FormatUint(v, 10), true
	}
	if yamlFloat(p) {
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			return jsonFloat(f)
		}
	}
	if rest, ok := strings.CutPrefix(p, "0b"); ok {
		if v, err := strconv.ParseInt(rest, 2, 64); err == nil {
			return strconv.FormatInt(v, 10), true
		}
		if v, err := strconv.ParseUint(rest, 2, 64); err == nil {
			return strconv.FormatUint(v, 10), true
		}
	} else if rest, ok := strings.CutPrefix(p, "-0b"); ok {
		if v, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
			return strconv.FormatInt(v, 10), true
		}
	}
	return "", true
}

// onlyDigits reports whether s is decimal digits only.
func onlyDigits(s []byte) bool {
	for _, b := range s {
		if b < '0' || b > '9' {
			return false
		}
	}
	return len(s) > 0
}

// parseTimestampLike reports whether goyaml.v2 reads s as a timestamp, which it keeps as its
// text: four digits then '-', and a date (and time) its formats parse. Such text is never a
// number either, so only the question matters, not the time.
func parseTimestampLike(s string) bool {
	return len(s) > 4 && onlyDigits([]byte(s[:4])) && s[4] == '-'
}

// yamlFloat reports whether s matches goyaml.v2's float syntax:
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func yamlFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// jsonFloat writes f as json.Marshal writes a float64; ok is false for infinities and NaN.
func jsonFloat(f float64) (string, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	b, err := json.Marshal(f)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// appendJSONString appends s as json.Marshal writes a string: HTML characters, U+2028 and
// U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
