package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
)

// jsonSyntaxError reports where a document that is not valid JSON goes wrong, or nil.
func jsonSyntaxError(src Source, doc document) error {
	if json.Valid(doc.data) {
		return nil
	}
	var v any
	err := json.Unmarshal(doc.data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%v: line %d: %v", src, doc.line, err)
	}
	off := min(int(se.Offset), len(doc.data))
	return fmt.Errorf("%v: line %d: %s", src, doc.line+bytes.Count(doc.data[:off], []byte("\n")), strings.TrimPrefix(se.Error(), "json: "))
}

// decodeStrict decodes data into obj. It returns the paths of the fields obj's type does not
// have (JSON object keys are case-sensitive, as for the API server), and an error for anything
// else: a value of the wrong type, or a field given twice.
//
// It calls sigs.k8s.io/json's UnmarshalStrict itself rather than through apimachinery's strict
// JSON serializer (runtime/serializer/json with Strict), which calls the same function after
// reading the kind on its own: Read must read the identity first anyway, to word every message
// with it, and the serializer's extra pass then makes a 5 KB pod cost 97-98 µs instead of
// 74-77 µs (BenchmarkDecodeObject, 2 cores, idle). Its lenient twin would not do either: an
// unknown field is a warning here, which needs the strict errors.
func decodeStrict(data []byte, obj any) (unknown []string, err error) {
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		if located := locateError(data, obj); located != nil {
			return nil, located
		}
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

// DecodeStrict decodes data, one YAML or JSON document that is not a Kubernetes object (a node
// template, say), into obj as strictly as a hand-written manifest is read: a field obj's type
// does not have is an error naming its path and, when it is a typo, the field meant
// ("lables: unknown field (did you mean labels?)"); so are a value of the wrong type, a key
// given twice and a syntax error (with its line). Every unknown field is named, sorted by
// path, the errors joined by "; ". An empty document (nothing but comments) leaves obj as it
// was and returns empty true, for the caller to refuse as Read refuses an empty input. A
// second document (after "---", or a second JSON value) is an error naming it and its line:
// one document is asked for, and reading only the first would drop the others without a word
// ([DecodeStrictAll] reads them all). A JSON document is decoded as written, as the API
// server reads a JSON body; YAML is converted to JSON as kubectl and the API server convert
// it. A resource quantity in obj's type is refused before it is parsed when [CheckQuantities]
// refuses it at the default limits, as written: a YAML number such as 1e-999999999, which the
// conversion rounds to 0, is refused as its string form "1e-999999999" is (D-20).
func DecodeStrict(data []byte, obj any) (empty bool, err error) {
	docs, _ := splitDocuments(data) // it fails on nothing
	switch len(docs) {
	case 0:
		return true, nil
	case 1:
	default:
		return false, secondDocument(docs[1])
	}
	return decodeStrictDocument(docs[0], obj)
}

// decodeStrictWith is DecodeStrict of one YAML document, converted to JSON with toJSON.
func decodeStrictWith(toJSON func([]byte) ([]byte, error), data []byte, obj any) (empty bool, err error) {
	return decodeStrictYAML(toJSON, document{data: data, line: 1}, obj)
}
