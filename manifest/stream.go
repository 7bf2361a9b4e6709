package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync/atomic"
)

// Batches bound what is held between the split and the decoding: documents and list items are
// decoded (in parallel) once this many are waiting, or this many bytes, then their text dropped.
const (
	batchItems = 128
	batchBytes = 1 << 20
)

// streamInput decodes the YAML documents of one input as they are split, reading its text line
// by line: documents, and the items of lists as kubectl prints them (see splitYAMLList), are
// decoded in bounded batches and their text dropped, so that the input is never held whole.
// The outcome, the error included, is the one decodeInput gives on the whole text: a list whose
// streamed reading fails in any way is read again whole from o (its text only), as decodeDocument
// reads it.
func (in *collector) streamInput(name string, o opened) error {
	s := &splitter{in: in, name: name, o: o, r: in.reader, start: 1}
	s.r.objects = new(atomic.Int64)
	s.tooMany = tooManyObjects(name, s.r.opts.Limits.Objects)
	var text io.Reader = io.NewSectionReader(o.ra, o.start, o.size)
	if o.spool != nil {
		text = o.spool
	}
	br := bufio.NewReaderSize(text, 64<<10)
	if o.json {
		if err := s.splitJSON(br); err != nil {
			return err
		}
		return s.end()
	}
	var long []byte
	split := false // the current line goes on: its first piece was taken as a line (cont)
	for {
		if s.list != nil && s.list.pastBound() {
			if err := s.itemTooLarge(); err != nil {
				return err
			}
		}
		if s.list != nil && s.list.gap > s.r.opts.Limits.ObjectBytes && !s.list.fallback {
			return s.gapTooLarge()
		}
		if s.big && s.list == nil && !split && len(long) == 0 {
			if s.blank {
				return s.blankTooLarge()
			}
			if br.Buffered() > 0 {
				s.skipBig(br)
			}
		}
		if s.list != nil && !split && len(long) == 0 && br.Buffered() > 0 {
			s.skipList(br)
		}
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && split:
			s.cont(line)
			s.releaseStream()
			continue
		case errors.Is(err, bufio.ErrBufferFull) && len(long) == 0 && !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")):
			// A line longer than the buffer is taken piece by piece, not held whole: one line
			// of 1,000 MB once took three times that. Markers are held whole (they end
			// documents where the line ends).
			if ferr := s.line(line); ferr != nil {
				return ferr
			}
			split = true
			s.releaseStream()
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, line...)
			continue
		case split:
			s.cont(line)
			split = false
			line = nil
		}
		if len(long) > 0 {
			long = append(long, line...)
			line = long
		}
		if len(line) > 0 {
			if ferr := s.line(line); ferr != nil {
				return ferr
			}
		}
		s.releaseStream()
		long = long[:0]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return fmt.Errorf("%s: %w", name, pathErr(err))
			}
			break
		}
	}
	if s.big && s.blank && s.list == nil {
		return s.blankTooLarge()
	}
	if err := s.flushDoc(s.off); err != nil {
		return err
	}
	return s.end()
}

// blankTooLarge refuses the current document once its first Limits.ObjectBytes bytes are
// only comments, directives and blank lines, at once, whatever follows: had it been read on,
// to be dropped as a small blank document is (or refused for its size if content followed),
// an endless run of comment lines (`yes '# c'`) was read to the input's size limit, 1 GiB in
// 5.7 s (issue 25). The documents before it come first: their error, if one has any, is the
// error.
func (s *splitter) blankTooLarge() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	if s.first != nil {
		return s.first
	}
	return blankDocumentTooLarge(s.name, s.start, s.r.opts.Limits.ObjectBytes)
}

// blankDocumentTooLarge is the error of a document of input name, from line on, whose first
// objectBytes bytes are only comments and blank lines.
func blankDocumentTooLarge(name string, line, objectBytes int) error {
	return fmt.Errorf("%s: line %d: %w", name, line, limitError("ObjectBytes",
		"a document with more than "+byteSize(int64(objectBytes))+" of comments and blank lines", ""))
}

// skipBig takes, at the start of a line of a document refused for its size and not blank
// (a blank one is refused at once: blankTooLarge), the whole lines br holds up to the next one
// that may end the document ("---" or "..."), at once: their text is dropped. Taken one by one, as line takes them, a
// 1 GiB document of short lines (`yes a:1`) took 20 s to be refused.
func (s *splitter) skipBig(br *bufio.Reader) {
	buf, _ := br.Peek(br.Buffered())
	if bytes.HasPrefix(buf, []byte("---")) || bytes.HasPrefix(buf, []byte("...")) {
		return
	}
	end := bytes.LastIndexByte(buf, '\n') + 1
	for _, marker := range [][]byte{[]byte("\n---"), []byte("\n...")} {
		if i := bytes.Index(buf[:end], marker); i >= 0 {
			end = i + 1
		}
	}
	if end == 0 {
		return
	}
	s.n += bytes.Count(buf[:end], []byte("\n"))
	s.off += int64(end)
	s.to, s.lineSpace = toBlank, false
	_, _ = br.Discard(end)
}

// skipList takes, at the start of a line of a list's document, the whole lines br holds that
// the list ignores, at once, as streamedList.line would take them one by one: once the list is
// read again whole (fallback), every line up to one that may end the document; else the
// blank lines before the first item (bounded: gapTooLarge). An item refused for its size ends
// the reading at once (itemTooLarge). Taken one by one, an endless run of comment lines after
// "items:" in a list read again whole took 20 s to reach the input-size limit.
func (s *splitter) skipList(br *bufio.Reader) {
	l := s.list
	buf, _ := br.Peek(br.Buffered())
	end := 0
	switch {
	case l.fallback:
		if bytes.HasPrefix(buf, []byte("---")) || bytes.HasPrefix(buf, []byte("...")) {
			return
		}
		end = bytes.LastIndexByte(buf, '\n') + 1
		for _, marker := range [][]byte{[]byte("\n---"), []byte("\n...")} {
			if i := bytes.Index(buf[:end], marker); i >= 0 {
				end = i + 1
			}
		}
		s.to = toNothing
	case l.after:
		return
	default:
		// A byte at a time; a line another form of blank ("\r\r\n") is left to line.
		for end < len(buf) && l.item == nil {
			if buf[end] == '\n' {
				// A run of empty lines, a byte at a time (`yes ''`).
				end++
				continue
			}
			if end+1 < len(buf) && buf[end] == '\r' && buf[end+1] == '\n' {
				end += 2
				continue
			}
			break
		}
		s.to = toGap
		l.gap += end
	}
	if end == 0 {
		return
	}
	s.n += bytes.Count(buf[:end], []byte("\n"))
	s.off += int64(end)
	_, _ = br.Discard(end)
}

// releaseStream lets a stream drop what it will not read again, after each line and after each
// piece of a line longer than the buffer: released only at the end of a line, one line of a
// document refused for its size was held whole, 1,000 MB of it on stdin (audit34).
func (s *splitter) releaseStream() {
	if s.o.spool != nil && s.list == nil {
		s.release()
	}
}

// release lets a stream (spool) drop the text it will not read again: what is before the
// current document, or all it read when that document is refused for its size (never a list).
func (s *splitter) release() {
	off := s.docStart
	if s.big {
		off = s.off
	}
	s.o.spool.release(s.o.start + off)
}

// The target of a line's pieces after the first (cont): where the first went.
const (
	toNothing = iota
	toDoc
	toBlank // a document dropped for its size (its blankness still counts)
	toItem
	toWrapper
	toGap // the blank lines and comments before a list's first item: counted
)

// cont takes the next piece of a line whose first piece line took.
func (s *splitter) cont(piece []byte) {
	s.off += int64(len(piece))
	switch s.to {
	case toDoc:
		s.grow(piece...)
	case toBlank:
		if s.lineSpace {
			if t := bytes.TrimLeft(piece, " \t\r\n"); len(t) > 0 {
				s.lineSpace = false
				s.blank = s.blank && (t[0] == '#' || t[0] == '%')
			}
		}
	case toItem:
		s.list.grow(s, piece...)
	case toWrapper:
		s.list.wrapper = append(s.list.wrapper, piece...)
	case toGap:
		s.list.gap += len(piece)
	}
}

// end ends the input.
func (s *splitter) end() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	switch {
	case s.docs == 0:
		return fmt.Errorf("%s: no objects", s.name)
	case s.r.objects.Load() > int64(s.r.opts.Limits.Objects):
		return s.tooMany
	}
	return s.first
}

// splitter is the state of streamInput: splitDocuments and splitYAMLList as they go.
type splitter struct {
	in      *collector
	r       reader
	name    string
	o       opened
	tooMany error
	first   error // the first error in input order
	docs    int
	blanks  int // documents without objects (comments, spaces), bounded with docs by Limits.Objects

	off, docStart int64 // offsets of the current line and document in the text
	n, start      int   // numbers of the current line and of the document's first line
	doc           []byte
	list          *streamedList

	batch      []document // documents waiting to be decoded
	batchBytes int
	batchSrc   []Source
	batchBig   []bool // the document is too large: refused, not decoded

	// to is where the current line went, for its next pieces (cont); lineSpace whether the line
	// is only spaces so far.
	to        int
	lineSpace bool

	// The current document outside a list's items, past Limits.ObjectBytes: shaped when its
	// first ObjectBytes bytes may be a list (then it is held whole, as before), else big (its
	// text is dropped, and it is refused), with blank saying whether it is blank so far.
	shaped, big, blank bool
}

// grow appends b to the current document, or drops it once the document is refused for its
// size (listShaped).
func (s *splitter) grow(b ...byte) {
	if s.big {
		return
	}
	s.doc = append(s.doc, b...)
	if limit := s.r.opts.Limits.ObjectBytes; len(s.doc) > limit && !s.shaped {
		if listShaped(s.doc[:limit]) {
			s.shaped = true
			return
		}
		// The rest of the line being read decides whether the document is blank if the line
		// is only spaces so far (cont).
		s.lineSpace = len(bytes.TrimSpace(s.doc[bytes.LastIndexByte(s.doc, '\n')+1:])) == 0
		s.big, s.blank, s.doc = true, blankYAML(s.doc), nil
		if s.to == toDoc {
			s.to = toBlank
		}
	}
}

// queue adds the current document to the batch, and decodes the batch when it is full.
func (s *splitter) queue(doc document) error {
	s.docs++
	if s.r.count(1) != nil {
		return s.tooMany
	}
	s.batch = append(s.batch, doc)
	s.batchSrc = append(s.batchSrc, Source{File: s.name, Document: s.docs, Item: -1})
	s.batchBig = append(s.batchBig, s.big)
	s.batchBytes += len(doc.data)
	if len(s.batch) >= batchItems || s.batchBytes >= batchBytes {
		return s.flushBatch()
	}
	return nil
}

// line takes the next line of the text, as the loop of splitDocuments does.
func (s *splitter) line(line []byte) error {
	s.n++
	next := s.off + int64(len(line))
	if s.off == s.docStart && bytes.HasPrefix(line, utf8BOM) {
		s.docStart += int64(len(utf8BOM))
		line = line[len(utf8BOM):]
	}
	var err error
	if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
		switch t := bytes.TrimSpace(rest); {
		case len(t) == 0 || t[0] == '#':
			err = s.flushDoc(s.off)
			s.docStart, s.start = next, s.n+1
			s.off = next
			return err
		case rest[0] == ' ' || rest[0] == '\t':
			err = s.flushDoc(s.off)
			s.docStart, s.start = s.off, s.n
		}
	} else if rest, ok := bytes.CutPrefix(line, []byte("...")); ok {
		if t := bytes.TrimSpace(rest); len(t) == 0 || t[0] == '#' {
			if err := s.add(line); err != nil {
				return err
			}
			err = s.flushDoc(next)
			s.docStart, s.start = next, s.n+1
			s.off = next
			return err
		}
	}
	if err != nil {
		return err
	}
	s.off = next
	return s.add(line)
}

// add adds a line to the current document.
func (s *splitter) add(line []byte) error {
	if s.list != nil {
		return s.list.line(s, line)
	}
	if s.big {
		s.blank = s.blank && blankYAML(line)
		s.to, s.lineSpace = toBlank, len(bytes.TrimSpace(line)) == 0
		return nil
	}
	s.to = toDoc
	if string(bytes.TrimRight(line, " \r\n")) == "items:" {
		if err := s.flushBatch(); err != nil {
			return err
		}
		s.list = newStreamedList(s)
		s.to = toNothing
		return nil
	}
	s.grow(line...)
	return nil
}

// flushDoc ends the current document at end.
func (s *splitter) flushDoc(end int64) error {
	defer func() { s.doc, s.list, s.shaped, s.big = nil, nil, false, false }()
	if s.list != nil {
		s.docs++
		out, err := s.list.finish(s, end)
		if errors.Is(err, errDocuments) {
			return s.tooMany
		}
		return s.result(out, err)
	}
	if s.big && s.blank || !s.big && blankYAML(s.doc) {
		// Counted too: an endless run of "---" lines holds no object, and was read to the
		// input's size limit (1 GiB) before it failed for holding none (issue 25).
		if s.blanks++; s.docs+s.blanks > s.r.opts.Limits.Objects {
			return fmt.Errorf("%s: %w", s.name, limitError("Objects", fmt.Sprintf("more than %d documents, empty ones included", s.r.opts.Limits.Objects), ""))
		}
		return nil
	}
	return s.queue(document{data: s.doc, line: s.start})
}

// flushBatch decodes the documents waiting, in parallel, and adds what they hold in order.
func (s *splitter) flushBatch() error {
	batch, srcs, big := s.batch, s.batchSrc, s.batchBig
	s.batch, s.batchSrc, s.batchBig, s.batchBytes = nil, nil, nil, 0
	if len(batch) == 0 {
		return nil
	}
	results := make([][]decoded, len(batch))
	errs := make([]error, len(batch))
	s.r.forEach(len(batch), func(i int) {
		if big[i] {
			errs[i] = s.r.tooLarge(srcs[i])
			return
		}
		results[i], errs[i] = s.r.decodeDocument(srcs[i], batch[i])
	})
	for i := range batch {
		if err := s.result(slices.Values(results[i]), errs[i]); err != nil {
			return err
		}
	}
	return nil
}

// result takes the outcome of one document: once an error is found, later documents are still
// decoded, for the count of objects only (the limit's error comes first), not added.
func (s *splitter) result(out iter.Seq[decoded], err error) error {
	if s.r.objects.Load() > int64(s.r.opts.Limits.Objects) {
		return s.tooMany
	}
	if s.first != nil {
		return nil
	}
	if err != nil {
		s.first = err
		return nil
	}
	for d := range out {
		if err := s.in.add(d); err != nil {
			s.first = err
			return nil
		}
	}
	return nil
}

// readOpened decodes one opened input: a JSON stream whole, YAML as it is split.
func (in *collector) readOpened(name string, o opened) error {
	return in.streamInput(name, o)
}
