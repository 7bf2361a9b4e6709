package manifest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"
)

// splitYAMLList parses the items of a kubectl List one by one (in parallel); that must read
// exactly what parsing the whole document reads. Random Pods and Nodes (strings with newlines,
// "- ", "#", quotes, non-ASCII, long lines that YAML folds) are printed as kubectl prints a List
// and read both ways.
func TestSplitYAMLListReadsWhatTheWholeDocumentReads(t *testing.T) {
	t.Parallel()
	f := listFiller(36)
	for round := range 20 {
		data := randomList(t, f)
		doc := document{data: data, line: 1}
		wrapper, split, ok := splitYAMLList(doc)
		require.True(t, ok, "round %d: kubectl's layout is recognised", round)
		require.Len(t, split, 8)
		src := Source{File: "f", Document: 1, Item: -1}
		fast, err := newReader(Options{}).decodeYAMLList(src, wrapper, split)
		require.NoError(t, err, "round %d", round)

		js, err := yaml.YAMLToJSONStrict(data)
		require.NoError(t, err)
		slow, err := newReader(Options{}).decodeValue(src, js, "")
		require.NoError(t, err)
		require.Equal(t, len(slow), len(fast))
		for i := range slow {
			a, err := json.Marshal(slow[i].obj)
			require.NoError(t, err)
			b, err := json.Marshal(fast[i].obj)
			require.NoError(t, err)
			require.JSONEq(t, string(a), string(b), "round %d, item %d", round, i)
			require.Equal(t, slow[i].where(), fast[i].where())
		}
	}
}

// A comment at column 0 among a list's items, or inside one, is part of kubectl's layout: the
// list is read item by item, once, with what the whole document reads, error for error (a
// column-0 comment inside a scalar on several lines ends it, in the item as in the whole), where
// it made the list be read twice, split then whole (issue 25). Comments are put at random lines
// of random lists, and the document is read both ways.
func TestSplitYAMLListReadsCommentsAsTheWholeDocument(t *testing.T) {
	t.Parallel()
	f := listFiller(37)
	rng := rand.New(rand.NewPCG(25, 2))
	comments := []string{"#", "# c", "#- a", "#  b: c", "# \"*x\"", "#\t[", "#   - d: e"}
	split := 0
	for round := range 30 {
		lines := strings.SplitAfter(string(randomList(t, f)), "\n")
		first := slices.Index(lines, "items:\n") + 1
		require.Positive(t, first)
		for range 1 + rng.IntN(6) {
			at := first + rng.IntN(len(lines)-first)
			lines = slices.Insert(lines, at, comments[rng.IntN(len(comments))]+"\n")
		}
		data := []byte(strings.Join(lines, ""))
		doc := document{data: data, line: 1}
		if _, _, ok := splitYAMLList(doc); ok {
			split++
		}
		src := Source{File: "f", Document: 1, Item: -1}
		r := newReader(Options{})
		got, gotErr := r.decodeDocument(src, doc)
		var want []decoded
		js, wantErr := yaml.YAMLToJSONStrict(data)
		if wantErr != nil {
			wantErr = fmt.Errorf("%v: %s", src, yamlError(wantErr, 1))
		} else {
			want, wantErr = newReader(Options{}).decodeAsWritten(src, js, data, "", true)
		}
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "round %d:\n%s", round, data)
		if wantErr != nil {
			continue
		}
		require.Equal(t, len(want), len(got), "round %d", round)
		for i := range want {
			a, err := json.Marshal(want[i].obj)
			require.NoError(t, err)
			b, err := json.Marshal(got[i].obj)
			require.NoError(t, err)
			require.JSONEq(t, string(a), string(b), "round %d, item %d", round, i)
			require.Equal(t, want[i].where(), got[i].where())
		}
	}
	require.Equal(t, 30, split, "every list with comments is read item by item")
}

// listFiller fills random Pods and Nodes for lists printed as kubectl prints them: strings with
// newlines, "- ", "#", quotes, non-ASCII, long lines that YAML folds.
func listFiller(seed int64) *randfill.Filler {
	alphabet := []rune("ab -#:'\"\n\t\\é✓{}[]&*!|>%@`,?")
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).MaxDepth(6).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(5))
			}
		},
		func(x *metav1.FieldsV1, c randfill.Continue) { *x = *metav1.NewFieldsV1(`{"f:metadata":{}}`) },
		func(x *metav1.ManagedFieldsEntry, c randfill.Continue) {
			c.FillNoCustom(x)
			x.FieldsV1 = metav1.NewFieldsV1(`{"f:spec":{".":{}}}`)
		},
		func(s *string, c randfill.Continue) {
			n := c.Intn(40)
			if c.Intn(10) == 0 {
				n = 150 // long enough for YAML to fold it
			}
			r := make([]rune, n)
			for i := range r {
				r[i] = alphabet[c.Intn(len(alphabet))]
			}
			*s = string(r)
		},
	)
}

// randomList is a List of 8 random Pods and Nodes, printed as kubectl prints it.
func randomList(t *testing.T, f *randfill.Filler) []byte {
	var items []any
	for i := range 8 {
		var obj any
		if i%2 == 0 {
			pod := &v1.Pod{}
			f.Fill(pod)
			pod.APIVersion, pod.Kind, pod.Name = "v1", "Pod", fmt.Sprintf("p%d", i)
			obj = pod
		} else {
			node := &v1.Node{}
			f.Fill(node)
			node.APIVersion, node.Kind, node.Name = "v1", "Node", fmt.Sprintf("n%d", i)
			obj = node
		}
		items = append(items, obj)
	}
	data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items})
	require.NoError(t, err)
	return data
}

// Layouts splitYAMLList does not know are read as a whole.
func TestSplitYAMLListDeclinesOtherLayouts(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"apiVersion: v1\nkind: List\nitems: []\n",
		"apiVersion: v1\nkind: List\nitems:\n    - apiVersion: v1\n      kind: Node\n",
		"apiVersion: v1\nkind: List\nitems:\n-\n  apiVersion: v1\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	} {
		_, _, ok := splitYAMLList(document{data: []byte(in), line: 1})
		require.False(t, ok, "%q", in)
	}
}

// dedentInPlace writes over the streamed item's own buffer what dedent returns as a copy.
func TestDedentInPlaceIsDedent(t *testing.T) {
	tests := []struct {
		name string
		item string
	}{
		{name: "empty item stays empty", item: ""},
		{name: "first line loses its dash and the others two spaces", item: "- a: 1\n  b:\n    c: 2\n"},
		{name: "blank and short lines stay", item: "- a: 1\n\n \n  b: |\n    x\n\n    y\n"},
		{name: "last line without a newline is dedented", item: "- a: 1\n  b: 2"},
		{name: "lines not indented two columns stay as they are", item: "- a\n\tb\n-x\n #c\n- - d\n"},
		{name: "carriage returns are kept", item: "- a: 1\r\n  b: 2\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := dedent([]byte(tt.item))
			buf := []byte(tt.item)
			got := dedentInPlace(buf)
			require.Equal(t, string(want), string(got))
			if len(got) > 0 {
				require.Same(t, &buf[0], &got[0], "not written over the item")
			}
		})
	}
}

// An item's trailing comments at column 0 (a comment before the next item) are cut before the
// direct conversion, which converts no comment: every such item went to sigs.k8s.io/yaml, at
// twice the CPU of the list read whole. What the direct conversion does not read is converted
// whole, and the JSON is always what the whole item converts to.
func TestItemToJSONCutsTrailingComments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, wantRead string
	}{
		{name: "a comment before the next item is cut", text: "a: 1\n# node 2\n", wantRead: "a: 1\n"},
		{name: "blank lines and comments are cut from the first comment", text: "a: 1\n\n# c\n\n#d\n\n", wantRead: "a: 1\n\n"},
		{name: "a literal block ends at the comment", text: "a: |\n  x\n\n# c\n\n", wantRead: "a: |\n  x\n\n"},
		{name: "a comment inside the item stays", text: "a: 1\n# c\nb: 2\n", wantRead: "a: 1\n# c\nb: 2\n"},
		{name: "a block that keeps its trailing lines is converted whole", text: "a: |+\n  x\n\n# c\n\n", wantRead: "a: |+\n  x\n\n# c\n\n"},
		{name: "a scalar on several lines is converted whole", text: "a: x\n  y\n# c\n", wantRead: "a: x\n  y\n# c\n"},
		{name: "an indented comment is not cut", text: "a: 1\n  # c\n", wantRead: "a: 1\n  # c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var conv yamlConv
			js, read, err := conv.itemToJSON([]byte(tt.text))
			require.NoError(t, err)
			require.Equal(t, tt.wantRead, string(read))
			want, err := yaml.YAMLToJSONStrict([]byte(tt.text))
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(js))
		})
	}
}
