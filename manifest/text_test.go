package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/yaml"
)

func TestSplitDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  []string
		lines []int
	}{
		{name: "empty input has no documents", input: "", want: nil},
		{name: "blank and comment-only documents are dropped", input: "# a\n---\n\n---\n# b\n", want: nil},
		{name: "leading separator starts the first document", input: "---\na: 1\n", want: []string{"a: 1\n"}, lines: []int{2}},
		{
			name:  "separators with comments split documents and lines are counted",
			input: "a: 1\n--- # second\nb: 2\n---\n\n---\nc: 3\n",
			want:  []string{"a: 1\n", "b: 2\n", "c: 3\n"},
			lines: []int{1, 3, 7},
		},
		{name: "a separator inside a line does not split", input: "a: '---'\nb: ---x\n", want: []string{"a: '---'\nb: ---x\n"}, lines: []int{1}},
		{name: "a line starting with ---x is content", input: "a: |\n  x\n---x\n", want: []string{"a: |\n  x\n---x\n"}, lines: []int{1}},
		{name: "a document may start on its marker's line", input: "--- {a: 1}\n--- !!map\nb: 2\n", want: []string{"--- {a: 1}\n", "--- !!map\nb: 2\n"}, lines: []int{1, 2}},
		{name: "a document end marker ends the document", input: "a: 1\n...\nb: 2\n... # end\n", want: []string{"a: 1\n...\n", "b: 2\n... # end\n"}, lines: []int{1, 3}},
		{name: "directives alone are no document", input: "%YAML 1.1\n---\na: 1\n", want: []string{"a: 1\n"}, lines: []int{3}},
		{name: "a byte order mark opening a joined file is dropped", input: "a: 1\n---\n\xEF\xBB\xBFb: 2\n", want: []string{"a: 1\n", "b: 2\n"}, lines: []int{1, 3}},
		{name: "Windows line endings", input: "a: 1\r\n---\r\nb: 2\r\n", want: []string{"a: 1\r\n", "b: 2\r\n"}, lines: []int{1, 3}},
		{name: "JSON values end at their matching bracket, outside strings", input: "{\"a\":\"}\\\"{[\"}{\"b\":[1,{\"c\":\"]\"}]}\n\n{}", want: []string{`{"a":"}\"{["}`, `{"b":[1,{"c":"]"}]}`, `{}`}},
		{name: "an unterminated JSON value runs to the end, trailing space left out", input: "{\"a\":1}\n{\"b\": [\n\n", want: []string{`{"a":1}`, `{"b": [`}},
		{name: "stray JSON scalars and brackets are values of their own", input: "{} null ] 3", want: []string{`{}`, `null`, `]`, `3`}},
		{name: "JSON objects joined by YAML markers are YAML documents", input: "{\"a\": 1}\n---\n{\"b\": 2}\n...\n", want: []string{"{\"a\": 1}\n", "{\"b\": 2}\n...\n"}, lines: []int{1, 3}},
		{name: "a JSON stream is split into its values", input: " {\"a\":1}\n{\"b\":2}", want: []string{`{"a":1}`, `{"b":2}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := splitDocuments([]byte(tt.input))
			require.NoError(t, err)
			var got []string
			var lines []int
			for _, d := range docs {
				got = append(got, string(d.data))
				if !d.json {
					lines = append(lines, d.line)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("splitDocuments() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("document lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// yamlReaderDocs splits data with apimachinery's YAMLReader, the splitter splitDocuments does
// not use.
func yamlReaderDocs(data []byte) ([]string, error) {
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []string
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(doc))
	}
}

// Why splitDocuments is hand-written: on inputs YAML allows, apimachinery's YAMLReader fails
// or splits elsewhere, and it never says on which line a document starts.
func TestYAMLReaderFallsShortOfSplitDocuments(t *testing.T) {
	t.Parallel()
	_, err := yamlReaderDocs([]byte("--- {a: 1}\n--- {b: 2}\n"))
	require.ErrorContains(t, err, "invalid Yaml document separator", "a document on its marker's line")
	_, err = yamlReaderDocs([]byte("a: |\n  x\n---x\n"))
	require.ErrorContains(t, err, "invalid Yaml document separator", "a line of content starting with ---")
	got, err := yamlReaderDocs([]byte("a: 1\n...\nb: 2\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"a: 1\n...\nb: 2\n"}, got, "the ... end marker does not end the document")
}

// BenchmarkSplitDocuments splits a stream of 3,000 documents (a kubectl dump printed one object
// per document) with splitDocuments and with apimachinery's YAMLReader.
func BenchmarkSplitDocuments(b *testing.B) {
	var data bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&data, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-%d\n  labels: {zone: a}\nstatus:\n  conditions:\n  - {type: Ready, status: \"True\"}\n", i)
	}
	b.Run("splitDocuments", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(data.Len()))
		for b.Loop() {
			if _, err := splitDocuments(data.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("YAMLReader", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(data.Len()))
		for b.Loop() {
			if _, err := yamlReaderDocs(data.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
