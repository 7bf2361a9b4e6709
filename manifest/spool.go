package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// spool is a stream (stdin from a pipe) read as it is decoded: each chunk read is checked as a
// file is checked before it is decoded (the size limit, NUL bytes, UTF-8) and kept, so that a
// list read again whole (streamedList.finish) reads it from here (ReadAt). What it keeps is
// bounded by the input-size limit, and it fails as soon as a check fails: `yes -- --- |
// daemonsched plan -f -` read 1 GiB before it was decoded (issue 25), while the splitter, fed
// from here, refuses the run of empty documents after Limits.Objects of them.
//
// It reads text the first byte of which past spaces is known not to start a JSON stream (a
// JSON stream is one only if no line of the whole text starts with "---" or "...":
// isJSONStream), and is not UTF-16 (converted whole): open reads those whole, as before, a
// stream that may be JSON checked first through a spool for the bounds it may pass
// (readJSONHead).
type spool struct {
	r      io.Reader // the stream, to one byte past the limit
	limit  int64
	chunks [][]byte // the text read from base on, in chunks of spoolChunk bytes
	base   int64    // offset of chunks[0]: the text before it was released
	total  int64    // bytes read (and checked) into chunks
	pos    int64    // offset of the next Read
	err    error    // the first failure: of the stream, or of a check (sticky)

	lines int64  // newlines in the text checked
	carry []byte // an incomplete rune at the end of the text checked
}

func newSpool(r io.Reader, limit int64) *spool {
	return &spool{r: io.LimitReader(r, limit+1), limit: limit}
}

// Read reads the text in order, reading and checking the stream as it goes.
func (s *spool) Read(p []byte) (int, error) {
	for s.pos >= s.total {
		if s.err != nil {
			return 0, s.err
		}
		s.fill()
	}
	n, _ := s.ReadAt(p[:min(int64(len(p)), s.total-s.pos)], s.pos)
	s.pos += int64(n)
	return n, nil
}

// ReadAt reads the text already read and not released; an offset not yet read is the end of
// the text.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if off < s.base {
		return 0, errors.New("spool: text released") // never: release keeps the current document
	}
	off -= s.base
	n := 0
	for i := off / spoolChunk; i < int64(len(s.chunks)) && n < len(p); i++ {
		c := s.chunks[i]
		k := copy(p[n:], c[min(off-i*spoolChunk, int64(len(c))):])
		n, off = n+k, off+int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// spoolChunk is the size of a spool's chunks: what a stream refused for its size holds beyond
// the document being read.
const spoolChunk = 256 << 10

// release drops the chunks of text wholly before off, which the reading will not read again
// (the splitter releases what is before its current document): a stream is then held one
// document at a time, not whole.
func (s *spool) release(off int64) {
	for len(s.chunks) > 1 && s.base+int64(len(s.chunks[0])) <= off {
		s.base += int64(len(s.chunks[0]))
		s.chunks[0] = nil
		s.chunks = s.chunks[1:]
	}
}

// fill reads the next piece of the stream into the last chunk, and checks it.
func (s *spool) fill() {
	if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1]) == cap(s.chunks[len(s.chunks)-1]) {
		s.chunks = append(s.chunks, make([]byte, 0, spoolChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	k, err := s.r.Read((*last)[len(*last):cap(*last)])
	piece := (*last)[len(*last) : len(*last)+k]
	good, cerr := s.check(piece, errors.Is(err, io.EOF))
	*last = (*last)[:len(*last)+good]
	s.total += int64(good)
	switch {
	case s.total > s.limit:
		s.err = errInputBytes
	case cerr != nil:
		s.err = cerr
	case err != nil:
		s.err = err
	}
}

// check checks the next piece of text, as checkFile checks a file: a NUL byte and invalid
// UTF-8, with the line they are on. good is how many bytes of piece come before the first
// problem: those are kept and read, and the problem is met when the reading gets to it, as a
// stream read a byte at a time meets it (issue 25 item 4, review33 F10). A problem found in a
// piece was met at once, so a bound passed before it in the same piece (Limits.Objects) was
// named or not by how the stream was cut into reads.
func (s *spool) check(piece []byte, eof bool) (good int, err error) {
	nul := bytes.IndexByte(piece, 0)
	text := piece
	if nul >= 0 {
		text = piece[:nul]
	}
	probe := text
	if len(s.carry) > 0 {
		probe = append(s.carry, text...)
	}
	// A rune cut by the NUL is not judged: read a byte at a time, the NUL comes first.
	cut, off := utf8Cut(probe, eof && nul < 0)
	if nul >= 0 {
		// A NUL is named before invalid UTF-8 ahead of it in the same piece, as the check of
		// text held whole names it (binary, not text of another encoding); the text is
		// kept up to the first of the two.
		good = nul
		if off >= 0 {
			good = max(0, off-len(s.carry))
		}
		return good, fmt.Errorf("line %d: a NUL byte: not YAML or JSON text", s.lines+int64(bytes.Count(probe, []byte("\n")))+1)
	}
	if off >= 0 {
		return max(0, off-len(s.carry)), fmt.Errorf("line %d: invalid UTF-8 (byte 0x%02X)", s.lines+int64(bytes.Count(probe[:off], []byte("\n")))+1, probe[off])
	}
	s.lines += int64(bytes.Count(probe[:cut], []byte("\n")))
	s.carry = append(s.carry[:0], probe[cut:]...)
	return len(piece), nil
}

// peekLimit is how far open looks into a stream for its first byte past spaces, to choose
// between streaming it (spool), reading it whole checked as it is read (readJSONHead), and
// reading it whole.
const peekLimit = 64 << 10

// What peekStream found.
const (
	peekWhole = iota // UTF-16, a read error, a first byte past spaces not ASCII, or no text
	peekYAML         // a first byte past spaces ASCII and not "{"
	peekJSON         // a first byte past spaces "{", or peekLimit bytes of spaces
)

// peekStream reads r until its first byte past spaces and a byte order mark, at most
// peekLimit bytes, and returns what it read and what it found. A stream that fails is read
// whole (readSized words its error).
func peekStream(r io.Reader) (head []byte, kind int) {
	buf := make([]byte, 0, 4<<10)
	for len(buf) < peekLimit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, rerr := r.Read(buf[len(buf):min(cap(buf), peekLimit)])
		buf = buf[:len(buf)+k]
		if rerr != nil && !errors.Is(rerr, io.EOF) || hasUTF16BOM(buf) {
			return buf, peekWhole // read whole, which meets the error again
		}
		if t := bytes.TrimLeft(bytes.TrimPrefix(buf, utf8BOM), " \t\n\v\f\r"); len(t) > 0 && (len(buf) >= len(utf8BOM) || !bytes.HasPrefix(utf8BOM, buf)) {
			switch {
			case t[0] == '{':
				return buf, peekJSON
			case t[0] < utf8.RuneSelf:
				return buf, peekYAML
			}
			return buf, peekWhole
		}
		if rerr != nil {
			return buf, peekWhole
		}
	}
	return buf, peekJSON
}

// readJSONHead reads the start of a stream that may be JSON through sp (which releases
// nothing), until what it checks is decided: whether the stream is JSON depends on all of its
// text (isJSONStream: a line starting with "---" or "..." anywhere makes it YAML), but what both
// readings refuse whatever follows is refused where it is passed, as the spool refuses a NUL
// byte, invalid UTF-8 and the size limit: more than objectBytes bytes of spaces first (a document of blank lines in YAML,
// blankTooLarge; spaces before the first value in JSON, splitJSON), and a first value past
// objectBytes before any such line (in JSON its document, in YAML the first document, which
// holds it, both refused for their size, unless either may be a list by its first objectBytes
// bytes: listShaped). yaml is true when the text is YAML for sure, its first byte past spaces
// being neither "{" nor a space: the caller then streams it from the start. Before, `{"a":"`
// followed by an endless string, or endless spaces, held 1 GiB (1.07 GB peak) before the
// input-size limit refused it.
//
// The rest of such a stream is still read whole before it is decoded, since it may be YAML to
// its last line: `yes '{}'` (a JSON stream of empty objects, or one YAML document whose flow
// mappings are a syntax error) cannot be refused for its count of objects, nor a JSON list
// starting with "{" for its items, without deciding from a prefix what the whole text is, which
// would read some valid YAML streams of flow mappings as JSON: checked thus far, the rest is
// read as readSized reads it (readRest), as before. Measured, before and after this change,
// `yes '{}' | daemonsched plan -f - --now ...` (2 shared cores; wall time varies 2.6-5.5 s
// with the load, and follows `yes`): 0.12+1.38 s CPU, 1,070,140 KB before; 0.11+1.38 s,
// 1,070,536 KB after; a JSON list without end (`(echo '{"kind":"List","items":['; yes '{},')`)
// the same. Files are checked whole before they are decoded and are not concerned.
func readJSONHead(sp *spool, name string, objectBytes int) (yaml bool, err error) {
	start := sp.pos
	const (
		spaces = iota // before the first value
		value         // in the first value, before it ends or a line may end a YAML document
		rest          // no more to check
	)
	var (
		state             = spaces
		n                 int64 // bytes of the phase: spaces, or the value's
		valueStart        int64
		depth             int
		inString, escaped bool
		tail              []byte // the last bytes read, for a marker across reads
		buf               = make([]byte, 64<<10)
		// The top level of the first value, for a list past ObjectBytes: its bytes outside the
		// value of a quoted "items" key (outside) are refused past the bound as any object's.
		listed        bool  // the value is past ObjectBytes and list-shaped
		outside       int64 // bytes of the value not inside its items value
		expectKey     bool  // at depth 1, a key may start here
		inKey, keyBad bool  // in a quoted top-level key; whether it is not "items"
		keyLen        int
		keyIsItems    bool // the last top-level key read is "items"
		itemsNext     bool // the next top-level byte starts the value of an items key
		plainKeys     bool // a top-level key is plain or single-quoted (YAML flow)
		inItems       bool // in the value of a top-level items key
	)
	// tooLarge refuses the first value past ObjectBytes as any object is refused.
	tooLarge := func() error {
		r := reader{opts: Options{Limits: Limits{ObjectBytes: objectBytes}}}
		return r.tooLarge(Source{File: name, Document: 1, Item: -1})
	}
	for {
		k, rerr := sp.Read(buf)
		chunk := buf[:k]
		if state == value {
			edge := append(tail, chunk[:min(len(chunk), 3)]...)
			if hasMarker(edge) || hasMarker(chunk) {
				state = rest
			}
		}
		for i := 0; i < len(chunk) && state != rest; i++ {
			c := chunk[i]
			switch state {
			case spaces:
				switch {
				case c == '{':
					state, n, valueStart, depth = value, 0, sp.pos-int64(k)+int64(i), 0
					if hasMarker(chunk[i:]) {
						state = rest
						continue
					}
				case isJSONSpace(c):
					if n++; n > int64(objectBytes) {
						return false, blankDocumentTooLarge(name, 1, objectBytes)
					}
					continue
				case c < utf8.RuneSelf && c != '\v' && c != '\f':
					return true, nil
				default:
					state = rest // a Unicode space may come before "{": as before
					continue
				}
			}
			// The first value: how jsonValueEnd reads it.
			n++
			if inKey {
				switch {
				case c == '"' && !escaped:
					inKey, keyIsItems = false, !keyBad && keyLen == 5
				case keyLen >= 5 || c != "items"[keyLen]:
					keyBad = true
				default:
					keyLen++
				}
			} else if depth == 1 && !inString {
				switch {
				case c == ',':
					expectKey, inItems = true, false
				case c == ':':
					itemsNext = keyIsItems
				case itemsNext && !isJSONSpace(c):
					// Only an array is a list's items: any other value counts as the object's.
					itemsNext, inItems = false, c == '['
				case c == '"' && expectKey:
					expectKey, inKey, keyBad, keyLen = false, true, false, 0
				case expectKey && !isJSONSpace(c) && c != '}':
					// A plain or single-quoted key: a YAML flow mapping, read whole as before.
					if listed {
						state = rest
						continue
					}
					expectKey, keyIsItems, plainKeys = false, false, true
				}
			}
			if !inItems {
				outside++
			}
			switch {
			case inString && escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			case inString:
			case c == '{' || c == '[':
				if depth++; depth == 1 {
					expectKey = c == '{'
				}
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					state = rest
				}
			}
			switch {
			case state != value:
			case listed && outside > int64(objectBytes):
				return false, tooLarge()
			case !listed && n > int64(objectBytes):
				if !listShaped(sp.prefix(valueStart, objectBytes)) && !listShaped(sp.prefix(start, objectBytes)) {
					return false, tooLarge()
				}
				if listed = true; plainKeys {
					state = rest
				}
			}
		}
		tail = append(tail[:0], chunk[max(0, len(chunk)-3):]...)
		switch {
		case rerr != nil && !errors.Is(rerr, io.EOF):
			return false, fmt.Errorf("%s: %w", name, pathErr(rerr))
		case rerr != nil || state == rest:
			return false, nil
		}
	}
}

// readRest returns the text sp holds and the rest of its stream, read as readSized reads a
// stream whole: in chunks that grow to 64 MiB (the spool's 256 KiB chunks, one garbage
// collection each under the command's soft memory limit, took 1.5 s more CPU to hold 1 GiB).
func (s *spool) readRest(name string) ([]byte, error) {
	if s.err != nil && !errors.Is(s.err, io.EOF) {
		if errors.Is(s.err, errInputBytes) {
			return nil, errInputBytes
		}
		return nil, fmt.Errorf("%s: %w", name, pathErr(s.err))
	}
	return readSized(name, io.MultiReader(bytes.NewReader(s.join()), s.r), s.limit, 0)
}

// prefix returns the text held from off on, at most n bytes.
func (s *spool) prefix(off int64, n int) []byte {
	b := make([]byte, n)
	k, _ := s.ReadAt(b, off)
	return b[:k]
}

// join returns the text held, in one slice, and drops the chunks.
func (s *spool) join() []byte {
	data := make([]byte, 0, s.total-s.base)
	for i, c := range s.chunks {
		data = append(data, c...)
		s.chunks[i] = nil // the joined copy replaces it
	}
	s.chunks = nil
	return data
}
