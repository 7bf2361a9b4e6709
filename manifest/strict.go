package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/daemonsched/daemonsched/internal/jsongate"
)

// DecodeStrictAll decodes every document of data, a YAML stream or a JSON stream of objects
// that are not Kubernetes objects a cluster holds (the node shapes an autoscaler may add, which
// have no name yet), each into a new T as [DecodeStrict] decodes one: a field T does not have,
// a value of the wrong type, a key given twice, a syntax error and a quantity beyond the
// default limits are errors, prefixed with the document's number and first line ("document 2
// (line 9): metadata.Labels: unknown field (did you mean labels?)"). Keys match fields
// exactly, as the API server matches them, not under case folding as encoding/json (and
// apimachinery's YAMLOrJSONDecoder) does. Empty documents are skipped; no document at all is
// an empty result. The first document that fails ends the reading.
func DecodeStrictAll[T any](data []byte) ([]*T, error) {
	docs, _ := splitDocuments(data) // it fails on nothing
	var out []*T
	for i, doc := range docs {
		obj := new(T)
		empty, err := decodeStrictDocument(doc, obj)
		if err != nil {
			return nil, fmt.Errorf("document %d (line %d): %w", i+1, doc.line, err)
		}
		if !empty {
			out = append(out, obj)
		}
	}
	return out, nil
}

// secondDocument is DecodeStrict's error on a document after the first.
func secondDocument(doc document) error {
	return fmt.Errorf("document 2 (line %d): a second document, where one is read (the first would be read alone, the others dropped)", doc.line)
}

// decodeStrictDocument is DecodeStrict of one document of its input. A JSON document is
// decoded as written, as the API server decodes a JSON body: through the YAML conversion its
// numbers would become float64s ("1e-999999999" 0, "0.1000000000000000000001" 0.1) where
// resource.Quantity's UnmarshalJSON parses the number's text. JSON that is not valid, or not
// UTF-8, goes the YAML way, whose error names the line.
func decodeStrictDocument(doc document, obj any) (empty bool, err error) {
	if doc.json && utf8.Valid(doc.data) && json.Valid(doc.data) {
		return decodeStrictJSON(doc.data, obj)
	}
	return decodeStrictYAML(yamlToJSON, doc, obj)
}

// decodeStrictYAML is DecodeStrict of one YAML document, converted to JSON with toJSON.
func decodeStrictYAML(toJSON func([]byte) ([]byte, error), doc document, obj any) (empty bool, err error) {
	js, err := toJSON(doc.data)
	if err != nil {
		return false, errors.New(yamlError(err, doc.line))
	}
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return true, nil
	}
	lim := Limits{}.withDefaults()
	w, _ := writtenDocument(doc.data, lim)
	if err := gateQuantities(js, w, obj, lim); err != nil {
		return false, err
	}
	return false, decodeStrictValue(js, obj)
}

// decodeStrictJSON is DecodeStrict of one JSON document, valid and UTF-8.
func decodeStrictJSON(data []byte, obj any) (empty bool, err error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return true, nil
	}
	// The quantity gate refuses a key given twice only when it finds a quantity to refuse;
	// the strict decoding below refuses it otherwise ("labels: duplicate field").
	if err := checkQuantities(data, obj, Limits{}.withDefaults()); err != nil {
		return false, err
	}
	return false, decodeStrictValue(data, obj)
}

// decodeStrictValue decodes the JSON js into obj strictly, naming every unknown field.
func decodeStrictValue(js []byte, obj any) error {
	unknown, err := decodeStrict(js, obj)
	if err != nil {
		return err
	}
	if len(unknown) == 0 {
		return nil
	}
	msgs := make([]string, len(unknown))
	for i, p := range unknown {
		msgs[i] = p + ": unknown field" + fieldSuggestion(reflect.TypeOf(obj), p)
	}
	slices.Sort(msgs)
	return errors.New(strings.Join(msgs, "; "))
}

// gateQuantities is the quantity gate of one object: data is its JSON, to be decoded as obj,
// and written, when not nil, its value as written in YAML (writtenValue), where a plain number
// is the text the user wrote, as a quoted one is. It refuses a resource quantity the gate
// refuses as written, though not as converted: a plain number the conversion (goyaml.v2's, as
// kubectl's and the API server's) turns into a float64, so that "1e-999999999" arrives as 0
// and a 100-digit number as 1.2345678901234568e+99, both within the limits. The gate judges
// what the user wrote: the same text quoted ("1e-999999999") is refused, and so is the JSON
// number 1e-999999999 the API server would parse (D-20). The written value is judged first,
// so that both forms are judged in one walk, in the order of its keys, and the quantity named
// is the one the document with every quantity quoted names; then data, for what only the
// conversion wrote. Both readers judge so: DecodeStrict (decodeStrictYAML) and Read
// (decodeAsWritten).
func gateQuantities(data []byte, written, obj any, lim Limits) error {
	if written != nil {
		if err := checkWritten(written, obj, lim); err != nil {
			return err
		}
	}
	return checkQuantities(data, obj, lim)
}

// decodeAsWritten decodes js, the JSON conversion of the YAML text (nil: js is JSON), as
// decodeValue does, with the quantities written as plain YAML numbers judged as written
// (gateQuantities, D-20): an object's at the quantity gate, beside its quoted ones and
// before the typed decoding, as the quoted form is judged, so that of two errors the same one
// is named whichever form the quantity is written in; the items of a list document (text is
// a whole document when document is true) each after it is decoded, in item order. Only
// text holding a run of number characters the gate refuses is parsed again; other text costs
// one scan.
func (r reader) decodeAsWritten(src Source, js, text []byte, itemKind string, document bool) ([]decoded, error) {
	w, ok := writtenDocument(text, r.opts.Limits)
	if !ok {
		return r.decodeValue(src, js, itemKind)
	}
	out, err := r.decodeWritten(src, js, itemKind, w)
	if err != nil || !document {
		return out, err
	}
	m, _ := w.(map[string]any)
	items, _ := m["items"].([]any)
	for _, d := range out {
		if d.obj == nil || d.src.Item < 0 || d.src.Item >= len(items) {
			continue // skipped kinds, and the object judged at the gate
		}
		if err := checkWritten(items[d.src.Item], d.obj, r.opts.Limits); err != nil {
			return nil, fmt.Errorf("%s: %w", d.where(), err)
		}
	}
	return out, nil
}

// writtenDocument returns the YAML document data as written (writtenValue); ok is false, and
// nothing is parsed, when data holds no run of number characters the gate refuses, and when
// data is not YAML (the conversion, which read it, reports that).
func writtenDocument(data []byte, lim Limits) (w any, ok bool) {
	if !holdsOversizedRun(data, lim) {
		return nil, false
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, false
	}
	budget := 4*len(data) + 1024 // nodes, aliases expanded
	return writtenValue(&n, &budget), true
}

// checkWritten is the quantity gate's error on w, a value as written (writtenValue) to be
// decoded as obj; nil when the gate refuses nothing in it. Other errors (a key given twice)
// are left to the typed decoding of the converted JSON.
func checkWritten(w, obj any, lim Limits) error {
	js, err := json.Marshal(w)
	if err != nil {
		return nil
	}
	err = checkQuantities(js, obj, lim)
	if qe := (*jsongate.QuantityError)(nil); errors.As(err, &qe) {
		return err
	}
	return nil
}

// holdsOversizedRun reports whether data holds a run of the characters of a number (digits,
// '.', 'e', 'E', '+', '-', and the underscores YAML drops from a plain number) that the
// quantity gate refuses, underscores dropped: a cheap test, which a word such as
// "free-1000" may pass, before the document is parsed again. The gate refuses only a run
// longer than its Length, which covers a multiple of Length, or one with an exponent, an 'e'
// or 'E' then a digit or a sign: only the runs around those bytes are judged, so the scan
// reads one byte in Length and searches for 'e' and 'E' (bytes.IndexByte), and every run is
// judged at most once per test.
func holdsOversizedRun(data []byte, lim Limits) bool {
	q := lim.quantities()
	for k := 0; k < len(data); k += max(q.Length, 1) {
		if !isNumberByte(data[k]) {
			continue
		}
		i, j := numberRun(data, k)
		if oversizedRun(data[i:j], q) {
			return true
		}
		k = j // the next multiple past the run, below
		k -= k % max(q.Length, 1)
	}
	for _, e := range []byte{'e', 'E'} {
		for p := 0; p < len(data); {
			at := bytes.IndexByte(data[p:], e)
			if at < 0 {
				break
			}
			at += p
			p = at + 1
			if !exponentAt(data, at) {
				continue
			}
			i, j := numberRun(data, at)
			if oversizedRun(data[i:j], q) {
				return true
			}
			p = j
		}
	}
	return false
}

// oversizedRun reports whether the gate refuses run, a run of number characters, its
// underscores dropped.
func oversizedRun(run []byte, q jsongate.Limits) bool {
	if bytes.IndexByte(run, '_') >= 0 {
		run = bytes.ReplaceAll(run, []byte("_"), nil)
	}
	return jsongate.Oversized(run, q) != ""
}

// exponentAt reports whether the 'e' or 'E' at data[at] is followed by a digit, or by a sign
// and a digit, underscores skipped.
func exponentAt(data []byte, at int) bool {
	at = skipUnderscores(data, at+1)
	if at < len(data) && (data[at] == '+' || data[at] == '-') {
		at = skipUnderscores(data, at+1)
	}
	return at < len(data) && '0' <= data[at] && data[at] <= '9'
}

func skipUnderscores(data []byte, at int) int {
	for at < len(data) && data[at] == '_' {
		at++
	}
	return at
}

// numberRun returns the bounds of the run of number characters holding data[k].
func numberRun(data []byte, k int) (i, j int) {
	i, j = k, k
	for i > 0 && isNumberByte(data[i-1]) {
		i--
	}
	for j < len(data) && isNumberByte(data[j]) {
		j++
	}
	return i, j
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' || c == '_'
}

// writtenValue is the YAML node n as generic JSON in which every scalar but null is the string
// written: mappings are objects, sequences arrays, an alias the node it names (as the
// conversion expands it), and a merge key's mappings merged in (mergeWritten), as the
// conversion merges them. Expanding aliases stops after budget nodes
// (goyaml.v2, which converted the document first, refuses excessive aliasing), so no document
// costs more than budget.
func writtenValue(n *yaml.Node, budget *int) any {
	if *budget <= 0 {
		return nil
	}
	*budget--
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return writtenValue(n.Content[0], budget)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return writtenValue(n.Alias, budget)
		}
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; {
			case k.Kind != yaml.ScalarNode:
			case k.Tag == "!!merge":
				mergeWritten(m, n.Content[i+1], budget)
			default:
				m[k.Value] = writtenValue(n.Content[i+1], budget)
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = writtenValue(c, budget)
		}
		return l
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
		case "!!int", "!!float":
			// The number YAML reads: goyaml.v2, as v3, drops a plain number's underscores
			// ("1_000" is 1000, "1_e-999999999" is 1e-999999999).
			return strings.ReplaceAll(n.Value, "_", "")
		default:
			return n.Value
		}
	}
	return nil
}

// mergeWritten sets in m the keys of the mappings a merge key ("<<") names, as goyaml.v2's
// conversion merges them: a mapping, an alias of one, or a sequence of them in which the
// earlier mappings win. A key also given beside the merge is refused by the strict
// conversion as a key given twice, before anything is judged.
func mergeWritten(m map[string]any, n *yaml.Node, budget *int) {
	if n.Kind == yaml.SequenceNode {
		for i := len(n.Content) - 1; i >= 0; i-- {
			if c := n.Content[i]; c.Kind != yaml.SequenceNode {
				mergeWritten(m, c, budget)
			}
		}
		return
	}
	if merged, ok := writtenValue(n, budget).(map[string]any); ok {
		maps.Copy(m, merged)
	}
}
