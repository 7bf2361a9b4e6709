package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// streamedList is a YAML list of the current document, its items decoded as they arrive.
type streamedList struct {
	wrapper   []byte // the list without its items ("items: []")
	after     bool   // past the items
	fallback  bool   // not as kubectl prints it, or an item failed: read the document again whole
	item      []byte // the current item, nil before the first
	itemKind  string // the kind the header gives the items, if known yet
	kindKnown bool   // the header gave the list's kind (itemKind is "" for a List)
	notList   bool   // the header says the document is not a list (itemTooLarge)
	// gap counts the bytes of the blank lines and comments before the first item, from the
	// line gapLine on: bounded by Limits.ObjectBytes (gapTooLarge).
	gap, gapLine int

	batch   [][]byte
	bytes   int
	items   []listItem     // the list's head (set last), then its items
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

	// overflow is one more than the index of the first item that failed with pending full
	// (0: none). From it on, items are counted, not decoded: if no pending item fails once
	// the kind is known, finish reads the document again whole.
	overflow int

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

// listItem is the record of one item of a list (or of its head) until the list ends: its
// object alone when the record is the one itemRecord rebuilds from it, as it is for every item
// of a kubectl dump, else the record whole. Held as a decoded (216 bytes), the records were
// live through the whole read: 2 MB of a 5,000-node dump and 52 MB of a List of 240,000 tiny
// pods, on which the collector lets the heap grow by three quarters again
// (BenchmarkReadMemory); a listItem is 24 bytes. The rebuild reads obj again, so nothing
// may change a list's objects between put and records.
type listItem struct {
	obj  any
	full *decoded
}

// put sets the record of items[i], the item i-1 of the list (i 0 is its head).
func (l *streamedList) put(s *splitter, i int, d decoded) {
	if d.obj != nil && !d.skip && d.unknown == nil && d.invalid == nil && d.raw == nil &&
		d.src == (Source{File: s.name, Document: l.doc, Item: i - 1}) {
		if got, ok := itemRecord(s.r, d.src, d.obj); ok && got.tn == d.tn && got.namespace == d.namespace {
			l.items[i] = listItem{obj: d.obj}
			return
		}
	}
	full := d // escapes; d, taken on every call, would be allocated on each
	l.items[i] = listItem{full: &full}
}

// record returns the record of items[i].
func (l *streamedList) record(s *splitter, i int) decoded {
	it := l.items[i]
	if it.full != nil {
		return *it.full
	}
	d, _ := itemRecord(s.r, Source{File: s.name, Document: l.doc, Item: i - 1}, it.obj)
	return d
}

// itemRecord returns the record of an object decoded without a problem at src, its identity
// its own: its apiVersion and kind (set by finish), name and namespace. ok is false for an
// object without a metav1.TypeMeta.
func itemRecord(r reader, src Source, obj any) (d decoded, ok bool) {
	o, ok := obj.(typedObject)
	if !ok {
		return decoded{}, false
	}
	tm, ok := o.GetObjectKind().(*metav1.TypeMeta)
	if !ok {
		return decoded{}, false
	}
	tn := typeAndName{APIVersion: tm.APIVersion, Kind: tm.Kind}
	tn.Metadata.Name, tn.Metadata.Namespace = o.GetName(), o.GetNamespace()
	return decoded{src: src, tn: tn, namespace: shownNamespace(tn.Kind, tn.Metadata.Namespace, r.opts), obj: obj}, true
}

// records returns the records of the list, its head first.
func (l *streamedList) records(s *splitter) iter.Seq[decoded] {
	return func(yield func(decoded) bool) {
		for i := range l.items {
			if !yield(l.record(s, i)) {
				return
			}
		}
	}
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
	l := &streamedList{wrapper: append(s.doc, "items: []\n"...), items: []listItem{{}}, pending: map[int][]byte{}, doc: s.docs + 1, gapLine: s.n + 1}
	s.doc = nil
	// A list whose kind comes before its items (not as kubectl prints it) gives the items theirs now.
	if js, err := yamlToJSON(l.wrapper); err == nil {
		l.header(s, js)
	}
	return l
}

// header takes what the list's document says before its items (JSON, closed): the items' kind,
// or that the document is not a list (a kind that is not a list's: given again after the items,
// it would be a key given twice).
func (l *streamedList) header(s *splitter, js []byte) {
	_, kind, _, isList, err := s.r.decodeList(Source{File: s.name, Document: l.doc, Item: -1}, js)
	switch {
	case err == nil && isList:
		l.itemKind, l.kindKnown = kind, true
	case err == nil:
		var tm metav1.TypeMeta
		l.notList = kjson.UnmarshalCaseSensitivePreserveInts(js, &tm) == nil && tm.Kind != ""
	}
}

// pastBound reports whether an item of the list, read as kubectl prints it, passed
// Limits.ObjectBytes: the reading then ends (itemTooLarge).
func (l *streamedList) pastBound() bool {
	return l.itemBig && !l.fallback
}

// gapTooLarge refuses a list whose blank lines and comments before its first item pass
// Limits.ObjectBytes, at the bound, whatever follows, as blankTooLarge refuses a document of
// them: read on, they were held to the input-size limit, a list being read again whole if it
// fails (`(echo items:; yes "")`: 1 GiB held). The documents before it come first.
func (s *splitter) gapTooLarge() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	if s.first != nil {
		return s.first
	}
	return fmt.Errorf("%s: line %d: %w", s.name, s.list.gapLine, limitError("ObjectBytes",
		"a list with more than "+byteSize(int64(s.r.opts.Limits.ObjectBytes))+" of comments and blank lines before its first item", ""))
}

// itemTooLarge ends the reading at the item of the list past Limits.ObjectBytes, whatever
// follows: the input is not read on, nor the list read again. Read on, an endless item
// (`(echo 'kind: List'; echo items:; echo '- a'; yes '  b')`) was held to the input-size limit
// for the list to be read again, 5.24 s and 1 GiB (issue 25). What is known by then comes first,
// in the order of the text: an error of an earlier document, the object limit, the document
// too large when what precedes its items says it is not a list, the final error of an earlier
// item. Had the input been read to its end, a problem after the item (the list's kind, given
// after its items, saying it is not one; a YAML error), or an earlier item that fails only
// with the list's kind given after the items, came first instead: every such input is refused
// either way, and kubectl prints the kind first.
func (s *splitter) itemTooLarge() error {
	l := s.list
	if err := s.flushBatch(); err != nil {
		return err
	}
	if s.first != nil {
		return s.first
	}
	l.decodeBatch(s)
	if l.fallback {
		return nil // an item waiting may use another's anchor: the list is read again whole
	}
	item := l.n
	if s.r.count(2) != nil { // the item, not yet counted, and the document
		return s.tooMany
	}
	src := Source{File: s.name, Document: l.doc, Item: -1}
	if l.notList {
		return s.r.tooLarge(src)
	}
	if l.errAt > 0 && l.errAt-1 < item {
		return errors.Unwrap(l.err)
	}
	src.Item = item
	return s.r.tooLarge(src)
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
	case len(bytes.TrimRight(line, "\r\n")) == 0 || line[0] == '#':
		// A blank line, or a comment at column 0 (splitYAMLList): the item's, else part of
		// the gap before the first item.
		if l.item != nil {
			l.grow(s, line...)
			s.to = toItem
		} else {
			l.gap += len(line)
			s.to = toGap
		}
	case bytes.HasPrefix(line, []byte("  ")):
		if l.item == nil {
			l.fallback = true
		} else {
			l.grow(s, line...)
			s.to = toItem
		}
	case line[0] == ' ' || line[0] == '\t' || line[0] == '-':
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
	if l.pastBound() {
		// An item of JSON may end where it passes the bound.
		if err := s.itemTooLarge(); err != nil || !l.fallback {
			return err
		}
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
	if l.errAt > 0 || l.overflow > 0 {
		// The outcome is that item's error, or an earlier one (or, past overflow, the document
		// is read again whole); but a JSON document that is
		// not JSON gives its syntax error whatever its items hold (jsonSyntaxError).
		if l.json && item != nil && !json.Valid(item) {
			l.fallback = true
		}
		if item != nil {
			l.free = append(l.free, item[:0]) // not decoded: its buffer serves the next item
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
	l.items = append(l.items, make([]listItem, len(l.batch))...)
	failed := make([][]byte, len(l.batch))
	errs := make([]error, len(l.batch))
	// written marks a failed YAML item holding a number the quantity gate judges as written
	// (D-20): its pending JSON no longer shows what was written.
	written := make([]bool, len(l.batch))
	src := Source{File: s.name, Document: l.doc}
	s.r.forRange(len(l.batch), func(lo, hi int) {
		// One converter for the items of a goroutine: its buffers are reused from item to item.
		var conv yamlConv
		for i := lo; i < hi; i++ {
			itemSrc := src
			itemSrc.Item = first + i
			if l.batch[i] == nil {
				continue // too large: finish reports it
			}
			js, err := l.batch[i], error(nil)
			var text []byte // the item as written, for the quantities written as YAML numbers (D-20)
			if !l.json {
				text = dedentInPlace(js) // the list's buffer, reused once the batch is decoded
				if js, text, err = conv.itemToJSON(text); err != nil {
					srcDoc := src
					srcDoc.Item = -1
					errs[i] = itemYAMLError(srcDoc, l.lines[i], text, err)
					failed[i] = []byte{}
					continue
				}
			}
			res, err := s.r.decodeAsWritten(itemSrc, js, text, l.itemKind, false)
			if err == nil && len(res) != 1 {
				err = fmt.Errorf("%v: not one object", itemSrc) // never: decodeValue refuses nested lists
			}
			if err != nil {
				if !l.json {
					js = bytes.Clone(js) // the converter's buffer, reused by the next item
					written[i] = holdsOversizedRun(text, s.r.opts.Limits)
				}
				failed[i], errs[i] = js, finalError{err}
				continue
			}
			l.put(s, 1+first+i, res[0])
		}
	})
	for _, js := range failed {
		if l.json && len(js) > 0 && !json.Valid(js) {
			l.fallback = true // the whole document gives its syntax error (jsonSyntaxError)
		}
	}
	for i, js := range failed {
		switch {
		case js == nil || l.errAt > 0 || l.overflow > 0 || l.fallback:
		case errors.As(errs[i], new(finalError)) && (len(js) == 0 || l.kindKnown):
			// Final whatever the list's kind says: a YAML error, or a typed error with the
			// list's kind known (a List's items give their own).
			l.errAt, l.err = first+i+1, errs[i]
		case len(js) == 0:
			l.fallback = true // an item that may use another's anchor: read the whole document
			if l.failed == 0 {
				l.failed = first + i + 1
			}
		case written[i]:
			// Decoded again from its JSON once the list's kind is known, it would not be
			// judged as written: the whole document is read again, and judged so.
			l.fallback = true
		case len(l.pending) >= maxPending:
			// 200,000 items of {} before the kind were all decoded and kept (issue 25, F16):
			// the items after this one wait for the kind no more.
			l.overflow = first + i + 1
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

// maxPending bounds streamedList.pending: the items of a list whose kind comes after them that
// failed without it, kept to be decoded again with it. A typed list printed in YAML (the items
// without kind, the kind after them) longer than that is read again whole when it ends.
const maxPending = 10_000

// errDocuments is finish's error when the documents alone are more than Limits.Objects.
var errDocuments = errors.New("too many documents")

// finish ends the list at end and returns its objects, as decodeDocument would: the document
// is counted, then its items, counted as they came only to stop decoding them past the limit.
func (l *streamedList) finish(s *splitter, end int64) (iter.Seq[decoded], error) {
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
			js, err = yamlToJSON(l.wrapper)
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
					l.put(s, 1+i, res[0])
				}
				if l.overflow > 0 && (firstErr == nil || first >= l.overflow-1) {
					break // the items from overflow on were not decoded: read the document again
				}
				if firstErr != nil {
					return nil, firstErr
				}
				l.items[0] = listItem{full: &head}
				return l.records(s), nil // in place: a copy of 250,000 items would be 50 MB
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
	out, err := s.r.decodeDocument(src, document{data: data, json: l.json, line: s.start})
	return slices.Values(out), err
}
