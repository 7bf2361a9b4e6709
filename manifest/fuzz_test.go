package manifest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzRead feeds arbitrary bytes to ReadInputs: it never panics, never modifies its input, gives
// the same outcome on one goroutine and on three, and what it returns is a
// snapshot the library can plan: named objects, namespaced ones in a namespace, a source each.
func FuzzRead(f *testing.F) {
	seeds := []string{
		"", // no objects
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",                                                                                               // one node
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n",                                            // a hand-written DaemonSet: defaults and a uid
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n", // a List with a skipped kind
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n- kind: Pod\n  metadata: {name: p}\nkind: List\n",              // kubectl's layout, split per item
		"{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"a\"}}]}",                        // a typed list with a duplicate
		"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"x\":1}}]} {\"a\":\"}\"",                         // an unknown field, then an unterminated value
		"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r}\ndata: {spec: {template: {}}}\nrevision: 1\n",                                  // revision data to re-encode
		"\xFF\xFEa\x00:\x00 \x001\x00\n\x00",                                            // UTF-16LE
		"--- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n%YAML 1.1\n---\n...\n", // markers and a directive
		"a: &x [*x]\n", // a YAML alias
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \" 1e-999999999\"}}\n",                                 // issue 25, F1: a quantity bomb behind a space
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"overhead\":{\"cpu\":\"1e-999999999\\u00a0\"}}}", // and before a Unicode space, escaped
		"---\n---\n...\n--- # c\n", // issue 25: empty documents (an endless run of them on stdin read 1 GiB first)
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nb: \xE2\x82",                             // invalid UTF-8 after a document, a rune cut at the end
		"\xEF\xBB\xBF# c\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",                       // a byte order mark before a stream's documents
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: 1_e-999_999_999}}\n", // a plain number's underscores, which YAML drops (D-20)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add(kubectldump.Real()) // a real dump
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		got, err := manifest.ReadInputs([]manifest.Input{{Name: "in", Data: data}}, manifest.Options{})
		if !bytes.Equal(before, data) {
			t.Fatal("ReadInputs modified its input")
		}
		again, err2 := manifest.ReadInputs([]manifest.Input{{Name: "in", Data: data}}, manifest.Options{Workers: 3})
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two reads disagree: %v, then %v", err, err2)
		}
		// A stream of unknown size (stdin from a pipe) is checked as it is decoded: the same
		// outcome, read half a buffer at a time.
		streamed, err3 := manifest.ReadInputs([]manifest.Input{{Name: "in", Reader: iotest.HalfReader(bytes.NewReader(data))}}, manifest.Options{})
		if (err == nil) != (err3 == nil) || (err != nil && err.Error() != err3.Error()) {
			t.Fatalf("bytes and a stream disagree: %v, then %v", err, err3)
		}
		if diff := cmp.Diff(got, streamed); diff != "" {
			t.Fatalf("bytes and a stream disagree (-bytes +stream):\n%s", diff)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("two reads disagree (-first +second):\n%s", diff)
		}
		s := got.Snapshot
		if len(got.Sources.DaemonSets) != len(s.DaemonSets) || len(got.Sources.Nodes) != len(s.Nodes) ||
			len(got.Sources.Pods) != len(s.Pods) || len(got.Sources.Revisions) != len(s.Revisions) {
			t.Fatal("a source is missing")
		}
		for _, ds := range s.DaemonSets {
			if ds.Name == "" || ds.Namespace == "" || ds.UID == "" || ds.Spec.RevisionHistoryLimit == nil {
				t.Fatalf("DaemonSet %q/%q without its identity or defaults", ds.Namespace, ds.Name)
			}
		}
		for _, p := range s.Pods {
			if p.Name == "" || p.Namespace == "" {
				t.Fatalf("pod %q/%q without name or namespace", p.Namespace, p.Name)
			}
		}
		for _, n := range s.Nodes {
			if n.Name == "" {
				t.Fatal("a node without name")
			}
		}
		_ = manifest.Latest(s)
	})
}

// FuzzParseQuantity searches for text the quantity gate passes on which parsing, and what the
// project does with a quantity (compare, add, format, scale), takes more than a millisecond:
// the gate must see a quantity as apimachinery reads it (issue 25, F1). Where the gate passes,
// its answer is resource.ParseQuantity's on the trimmed text.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{
		"100m",             // an ordinary CPU request
		"1Gi",              // a binary unit
		"1e-999999999",     // the exponent bomb of kubernetes #141306
		" 1e-999999999",    // F1: a space before it
		"1e-999999999 ",    // F1: a space after it
		"\u00a01E+99999\t", // Unicode and ASCII spaces around it
		"+.e-999999999",    // the form without digits
		"1e100",            // the largest exponent the default passes
		"-0.000000001e-91", // a fraction at the smallest exponent passed
		"99999999999999999999999999999999999999999999999999999999999999Ei", // 64 characters and the largest unit
		"1e4294967296",           // an exponent ParseQuantity wraps to int32
		"1e99999999999999999999", // an exponent beyond int64
	} {
		f.Add(s)
	}
	one := resource.MustParse("1")
	use := func(q resource.Quantity) {
		sum := q.DeepCopy()
		sum.Add(one)
		_ = sum.Cmp(q)
		_ = q.String()
		_ = q.MilliValue()
		_, _ = q.AsInt64()
	}
	f.Fuzz(func(t *testing.T, s string) {
		elapsed := time.Duration(1 << 62)
		var q resource.Quantity
		var err error
		for range 3 { // the fastest of three, for a shared machine
			start := time.Now()
			q, err = manifest.ParseQuantity(s, manifest.Limits{})
			if err == nil {
				use(q)
			}
			elapsed = min(elapsed, time.Since(start))
		}
		if elapsed > time.Millisecond {
			t.Fatalf("ParseQuantity(%q) and its use took %v", s, elapsed)
		}
		if err != nil && strings.Contains(err.Error(), "limit Quantity") {
			return // refused: parsing it is what must not happen
		}
		want, wantErr := resource.ParseQuantity(strings.TrimSpace(s))
		if (err == nil) != (wantErr == nil) || err == nil && want.Cmp(q) != 0 {
			t.Fatalf("ParseQuantity(%q) = %v, %v; resource.ParseQuantity = %v, %v", s, q, err, want, wantErr)
		}
	})
}

// FuzzCheckJSON: CheckJSON never panics, and passes every JSON value encoding/json writes (a
// map cannot hold a key twice), so it refuses only what a decoder would lose.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`,                                // one key
		`{"a":1,"a":2}`,                          // a key twice (issue 25, F14)
		`[{"a":[{"b":1,"b":2}]}]`,                // twice, deep
		"{\"a\":\"\xff\"}",                       // invalid UTF-8
		`{"a":{"b":{}},"c":[[],{}],"d":null}`,    // empty containers
		`{"a":1,"\u0061":2}`,                     // the same key, escaped
		"[1,\n{\"x\":[{},{\"a\":1,\n\"a\":2}]}]", // a path through arrays, on line 3
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := manifest.CheckJSON(data)
		if json.Valid(data) && utf8.Valid(data) {
			if want := duplicateKey(data); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("CheckJSON(%q) = %v, the decoder's tokens say %v", data, got, want)
			}
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		clean, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := manifest.CheckJSON(clean); err != nil {
			t.Fatalf("CheckJSON(%s) = %v", clean, err)
		}
	})
}

// duplicateKey is CheckJSON's reference for valid JSON, written on encoding/json's tokens (15
// times slower): the first key given twice in one object, with its line and path.
func duplicateKey(data []byte) error {
	type frame struct {
		path  *field.Path
		keys  map[string]bool // nil in an array
		key   string
		isKey bool
		index int
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		offset := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.keys != nil && top.isKey {
			key := tok.(string)
			if top.keys[key] {
				// The token starts after the separator before it.
				start := offset + int64(bytes.IndexByte(data[offset:], '"'))
				line := bytes.Count(data[:start], []byte("\n")) + 1
				return fmt.Errorf("line %d: %w", line, field.Duplicate(top.path.Child(key), key))
			}
			top.keys[key], top.key, top.isKey = true, key, false
			continue
		}
		var path *field.Path
		switch {
		case top == nil:
		case top.keys != nil:
			path, top.isKey = top.path.Child(top.key), true
		default:
			path = top.path.Index(top.index)
			top.index++
		}
		if d, ok := tok.(json.Delim); ok {
			f := &frame{path: path}
			if d == '{' {
				f.keys, f.isKey = map[string]bool{}, true
			}
			stack = append(stack, f)
		}
	}
}

// FuzzReadText: the gate reads the same bytes alike from memory, from a stream and from a
// file (each has its own code: a file is checked in one pass and read again), never panics,
// and never modifies what it is given.
func FuzzReadText(f *testing.F) {
	for _, s := range []string{
		"name: n\n",                    // plain text
		"\xEF\xBB\xBF{\"a\": 1}",       // a byte order mark
		"\xFF\xFEa\x00:\x00 \x001\x00", // UTF-16LE
		"a: 1\nb: \x00\n",              // a NUL byte on line 2
		"a: 1\nb: \xc3\n",              // invalid UTF-8 on line 2
		strings.Repeat("x", 1025),      // over the limit
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fromData, errData := manifest.ReadText(manifest.Input{Name: "in", Data: data}, 1024)
		if !bytes.Equal(before, data) {
			t.Fatal("ReadText modified its input")
		}
		fromStream, errStream := manifest.ReadText(manifest.Input{Name: "in", Reader: bytes.NewReader(data)}, 1024)
		fromFile, errFile := manifest.ReadText(manifest.Input{Name: "in", Path: path}, 1024)
		if len(data) > 1024 {
			// A size known before reading is refused first; a stream may fail on its text first.
			if errData == nil || errStream == nil || errFile == nil {
				t.Fatalf("over the limit: data %v, stream %v, file %v", errData, errStream, errFile)
			}
			return
		}
		if fmt.Sprint(errData) != fmt.Sprint(errStream) || fmt.Sprint(errData) != fmt.Sprint(errFile) {
			t.Fatalf("errors differ: data %v, stream %v, file %v", errData, errStream, errFile)
		}
		if !bytes.Equal(fromData, fromStream) || !bytes.Equal(fromData, fromFile) {
			t.Fatalf("text differs: data %q, stream %q, file %q", fromData, fromStream, fromFile)
		}
	})
}

// FuzzCheckQuantities: CheckQuantities never panics nor changes its input; what it refuses it
// refuses with a field error (an oversized quantity, or a key given twice in text that holds
// one) (or the error of the first value of the wrong kind), and what it lets through decodes into a Pod in bounded time (a
// quantity such as 1e-999999999 took hours: issue 25).
func FuzzCheckQuantities(f *testing.F) {
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"requests":{"cpu":"100m"}}}]}}`))          // a plain quantity
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"limits":{"memory":"1e-999999999"}}}]}}`)) // an exponent beyond the limit
	f.Add([]byte(`{"spec":{"overhead":{"cpu":1e999}}}`))                                          // a number, not a string
	f.Add([]byte(`{"metadata":{"labels":{"a":"1e-999999999"}}}`))                                 // a lookalike that is text
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"` + strings.Repeat("9", 200) + `"}}}`))             // too long
	// Issue 25, dupgate: the walk kept the last of a key given twice, the decoder parsed the
	// first too; the audit's dupnode1-3.json and dupres.json, as a Pod.
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"1e-999999999"},"overhead":{}}}`))                                            // a parent object given twice
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"1e-999999999","cpu":"1"}}}`))                                                // a quantity given twice
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"1e-999999999"}},"spec":{}}`))                                                // the top object's key given twice
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"requests":{"cpu":"1e-999999999"}},"name":"c","resources":{}}]}}`)) // dupres.json's container
	f.Add([]byte(`{"spec":{"overhead":{"cpu":" 1e-999999999"},"\u006fverhead":{}}}`))                                      // given twice, once escaped
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		err := manifest.CheckQuantities(data, &v1.Pod{}, manifest.Limits{})
		if !bytes.Equal(before, data) {
			t.Fatal("CheckQuantities changed its input")
		}
		if err != nil {
			// A value of the wrong kind for the Pod type stops the walk, refused too: past it,
			// encoding/json would go on and parse the quantities the walk did not see.
			if !errors.As(err, new(*field.Error)) && !strings.Contains(err.Error(), "cannot unmarshal ") {
				t.Fatalf("CheckQuantities(%q) = %v, neither a quantity's field error nor a kind error", data, err)
			}
			return
		}
		start := time.Now()
		_ = json.Unmarshal(data, &v1.Pod{})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("CheckQuantities let through %q, which took %v to decode", data, d)
		}
	})
}

// FuzzDecodeStrict: DecodeStrict never panics nor changes its input, and its error is one
// line.
func FuzzDecodeStrict(f *testing.F) {
	f.Add([]byte("labels: {a: b}\ntaints: []\n"))     // a node template
	f.Add([]byte("lables: {a: b}\n"))                 // a typo
	f.Add([]byte("labels: {a: b}\nlabels: {c: d}\n")) // a key given twice
	f.Add([]byte("# nothing\n"))                      // empty
	f.Add([]byte("{\"capacity\": {\"cpu\": \"1e-999999999\"}}\n"))
	f.Add([]byte("labels: [\n"))                                                // not YAML
	f.Add([]byte("capacity: {cpu: 1e-999999999}\n"))                            // a YAML number the conversion makes 0 (D-20)
	f.Add([]byte("{\"capacity\": {\"cpu\": 1e-999999999}}"))                    // the JSON number (D-20)
	f.Add([]byte("x: &n 1e-999999999\ncapacity: {cpu: *n}\n"))                  // an alias of the number
	f.Add([]byte("capacity: {cpu: '1'}\n---\ncapacity: {cpu: 1e-999999999}\n")) // a second document (D-20)
	f.Add([]byte("capacity: {cpu: 1_e_-999999999}\n"))                          // underscores YAML drops (D-20)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		var node v1.NodeStatus
		start := time.Now()
		_, err := manifest.DecodeStrict(data, &node)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("DecodeStrict(%q) took %v", data, d)
		}
		if !bytes.Equal(before, data) {
			t.Fatal("DecodeStrict changed its input")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("DecodeStrict(%q): an error of more than one line: %q", data, err)
		}
	})
}
