package manifest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/stretchr/testify/require"
)

// repeatReader is an endless stream of line, counting the bytes read.
type repeatReader struct {
	line []byte
	n    int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		k += copy(p[k:], r.line[int((r.n+int64(k))%int64(len(r.line))):])
	}
	r.n += int64(k)
	return k, nil
}

// A stream of unknown size is checked as it is decoded, not read to the input-size limit
// first: `yes -- --- | daemonsched plan -f -` read 1 GiB before it failed (issue 25). An
// endless run of empty documents ends after Limits.Objects of them, with one line.
func TestStreamOfEmptyDocumentsEndsEarly(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"---\n", "...\n", "--- # a comment\n"} {
		r := &repeatReader{line: []byte(line)}
		_, err := ReadInputs([]Input{{Name: "stdin", Reader: r}}, Options{Limits: Limits{InputBytes: 256 << 20}})
		require.EqualError(t, err, "stdin: more than 250000 documents, empty ones included (limit Objects)", "%q", line)
		require.Less(t, r.n, int64(8<<20), "%q: read %d bytes", line, r.n)
	}
}

// Empty documents count against Limits.Objects in a file too: the same limits hold for every
// input.
func TestEmptyDocumentsCountInAFile(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("---\n# nothing\n", 11) + "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
	_, err := ReadInputs([]Input{{Name: "in", Data: data}}, Options{Limits: Limits{Objects: 10}})
	require.EqualError(t, err, "in: more than 10 documents, empty ones included (limit Objects)")
	_, err = ReadInputs([]Input{{Name: "in", Data: data}}, Options{Limits: Limits{Objects: 12}})
	require.NoError(t, err)
}

// A stream that passes the input-size limit fails when it passes it, holding only the
// document being read (one refused for its size holds nothing): `yes a:1 | daemonsched plan
// -f -` held the whole GiB before.
func TestStreamOverTheLimitIsHeldInBoundedMemory(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"a: 1\n", "- a\n"} { // comments: TestLargeBlankDocumentIsRefusedAtItsBound
		const limit = 32 << 20
		opts := Options{}
		opts.Limits = Limits{InputBytes: limit}.withDefaults()
		r := &repeatReader{line: []byte(line)}
		name, o, _, err := openStreamed(Input{Name: "stdin", Reader: r}, limit, DefaultObjectBytes)
		require.NoError(t, err)
		require.NotNil(t, o.spool, "a YAML stream is read as it is decoded")
		err = newCollector(opts).readOpened(name, o)
		require.ErrorIs(t, err, errInputBytes, "%q", line)
		require.Equal(t, int64(limit+1), o.spool.total, "%q: reads one byte past the limit, no more", line)
		require.LessOrEqual(t, len(o.spool.chunks), 2, "%q: holds what is left of the document", line)

		_, err = ReadInputs([]Input{{Name: "stdin", Reader: &repeatReader{line: []byte(line)}}}, Options{Limits: Limits{InputBytes: limit}})
		require.EqualError(t, err, "stdin: input is larger than 32 MiB (limit InputBytes)")
	}
}

// A NUL byte or invalid UTF-8 in a stream ends it where it is, with its line, as in a file,
// even after documents that were decoded.
func TestStreamFailsAtItsFirstBadByte(t *testing.T) {
	t.Parallel()
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
	tests := []struct {
		name, text, want string
		ends             bool // the stream ends after text; else endless lines follow
	}{
		{"a NUL byte after a document", node + "a: \x00\n", "stdin: line 5: a NUL byte: not YAML or JSON text", false},
		{"invalid UTF-8 after a document", node + "a: \xFF\n", "stdin: line 5: invalid UTF-8 (byte 0xFF)", false},
		{"a rune cut at the end", node + "a: \xE2\x82", "stdin: line 5: invalid UTF-8 (byte 0xE2)", true},
		{"a byte order mark, then a bad byte", "\xEF\xBB\xBF" + node + "\xC0\n", "stdin: line 5: invalid UTF-8 (byte 0xC0)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, most := range []int{1, 3, 1 << 20} {
				var r io.Reader = strings.NewReader(tt.text)
				if !tt.ends {
					r = io.MultiReader(r, &repeatReader{line: []byte("b: 1\n")})
				}
				_, err := ReadInputs([]Input{{Name: "stdin", Reader: &pieceReader{r: r, most: most}}}, Options{})
				require.EqualError(t, err, tt.want, "reads of %d bytes", most)
			}
			// Bytes in memory say the same.
			_, err := ReadInputs([]Input{{Name: "stdin", Data: []byte(tt.text)}}, Options{})
			require.EqualError(t, err, tt.want)
		})
	}
}

// JSON, UTF-16 and text whose first byte past spaces is not ASCII are read whole, as before:
// whether "{" starts a JSON stream depends on all of the text. YAML after more than peekLimit
// bytes of spaces is streamed.
func TestStreamReadWholeWhenItMayBeJSON(t *testing.T) {
	t.Parallel()
	for _, text := range []string{`{"a": 1}`, "\xFF\xFEa\x00", "\u00a0{}", strings.Repeat(" ", peekLimit+1) + "{}", strings.Repeat(" ", peekLimit+1) + "\v{}", ""} {
		_, o, _, err := openStreamed(Input{Name: "stdin", Reader: &pieceReader{r: strings.NewReader(text), most: 7}}, 1<<20, DefaultObjectBytes)
		require.NoError(t, err, "%q", text)
		require.Nil(t, o.spool, "%q", text)
	}
	_, o, _, err := openStreamed(Input{Name: "stdin", Reader: strings.NewReader(strings.Repeat(" \n", peekLimit) + "a: 1\n")}, 1<<20, DefaultObjectBytes)
	require.NoError(t, err)
	require.NotNil(t, o.spool)
}

// A stream that may be JSON (its first byte past spaces "{") is refused at the bounds it passes
// whatever follows, without reading on: more than ObjectBytes of spaces first, or a first value
// past ObjectBytes before any line that would make it YAML. `{"a":"` and an endless string, or
// endless spaces, were held to the input-size limit, 1 GiB (1.07 GB peak; issue 25). A
// finite input of the same kind gives the same error from memory and from a file, and a first
// value that may be a list, or a line starting with "---" before the bound, is read whole.
func TestStreamThatMayBeJSONIsRefusedAtItsBounds(t *testing.T) {
	t.Parallel()
	const bound = 1 << 10
	tooLarge := "stdin: document 1: an object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)"
	blank := "stdin: line 1: a document with more than 1 KiB of comments and blank lines (limit ObjectBytes)"
	tests := []struct {
		name, text, endless, want string
	}{
		{"an endless string", `{"a":"`, "b", tooLarge},
		{"an endless string after spaces and a byte order mark", "\xEF\xBB\xBF \n\t" + `{"a":"`, "b\\\"", tooLarge},
		{"endless spaces in an object", `{"a":`, " \n", tooLarge},
		{"endless spaces", "", " \r\n\t", blank},
		{"spaces, then an endless string", strings.Repeat(" \n", 300) + `{"a":"`, "b", tooLarge},
		{"a second value is not refused early", `{}` + "\n" + `{"a":"`, "b", "stdin: input is larger than 2 MiB (limit InputBytes)"},
		{"a list is not refused early", `{"kind":"List","items":[`, "{},", "stdin: input is larger than 2 MiB (limit InputBytes)"},
		{"a line that may end a YAML document is not refused early", `{"a":"` + "\n...\n", "b", "stdin: input is larger than 2 MiB (limit InputBytes)"},
		{"a NUL byte before the bound comes first", `{"a":"` + "x\n\x00", "b", "stdin: line 2: a NUL byte: not YAML or JSON text"},
		{"invalid UTF-8 before the bound comes first", `{"a":"` + "\n\xFF", "b", "stdin: line 2: invalid UTF-8 (byte 0xFF)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, most := range []int{7, 1 << 20} {
				rr := &repeatReader{line: []byte(tt.endless)}
				r := &pieceReader{r: io.MultiReader(strings.NewReader(tt.text), rr), most: most}
				_, err := ReadInputs([]Input{{Name: "stdin", Reader: r}}, Options{Limits: Limits{ObjectBytes: bound, InputBytes: 2 << 20}})
				require.EqualError(t, err, tt.want, "reads of %d bytes", most)
				if tt.want == tooLarge || tt.want == blank {
					require.Less(t, rr.n, int64(256<<10), "reads of %d bytes: read %d bytes of the endless text", most, rr.n)
				}
			}
			if tt.want != tooLarge && tt.want != blank {
				return
			}
			// The same text, ended, reads the same from memory and from a file.
			text := []byte(tt.text + strings.Repeat(tt.endless, 4*bound/len(tt.endless)) + `"}`)
			path := filepath.Join(t.TempDir(), "in")
			require.NoError(t, os.WriteFile(path, text, 0o600))
			for _, in := range []Input{{Name: "stdin", Data: text}, {Name: "stdin", Path: path}, {Name: "stdin", Reader: bytes.NewReader(text)}} {
				_, err := ReadInputs([]Input{in}, Options{Limits: Limits{ObjectBytes: bound}})
				require.EqualError(t, err, tt.want, "%+v", in.Path)
			}
		})
	}
}

// Each limit's refusal is a *LimitError naming the field of Limits it passed, and the message
// names it as "(limit NAME)" and no program's flag: the command adds its own (issue 25).
func TestLimitErrorsNameTheirBound(t *testing.T) {
	t.Parallel()
	two := []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n")
	tests := []struct {
		name   string
		limits Limits
		want   string
	}{
		{"InputBytes", Limits{InputBytes: 10}, "in: input is larger than 10 bytes (limit InputBytes)"},
		{"Objects", Limits{Objects: 1}, "in: more than 1 objects (limit Objects)"},
		{"ObjectBytes", Limits{ObjectBytes: 10}, "in: document 1: an object larger than 10 bytes (limit ObjectBytes; the API server's is 3 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadInputs([]Input{{Name: "in", Data: two}}, Options{Limits: tt.limits})
			require.EqualError(t, err, tt.want)
			var le *LimitError
			require.ErrorAs(t, err, &le)
			require.Equal(t, tt.name, le.Limit)
		})
	}
}

// A document whose first Limits.ObjectBytes bytes are only comments, directives and blank
// lines is refused when it passes the bound, with its line, whatever follows: an endless run of
// comment lines (`yes '# c' | daemonsched plan -f -`) was read to the input-size limit, 1 GiB
// in 5.7 s, to be dropped as a small blank document is (issue 25). Small blank documents are
// still dropped, a document with content before the bound is still refused as an object too
// large, and an error in an earlier document comes first.
func TestLargeBlankDocumentIsRefusedAtItsBound(t *testing.T) {
	t.Parallel()
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	comments := func(n int) string { return strings.Repeat("# c\n", n/4) }
	const bound = 1 << 10
	refused := "stdin: line %d: a document with more than 1 KiB of comments and blank lines (limit ObjectBytes)"
	tests := []struct {
		name, text string
		endless    string // lines that follow text without end, if any
		want       string // "" for no error
	}{
		{"endless comments", "", "# c\n", fmt.Sprintf(refused, 1)},
		{"endless comments after a document", node + "---\n", "  # c\n\n", fmt.Sprintf(refused, 5)},
		{"endless directives and spaces", "", "%YAML 1.2\n \t\n", fmt.Sprintf(refused, 1)},
		{"endless comments after a bad document", "a: [\n---\n", "# c\n", "stdin: document 1: line 2: did not find expected node content"},
		{"comments past the bound, then content", comments(2*bound) + node, "", fmt.Sprintf(refused, 1)},
		{"comments past the bound, then the input ends", comments(2 * bound), "", fmt.Sprintf(refused, 1)},
		{"comments under the bound, then content", comments(bound/2) + node, "", ""},
		{"comments under the bound in their own document", comments(bound-8) + "---\n" + node, "", ""},
		{"content, then comments past the bound", node + comments(2*bound), "", "stdin: document 1: an object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireStdinEnds(t, tt.text, tt.endless, tt.want, bound)
			if tt.endless == "" {
				// Bytes in memory say the same.
				_, err := ReadInputs([]Input{{Name: "stdin", Data: []byte(tt.text)}}, Options{Limits: Limits{ObjectBytes: bound}})
				if tt.want == "" {
					require.NoError(t, err)
				} else {
					require.EqualError(t, err, tt.want)
				}
			}
		})
	}
}

// An item of a list past Limits.ObjectBytes ends the reading where it passes the bound, in YAML
// and in JSON, whatever follows: an endless item (`(echo 'kind: List'; echo items:; echo '- a';
// yes '  b') | daemonsched plan -f -`) was held to the input-size limit, 1 GiB in 5.24 s, for
// the list to be read again (issue 25). What is known by then comes first: an earlier document's
// error, the object limit, a document that says it is not a list before its items, an earlier
// item's error.
func TestListItemPastTheBoundEndsTheReading(t *testing.T) {
	t.Parallel()
	const bound = 1 << 10
	tooLarge := "stdin: document %d: %san object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)"
	node := "- apiVersion: v1\n  kind: Node\n  metadata: {name: n%d}\n"
	tests := []struct {
		name, text, endless string
		objects             int
		want                string
	}{
		{"an endless item, the list's apiVersion missing", "kind: List\nitems:\n- a\n", "  b\n", 0, fmt.Sprintf(tooLarge, 1, "items[0]: ")},
		{"an endless item after two", "apiVersion: v1\nkind: List\nitems:\n" + fmt.Sprintf(node, 1) + fmt.Sprintf(node, 2) + "- a\n", "  b\n\n", 0, fmt.Sprintf(tooLarge, 1, "items[2]: ")},
		{"an endless line in an item", "apiVersion: v1\nkind: List\nitems:\n- a: ", "b", 0, fmt.Sprintf(tooLarge, 1, "items[0]: ")},
		{"an endless item in the second document", "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n---\nitems:\n- a\n", "  b\n", 0, fmt.Sprintf(tooLarge, 2, "items[0]: ")},
		{"an earlier document's error first", "a: [\n---\nkind: List\napiVersion: v1\nitems:\n- a\n", "  b\n", 0, "stdin: document 1: line 2: did not find expected node content"},
		{"an earlier item's error first", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: [n1\n- a\n", "  b\n", 0, "stdin: document 1: line 7: did not find expected ',' or ']'"},
		{"a document that is not a list", "apiVersion: v1\nkind: Service\nitems:\n- a\n", "  b\n", 0, fmt.Sprintf(tooLarge, 1, "")},
		{"the object limit first", "apiVersion: v1\nkind: List\nitems:\n" + fmt.Sprintf(node, 1) + "- a\n", "  b\n", 2, "stdin: more than 2 objects (limit Objects)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, most := range []int{1, 100, 1 << 20} {
				rr := &repeatReader{line: []byte(tt.endless)}
				r := &pieceReader{r: io.MultiReader(strings.NewReader(tt.text), rr), most: most}
				_, err := ReadInputs([]Input{{Name: "stdin", Reader: r}},
					Options{Limits: Limits{ObjectBytes: bound, InputBytes: 64 << 20, Objects: tt.objects}})
				require.EqualError(t, err, tt.want, "reads of %d bytes", most)
				require.Less(t, rr.n, int64(1<<20), "reads of %d bytes: read %d bytes of the endless item", most, rr.n)
			}
		})
	}
	// A JSON list read from a file or from memory is not read past the item either.
	text := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}},{"a":"` +
		strings.Repeat("b", 16<<20) + `"}]}`
	read, err := streamRead([]byte(text), Options{Limits: Limits{ObjectBytes: bound}})
	require.EqualError(t, err, "in: document 1: items[1]: an object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)")
	require.Less(t, read, int64(1<<20), "read %d of %d bytes", read, len(text))
}

// requireStdinEnds reads text, then endless repeated without end when it is not empty, as stdin
// in reads of 1, 100 and 1 MiB bytes under an ObjectBytes of bound, and requires want (""
// none) as the error, having read less than 1 MiB of the endless lines.
func requireStdinEnds(t *testing.T, text, endless, want string, bound int) {
	t.Helper()
	for _, most := range []int{1, 100, 1 << 20} {
		rr := &repeatReader{line: []byte(endless)}
		var r io.Reader = strings.NewReader(text)
		if endless != "" {
			r = io.MultiReader(r, rr)
		}
		_, err := ReadInputs([]Input{{Name: "stdin", Reader: &pieceReader{r: r, most: most}}},
			Options{Limits: Limits{ObjectBytes: bound, InputBytes: 64 << 20}})
		if want == "" {
			require.NoError(t, err, "reads of %d bytes", most)
		} else {
			require.EqualError(t, err, want, "reads of %d bytes", most)
		}
		require.Less(t, rr.n, int64(1<<20), "reads of %d bytes: read %d bytes of the endless lines", most, rr.n)
	}
}

// headDump is the JSON dump of BenchmarkReadJSONHead, made once for every -count.
var headDump []byte

// BenchmarkReadJSONHead is the scan a JSON stream on stdin pays before it is read whole
// (readJSONHead), on the JSON dump of BenchmarkReadFloor: "list" scans all of it (its items
// are read to the end of the value); "object" is the same text with no items key, refused at
// ObjectBytes after listShaped (flowItemsKey) has scanned its first ObjectBytes twice.
//
//	GOMAXPROCS=1 go test -run '^$' -bench ReadJSONHead -benchtime 1x -benchmem -count 5 ./manifest
func BenchmarkReadJSONHead(b *testing.B) {
	if headDump == nil {
		_, headDump = generatedDump(b, floorNodes)
	}
	list := headDump
	object := bytes.ReplaceAll(list, []byte(`"items"`), []byte(`"itemz"`))
	for _, tt := range []struct {
		name    string
		text    []byte
		refused bool
	}{{"list", list, false}, {"object", object, true}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.text)))
			start, known := scalebench.CPUTime()
			n := 0
			for b.Loop() {
				sp := newSpool(bytes.NewReader(tt.text), int64(len(tt.text)))
				yaml, err := readJSONHead(sp, "stdin", DefaultObjectBytes)
				if yaml || (err != nil) != tt.refused {
					b.Fatalf("yaml %v, error %v", yaml, err)
				}
				n++
			}
			if end, _ := scalebench.CPUTime(); known {
				b.ReportMetric(float64(end-start)/float64(n)/1e6, "cpu-ms/op")
			}
		})
	}
}

// spoolPeak reads r for a spool, recording the most chunks the spool held at a read.
type spoolPeak struct {
	r    io.Reader
	sp   *spool
	peak int
}

func (p *spoolPeak) Read(b []byte) (int, error) {
	if p.sp != nil {
		p.peak = max(p.peak, len(p.sp.chunks))
	}
	return p.r.Read(b)
}

// One line of a document refused for its size is not held whole: the stream drops each piece
// of it once read, as it drops each whole line. Released only at the line's end, one line of
// 1,000 MB on stdin was held whole (1.0 GB peak, 30 s; audit34).
func TestOneLongLineOfAStreamIsNotHeldWhole(t *testing.T) {
	t.Parallel()
	const line = 48 << 20
	opts := Options{}
	opts.Limits = opts.Limits.withDefaults()
	text := io.MultiReader(strings.NewReader("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \""),
		io.LimitReader(&repeatReader{line: []byte("a")}, line), strings.NewReader("\"}\n"))
	r := &spoolPeak{r: text}
	name, o, _, err := openStreamed(Input{Name: "stdin", Reader: r}, opts.Limits.InputBytes, opts.Limits.ObjectBytes)
	require.NoError(t, err)
	require.NotNil(t, o.spool, "a YAML stream is read as it is decoded")
	r.sp = o.spool
	err = newCollector(opts).readOpened(name, o)
	require.EqualError(t, err, "stdin: document 1: an object larger than 3 MiB (limit ObjectBytes; the API server's is 3 MiB)")
	held := int64(r.peak) * spoolChunk
	require.LessOrEqual(t, held, int64(DefaultObjectBytes)+4*spoolChunk, "held %d MiB of a %d MiB line", held>>20, line>>20)
}

// Stdin redirected from a regular file is read as a stream is, not whole, so that it holds
// what a pipe holds: read whole, a 1,000 MB Node took 1 GB and 33 s to be refused for its
// size (audit34). One over the input-size limit is still refused by its size, unread.
func TestStdinFromAFileIsReadAsAStream(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "in.yaml")
	text := "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + strings.Repeat("a", 4<<20) + "\"}\n"
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()

	_, o, _, err := openStreamed(Input{Name: "stdin", Reader: f}, DefaultInputBytes, DefaultObjectBytes)
	require.NoError(t, err)
	require.True(t, o.text == nil, "not read whole")
	require.NotNil(t, o.spool, "read as it is decoded")

	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	_, err = ReadInputs([]Input{{Name: "stdin", Reader: f}}, Options{})
	require.EqualError(t, err, "stdin: document 1: an object larger than 3 MiB (limit ObjectBytes; the API server's is 3 MiB)")

	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	_, err = ReadInputs([]Input{{Name: "stdin", Reader: f}}, Options{Limits: Limits{InputBytes: 1 << 20}})
	require.EqualError(t, err, "stdin: input is larger than 1 MiB (limit InputBytes)")
	at, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.Zero(t, at, "refused by its size, unread")
}
