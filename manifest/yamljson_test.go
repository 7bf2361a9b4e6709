package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// checkYAMLToJSON fails when the direct conversion of data converts it and gives other bytes
// than sigs.k8s.io/yaml's strict conversion, or converts what that one refuses. It reports
// whether the conversion was direct.
func checkYAMLToJSON(t testing.TB, data []byte) (direct bool) {
	t.Helper()
	in := bytes.Clone(data)
	var c yamlConv
	got, ok := c.convert(data)
	if !bytes.Equal(in, data) {
		t.Fatalf("convert modified its input %q", in)
	}
	want, err := yaml.YAMLToJSONStrict(data)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("convert(%q) = %s, sigs.k8s.io/yaml refuses it: %v", data, got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("convert(%q):\n got %s\nwant %s", data, got, want)
	}
	// Once more on the same converter, its buffers reused, gives the same.
	again, ok := c.convert(data)
	if !ok || !bytes.Equal(again, want) {
		t.Fatalf("convert(%q) a second time = %s, %v", data, again, ok)
	}
	return true
}

// trickyScalars are scalars that goyaml.v2 resolves in YAML 1.1's ways, or that JSON writes
// escaped: each is tried as a value, a key, and a sequence's entry, plain and quoted.
var trickyScalars = []string{
	"yes", "Yes", "YES", "no", "No", "NO", "y", "Y", "n", "N", "on", "On", "ON", "off", "Off", "OFF",
	"true", "True", "TRUE", "false", "False", "FALSE", "tRue", "yEs",
	"null", "Null", "NULL", "~", "nULL", "~x",
	"0", "-0", "+0", "007", "08", "09.5", "0x1F", "0X1f", "0o17", "0O17", "0b101", "-0b101", "0b2", "+0b1",
	"1_000", "_1", "1__", "1_0.5", "0x_1F",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "123456789012345678", "1234567890123456789",
	"1e3", "1E3", "1e+3", "1e-3", "1.", ".5", "-.5", "+.5", "1.5e300", "1e400", "1e-400", "1e-7", "1e21", "1e20",
	".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN", ".", "..", ".e5", ".5e", "0x1p-2", "inf", "nan",
	"Infinity", "-Infinity",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2001-1-2", "2001-13-45", "2001-", "20011-1",
	"100m", "128Mi", "1Gi", "0.5", "500e-3", "1.5Gi", "12e3Ki",
	"<<", "=", "=x", "(x)", "$x", "/x", "a b", "a  b", "a,b", "a]", "a}", "a#b", "a:b", "http://x:80/y", "-x", "--x", "-1", "+x",
	"é", "日本", "\u00a0x", "x\u00a0", "a<b>&c", "\u2028", "\u2029", "\U0001F600", "\ufffd", "\uffff",
	"a'b", `a"b`, `a\b`, "  ", "",
}

// quotedForms are quoted spellings, for the escapes goyaml.v2 reads.
var quotedForms = []string{
	`"\0\a\b\t\n\v\f\r\e\ \"\\\N\_\L\P"`, `"\/"`, `"\x41\x7f\xe9"`, `"\u00e9\u2028"`, `"\U0001F600"`, `"\ud800"`,
	`"\U00110000"`, `"\q"`, `"\x4"`, `"\u+123"`, `"a\`, `'it''s'`, `''`, `""`, `'a'b'`, `"a"b"`, `'#'`, `"<&>"`,
	`"	"`, `'\n'`,
}

// yamlSeeds returns documents for the differential test and the fuzz target: the YAML files of
// the repository (all only), a generated dump's items, and the tricky scalars in every position
// (in one only unless all: the fuzz target's baseline of 2,000 seeds took minutes).
func yamlSeeds(t testing.TB, all bool) [][]byte {
	var seeds [][]byte
	patterns := []string{"../*/testdata/*.yaml", "../*/testdata/*/*.yaml", "../*/*/testdata/*/*.yaml", "../examples/*/*.yaml"}
	if !all {
		patterns = nil
	}
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			for doc := range strings.SplitSeq(string(data), "\n---\n") {
				seeds = append(seeds, []byte(doc))
			}
		}
	}
	nodes := 2
	if all {
		nodes = 20
	}
	dump, err := kubectldump.Realistic(nodes)
	require.NoError(t, err)
	wrapper, items, ok := splitYAMLList(document{data: dump, line: 1})
	require.True(t, ok)
	seeds = append(seeds, wrapper)
	for _, it := range items {
		seeds = append(seeds, dedent(it.data))
	}
	scalars := append(append([]string{}, trickyScalars...), quotedForms...)
	for _, s := range trickyScalars {
		if !all {
			break
		}
		scalars = append(scalars, strconv.Quote(s), "'"+strings.ReplaceAll(s, "'", "''")+"'")
	}
	for _, s := range scalars {
		if !all {
			seeds = append(seeds, []byte("k: "+s+"\n"))
			continue
		}
		seeds = append(seeds,
			[]byte("k: "+s+"\n"),
			[]byte(s+": v\n"),
			[]byte("k:\n- "+s+"\n- x\n"),
			[]byte("a:\n  "+s+": 1\n  b: "+s+"\n"),
		)
	}
	seeds = append(seeds, [][]byte{
		[]byte("b: 1\na: 2\n"),                            // sorted as json.Marshal sorts a map
		[]byte("a: 1\na: 2\n"),                            // a key given twice: an error
		[]byte("a: 1\n\"a\": 2\n"),                        // the same key, spelt twice
		[]byte("a: &x 1\nb: *x\n"),                        // an alias
		[]byte("a: {b: 1}\n"),                             // a flow mapping
		[]byte("a: !!str 1\n"),                            // a tag
		[]byte("a: |\n  x\n  y\n\n  z\n\nb: 1\n"),         // a literal block, clipped
		[]byte("a: |-\n  x\n   y\nb: 1\n"),                // stripped, more indented lines
		[]byte("a: |+\n  x\n\n"),                          // kept
		[]byte("a: |\n\n  x\n"),                           // a leading blank line
		[]byte("a: |\n  x\n \nb: 1\n"),                    // spaces alone in a block
		[]byte("a: |\n  x"),                               // no line feed at the end
		[]byte("a: |\nb: 1\n"),                            // an empty block
		[]byte("a: |2\n   x\n"),                           // an indentation indicator
		[]byte("a: >\n  x\n  y\n"),                        // folded
		[]byte("a: x\n  y\n"),                             // a plain scalar on two lines
		[]byte("a: 'x\n  y'\n"),                           // a quoted scalar on two lines
		[]byte("a:\n- b: 1\n  c: 2\n- d\ne: 3\n"),         // an indentless sequence
		[]byte("a:\n  - b: 1\n    c:\n    - x\n"),         // an indented one
		[]byte("- a\n- b\n"),                              // a sequence document
		[]byte("a: 1\n b: 2\n"),                           // a bad indentation
		[]byte("a:\n  b: 1\n c: 2\n"),                     // between two indentations
		[]byte("a: b: c\n"),                               // a mapping in a plain scalar
		[]byte("a: x # c\n"),                              // a comment
		[]byte("# c\na: 1\n"),                             // a comment line
		[]byte("a: 1\n---\nb: 2\n"),                       // a document marker
		[]byte("a:\tb\n"),                                 // a tab
		[]byte("a: 1\r\n"),                                // CRLF
		[]byte("<<: {a: 1}\n"),                            // a merge key
		[]byte("\"<<\": 1\n"),                             // a quoted "<<": a string
		[]byte("1: a\n"),                                  // a key that is not a string
		[]byte("a:\n  -\n    b\n"),                        // an entry on its next line
		[]byte("a:\n- - b\n"),                             // a sequence in a sequence
		[]byte("a: \xff\n"),                               // invalid UTF-8
		[]byte("a: \u0085\n"),                             // NEL, a line break in YAML 1.1
		[]byte("a: b\n\n\n   \nc: d\n"),                   // blank lines
		[]byte("a:    b   \n"),                            // spaces around a plain scalar
		[]byte("a :  b\n"),                                // a space before the colon
		[]byte("a:\n"),                                    // null
		[]byte("a: []\nb: {}\nc: [ ]\n"),                  // empty collections
		[]byte("-  a: 1\n   b: 2\n"),                      // a compact mapping further in
		[]byte(strings.Repeat("k", 1100) + ": v\n"),       // a key longer than YAML allows
		[]byte("a:\n" + strings.Repeat("  ", 70) + "b\n"), // deep
	}...)
	return seeds
}

// TestYAMLToJSONMatchesSigsYAML is the differential test of the direct conversion: on the
// repository's YAML, a generated dump and tricky scalars, what it converts it converts as
// sigs.k8s.io/yaml.YAMLToJSONStrict does, and it converts the dump's items.
func TestYAMLToJSONMatchesSigsYAML(t *testing.T) {
	t.Parallel()
	direct, all := 0, 0
	for _, s := range yamlSeeds(t, true) {
		all++
		if checkYAMLToJSON(t, s) {
			direct++
		}
	}
	t.Logf("%d of %d documents converted directly", direct, all)
	dump, err := kubectldump.Realistic(200)
	require.NoError(t, err)
	_, items, ok := splitYAMLList(document{data: dump, line: 1})
	require.True(t, ok)
	var slow []string
	for i, it := range items {
		if !checkYAMLToJSON(t, dedent(it.data)) {
			slow = append(slow, fmt.Sprint(i))
		}
	}
	require.Empty(t, slow, "items of a generated dump not converted directly")
}

// TestYAMLToJSONDirectCases pins which documents are converted directly and which are left to
// sigs.k8s.io/yaml, so that a change to the subset is a visible diff.
func TestYAMLToJSONDirectCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		wantDirect bool
	}{
		{name: "kubectl's block mapping with plain and quoted scalars is direct", in: "a: x\nb: \"1\"\nc:\n  d: 'y'\n", wantDirect: true},
		{name: "an indentless sequence of compact mappings is direct", in: "a:\n- b: 1\n  c: yes\n", wantDirect: true},
		{name: "a literal block is direct", in: "a: |\n  x\n\n  y\nb: 1\n", wantDirect: true},
		{name: "YAML 1.1 booleans and octal are direct", in: "a: on\nb: 010\nc: 0x1f\n", wantDirect: true},
		{name: "an alias goes to sigs.k8s.io/yaml", in: "a: &x 1\nb: *x\n"},
		{name: "a key given twice goes to sigs.k8s.io/yaml for its error", in: "a: 1\na: 2\n"},
		{name: "a merge key goes to sigs.k8s.io/yaml", in: "<<: {a: 1}\n"},
		{name: "a key that is not a string goes to sigs.k8s.io/yaml", in: "1: a\n"},
		{name: "a plain scalar on two lines goes to sigs.k8s.io/yaml", in: "a: x\n  y\n"},
		{name: "a comment goes to sigs.k8s.io/yaml", in: "a: x # c\n"},
		{name: ".inf goes to sigs.k8s.io/yaml for its error", in: "a: .inf\n"},
		{name: "invalid UTF-8 goes to sigs.k8s.io/yaml for its error", in: "a: \xff\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.wantDirect, checkYAMLToJSON(t, []byte(tt.in)))
		})
	}
}

// FuzzYAMLToJSON checks the direct conversion against sigs.k8s.io/yaml.YAMLToJSONStrict on
// any document: what it converts, it converts to the same bytes; what sigs.k8s.io/yaml refuses,
// it does not convert. Seeded with yamlSeeds.
func FuzzYAMLToJSON(f *testing.F) {
	for _, s := range yamlSeeds(f, false) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkYAMLToJSON(t, data)
	})
}

// TestReadYAMLDumpAllocatesLittle keeps the direct conversion on the reader's path: reading a
// generated kubectl dump allocated 35x its size through sigs.k8s.io/yaml (1.28 GB for 36 MB,
// BenchmarkReadFloor), 5x with yamlConv. Not parallel: the count is the process's.
func TestReadYAMLDumpAllocatesLittle(t *testing.T) {
	if raceEnabled {
		t.Skip("-race allocates for its instrumentation")
	}
	dump, err := kubectldump.Realistic(200)
	require.NoError(t, err)
	read := func() {
		_, err := ReadInputs([]Input{{Name: "dump", Data: dump}}, Options{Workers: 1, Lean: true})
		require.NoError(t, err)
	}
	read() // warm: the first read fills caches of the decoders
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	read()
	goruntime.ReadMemStats(&after)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(dump))
	t.Logf("%.1f bytes allocated per byte of a %d-byte dump", perByte, len(dump))
	require.Less(t, perByte, 10.0, "bytes allocated per byte of input")
}
