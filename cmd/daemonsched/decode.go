package main

import (
	"bytes"
	"crypto/sha1"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// maxInputSize bounds one input file, against endless streams: kubectl -o json of every pod of a
// 5,000-node cluster may well exceed 1 GiB.
const maxInputSize = 4 << 30

// exampleName names the built-in example cluster in messages.
const exampleName = "example/cluster.yaml"

//go:embed example/cluster.yaml
var exampleCluster []byte

// location says where an object came from: a file, the 1-based number of its document (blank
// and comment-only documents are not counted) and, inside a list, its index in items.
type location struct {
	file string
	doc  int
	item int // -1 outside a list
}

func (l location) String() string {
	if l.item < 0 {
		return fmt.Sprintf("%s: document %d", l.file, l.doc)
	}
	return fmt.Sprintf("%s: document %d: items[%d]", l.file, l.doc, l.item)
}

// located is a decoded object and where it came from.
type located[T any] struct {
	obj T
	loc location
}

// input is everything read from the files, in input order.
type input struct {
	daemonSets []located[*appsv1.DaemonSet]
	nodes      []located[*v1.Node]
	pods       []located[*v1.Pod]
	revisions  []located[*appsv1.ControllerRevision]

	strictFields bool
	skipped      []skippedKind
	unknown      []unknownFields
	warnings     []string
}

// skippedKind counts the objects of one kind that are not read, for one warning line per kind.
type skippedKind struct {
	apiVersion, kind string
	count            int
	first            string // location and identity of the first one
}

// typeAndName is what is read from every document before it is decoded into its type.
type typeAndName struct {
	// partial is set when the identity could not be read whole (say, a name that is not a
	// string); the typed decoding then reports why.
	partial    bool   `json:"-"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

func (t typeAndName) identity() string {
	kind := t.Kind
	if kind == "" {
		kind = "object"
	}
	switch {
	case t.Metadata.Name == "":
		return kind + " (no name)"
	case t.Metadata.Namespace == "" && kind != "Node":
		// Namespaced objects without a namespace are in "default" (D-5).
		return kind + " " + metav1.NamespaceDefault + "/" + t.Metadata.Name
	case t.Metadata.Namespace == "":
		return kind + " " + t.Metadata.Name
	}
	return kind + " " + t.Metadata.Namespace + "/" + t.Metadata.Name
}

// list is a v1 List or a typed list (NodeList, ...) as kubectl and the API server print them.
// Its items stay slices of the input.
type list struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   metav1.ListMeta `json:"metadata"`
	Items      []rawSpan       `json:"items"`
}

// rawSpan is a JSON value as a slice of the input, not a copy (json.RawMessage copies): a
// kubectl dump's items are most of it. The input is never modified.
type rawSpan []byte

func (r *rawSpan) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// kinds maps each kind read to its only supported apiVersion.
var kinds = map[string]string{
	"DaemonSet":              "apps/v1",
	"ControllerRevision":     "apps/v1",
	"Node":                   "v1",
	"Pod":                    "v1",
	"List":                   "v1",
	"DaemonSetList":          "apps/v1",
	"ControllerRevisionList": "apps/v1",
	"NodeList":               "v1",
	"PodList":                "v1",
}

// loadOptions says how strictly the input is read.
type loadOptions struct {
	// strictFields makes a field the v1.36 API types do not have an error; otherwise it is a
	// warning and the field is dropped, as every v1.36 client (the controller included) drops it.
	strictFields bool
}

// load reads every file (the built-in example when there is none) and checks the snapshot is
// consistent. It applies the hand-written-manifest rules of D-4 and D-5.
func load(files []string, stdin io.Reader, opts loadOptions) (*input, error) {
	in := &input{strictFields: opts.strictFields}
	if len(files) == 0 {
		if err := in.decodeFile(exampleName, exampleCluster); err != nil {
			return nil, err
		}
	}
	if i := slices.Index(files, "-"); i >= 0 && slices.Contains(files[i+1:], "-") {
		return nil, errors.New("-f -: stdin can be read only once")
	}
	for _, f := range files {
		var (
			data []byte
			err  error
			name = f
		)
		if f == "-" {
			name = "stdin"
			data, err = readLimited(name, stdin, maxInputSize)
		} else {
			data, err = readFile(f)
		}
		if err != nil {
			return nil, err
		}
		if err := in.decodeFile(name, data); err != nil {
			return nil, err
		}
	}
	if err := in.checkDuplicates(); err != nil {
		return nil, err
	}
	in.applyDefaults()
	return in, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		// "FILE: no such file or directory", like every other message about a file.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if size = st.Size(); size > maxInputSize {
			return nil, fmt.Errorf("%s: file is larger than %d MiB", name, maxInputSize>>20)
		}
	}
	return readSized(name, f, maxInputSize, size)
}

// readLimited reads r to its end, or fails after limit bytes (a MiB multiple) without reading
// more than one byte past it; it guards stdin and files whose size Stat cannot tell.
func readLimited(name string, r io.Reader, limit int64) ([]byte, error) {
	return readSized(name, r, limit, 0)
}

// readSized is readLimited with the expected size, when known, so that a large file is read
// into one buffer of its size instead of growing one and copying it.
func readSized(name string, r io.Reader, limit, size int64) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(min(size, limit)) + bytes.MinRead) // ReadFrom wants MinRead free bytes for the read that sees the end
	_, err := b.ReadFrom(io.LimitReader(r, limit+1))
	data := b.Bytes()
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "FILE: is a directory"
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: file is larger than %d MiB", name, limit>>20)
	}
	return data, nil
}

// decodeFile reads every document of one file. Documents, and the items of lists, are decoded
// in parallel; what they hold is then added in input order, and the first error in input order
// is the one reported, so the outcome does not depend on scheduling.
func (in *input) decodeFile(name string, data []byte) error {
	data, err := utf8Text(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	docs, err := splitDocuments(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) == 0 {
		return fmt.Errorf("%s: no objects", name)
	}
	results := make([][]decoded, len(docs))
	errs := make([]error, len(docs))
	parallel(len(docs), func(i int) {
		results[i], errs[i] = decodeDocument(location{file: name, doc: i + 1, item: -1}, docs[i])
	})
	for i := range docs {
		if errs[i] != nil {
			return errs[i]
		}
		for _, d := range results[i] {
			if err := in.add(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// parallel calls f(0), ..., f(n-1) on up to GOMAXPROCS goroutines and returns when all are done.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// utf8BOM is the byte order mark some Windows editors put at the start of UTF-8 files.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// utf8Text drops a UTF-8 byte order mark, and converts UTF-16 text with a byte order mark (what
// Windows PowerShell 5's `kubectl get -o yaml > file` writes) to UTF-8.
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

// jsonSyntaxError reports where a document that is not valid JSON goes wrong, or nil.
func jsonSyntaxError(loc location, doc document) error {
	if json.Valid(doc.data) {
		return nil
	}
	var v any
	err := json.Unmarshal(doc.data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%v: line %d: %v", loc, doc.line, err)
	}
	off := min(int(se.Offset), len(doc.data))
	return fmt.Errorf("%v: line %d: %s", loc, doc.line+bytes.Count(doc.data[:off], []byte("\n")), strings.TrimPrefix(se.Error(), "json: "))
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

// decoded is one object read from the input, or one skipped, or a list's own fields.
type decoded struct {
	loc     location
	where   string // location and identity, for messages
	tn      typeAndName
	obj     any  // *appsv1.DaemonSet, *appsv1.ControllerRevision, *v1.Node or *v1.Pod; nil otherwise
	skip    bool // a kind that is not read
	unknown []string
}

// decodeDocument decodes one document: its object, or the objects of a list.
func decodeDocument(loc location, doc document) ([]decoded, error) {
	if doc.json {
		out, err := decodeValue(loc, doc.data, "")
		if err != nil {
			if se := jsonSyntaxError(loc, doc); se != nil {
				return nil, se
			}
		}
		return out, err
	}
	if wrapper, items, ok := splitYAMLList(doc); ok {
		if out, err := decodeYAMLList(loc, wrapper, items); err == nil {
			return out, nil
		}
		// The whole document is read again below, giving the parser's own message (or a
		// success, should the items depend on each other, say through YAML aliases).
	}
	js, err := yaml.YAMLToJSONStrict(doc.data)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", loc, yamlError(err, doc.line))
	}
	return decodeValue(loc, js, "")
}

// splitYAMLList cuts a YAML list the way kubectl prints it ("items:" at the start of a line,
// each item a "- " line followed by lines indented by two spaces) into the list without its items
// ("items: []") and each item (still indented: see dedent) as a document of its own, so that the
// items, most of a large dump, can be parsed in parallel. It reports false for any other layout,
// read as a whole.
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
			case len(bytes.TrimRight(line, "\r\n")) == 0:
			case bytes.HasPrefix(line, []byte("  ")):
				if item < 0 {
					return nil, nil, false
				}
			case line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#':
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

// decodeYAMLList decodes a list split by splitYAMLList; any error sends the caller back to the
// whole document.
func decodeYAMLList(loc location, wrapper []byte, items []document) ([]decoded, error) {
	js, err := yaml.YAMLToJSONStrict(wrapper)
	if err != nil {
		return nil, err
	}
	head, itemKind, _, isList, err := decodeList(loc, js)
	if err != nil {
		return nil, err
	}
	if !isList {
		return nil, errors.New("not a list")
	}
	return decodeItems(head, len(items), func(i int, itemLoc location) ([]decoded, error) {
		js, err := yaml.YAMLToJSONStrict(dedent(items[i].data))
		if err != nil {
			return nil, err
		}
		return decodeValue(itemLoc, js, itemKind)
	})
}

// decodeItems decodes the n items of the list head in parallel with item, and returns the head
// and the items' objects in order, or the first error in order.
func decodeItems(head decoded, n int, item func(i int, loc location) ([]decoded, error)) ([]decoded, error) {
	results := make([][]decoded, n)
	errs := make([]error, n)
	parallel(n, func(i int) {
		itemLoc := head.loc
		itemLoc.item = i
		results[i], errs[i] = item(i, itemLoc)
	})
	size := 1
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
		size += len(results[i])
	}
	out := make([]decoded, 0, size)
	out = append(out, head)
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// identify reads the kind, apiVersion, name and namespace of one object (JSON) found at loc and
// checks them. itemKind is the kind a typed list gives its items ("" outside typed lists).
func identify(loc location, data []byte, itemKind string) (typeAndName, string, error) {
	var tn typeAndName
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return tn, "", fmt.Errorf("%v: not an object", loc)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return tn, "", fmt.Errorf("%v: not a Kubernetes object: want a mapping with apiVersion, kind and metadata", loc)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &tn); err != nil {
		// A malformed identity (say, a numeric name) is reported by the strict decoding that
		// follows; until then the object goes by what could be read.
		tn = typeAndName{partial: true}
		_ = kjson.UnmarshalCaseSensitivePreserveInts(data, &struct {
			APIVersion *string `json:"apiVersion"`
			Kind       *string `json:"kind"`
		}{&tn.APIVersion, &tn.Kind})
	}
	if tn.Kind == "" && tn.APIVersion == "" && itemKind != "" {
		tn.Kind, tn.APIVersion = itemKind, kinds[itemKind]
	}
	where, err := checkIdentity(loc, tn)
	return tn, where, err
}

// checkIdentity returns loc and the identity of tn for messages, and an error if tn has no
// kind, no apiVersion, or not the apiVersion of a kind that is read.
func checkIdentity(loc location, tn typeAndName) (string, error) {
	where := fmt.Sprintf("%v: %s", loc, tn.identity())
	switch {
	case tn.Kind == "":
		return where, fmt.Errorf("%s: kind: Required value", where)
	case tn.APIVersion == "":
		return where, fmt.Errorf("%s: apiVersion: Required value", where)
	}
	if want, known := kinds[tn.Kind]; known && tn.APIVersion != want {
		return where, fmt.Errorf("%s: apiVersion: Unsupported value: %q: supported values: %q", where, tn.APIVersion, want)
	}
	return where, nil
}

// decodeList decodes a list's own fields in one pass over data, keeping its items as slices,
// and returns the kind a typed list gives them. isList is false (and err nil) when data is
// valid JSON but not a list of a kind that is read.
func decodeList(loc location, data []byte) (head decoded, itemKind string, items []rawSpan, isList bool, err error) {
	var l list
	strictErrs, err := kjson.UnmarshalStrict(data, &l)
	if err != nil {
		// Read the identity on its own for the message.
		tn, where, ierr := identify(loc, data, "")
		switch {
		case ierr != nil:
			return decoded{}, "", nil, false, ierr
		case !isListKind(tn.Kind):
			return decoded{}, "", nil, false, nil
		}
		return decoded{}, "", nil, false, fmt.Errorf("%s: %w", where, decodeError(err))
	}
	if !isListKind(l.Kind) {
		return decoded{}, "", nil, false, nil
	}
	tn := typeAndName{APIVersion: l.APIVersion, Kind: l.Kind}
	where, err := checkIdentity(loc, tn)
	if err != nil {
		return decoded{}, "", nil, false, err
	}
	unknown, err := fieldErrors(strictErrs)
	if err != nil {
		return decoded{}, "", nil, false, fmt.Errorf("%s: %w", where, err)
	}
	if tn.Kind != "List" {
		itemKind = strings.TrimSuffix(tn.Kind, "List")
	}
	return decoded{loc: loc, where: where, tn: tn, unknown: unknown}, itemKind, l.Items, true, nil
}

func isListKind(kind string) bool {
	_, known := kinds[kind]
	return known && strings.HasSuffix(kind, "List")
}

// decodeValue decodes one object (JSON) found at loc, or the items of a list. itemKind is the
// kind a typed list gives its items ("" outside typed lists).
func decodeValue(loc location, data []byte, itemKind string) ([]decoded, error) {
	if loc.item < 0 && bytes.Contains(data, []byte(`"items"`)) {
		// Most likely a list (say, all of a dump): one pass reads it.
		if out, isList, err := decodeListValue(loc, data); isList || err != nil {
			return out, err
		}
	}
	tn, where, err := identify(loc, data, itemKind)
	if err != nil {
		return nil, err
	}
	d := decoded{loc: loc, where: where, tn: tn}
	if _, known := kinds[tn.Kind]; !known {
		d.skip = true
		return []decoded{d}, nil
	}
	if isListKind(tn.Kind) {
		if loc.item >= 0 {
			return nil, fmt.Errorf("%s: a list inside a list is not supported", where)
		}
		out, _, err := decodeListValue(loc, data)
		return out, err
	}
	if tn.Metadata.Name == "" && !tn.partial {
		return nil, fmt.Errorf("%s: metadata.name: Required value", where)
	}
	var obj interface {
		metav1.Object
		GetObjectKind() schema.ObjectKind
	}
	switch tn.Kind {
	case "DaemonSet":
		obj = &appsv1.DaemonSet{}
	case "ControllerRevision":
		obj = &appsv1.ControllerRevision{}
	case "Node":
		obj = &v1.Node{}
	case "Pod":
		obj = &v1.Pod{}
	}
	if d.unknown, err = decodeStrict(data, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	// Typed-list items may leave out their kind and apiVersion; a namespaced object without a
	// namespace goes in "default", as kubectl puts it (D-5).
	obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(tn.APIVersion, tn.Kind))
	if tn.Kind != "Node" && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if cr, ok := obj.(*appsv1.ControllerRevision); ok {
		if err := canonicalData(cr); err != nil {
			return nil, fmt.Errorf("%s: data: %w", where, err)
		}
	}
	d.obj = obj
	return []decoded{d}, nil
}

// decodeListValue decodes a list and its items (in parallel); isList is false when data is not
// a list.
func decodeListValue(loc location, data []byte) (out []decoded, isList bool, err error) {
	head, itemKind, items, isList, err := decodeList(loc, data)
	if err != nil || !isList {
		return nil, isList, err
	}
	out, err = decodeItems(head, len(items), func(i int, itemLoc location) ([]decoded, error) {
		return decodeValue(itemLoc, items[i], itemKind)
	})
	return out, true, err
}

// add adds one decoded object to the input, in input order.
func (in *input) add(d decoded) error {
	if len(d.unknown) > 0 {
		if in.strictFields {
			msgs := make([]string, len(d.unknown))
			for i, p := range d.unknown {
				msgs[i] = p + ": unknown field"
			}
			return fmt.Errorf("%s: %s", d.where, strings.Join(msgs, "; "))
		}
		for _, p := range d.unknown {
			in.unknownField(d, p)
		}
	}
	switch obj := d.obj.(type) {
	case *appsv1.DaemonSet:
		in.daemonSets = append(in.daemonSets, located[*appsv1.DaemonSet]{obj, d.loc})
	case *appsv1.ControllerRevision:
		in.revisions = append(in.revisions, located[*appsv1.ControllerRevision]{obj, d.loc})
	case *v1.Node:
		in.nodes = append(in.nodes, located[*v1.Node]{obj, d.loc})
	case *v1.Pod:
		in.pods = append(in.pods, located[*v1.Pod]{obj, d.loc})
	}
	if d.skip {
		in.skip(d.tn, d.where)
	}
	return nil
}

// unknownFields counts the objects of one kind with one unknown field (list indices left out),
// for one warning line each.
type unknownFields struct {
	kind, pattern string
	count         int
	first         string // location, identity and full path of the first one
}

func (in *input) unknownField(d decoded, path string) {
	pattern := indexPattern(path)
	for i := range in.unknown {
		if u := &in.unknown[i]; u.kind == d.tn.Kind && u.pattern == pattern {
			u.count++
			return
		}
	}
	in.unknown = append(in.unknown, unknownFields{kind: d.tn.Kind, pattern: pattern, count: 1, first: d.where + ": " + path})
}

// indexPattern replaces the list indices of a field path by "*": status.images[3].x reads
// status.images[*].x.
func indexPattern(path string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(path[i+1:], ']')
		}
		if j < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i+1])
		b.WriteByte('*')
		path = path[i+1+j:]
	}
}

// decodeStrict decodes data into obj. It returns the paths of the fields obj's type does not
// have (JSON object keys are case-sensitive, as for the API server), and an error for anything
// else: a value of the wrong type, or a field given twice.
func decodeStrict(data []byte, obj any) (unknown []string, err error) {
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		return nil, decodeError(err)
	}
	return fieldErrors(strictErrs)
}

// decodeError words a decoding error like a field error: "cannot unmarshal string into Go
// struct field PodSpec.spec.x of type int32" reads "spec.x: cannot unmarshal string into int32".
func decodeError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if m := typeErrorRE.FindStringSubmatch(msg); m != nil {
		msg = m[2] + ": cannot unmarshal " + m[1] + " into " + m[3]
	}
	return errors.New(msg)
}

// fieldErrors returns the paths of the unknown fields among the strict errors, and an error for
// the others (a field given twice).
func fieldErrors(strictErrs []error) (unknown []string, err error) {
	var msgs []string
	for _, e := range strictErrs {
		var fe kjson.FieldError
		if !errors.As(e, &fe) {
			msgs = append(msgs, e.Error())
			continue
		}
		if strings.HasPrefix(e.Error(), "unknown field ") {
			unknown = append(unknown, fe.FieldPath())
			continue
		}
		// "duplicate field \"spec.x\"" reads "spec.x: duplicate field", like a field error.
		msgs = append(msgs, fe.FieldPath()+": "+strings.TrimSuffix(e.Error(), " \""+fe.FieldPath()+"\""))
	}
	if len(msgs) > 0 {
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	return unknown, nil
}

var typeErrorRE = regexp.MustCompile(`^cannot unmarshal (\S+) into Go struct field [^.\s]+\.(\S+) of type (\S+)$`)

var yamlLineRE = regexp.MustCompile(`\bline (\d+)\b`)

// yamlError puts the YAML parser's message on one line, with line numbers counted in the file
// rather than in the document that starts at line first.
func yamlError(err error, first int) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:")
	var parts []string
	for l := range strings.Lines(msg) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	msg = strings.Join(parts, "; ")
	// go.yaml.in/yaml/v2 counts lines from 0 in its parser's errors (its scanner's and decoder's
	// count from 1).
	if slices.ContainsFunc(yamlParserErrors, func(e string) bool { return strings.HasSuffix(msg, e) }) {
		first++
	}
	return yamlLineRE.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "line "))
		if err != nil {
			return s
		}
		return "line " + strconv.Itoa(n+first-1)
	})
}

// yamlParserErrors are the messages of go.yaml.in/yaml/v2's parser (parserc.go) that carry a line.
var yamlParserErrors = []string{
	": did not find expected <document start>",
	": did not find expected node content",
	": did not find expected key",
	": did not find expected '-' indicator",
	": did not find expected ',' or ']'",
	": did not find expected ',' or '}'",
}

// canonicalData rewrites a ControllerRevision's data as the controller stored it: compact JSON
// with sorted keys, as encoding/json writes a map (pkg/controller/daemon getPatch). The library
// compares these bytes with the template's (UPD-16), and kubectl prints them re-indented (-o
// json) or as YAML, so without this a revision read from `kubectl get -o json` would never be
// current and would even look like a hash collision (UPD-21).
func canonicalData(cr *appsv1.ControllerRevision) error {
	if len(cr.Data.Raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(cr.Data.Raw))
	dec.UseNumber() // integers stay integers, written back as they were
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	cr.Data.Raw = raw
	return nil
}

func (in *input) skip(tn typeAndName, where string) {
	for i := range in.skipped {
		if s := &in.skipped[i]; s.apiVersion == tn.APIVersion && s.kind == tn.Kind {
			s.count++
			return
		}
	}
	in.skipped = append(in.skipped, skippedKind{apiVersion: tn.APIVersion, kind: tn.Kind, count: 1, first: where})
}

// checkDuplicates rejects a snapshot the API server could not hold: two objects of one kind
// with the same name (and namespace).
func (in *input) checkDuplicates() error {
	if err := duplicates(in.nodes, func(n *v1.Node) string { return n.Name }, "Node"); err != nil {
		return err
	}
	if err := duplicates(in.pods, func(p *v1.Pod) string { return p.Namespace + "/" + p.Name }, "Pod"); err != nil {
		return err
	}
	if err := duplicates(in.daemonSets, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name }, "DaemonSet"); err != nil {
		return err
	}
	return duplicates(in.revisions, func(r *appsv1.ControllerRevision) string { return r.Namespace + "/" + r.Name }, "ControllerRevision")
}

func duplicates[T any](objs []located[T], key func(T) string, kind string) error {
	seen := make(map[string]location, len(objs))
	for _, o := range objs {
		k := key(o.obj)
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%v: %s %s: metadata.name: Duplicate value: %q (first at %v)", o.loc, kind, k, k, first)
		}
		seen[k] = o.loc
	}
	return nil
}

// applyDefaults applies the DaemonSet API defaults (D-4) and gives every DaemonSet without a
// uid one derived from its namespace and name (D-5).
func (in *input) applyDefaults() {
	for i := range in.daemonSets {
		d := &in.daemonSets[i]
		d.obj = daemonset.WithDefaults(d.obj)
		if d.obj.UID == "" {
			d.obj.UID = nameUID(d.obj.Namespace, d.obj.Name)
			in.warnings = append(in.warnings, fmt.Sprintf(
				"%v: DaemonSet %s/%s: metadata.uid: not set, using %s (derived from namespace and name); pods belong to it only if their ownerReferences carry this uid",
				d.loc, d.obj.Namespace, d.obj.Name, d.obj.UID))
		}
	}
}

// uidNamespace is the name-space UUID of the uids nameUID derives (a random constant).
var uidNamespace = [16]byte{0x5b, 0x1e, 0x2a, 0x7c, 0x3d, 0x94, 0x4f, 0x0e, 0x9a, 0x61, 0x0c, 0xd2, 0x87, 0x45, 0x33, 0xf8}

// nameUID derives a uid from a DaemonSet's namespace and name, as a name-based (version 5,
// SHA-1) UUID, so that the same manifest always gets the same uid.
func nameUID(namespace, name string) types.UID {
	h := sha1.New()
	h.Write(uidNamespace[:])
	h.Write([]byte("daemonsets.apps/" + namespace + "/" + name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]))
}

// warn writes the decoding warnings, then the validation problems, one line each.
func (in *input) warn(w io.Writer, problems problemList) {
	in.writeWarnings(w)
	for _, p := range problems {
		fmt.Fprintf(w, "daemonsched: warning: %v\n", p)
	}
}

// writeWarnings writes the decoding warnings, one line each.
func (in *input) writeWarnings(w io.Writer) {
	for _, s := range in.skipped {
		more := ""
		if s.count > 1 {
			more = fmt.Sprintf(" and %d more", s.count-1)
		}
		fmt.Fprintf(w, "daemonsched: warning: %s%s: skipped: kind %s of apiVersion %s is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node and Pod)\n",
			s.first, more, s.kind, s.apiVersion)
	}
	for _, u := range in.unknown {
		more := ""
		if u.count > 1 {
			more = fmt.Sprintf(" (and %d more %s objects with %s)", u.count-1, u.kind, u.pattern)
		}
		fmt.Fprintf(w, "daemonsched: warning: %s: unknown field, ignored as by the v1.36 controller%s\n", u.first, more)
	}
	for _, msg := range in.warnings {
		fmt.Fprintf(w, "daemonsched: warning: %s\n", msg)
	}
}

// validate returns, one error each, what API validation would reject in dss.
func validate(dss []located[*appsv1.DaemonSet], opts daemonset.Options) problemList {
	var problems problemList
	for _, d := range dss {
		for _, e := range daemonset.Validate(d.obj, opts) {
			problems = append(problems, fmt.Errorf("%v: DaemonSet %s/%s: %w", d.loc, d.obj.Namespace, d.obj.Name, e))
		}
	}
	return problems
}

// snapshot returns the objects for the library.
func (in *input) snapshot() daemonset.Snapshot {
	return daemonset.Snapshot{
		DaemonSets: objects(in.daemonSets),
		Nodes:      objects(in.nodes),
		Pods:       objects(in.pods),
		Revisions:  objects(in.revisions),
	}
}

func objects[T any](l []located[T]) []T {
	out := make([]T, len(l))
	for i := range l {
		out[i] = l[i].obj
	}
	return out
}

// node returns the node named name, or nil.
func (in *input) node(name string) *v1.Node {
	for _, n := range in.nodes {
		if n.obj.Name == name {
			return n.obj
		}
	}
	return nil
}

// latest is the default --now: the latest timestamp of the input, or the Unix epoch. Every
// timestamp an object carries is at or before the moment it was read: metadata.creationTimestamp
// and managedFields[].time of every object (the time of its last write by each manager, so a
// dump's latest status update), pod status.startTime, pod, node and DaemonSet condition
// lastTransitionTime, node condition lastHeartbeatTime and taint timeAdded.
// (deletionTimestamp is left out: it lies a grace period in the future.)
func (in *input) latest() time.Time {
	var t time.Time
	see := func(m metav1.Time) {
		if m.Time.After(t) {
			t = m.Time
		}
	}
	seeMeta := func(m *metav1.ObjectMeta) {
		see(m.CreationTimestamp)
		for _, f := range m.ManagedFields {
			if f.Time != nil {
				see(*f.Time)
			}
		}
	}
	for _, d := range in.daemonSets {
		seeMeta(&d.obj.ObjectMeta)
		for _, c := range d.obj.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	for _, r := range in.revisions {
		seeMeta(&r.obj.ObjectMeta)
	}
	for _, n := range in.nodes {
		seeMeta(&n.obj.ObjectMeta)
		for _, c := range n.obj.Status.Conditions {
			see(c.LastTransitionTime)
			see(c.LastHeartbeatTime)
		}
		for _, taint := range n.obj.Spec.Taints {
			if taint.TimeAdded != nil {
				see(*taint.TimeAdded)
			}
		}
	}
	for _, p := range in.pods {
		seeMeta(&p.obj.ObjectMeta)
		if p.obj.Status.StartTime != nil {
			see(*p.obj.Status.StartTime)
		}
		for _, c := range p.obj.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}
