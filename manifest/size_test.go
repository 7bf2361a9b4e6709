package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Only a list may be larger than Limits.ObjectBytes: any other document that is, whatever text
// it holds, is refused before it is parsed, streamed or whole. The word "items" once let a
// 1,000 MB Node be parsed whole (69.8 s, 4.1 GB) before it was refused (issue 25, F7).
func TestOnlyListsMayExceedObjectBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2048)
	nodes := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n%d\n", i)
		}
		return b.String()
	}
	seq := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	tooLarge := func(where string) string {
		return "in: " + where + ": an object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)"
	}
	tests := []struct {
		name, in string
		want     string // "" reads
	}{{
		name: "a YAML node with the word items in an annotation",
		in:   "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {items: \"" + big + "\"}\n",
		want: tooLarge("document 1"),
	}, {
		name: "a JSON node with the word items in an annotation",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","annotations":{"items":"` + big + `"}}}`,
		want: tooLarge("document 1"),
	}, {
		name: "a JSON node in a YAML stream with the word items",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n---\n" + `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","annotations":{"items":"` + big + `"}}}` + "\n",
		want: tooLarge("document 2"),
	}, {
		name: "a YAML node with a top-level items list",
		in:   "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + big + "\"}\nitems:\n- a: 1\n",
		want: tooLarge("document 1"),
	}, {
		name: "a JSON node with a top-level items list",
		in:   `{"apiVersion":"v1","kind":"Node","items":[{"a":1}],"metadata":{"name":"n1","annotations":{"a":"` + big + `"}}}`,
		want: tooLarge("document 1"),
	}, {
		// Held whole and parsed, items: [] above a 1,000 MB label took 208 s and 5.9 GB.
		name: "a YAML node with items: [] first",
		in:   "items: []\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + big + "\"}\n",
		want: tooLarge("document 1"),
	}, {
		name: "a YAML node with items: null first, a comment after",
		in:   "items: null # none\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + big + "\"}\n",
		want: tooLarge("document 1"),
	}, {
		name: "a YAML node with a one-line flow items",
		in:   "items: [{a: 1}]\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + big + "\"}\n",
		want: tooLarge("document 1"),
	}, {
		name: "a YAML node with items after its first ObjectBytes",
		in:   "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + big + "\"}\nitems: []\n",
		want: tooLarge("document 1"),
	}, {
		name: "a YAML item over the limit",
		in:   "apiVersion: v1\nkind: List\nitems:\n" + nodes(2) + "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: big\n    annotations: {a: \"" + big + "\"}\n" + nodes(1),
		want: tooLarge("document 1: items[2]"),
	}, {
		name: "a YAML item over the limit in a typed list, after items whose kind is not yet known",
		in:   "apiVersion: v1\nitems:\n- metadata: {name: a}\n- metadata:\n    name: big\n    annotations: {a: \"" + big + "\"}\n- metadata: {name: c}\nkind: NodeList\nmetadata: {}\n",
		want: tooLarge("document 1: items[1]"),
	}, {
		name: "a YAML item over the limit after one that fails",
		in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n  spec: {unschedulable: maybe}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: big\n    annotations: {a: \"" + big + "\"}\n",
		want: "in: document 1: items[0]: Node a: spec.unschedulable: cannot unmarshal string into bool",
	}, {
		name: "a YAML item over the limit before one that fails",
		in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: big\n    annotations: {a: \"" + big + "\"}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n  spec: {unschedulable: maybe}\n",
		want: tooLarge("document 1: items[0]"),
	}, {
		name: "a JSON item over the limit",
		in:   `{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"big","annotations":{"a":"` + big + `"}}},{"metadata":{"name":"c"}}]}`,
		want: tooLarge("document 1: items[1]"),
	}, {
		name: "a kubectl list larger than ObjectBytes, its items smaller",
		in:   "apiVersion: v1\nkind: List\nitems:\n" + nodes(40),
	}, {
		name: "a JSON list larger than ObjectBytes, its items smaller",
		in:   `{"apiVersion":"v1","kind":"NodeList","items":[` + seq(60, `{"metadata":{"name":"a%d"}},`) + `{"metadata":{"name":"b"}}]}`,
	}, {
		name: "a flow YAML list larger than ObjectBytes",
		in:   "# a flow mapping, not a JSON stream\n{apiVersion: v1, kind: List, items: [" + seq(30, "{apiVersion: v1, kind: Node, metadata: {name: a%d}}, ") + "]}\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := Options{Limits: Limits{ObjectBytes: 1024}}
			_, err := readWhole([]byte(tt.in), opts)
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tt.want)
			}
			sameAsWhole(t, []byte(tt.in), opts)
		})
	}
}

// Lines longer than the reader's 64 KiB buffer are taken piece by piece, wherever they are:
// the outcome is the one of the whole input, under the default limits and small ones.
func TestLongLinesReadAsTheWholeInput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 200<<10)
	node := func(name, annotation string) string {
		return "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: " + name + "\n    annotations: {a: \"" + annotation + "\"}\n"
	}
	inputs := []string{
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {a: \"" + long + "\"}}\n",
		"apiVersion: v1\nkind: List\nitems:\n" + node("a", "x") + node("b", long) + node("c", "x"),
		"apiVersion: v1\nkind: List\nitems:\n" + node("a", "x") + "metadata: {resourceVersion: \"" + long + "\"}\n",
		"# " + long + "\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
		strings.Repeat(" ", 100<<10) + "# " + long + "\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n--- # " + long + "\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" + strings.Repeat(" ", 100<<10) + "\n",
		"# only spaces up to the limit, then text\n" + strings.Repeat(" ", 150<<10) + "kind: Node\n",
	}
	// Inputs 3 and 4 open with a document of more than 100 KiB of comments and spaces: under
	// that bound it is refused, where the whole input (which knows no such bound) drops it
	// (TestLargeBlankDocumentIsRefusedAtItsBound).
	blankPast100K := map[int]bool{3: true, 4: true}
	for i, in := range inputs {
		for _, opts := range []Options{{}, {Limits: Limits{ObjectBytes: 100 << 10}}} {
			t.Run(fmt.Sprintf("%d/%d", i, opts.Limits.ObjectBytes), func(t *testing.T) {
				t.Parallel()
				if blankPast100K[i] && opts.Limits.ObjectBytes != 0 {
					for _, input := range []Input{{Name: "in", Data: []byte(in)}, {Name: "in", Reader: &pieceReader{r: strings.NewReader(in), most: 1000}}} {
						_, err := ReadInputs([]Input{input}, opts)
						require.EqualError(t, err, "in: line 1: a document with more than 100 KiB of comments and blank lines (limit ObjectBytes)")
					}
					return
				}
				sameAsWhole(t, []byte(in), opts)
			})
		}
	}
}
