package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonSplit is the state of splitJSON: jsonValueEnd over a stream, one top-level value after
// the other, and the items of an "items" array of a top-level object (what kubectl -o json and
// the API server print) diverted to a streamedList.
type jsonSplit struct {
	in       bool // inside a top-level value
	depth    int
	inString bool
	escaped  bool
	first    byte // the value's first byte

	key      []byte // the string being read at depth 1, or the last one
	keyStart byte   // the significant byte before it
	isKey    bool   // the last string at depth 1 was a key
	sig      byte   // the last significant byte at depth 1 outside strings

	items     bool // inside the items array (depth 2 and more)
	expecting byte // in the items array at depth 2: 'v' an item or ']', 'i' an item, ',' a comma or ']'
}

// splitJSON splits a JSON stream as splitJSON does, decoding each value (and the items of
// lists) as it ends.
func (s *splitter) splitJSON(br *bufio.Reader) error {
	var st jsonSplit
	for {
		chunk, err := br.ReadSlice('\n')
		for i := 0; i < len(chunk); i++ {
			if k := s.jsonRun(&st, chunk[i:]); k > 0 {
				i += k - 1
				continue
			}
			if ferr := s.jsonByte(&st, chunk[i]); ferr != nil {
				return ferr
			}
			s.off++
		}
		if s.list != nil && s.list.pastBound() {
			if err := s.itemTooLarge(); err != nil {
				return err
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if !errors.Is(err, io.EOF) {
				return fmt.Errorf("%s: %w", s.name, pathErr(err))
			}
			break
		}
	}
	if st.in {
		return s.endJSON(&st, s.off)
	}
	return nil
}

// jsonPlain[c] is whether the byte c, outside strings, leaves the state of a jsonSplit as it
// is below depth 1: neither a quote nor a bracket.
var jsonPlain = func() (t [256]bool) {
	for c := range 256 {
		t[c] = !strings.ContainsRune(`"{}[]`, rune(c))
	}
	return t
}()

// jsonRun takes, at once, the bytes at the start of b that jsonByte would only append to the
// value (or the item) being read, and returns how many; 0 when b[0] needs jsonByte. Taking
// them a byte at a time was half of the reader's CPU on kubectl -o json.
func (s *splitter) jsonRun(st *jsonSplit, b []byte) int {
	if !st.in || st.escaped || st.depth < 2 && !(st.inString && st.depth == 0) || st.depth == 2 && st.items && !st.inString {
		return 0
	}
	l := s.list
	k := 0
	if st.inString {
		// Strings are most of the text: two vectorised searches rather than a loop.
		k = bytes.IndexByte(b, '"')
		if k < 0 {
			k = len(b)
		}
		if e := bytes.IndexByte(b[:k], '\\'); e >= 0 {
			k = e
		}
	} else {
		for k < len(b) && jsonPlain[b[k]] {
			k++
		}
	}
	if k == 0 {
		return 0
	}
	run := b[:k]
	if run[k-1] == '\n' {
		// splitJSON's chunks are lines (bufio.Reader.ReadSlice('\n')): a run holds a newline
		// only as its last byte. Counting them over the run was 5% of the reader's CPU on
		// kubectl -o json.
		s.n++
	}
	s.off += int64(k)
	switch {
	case l != nil && l.fallback:
	case st.items:
		l.grow(s, run...)
	case l != nil:
		s.doc = append(s.doc, run...)
	default:
		s.grow(run...)
	}
	return k
}

// jsonByte takes the byte c at offset s.off.
func (s *splitter) jsonByte(st *jsonSplit, c byte) error {
	if !st.in {
		if isJSONSpace(c) {
			if c == '\n' {
				s.n++
			}
			if s.docs == 0 && s.off >= int64(s.r.opts.Limits.ObjectBytes) {
				// Spaces before the first value past the bound are refused, as a document of
				// blank lines is in YAML (blankTooLarge): a stream that may be JSON is then
				// refused at the bound whatever it is (readJSONHead).
				return s.blankTooLarge()
			}
			return nil
		}
		*st = jsonSplit{in: true, first: c}
		s.docStart, s.start = s.off, s.n+1
	}
	if c == '\n' {
		s.n++
	}
	switch l := s.list; {
	case l != nil && l.fallback:
	case st.items && st.depth == 2 && !st.inString && c == ']' && st.expecting != 'i':
		// The end of the items: the wrapper holds "items": [] already.
	case st.items:
		if err := s.itemByte(st, c); err != nil {
			return err
		}
	case l != nil:
		s.doc = append(s.doc, c) // the list's own fields
	default:
		s.grow(c)
	}
	switch {
	case st.inString:
		switch {
		case st.escaped:
			st.escaped = false
		case c == '\\':
			st.escaped = true
		case c == '"':
			st.inString = false
			if st.depth == 1 {
				st.isKey = st.keyStart == '{' || st.keyStart == ','
			}
			if st.depth == 0 {
				return s.endJSON(st, s.off+1)
			}
		default:
			if st.depth == 1 {
				st.key = append(st.key, c)
			}
		}
		return nil
	case c == '"':
		st.inString = true
		if st.depth == 1 {
			st.key, st.keyStart = st.key[:0], st.sig
		}
	case c == '{' || c == '[':
		if st.depth == 1 && c == '[' && st.sig == ':' && st.isKey && string(st.key) == "items" && st.first == '{' && s.list == nil && !s.big {
			st.items, st.expecting = true, 'v'
			s.list = &streamedList{items: []listItem{{}}, pending: map[int][]byte{}, doc: s.docs + 1, json: true}
			s.doc = append(s.doc, ']') // the wrapper holds "items": []
			// A list whose kind comes before its items (as the API server prints it) gives
			// the items theirs now.
			s.list.header(s, append(bytes.Clone(s.doc), '}'))
		}
		st.depth++
	case c == '}' || c == ']':
		st.depth--
		if st.depth == 1 && st.items {
			st.items = false
		}
		if st.depth <= 0 {
			return s.endJSON(st, s.off+1)
		}
	case st.depth == 0 && (isJSONSpace(c) || c == ','):
		if s.off == s.docStart {
			return s.endJSON(st, s.off+1)
		}
		if err := s.endJSON(st, s.off); err != nil {
			return err
		}
		if c == ',' { // the start of the next value, as jsonValueEnd reads it
			return s.jsonByte(st, c)
		}
		return nil
	}
	if st.depth == 1 && !isJSONSpace(c) {
		st.sig = c
	}
	return nil
}

// itemByte takes a byte inside the items array: an item's, or what separates them.
func (s *splitter) itemByte(st *jsonSplit, c byte) error {
	l := s.list
	if st.depth > 2 || st.inString {
		l.grow(s, c)
		if st.depth == 3 && !st.inString && c == '}' {
			// The item ends here (depth drops to 2 after this byte).
			if err := l.endItem(s); err != nil {
				return err
			}
			st.expecting = ','
		}
		return nil
	}
	switch {
	case isJSONSpace(c):
	case c == '{' && st.expecting != ',':
		l.item = l.newItem(512)
		l.grow(s, c)
	case c == ',' && st.expecting == ',':
		st.expecting = 'i'
	default:
		l.fallback = true // not a list of objects as kubectl prints it
	}
	return nil
}

// endItem ends an item of a JSON list.
func (l *streamedList) endItem(s *splitter) error { return l.end(s) }

// endJSON ends the top-level value at end.
func (s *splitter) endJSON(st *jsonSplit, end int64) error {
	st.in = false
	if s.list != nil {
		if st.items {
			s.list.fallback = true // the value does not end
		}
		s.list.wrapper = bytes.TrimRight(s.doc, " \t\r\n")
		return s.flushDoc(end)
	}
	s.doc = bytes.TrimRight(s.doc[:min(int64(len(s.doc)), end-s.docStart)], " \t\r\n")
	defer func() { s.doc, s.shaped, s.big = nil, false, false }()
	return s.queue(document{data: s.doc, json: true, line: s.start})
}
