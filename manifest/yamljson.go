package manifest

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// yamlConv converts YAML documents to JSON, writing into buffers it reuses from one document to
// the next. It converts directly only the YAML kubectl prints: block mappings and sequences
// whose scalars are plain, or quoted on one line, or literal blocks (|, |-), and the empty flow
// collections {} and []. Anything else (anchors, aliases, tags, flow collections, scalars on
// several lines, comments, tabs, keys that are not strings, a key given twice, any syntax error)
// goes to sigs.k8s.io/yaml's strict conversion, which gives the same JSON or the same error:
// its goyaml.v2 decoding into map[interface{}]interface{}, the conversion and json.Marshal were
// four fifths of what the reader allocated on a YAML dump (issue 25, item 6).
// FuzzYAMLToJSON checks that the two agree byte for byte on what is converted directly.
//
// A yamlConv is used by one goroutine at a time; the JSON it returns is valid until its next call.
type yamlConv struct {
	src   []byte
	pos   int // the start of the line not yet read
	out   []byte
	keys  []byte      // the keys of the mappings being written, decoded, for sorting
	ents  []convEntry // the entries of the mappings being written
	tmp   []byte      // for reordering a mapping's entries
	str   []byte      // a quoted scalar, decoded
	depth int
}

// convEntry is one entry of a mapping written to out: its decoded key in keys and its JSON
// ("key":value) in out.
type convEntry struct {
	key0, key1 int
	out0, out1 int
}

// convMaxDepth bounds the nesting converted directly: deeper documents go to sigs.k8s.io/yaml.
// Reordering a mapping's entries copies it once per level.
const convMaxDepth = 64

// convKeyMax is the length from which a key goes to sigs.k8s.io/yaml: YAML limits a simple key
// to 1,024 characters, and goyaml.v2 counts them its own way.
const convKeyMax = 1000

// toJSON returns the JSON of the YAML document data as yaml.YAMLToJSONStrict returns it, or its
// error. The JSON is c's buffer, valid until c's next call.
func (c *yamlConv) toJSON(data []byte) ([]byte, error) {
	if js, ok := c.convert(data); ok {
		return js, nil
	}
	return yaml.YAMLToJSONStrict(data)
}

// yamlToJSON is yaml.YAMLToJSONStrict, converting directly what yamlConv converts, into a
// buffer of its own.
func yamlToJSON(data []byte) ([]byte, error) {
	c := yamlConv{out: make([]byte, 0, len(data)+len(data)/8+16)}
	return c.toJSON(data)
}

// convert converts data directly; ok is false when data is not in the subset converted
// directly, or is not YAML.
func (c *yamlConv) convert(data []byte) (js []byte, ok bool) {
	if !convText(data) {
		return nil, false
	}
	c.src, c.pos, c.depth = data, 0, 0
	c.out, c.keys, c.ents = c.out[:0], c.keys[:0], c.ents[:0]
	defer func() { c.src = nil }()
	ls, indent := c.peek()
	if ls < 0 || indent != 0 {
		return nil, false
	}
	if !c.mapping(ls, 0) {
		return nil, false
	}
	if ls, _ := c.peek(); ls >= 0 {
		return nil, false // not all read
	}
	return c.out, true
}

// convText reports whether data holds only characters converted directly: line feeds, printable
// ASCII, and UTF-8 that YAML 1.1 reads as printable and not as a line break; no line starts a
// document marker.
func convText(data []byte) bool {
	for i := 0; i < len(data); {
		b := data[i]
		if b < utf8.RuneSelf {
			if b != '\n' && (b < 0x20 || b == 0x7f) {
				return false
			}
			if (i == 0 || data[i-1] == '\n') && (bytes.HasPrefix(data[i:], []byte("---")) || bytes.HasPrefix(data[i:], []byte("..."))) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r >= 0xd800 && r < 0xe000, r == 0xfffe, r == 0xffff:
			return false
		}
		i += size
	}
	return true
}

// peek returns the start and indentation of the next line that is not blank, -1 at the end.
// Blank lines are skipped.
func (c *yamlConv) peek() (start, indent int) {
	for p := c.pos; p < len(c.src); {
		i := p
		for i < len(c.src) && c.src[i] == ' ' {
			i++
		}
		if i < len(c.src) && c.src[i] != '\n' {
			c.pos = p
			return p, i - p
		}
		p = i + 1
	}
	c.pos = len(c.src)
	return -1, 0
}

// lineEnd returns the end of the line holding i, its line feed excluded.
func (c *yamlConv) lineEnd(i int) int {
	if j := bytes.IndexByte(c.src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(c.src)
}

// nextLine moves past the line holding i.
func (c *yamlConv) nextLine(i int) {
	end := c.lineEnd(i)
	if end < len(c.src) {
		end++
	}
	c.pos = end
}

// mapping writes the block mapping whose first key starts at at, in column indent.
func (c *yamlConv) mapping(at, indent int) bool {
	if c.depth++; c.depth > convMaxDepth {
		return false
	}
	defer func() { c.depth-- }()
	base, keyBase := len(c.ents), len(c.keys)
	c.out = append(c.out, '{')
	for first := true; ; first = false {
		if !first {
			ls, ind := c.peek()
			if ls < 0 || ind < indent {
				break
			}
			if ind > indent {
				return false
			}
			at = ls + ind
		}
		if !first {
			c.out = append(c.out, ',')
		}
		if !c.entry(at, indent) {
			return false
		}
	}
	c.out = append(c.out, '}')
	ok := c.sortEntries(base)
	c.ents, c.keys = c.ents[:base], c.keys[:keyBase]
	return ok
}

// entry writes the mapping entry whose key starts at at, in a mapping of column indent.
func (c *yamlConv) entry(at, indent int) bool {
	end := c.lineEnd(at)
	line := c.src[at:end]
	key0 := len(c.keys)
	var colon int // of the key's ':' in line
	switch line[0] {
	case '"', '\'':
		n, ok := c.quoted(line)
		if !ok || n >= len(line) || line[n] != ':' {
			return false
		}
		c.keys = append(c.keys, c.str...)
		colon = n
	default:
		colon = plainKeyEnd(line)
		if colon < 0 || !plainStart(line) || line[colon-1] == ' ' {
			return false
		}
		key := line[:colon]
		if resolvesTo(key) != convString || string(key) == "<<" {
			return false // a key that is not a string, or a merge
		}
		c.keys = append(c.keys, key...)
	}
	if colon > convKeyMax {
		return false
	}
	ent := convEntry{key0: key0, key1: len(c.keys), out0: len(c.out)}
	c.out = appendJSONString(c.out, c.keys[key0:])
	c.out = append(c.out, ':')
	rest := line[colon+1:]
	if len(rest) > 0 && rest[0] != ' ' {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	if len(rest) == 0 {
		if !c.nested(end, indent) {
			return false
		}
	} else if !c.value(rest, end, indent) {
		return false
	}
	ent.out1 = len(c.out)
	c.ents = append(c.ents, ent)
	return true
}

// nested writes the value of a key with nothing after its ':' on the line ending at end, in a
// mapping of column indent: what the next lines hold, or null.
func (c *yamlConv) nested(end, indent int) bool {
	c.nextLine(end)
	ls, ind := c.peek()
	switch {
	case ls < 0 || ind < indent:
		c.out = append(c.out, "null"...)
		return true
	case ind == indent && !seqEntry(c.src[ls+ind:]):
		c.out = append(c.out, "null"...)
		return true
	case seqEntry(c.src[ls+ind:]):
		return c.sequence(ind)
	}
	return c.mapping(ls+ind, ind)
}

// value writes the scalar or empty collection rest, the end of the line ending at end, in a
// block of column indent, and moves past it.
func (c *yamlConv) value(rest []byte, end, indent int) bool {
	switch rest[0] {
	case '|':
		return c.literal(rest, end, indent)
	case '"', '\'':
		n, ok := c.quoted(rest)
		if !ok || len(bytes.TrimRight(rest[n:], " ")) > 0 {
			return false
		}
		c.out = appendJSONString(c.out, c.str)
	case '{', '[':
		switch string(bytes.TrimRight(rest, " ")) {
		case "{}", "[]":
			c.out = append(c.out, rest[:2]...)
		default:
			return false
		}
	default:
		if !plainStart(rest) || plainKeyEnd(rest) >= 0 || bytes.Contains(rest, []byte(" #")) {
			return false
		}
		if !c.plain(bytes.TrimRight(rest, " ")) {
			return false
		}
	}
	c.nextLine(end)
	// A more indented line would continue the scalar, or be an error.
	ls, ind := c.peek()
	return ls < 0 || ind <= indent
}

// sequence writes the block sequence whose entries ("- ") start lines in column indent.
func (c *yamlConv) sequence(indent int) bool {
	if c.depth++; c.depth > convMaxDepth {
		return false
	}
	defer func() { c.depth-- }()
	c.out = append(c.out, '[')
	for first := true; ; first = false {
		ls, ind := c.peek()
		if ls < 0 || ind < indent || ind == indent && !seqEntry(c.src[ls+ind:]) {
			break
		}
		if ind > indent {
			return false
		}
		if !first {
			c.out = append(c.out, ',')
		}
		at := ls + ind + 1
		end := c.lineEnd(at)
		if at >= end {
			return false // "-" alone: the entry on the next lines
		}
		for at < end && c.src[at] == ' ' {
			at++
		}
		rest := c.src[at:end]
		switch {
		case len(rest) == 0 || seqEntry(rest):
			return false
		case isKey(rest):
			if !c.mapping(at, at-ls) {
				return false
			}
		case rest[0] == '|':
			return false
		default:
			if !c.value(rest, end, indent) {
				return false
			}
		}
	}
	c.out = append(c.out, ']')
	return true
}

// seqEntry reports whether b starts a block sequence entry: "-" then a space or the line's end.
func seqEntry(b []byte) bool {
	return len(b) > 0 && b[0] == '-' && (len(b) == 1 || b[1] == ' ' || b[1] == '\n')
}

// isKey reports whether the line rest starts a mapping entry: a quoted scalar then ':', or a
// plain one ended by ": " or a ':' ending the line.
func isKey(rest []byte) bool {
	switch rest[0] {
	case '"', '\'':
		// A quoted key: its end is found by quoted; a quoted scalar alone is a value.
		q := rest[0]
		for i := 1; i < len(rest); i++ {
			switch {
			case q == '"' && rest[i] == '\\':
				i++
			case rest[i] == q && q == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
				i++
			case rest[i] == q:
				return i+1 < len(rest) && rest[i+1] == ':'
			}
		}
		return false
	}
	return plainKeyEnd(rest) >= 0
}

// plainKeyEnd returns the index of the ':' ending the plain key at the start of line, -1 if
// none: the first ": ", or a ':' ending the line, before any " #".
func plainKeyEnd(line []byte) int {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ':':
			if i+1 == len(line) || line[i+1] == ' ' {
				return i
			}
		case '#':
			if i > 0 && line[i-1] == ' ' {
				return -1
			}
		}
	}
	return -1
}

// plainStart reports whether b starts with a character that starts a plain scalar here: not an
// indicator, nor '-' before a space.
func plainStart(b []byte) bool {
	switch c := b[0]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c >= utf8.RuneSelf:
		return true
	case c == '-':
		return len(b) > 1 && b[1] != ' '
	}
	return strings.IndexByte("/._$(~+=<", b[0]) >= 0
}

// sortEntries puts the entries of the mapping from ents[base] in the order of their keys, as
// json.Marshal writes a map, and reports false if a key is given twice (an error of the strict
// conversion).
func (c *yamlConv) sortEntries(base int) bool {
	ents := c.ents[base:]
	if len(ents) < 2 {
		return true
	}
	key := func(e convEntry) []byte { return c.keys[e.key0:e.key1] }
	sorted := true
	for i := 1; i < len(ents); i++ {
		switch bytes.Compare(key(ents[i-1]), key(ents[i])) {
		case 0:
			return false
		case 1:
			sorted = false
		}
	}
	if sorted {
		return true
	}
	start, end := ents[0].out0, ents[len(ents)-1].out1
	c.tmp = append(c.tmp[:0], c.out[start:end]...)
	order := slices.Clone(ents)
	slices.SortFunc(order, func(a, b convEntry) int { return bytes.Compare(key(a), key(b)) })
	for i := 1; i < len(order); i++ {
		if bytes.Equal(key(order[i-1]), key(order[i])) {
			return false
		}
	}
	w := c.out[:start]
	for i, e := range order {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, c.tmp[e.out0-start:e.out1-start]...)
	}
	c.out = append(w, c.out[end:]...) // the closing '}'
	return true
}
