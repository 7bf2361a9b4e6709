package manifest

import (
	"bytes"
	"errors"
	"fmt"
)

// splitYAMLList cuts a YAML list the way kubectl prints it ("items:" at the start of a line,
// each item a "- " line followed by lines indented by two spaces; blank lines and comments at
// column 0 may come between them) into the list without its items
// ("items: []") and each item (still indented: see dedent) as a document of its own, so that the
// items, most of a large dump, can be parsed in parallel. It reports false for any other layout,
// read as a whole.
//
// Hand-written because no YAML decoder at hand parses one document in parallel, and a dump is
// one document. BenchmarkRead, on a generated 7.6 MB dump of 1,000 nodes and 857 pods, 2 cores
// (Workers 2): Read takes 0.54x the wall time of sigs.k8s.io/yaml on the whole document and
// 0.50x of apimachinery's universal deserializer (0.92x and 0.86x their CPU time), and 1.31x of
// decoding the pre-split items alone. TestSplitYAMLListReadsWhatTheWholeDocumentReads checks it reads
// what the whole document reads.
func splitYAMLList(doc document) (wrapper []byte, items []document, ok bool) {
	const (
		before = iota
		inside
		after
	)
	var (
		w     bytes.Buffer
		state = before
		n     = doc.line - 1
		off   = 0
		item  = -1 // offset of the current item's first line
	)
	end := func() {
		if item >= 0 {
			items[len(items)-1].data = doc.data[item:off]
			item = -1
		}
	}
	for line := range bytes.Lines(doc.data) {
		n++
		switch state {
		case before:
			if string(bytes.TrimRight(line, " \r\n")) == "items:" {
				state = inside
				w.WriteString("items: []\n")
			} else {
				w.Write(line)
			}
		case after:
			w.Write(line)
		default:
			switch {
			case bytes.HasPrefix(line, []byte("- ")):
				end()
				items = append(items, document{line: n})
				item = off
			case len(bytes.TrimRight(line, "\r\n")) == 0 || line[0] == '#':
				// A comment at column 0, as a blank line, is the item's, if one began: inside
				// it, less indented than anything in it, it ends what a blank line would not end
				// (a plain scalar on several lines), there and in the item alone.
			case bytes.HasPrefix(line, []byte("  ")):
				if item < 0 {
					return nil, nil, false
				}
			case line[0] == ' ' || line[0] == '\t' || line[0] == '-':
				return nil, nil, false
			default: // the next key of the list
				end()
				state = after
				w.Write(line)
			}
		}
		off += len(line)
	}
	end()
	if len(items) == 0 {
		return nil, nil, false
	}
	return w.Bytes(), items, true
}

// dedent removes the two columns of a list item's indentation ("- " on its first line, "  " on
// the others; blank lines stay).
func dedent(item []byte) []byte {
	out := make([]byte, 0, len(item))
	for line := range bytes.Lines(item) {
		if len(line) >= 2 && (line[0] == ' ' || line[0] == '-') && line[1] == ' ' {
			line = line[2:]
		}
		out = append(out, line...)
	}
	return out
}

// dedentInPlace is dedent, written over item itself (each line only loses columns, so what is
// written never passes what is read): the streamed items' buffers are the list's own and are
// reused, and a copy of every item was 36 MB of the 660 MB the reader allocates on a 36 MB
// dump (BenchmarkReadFloor).
func dedentInPlace(item []byte) []byte {
	out := item[:0]
	for len(item) > 0 {
		end := bytes.IndexByte(item, '\n') + 1
		if end == 0 {
			end = len(item)
		}
		line := item[:end]
		item = item[end:]
		if len(line) >= 2 && (line[0] == ' ' || line[0] == '-') && line[1] == ' ' {
			line = line[2:]
		}
		out = append(out, line...) // copy handles the overlap
	}
	return out
}

// decodeYAMLList decodes a list split by splitYAMLList; any error sends the caller back to the
// whole document.
func (r reader) decodeYAMLList(src Source, wrapper []byte, items []document) ([]decoded, error) {
	js, err := yamlToJSON(wrapper)
	if err != nil {
		return nil, err
	}
	head, itemKind, _, isList, err := r.decodeList(src, js)
	if err != nil {
		return nil, err
	}
	if !isList {
		return nil, errNotAList
	}
	if err := r.count(len(items)); err != nil {
		return nil, err
	}
	out, err := r.decodeItems(head, len(items), func(i int, itemSrc Source) ([]decoded, error) {
		if len(items[i].data) > r.opts.Limits.ObjectBytes {
			return nil, r.tooLarge(itemSrc) // before it is converted, as the streaming reader refuses it
		}
		text := dedent(items[i].data)
		conv := yamlConv{out: make([]byte, 0, len(text)+len(text)/8+16)}
		js, text, err := conv.itemToJSON(text)
		if err != nil {
			return nil, itemYAMLError(src, items[i].line, text, err)
		}
		out, err := r.decodeAsWritten(itemSrc, js, text, itemKind, false)
		if err != nil {
			return nil, finalError{err}
		}
		return out, nil
	})
	if err != nil && !errors.As(err, new(finalError)) {
		r.objects.Add(-int64(len(items))) // the whole document is read again, and counted again
	}
	return out, err
}

// finalError is the error of one item of a list, final: the document is not read again for
// it. An item's error used to send the reader back to the whole document, a second parse of a
// list of any size for one item's message (issue 25).
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// itemYAMLError is the error of an item (text, dedented, its first line at line of the input)
// of the list document src that is not YAML: final, worded as the whole document's parse
// words it, its line counted in the input; but an item that may use an alias (a '*') of an
// anchor in another item is read again in its document, which may then succeed.
func itemYAMLError(src Source, line int, text []byte, err error) error {
	if bytes.IndexByte(text, '*') >= 0 {
		return err
	}
	return finalError{fmt.Errorf("%v: %s", src, yamlError(err, line))}
}

// itemToJSON converts a list's item (dedented) as toJSON does, and returns the text read: the
// item without its trailing comments when that is converted directly. A comment at column 0
// after an item's last line (`# node 2` before the item of node 2) sent every item to
// sigs.k8s.io/yaml, which took twice the CPU of reading the list whole (40,000 nodes). Cut at
// the first comment of the trailing run of blank lines and column-0 comments, the item reads
// the same: what the direct conversion reads ends in no scalar on several lines nor literal
// block that keeps its trailing lines, so that the comment, ending whatever is open, and the
// blank lines after it add nothing; what it does not read is converted whole, as before.
func (c *yamlConv) itemToJSON(text []byte) (js, read []byte, err error) {
	if cut := trailingComments(text); cut < len(text) {
		if js, ok := c.convert(text[:cut]); ok {
			return js, text[:cut], nil
		}
	}
	js, err = c.toJSON(text)
	return js, text, err
}

// trailingComments returns the offset in text of the first comment at column 0 of its last
// lines that are blank or such comments, or len(text).
func trailingComments(text []byte) int {
	cut := len(text)
	for end := len(text); end > 0; {
		start := bytes.LastIndexByte(text[:end-1], '\n') + 1
		switch line := text[start:end]; {
		case line[0] == '#':
			cut = start
		case len(bytes.TrimRight(line, "\r\n")) > 0:
			return cut
		}
		end = start
	}
	return cut
}
