package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// utf8BOM is the byte order mark some Windows editors put at the start of UTF-8 files.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// utf8Text drops a UTF-8 byte order mark, and converts UTF-16 text with a byte order mark (what
// Windows PowerShell 5's `kubectl get -o yaml > file` writes) to UTF-8.
//
// Hand-written rather than golang.org/x/text's BOMOverride decoder: that one turns a dangling
// odd byte into U+FFFD without a word, where this reports it (TestReadErrorsAreOneLine, "UTF-16
// with an odd number of bytes"); apimachinery's decoders read UTF-8 only.
func utf8Text(data []byte) ([]byte, error) {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		return data[len(utf8BOM):], nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		order = binary.BigEndian
	default:
		return data, nil
	}
	data = data[2:]
	if len(data)%2 != 0 {
		return nil, errors.New("UTF-16 text (it starts with a byte order mark) with an odd number of bytes")
	}
	units := make([]uint16, len(data)/2)
	for i := range units {
		units[i] = order.Uint16(data[2*i:])
	}
	out := make([]byte, 0, len(units)+len(units)/2)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// validUTF8 refuses text that is not UTF-8, naming the line: the API server rejects it, and
// so does the YAML parser, but encoding/json would turn it into U+FFFD without a word.
func validUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return fmt.Errorf("line %d: invalid UTF-8 (byte 0x%02X)", bytes.Count(data[:off], []byte("\n"))+1, data[off])
}

// document is one document of a file, as YAML or as JSON.
type document struct {
	data []byte
	json bool
	line int // of the document's first line in the file
}

// splitDocuments splits a JSON stream (a file starting with "{") into its values, and YAML (JSON
// objects separated by "---" included) at "---" lines (which may carry a comment, or the start of
// the document: "--- {a: 1}") and after "..." lines (document end markers). Blank documents and documents of only comments and
// directives ("%YAML 1.2") are dropped, and a byte order mark opening a document (files joined
// with cat) is ignored.
//
// Hand-written rather than apimachinery's YAMLReader (k8s.io/apimachinery/pkg/util/yaml), which
// TestSplitDocuments shows falls short here: it rejects a document starting on its marker's line
// ("--- {a: 1}") and lines such as "---x" that YAML reads as content, knows no "..." end marker, counts no lines (every error
// message names the file's line), and copies each document into a buffer of its own where this
// returns slices of the input (BenchmarkSplitDocuments, 3,000 documents: 0.37 ms and 14
// allocations here, 2.1 ms and 38,921 allocations there).
func splitDocuments(data []byte) ([]document, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil
	}
	// A JSON stream, unless YAML markers join its objects ("---" and "..." cannot occur in JSON
	// outside strings, and strings hold no newline): YAML reads JSON documents too.
	if trimmed[0] == '{' && !bytes.Contains(data, []byte("\n---")) && !bytes.Contains(data, []byte("\n...")) {
		return splitJSON(data)
	}
	// Documents are slices of data, not copies: a dump may be hundreds of MB.
	var (
		docs     []document
		docStart = 0 // offset of the current document's first byte
		off      = 0 // offset of the current line
		start    = 1 // number of the current document's first line
		n        = 0
	)
	flush := func(end int) {
		if doc := data[docStart:end]; !blankYAML(doc) {
			docs = append(docs, document{data: doc, line: start})
		}
	}
	for line := range bytes.Lines(data) {
		n++
		next := off + len(line)
		if off == docStart && bytes.HasPrefix(line, utf8BOM) {
			docStart += len(utf8BOM)
			line = line[len(utf8BOM):]
		}
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
			switch t := bytes.TrimSpace(rest); {
			case len(t) == 0 || t[0] == '#':
				flush(off)
				docStart, start = next, n+1
			case rest[0] == ' ' || rest[0] == '\t':
				// "--- {a: 1}": a new document starting on the marker's line; the parser
				// reads the marker itself.
				flush(off)
				docStart, start = off, n
			}
		} else if rest, ok := bytes.CutPrefix(line, []byte("...")); ok {
			if t := bytes.TrimSpace(rest); len(t) == 0 || t[0] == '#' {
				flush(next) // the parser ends the document at the marker
				docStart, start = next, n+1
			}
		}
		off = next
	}
	flush(len(data))
	return docs, nil
}

// splitJSON splits a stream of JSON values at their ends, without decoding them (the decoding
// reports syntax errors, with their line).
//
// Hand-written rather than the JSON half of apimachinery's YAMLOrJSONDecoder (an encoding/json
// Decoder): that one decodes the stream one value after the other, copying each, while these
// slices are then decoded in parallel; and it stops at a stray value such as "]" where this hands
// it to the decoding, which names its line (TestSplitDocuments, "stray JSON scalars").
func splitJSON(data []byte) ([]document, error) {
	var (
		docs []document
		line = 1
		last = 0 // offset up to which line counts newlines
	)
	for i := 0; ; {
		for i < len(data) && isJSONSpace(data[i]) {
			i++
		}
		if i == len(data) {
			return docs, nil
		}
		line += bytes.Count(data[last:i], []byte("\n"))
		last = i
		end := jsonValueEnd(data, i)
		docs = append(docs, document{data: bytes.TrimRight(data[i:end], " \t\r\n"), json: true, line: line})
		i = end
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonValueEnd returns the offset just past the JSON value starting at data[i] (at least one
// byte on), or len(data) if it does not end: brackets are matched outside strings, and a scalar
// runs to the next space or bracket. Whether the value is valid JSON is the decoder's business.
func jsonValueEnd(data []byte, i int) int {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(data); j++ {
		c := data[j]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if depth == 0 {
					return j + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth <= 0 {
				return j + 1
			}
		case depth == 0 && (isJSONSpace(c) || c == ','):
			return max(j, i+1)
		}
	}
	return len(data)
}

// blankYAML reports a document made only of blank lines, comments, directives and markers.
func blankYAML(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && line[0] != '%' && !bytes.Equal(line, []byte("...")) {
			return false
		}
	}
	return true
}
