package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync/atomic"

	"sigs.k8s.io/yaml"
)

// Batches bound what is held between the split and the decoding: documents and list items are
// decoded (in parallel) once this many are waiting, or this many bytes, then their text dropped.
const (
	batchItems = 512
	batchBytes = 4 << 20
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
	s.tooMany = fmt.Errorf("%s: more than %d objects (limit Objects, --max-objects)", name, s.r.opts.Limits.Objects)
	br := bufio.NewReaderSize(io.NewSectionReader(o.ra, o.start, o.size), 64<<10)
	if o.json {
		if err := s.splitJSON(br); err != nil {
			return err
		}
		return s.end()
	}
	var long []byte
	split := false // the current line goes on: its first piece was taken as a line (cont)
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && split:
			s.cont(line)
			continue
		case errors.Is(err, bufio.ErrBufferFull) && len(long) == 0 && !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")):
			// A line longer than the buffer is taken piece by piece, not held whole: one line
			// of 1,000 MB once took three times that. Markers are held whole (they end
			// documents where the line ends).
			if ferr := s.line(line); ferr != nil {
				return ferr
			}
			split = true
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
		long = long[:0]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return fmt.Errorf("%s: %w", name, pathErr(err))
			}
			break
		}
	}
	if err := s.flushDoc(s.off); err != nil {
		return err
	}
	return s.end()
}

// The target of a line's pieces after the first (cont): where the first went.
const (
	toNothing = iota
	toDoc
	toBlank // a document dropped for its size (its blankness still counts)
	toItem
	toWrapper
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
		if err := s.result(results[i], errs[i]); err != nil {
			return err
		}
	}
	return nil
}

// result takes the outcome of one document: once an error is found, later documents are still
// decoded, for the count of objects only (the limit's error comes first), not added.
func (s *splitter) result(out []decoded, err error) error {
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
	for _, d := range out {
		if err := s.in.add(d); err != nil {
			s.first = err
			return nil
		}
	}
	return nil
}

// streamedList is a YAML list of the current document, its items decoded as they arrive.
type streamedList struct {
	wrapper  []byte // the list without its items ("items: []")
	after    bool   // past the items
	fallback bool   // not as kubectl prints it, or an item failed: read the document again whole
	item     []byte // the current item, nil before the first
	itemKind string // the kind the header gives the items, if known yet

	batch   [][]byte
	bytes   int
	items   []decoded      // the list's head (set last), then its items
	pending map[int][]byte // items decoded before their kind was known, and failed: JSON
	n       int            // items seen
	counted int            // items counted against Limits.Objects
	doc     int            // the document's number
	json    bool           // the items are JSON (a JSON stream), not YAML

	// itemBig is set when the current item passes Limits.ObjectBytes: its text is dropped.
	// big and failed are one more than the index of the first item too large, and of the first
	// item that failed and set fallback (0: none).
	itemBig     bool
	big, failed int

	// itemLine is the line the current item starts on, lines those of the items of batch.
	// errAt is one more than the index of the first item whose error is final (finalError:
	// the document is not read again for it), err that error; items after it are counted,
	// not decoded.
	itemLine int
	lines    []int
	errAt    int
	err      error

	// free holds the text buffers of items decoded, for the next items: decoding copies what
	// it keeps, and a new buffer per item, grown line by line, was most of what the reader
	// allocated beyond the decoding itself.
	free [][]byte
}

// newItem returns an empty buffer for the next item's text, of capacity size at least when new.
func (l *streamedList) newItem(size int) []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free = l.free[:n-1]
		return b
	}
	return make([]byte, 0, size)
}

// grow appends b to the current item, or drops it once the item passes Limits.ObjectBytes: an
// item that large is refused before it is parsed, by its place (decodeItemText).
func (l *streamedList) grow(s *splitter, b ...byte) {
	if l.itemBig {
		return
	}
	l.item = append(l.item, b...)
	if len(l.item) > s.r.opts.Limits.ObjectBytes {
		l.itemBig, l.item = true, l.item[:0]
	}
}

func newStreamedList(s *splitter) *streamedList {
	l := &streamedList{wrapper: append(s.doc, "items: []\n"...), items: []decoded{{}}, pending: map[int][]byte{}, doc: s.docs + 1}
	s.doc = nil
	// A list whose kind comes before its items (not as kubectl prints it) gives the items theirs now.
	if js, err := yaml.YAMLToJSONStrict(l.wrapper); err == nil {
		if _, kind, _, isList, err := s.r.decodeList(Source{File: s.name, Document: l.doc, Item: -1}, js); err == nil && isList {
			l.itemKind = kind
		}
	}
	return l
}

// line takes a line of the list's document, as splitYAMLList's loop does.
func (l *streamedList) line(s *splitter, line []byte) error {
	s.to = toNothing
	switch {
	case l.after || l.fallback:
		if !l.fallback {
			l.wrapper = append(l.wrapper, line...)
			s.to = toWrapper
		}
	case bytes.HasPrefix(line, []byte("- ")):
		if err := l.end(s); err != nil {
			return err
		}
		l.itemLine = s.n
		l.item = l.newItem(len(line))
		l.grow(s, line...)
		s.to = toItem
	case len(bytes.TrimRight(line, "\r\n")) == 0:
		if l.item != nil {
			l.grow(s, line...)
			s.to = toItem
		}
	case bytes.HasPrefix(line, []byte("  ")):
		if l.item == nil {
			l.fallback = true
		} else {
			l.grow(s, line...)
			s.to = toItem
		}
	case line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#':
		l.fallback = true
	default:
		if err := l.end(s); err != nil {
			return err
		}
		l.after = true
		l.wrapper = append(l.wrapper, line...)
		s.to = toWrapper
	}
	return nil
}

// end ends the current item.
func (l *streamedList) end(s *splitter) error {
	if l.item == nil {
		return nil
	}
	item := l.item
	if l.itemBig {
		item = nil // decodeBatch leaves its place empty
		if l.big == 0 {
			l.big = l.n + 1
		}
	}
	l.item, l.itemBig = nil, false
	l.n++
	l.counted++
	if s.r.count(1) != nil {
		// Past the limit the outcome is this error whatever follows: stop reading, rather
		// than scan the rest (a 75 MB list of 25,000,000 items took 22 s; issue 25).
		return s.tooMany
	}
	if l.errAt > 0 {
		// The outcome is that item's error, or an earlier one; but a JSON document that is
		// not JSON gives its syntax error whatever its items hold (jsonSyntaxError).
		if l.json && item != nil && !json.Valid(item) {
			l.fallback = true
		}
		return nil
	}
	l.batch = append(l.batch, item)
	l.lines = append(l.lines, l.itemLine)
	l.bytes += len(item)
	if len(l.batch) >= batchItems || l.bytes >= batchBytes {
		l.decodeBatch(s)
	}
	return nil
}

// decodeBatch decodes the items waiting, in parallel, and drops their text.
func (l *streamedList) decodeBatch(s *splitter) {
	first := len(l.items) - 1 // items[0] is the head's
	l.items = append(l.items, make([]decoded, len(l.batch))...)
	failed := make([][]byte, len(l.batch))
	errs := make([]error, len(l.batch))
	src := Source{File: s.name, Document: l.doc}
	s.r.forEach(len(l.batch), func(i int) {
		itemSrc := src
		itemSrc.Item = first + i
		if l.batch[i] == nil {
			return // too large: finish reports it
		}
		js, err := l.batch[i], error(nil)
		if !l.json {
			text := dedent(js)
			if js, err = yaml.YAMLToJSONStrict(text); err != nil {
				srcDoc := src
				srcDoc.Item = -1
				errs[i] = itemYAMLError(srcDoc, l.lines[i], text, err)
				failed[i] = []byte{}
				return
			}
		}
		res, err := s.r.decodeValue(itemSrc, js, l.itemKind)
		if err == nil && len(res) != 1 {
			err = fmt.Errorf("%v: not one object", itemSrc) // never: decodeValue refuses nested lists
		}
		if err != nil {
			failed[i], errs[i] = js, finalError{err}
			return
		}
		l.items[1+first+i] = res[0]
	})
	for _, js := range failed {
		if l.json && len(js) > 0 && !json.Valid(js) {
			l.fallback = true // the whole document gives its syntax error (jsonSyntaxError)
		}
	}
	for i, js := range failed {
		switch {
		case js == nil || l.errAt > 0 || l.fallback:
		case errors.As(errs[i], new(finalError)) && (len(js) == 0 || l.itemKind != ""):
			// Final whatever the list's kind says: a YAML error, or a typed error with the
			// items' kind known.
			l.errAt, l.err = first+i+1, errs[i]
		case len(js) == 0:
			l.fallback = true // an item that may use another's anchor: read the whole document
			if l.failed == 0 {
				l.failed = first + i + 1
			}
		default:
			l.pending[first+i] = js // decoded again once the list's kind is known
		}
	}
	if l.fallback {
		clear(l.pending)
	}
	for i, b := range l.batch {
		// A failed JSON item's text is its pending JSON: kept.
		if b != nil && (failed[i] == nil || !l.json) {
			l.free = append(l.free, b[:0])
		}
	}
	l.batch, l.lines, l.bytes = l.batch[:0], l.lines[:0], 0
}

// errDocuments is finish's error when the documents alone are more than Limits.Objects.
var errDocuments = errors.New("too many documents")

// finish ends the list at end and returns its objects, as decodeDocument would: the document
// is counted, then its items, counted as they came only to stop decoding them past the limit.
func (l *streamedList) finish(s *splitter, end int64) ([]decoded, error) {
	if err := l.end(s); err != nil {
		return nil, err
	}
	src := Source{File: s.name, Document: l.doc, Item: -1}
	if !l.fallback {
		l.decodeBatch(s)
	}
	s.r.objects.Add(-int64(l.counted))
	if s.r.count(1) != nil {
		return nil, errDocuments
	}
	if !l.fallback && l.n > 0 {
		js, err := l.wrapper, error(nil)
		if !l.json {
			js, err = yaml.YAMLToJSONStrict(l.wrapper)
		}
		if err == nil {
			head, itemKind, _, isList, err := s.r.decodeList(src, js)
			switch {
			case err == nil && !isList && end-s.docStart > int64(s.r.opts.Limits.ObjectBytes):
				return nil, s.r.tooLarge(src) // shaped as a list, but one object: decodeDocument refuses it
			case err != nil || !isList:
			case s.r.count(l.n) != nil:
				return nil, errTooManyObjects
			default:
				// The first problem in the order of the items is the outcome: an item too
				// large, an item's final error, or a pending item's error with the list's kind.
				first, firstErr := -1, error(nil)
				if l.big > 0 {
					itemSrc := head.src
					itemSrc.Item = l.big - 1
					first, firstErr = l.big-1, s.r.tooLarge(itemSrc)
				}
				if l.errAt > 0 && (first < 0 || l.errAt-1 < first) {
					first, firstErr = l.errAt-1, errors.Unwrap(l.err)
				}
				for _, i := range slices.Sorted(maps.Keys(l.pending)) {
					if first >= 0 && i >= first {
						break
					}
					itemSrc := head.src
					itemSrc.Item = i
					res, err := s.r.decodeValue(itemSrc, l.pending[i], itemKind)
					if err == nil && len(res) != 1 {
						err = fmt.Errorf("%v: not one object", itemSrc) // never: decodeValue refuses nested lists
					}
					if err != nil {
						first, firstErr = i, err
						break
					}
					l.items[1+i] = res[0]
				}
				if firstErr != nil {
					return nil, firstErr
				}
				l.items[0] = head // in place: a copy of 250,000 items would be 50 MB
				return l.items, nil
			}
		}
	}
	// Read the document again whole, as decodeDocument reads it; it counts the items again.
	data := make([]byte, end-s.docStart)
	if _, err := s.o.ra.ReadAt(data, s.o.start+s.docStart); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	l.items, l.pending = nil, nil
	if l.json {
		data = bytes.TrimRight(data, " \t\r\n")
	}
	return s.r.decodeDocument(src, document{data: data, json: l.json, line: s.start})
}

// readOpened decodes one opened input: a JSON stream whole, YAML as it is split.
func (in *collector) readOpened(name string, o opened) error {
	return in.streamInput(name, o)
}
