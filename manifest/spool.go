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
// isJSONStream), and is not UTF-16 (converted whole): open reads those whole, as before.
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
	if cerr := s.check(piece, errors.Is(err, io.EOF)); cerr != nil {
		s.err = cerr
		return
	}
	*last = (*last)[:len(*last)+k]
	s.total += int64(k)
	switch {
	case s.total > s.limit:
		s.err = errInputBytes
	case err != nil:
		s.err = err
	}
}

// check checks the next piece of text, as checkFile checks a file: a NUL byte, then invalid
// UTF-8, with the line they are on.
func (s *spool) check(piece []byte, eof bool) error {
	if i := bytes.IndexByte(piece, 0); i >= 0 {
		return fmt.Errorf("line %d: a NUL byte: not YAML or JSON text", s.lines+int64(bytes.Count(piece[:i], []byte("\n")))+1)
	}
	probe := piece
	if len(s.carry) > 0 {
		probe = append(s.carry, piece...)
	}
	cut, off := utf8Cut(probe, eof)
	if off >= 0 {
		return fmt.Errorf("line %d: invalid UTF-8 (byte 0x%02X)", s.lines+int64(bytes.Count(probe[:off], []byte("\n")))+1, probe[off])
	}
	s.lines += int64(bytes.Count(probe[:cut], []byte("\n")))
	s.carry = append(s.carry[:0], probe[cut:]...)
	return nil
}

// peekLimit is how far open looks into a stream for its first byte past spaces, to choose
// between streaming it (spool) and reading it whole: beyond it, the stream is read whole.
const peekLimit = 64 << 10

// peekStream reads r until its first byte past spaces and a byte order mark, at most
// peekLimit bytes, and returns what it read and whether it may be streamed (spool): its first
// byte past spaces is ASCII and not "{", and it is not UTF-16. A stream that fails is read
// whole (readSized words its error).
func peekStream(r io.Reader) (head []byte, stream bool) {
	buf := make([]byte, 0, 4<<10)
	for len(buf) < peekLimit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, rerr := r.Read(buf[len(buf):min(cap(buf), peekLimit)])
		buf = buf[:len(buf)+k]
		if rerr != nil && !errors.Is(rerr, io.EOF) || hasUTF16BOM(buf) {
			return buf, false // read whole, which meets the error again
		}
		if t := bytes.TrimLeft(bytes.TrimPrefix(buf, utf8BOM), " \t\n\v\f\r"); len(t) > 0 && (len(buf) >= len(utf8BOM) || !bytes.HasPrefix(utf8BOM, buf)) {
			return buf, t[0] < utf8.RuneSelf && t[0] != '{'
		}
		if rerr != nil {
			return buf, false
		}
	}
	return buf, false
}
