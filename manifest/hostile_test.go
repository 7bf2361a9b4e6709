package manifest_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
)

func readString(data string, opts manifest.Options) (*manifest.Result, error) {
	return manifest.ReadInputs([]manifest.Input{{Name: "in", Data: []byte(data)}}, opts)
}

// The reproducers of hostile input: each ends at once with one line naming the limit or the
// field, where it once ran for hours, took minutes, or named no field.
func TestHostileInputEndsWithOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		opts     manifest.Options
		want     string
	}{{
		// The 89-byte file that ran for hours: ParseQuantity builds 10^999999999.
		name: "quantity with a huge negative exponent",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"1e-999999999\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		// F1 of issue 25: UnmarshalJSON trims spaces before ParseQuantity, so one space hid the
		// exponent from a gate that read only text starting with a digit.
		name: "quantity with a huge negative exponent after a space",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \" 1e-999999999\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: " 1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity with a huge negative exponent before a space",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"1e-999999999 \"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "1e-999999999 ": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity with a huge exponent between Unicode spaces",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"\u00a0\u20281.5E+999999999\t\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "\u00a0\u20281.5E+999999999\t": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity of a huge exponent without digits",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"+.e-999999999\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "+.e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity with a huge exponent, as a JSON number",
		in:   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":1e10000000}}}]}}`,
		want: `in: document 1: Pod default/p: spec.containers[0].resources.requests[cpu]: Invalid value: "1e10000000": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity hidden behind a JSON escape",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"memory":"\u0031E+99999999"}}}`,
		want: `in: document 1: Node n: status.allocatable[memory]: Invalid value: "1E+99999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`,
	}, {
		name: "quantity of a million digits",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"" + strings.Repeat("9", 1<<20) + "\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "9999999999999999999999999999999999999999... (1048536 bytes more)": a quantity longer than 64 characters (limit QuantityLength)`,
	}, {
		name: "quantity limits can be raised",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"1e-200\"}}\n",
		opts: manifest.Options{Limits: manifest.Limits{QuantityExponent: 150}},
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "1e-200": a quantity with an exponent beyond ±150 (limit QuantityExponent)`,
	}, {
		name: "not a quantity: the typed decoding's message, with the field",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, resources: {limits: {cpu: abc}}}]}\n",
		want: `in: document 1: Pod default/p1: spec.containers[0].resources.limits[cpu]: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}, {
		name: "a timestamp that is not one names its field",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1, creationTimestamp: yesterday}\n",
		want: `in: document 1: Node n1: metadata.creationTimestamp: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
	}, {
		name: "a wrong type deep in lists names every index",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a}\n  - name: b\n    ports: [{containerPort: 80}, {containerPort: eighty}]\n",
		want: `in: document 1: Pod default/p: spec.containers[1].ports[1].containerPort: cannot unmarshal string into int32`,
	}, {
		name: "a number out of range names its field",
		in:   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":99999999999}]}]}}`,
		want: `in: document 1: Pod default/p: spec.containers[0].ports[0].containerPort: cannot unmarshal number 99999999999 into int32`,
	}, {
		// Issue 25, dupgate: the gate walked a map, where the last of a key given twice wins,
		// while the typed decoding parses the first too. The 120-byte files of the audit
		// (dupnode1-3.json, dupres.json): a key given twice is refused first, with its path.
		name: "quantity bomb in the first of a parent object given twice",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1e-999999999"},"allocatable":{}}}`,
		want: `in: document 1: Node n1: status.allocatable: Duplicate value: "allocatable"`,
	}, {
		name: "quantity bomb in the first of a key given twice",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1e-999999999","cpu":"1"}}}`,
		want: `in: document 1: Node n1: status.allocatable.cpu: Duplicate value: "cpu"`,
	}, {
		name: "quantity bomb in the first of the top object's key given twice",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1e-999999999"}},"status":{}}`,
		want: `in: document 1: Node n1: status: Duplicate value: "status"`,
	}, {
		name: "quantity bomb in the first of a container's resources given twice",
		in:   `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"default","uid":"u1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"resources":{"requests":{"cpu":"1e-999999999"}},"name":"c","image":"i","resources":{}}]}}}}`,
		want: `in: document 1: DaemonSet default/ds: spec.template.spec.containers[0].resources: Duplicate value: "resources"`,
	}, {
		name: "quantity bomb in an item of a list, its key given twice",
		in:   `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":{"cpu":"1e-999999999"},"capacity":{}}}]}`,
		want: `in: document 1: items[0]: Node n1: status.capacity: Duplicate value: "capacity"`,
	}, {
		name: "quantity bomb behind a key given twice, once escaped",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1e-999999999"},"\u0061llocatable":{}}}`,
		want: `in: document 1: Node n1: status.allocatable: Duplicate value: "allocatable"`,
	}, {
		name: "a key given twice without a quantity bomb: the typed decoding's message",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1","cpu":"2"}}}`,
		want: `in: document 1: Node n1: status.allocatable.cpu: duplicate field`,
	}, {
		name: "an object over the API server's 3 MiB",
		in:   "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {a: \"" + strings.Repeat("x", 3<<20) + "\"}\n",
		want: `in: document 1: an object larger than 3 MiB (limit ObjectBytes; the API server's is 3 MiB)`,
	}, {
		name: "an item over the limit inside a list",
		in:   `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"` + strings.Repeat("x", 2048) + `"}}}]}`,
		opts: manifest.Options{Limits: manifest.Limits{ObjectBytes: 1024}},
		// Refused before it is parsed, so named by its place only (issue 25, F7).
		want: `in: document 1: items[0]: an object larger than 1 KiB (limit ObjectBytes; the API server's is 3 MiB)`,
	}, {
		name: "invalid UTF-8 in JSON, which encoding/json would replace silently",
		in:   "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\n\"metadata\":{\"name\":\"n\xff1\"}}",
		want: `in: line 2: invalid UTF-8 (byte 0xFF)`,
	}, {
		name: "invalid UTF-8 in YAML",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: \"n\xc3\"}\n",
		want: `in: line 3: invalid UTF-8 (byte 0xC3)`,
	}, {
		name: "too many documents",
		in:   strings.Repeat("---\n{apiVersion: v1, kind: Secret, metadata: {name: s}}\n", 11),
		opts: manifest.Options{Limits: manifest.Limits{Objects: 10}},
		want: `in: more than 10 objects (limit Objects)`,
	}, {
		name: "too many items in a kubectl list",
		in:   "apiVersion: v1\nkind: List\nitems:\n" + strings.Repeat("- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n", 10),
		opts: manifest.Options{Limits: manifest.Limits{Objects: 10}},
		want: `in: more than 10 objects (limit Objects)`,
	}, {
		name: "too many items over several JSON lists",
		in:   strings.Repeat(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}},{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}}]}`+"\n", 4) + "{",
		opts: manifest.Options{Limits: manifest.Limits{Objects: 10}},
		want: `in: more than 10 objects (limit Objects)`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, workers := range []int{1, 4} {
				opts := tt.opts
				opts.Workers = workers
				_, err := readString(tt.in, opts)
				require.EqualError(t, err, tt.want)
			}
		})
	}
}

// What looks like an oversized quantity is only refused where a quantity is: as a label value
// or an annotation it is text.
func TestQuantityLookalikesElsewhereAreText(t *testing.T) {
	t.Parallel()
	got, err := readString(`apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {big: "1e999999999"}
  annotations: {digits: "`+strings.Repeat("1", 200)+`", json: "{\"cpu\": \"1e-999999999\"}"}
status: {capacity: {cpu: "4", memory: 1e3}}
`, manifest.Options{})
	require.NoError(t, err)
	require.Equal(t, "1e999999999", got.Snapshot.Nodes[0].Labels["big"])
	q := got.Snapshot.Nodes[0].Status.Capacity["memory"]
	require.Equal(t, int64(1000), q.Value())
}

// The total of all inputs is bounded, not each one: two files of 600 bytes under a 1 KiB limit
// fail on the second.
func TestInputBytesBoundsAllInputs(t *testing.T) {
	t.Parallel()
	doc := "apiVersion: v1\nkind: Node\nmetadata: {name: %s}\n#" + strings.Repeat("x", 560) + "\n"
	a, b := fmt.Sprintf(doc, "a"), fmt.Sprintf(doc, "b")
	lim := manifest.Options{Limits: manifest.Limits{InputBytes: 1024}}
	_, err := manifest.ReadInputs([]manifest.Input{{Name: "a", Data: []byte(a)}}, lim)
	require.NoError(t, err)
	_, err = manifest.ReadInputs([]manifest.Input{{Name: "a", Data: []byte(a)}, {Name: "b", Reader: strings.NewReader(b)}}, lim)
	require.EqualError(t, err, "b: the inputs up to this one are larger than 1 KiB together (limit InputBytes)")
}

// A named pipe without a writer once blocked forever, and /dev/zero read for minutes: only
// regular files are read from a path.
func TestOnlyRegularFilesAreRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	_, err := manifest.ReadFiles([]string{fifo}, manifest.Options{})
	require.EqualError(t, err, fifo+": not a regular file (a named pipe); read a stream from stdin (-f -)")
	if _, statErr := os.Stat("/dev/zero"); statErr == nil {
		_, err = manifest.ReadFiles([]string{"/dev/zero"}, manifest.Options{})
		require.EqualError(t, err, "/dev/zero: not a regular file (a character device); read a stream from stdin (-f -)")
	}
	_, err = manifest.ReadFiles([]string{dir}, manifest.Options{})
	require.EqualError(t, err, dir+": is a directory")
	// NotRegular words the same refusal without -f's hint, for a command to end with its own,
	// and leaves directories, regular files and paths that cannot be stat'ed to their readers.
	require.EqualError(t, manifest.NotRegular(fifo), fifo+": not a regular file (a named pipe)")
	regular := filepath.Join(dir, "a.yaml")
	require.NoError(t, os.WriteFile(regular, nil, 0o600))
	for _, p := range []string{dir, regular, filepath.Join(dir, "missing")} {
		require.NoError(t, manifest.NotRegular(p), p)
	}
}

// 100,000 documents of distinct unknown kinds took 180 s when each warning scanned the ones
// before; the warnings kept are bounded and the rest counted.
func TestManyDistinctWarningsAreLinearAndBounded(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for i := range 20_000 {
		fmt.Fprintf(&b, "---\n{apiVersion: v1, kind: Kind%d, metadata: {name: x}}\n", i)
	}
	b.WriteString("---\n{apiVersion: v1, kind: Node, metadata: {name: n1}}\n")
	got, err := readString(b.String(), manifest.Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, got.Warnings, manifest.DefaultWarnings)
	require.Equal(t, 20_000-manifest.DefaultWarnings, got.WarningsLeftOut)
	require.Equal(t, "Kind0", got.Warnings[0].Kind)
	require.Equal(t, "Kind99", got.Warnings[99].Kind)
}

// 50,000 distinct unknown fields took 85 s when each one scanned the warnings before it. (The
// strict decoder reports at most 100 per object, so they are spread over 500 nodes.)
func TestManyDistinctUnknownFieldsAreLinearAndBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for n := range 500 {
		fmt.Fprintf(&b, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n%d"},"spec":{`, n)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"x%d":1`, n*100+i)
		}
		b.WriteString("}}\n")
	}
	got, err := readString(b.String(), manifest.Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, got.Warnings, manifest.DefaultWarnings)
	require.Equal(t, 50_000-manifest.DefaultWarnings, got.WarningsLeftOut)
	require.Equal(t, "in: document 1: Node n0: spec.x0: unknown field in the Kubernetes 1.37 API, ignored as by the controller", got.Warnings[0].String())
}

// A kind: List of a million tiny items used 40-50 times its size: with the default limit, a
// list of more than 250,000 items is refused before its items are decoded.
func TestTheDefaultObjectLimitRefusesAHugeListEarly(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	for i := range manifest.DefaultObjects {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"kind":"Pod"}`)
	}
	b.WriteString("]}")
	_, err := readString(b.String(), manifest.Options{Workers: 2})
	require.EqualError(t, err, "in: more than 250000 objects (limit Objects)")
}

func TestNegativeLimitsPanic(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "manifest: negative Options.Limits", func() {
		_, _ = readString("{}", manifest.Options{Limits: manifest.Limits{Objects: -1}})
	})
}

// VAL-24: what the API server would refuse in the fields of a Node or Pod the plan reads is an
// error in a hand-written object, every problem on one line in path order.
func TestInvalidHandWrittenObjectsAreErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{{
		name: "NUL in a node name",
		in:   `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n\u00001"}}`,
		want: `in: document 1: Node "n\x001": metadata.name: Invalid value: "n\x001": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	}, {
		name: "a label value of 100 KB and a bad label key, in path order",
		in:   "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {b: \"" + strings.Repeat("v", 100_000) + "\", \"-a\": x}\n",
		want: `in: document 1: Node n1: metadata.labels: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'); metadata.labels: Invalid value: "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv... (99960 bytes more)": must be no more than 63 bytes`,
	}, {
		name: "taints twice with one key and effect, and an unknown effect",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}, {key: b, effect: Sometimes}]\n",
		want: `in: document 1: Node n1: spec.taints[1]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair; spec.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
	}, {
		name: "a negative capacity",
		in:   "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"-1\"}}\n",
		want: `in: document 1: Node n1: status.capacity[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
	}, {
		name: "a pod bound to a node name that cannot be one, with a negative request",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: kube-system}\nspec: {nodeName: Node_1, containers: [{name: c, resources: {requests: {memory: -1Gi}}}]}\n",
		want: `in: document 1: Pod kube-system/p: spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0; spec.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	}, {
		name: "a pod namespace that cannot be one",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: Kube.System}\n",
		want: `in: document 1: Pod Kube.System/p: metadata.namespace: Invalid value: "Kube.System": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 5 { // labels are a map: the order is the same on every read
				_, err := readString(tt.in, manifest.Options{})
				require.EqualError(t, err, tt.want)
			}
		})
	}
}

// VAL-24: the same problems in an object read from the API server (with a resourceVersion) are
// warnings, the object read as stored; WarnInvalidObjects makes hand-written ones warnings too.
func TestInvalidObjectsFromTheServerAreWarnings(t *testing.T) {
	t.Parallel()
	in := "apiVersion: v1\nkind: Node\nmetadata: {name: n1, resourceVersion: \"7\"}\nspec:\n  taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]\n"
	got, err := readString(in, manifest.Options{})
	require.NoError(t, err)
	require.Len(t, got.Snapshot.Nodes[0].Spec.Taints, 2)
	require.Len(t, got.Warnings, 1)
	w := got.Warnings[0]
	require.Equal(t, manifest.WarningInvalidObject, w.Reason)
	require.Equal(t, `in: document 1: Node n1: spec.taints[1]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair (the API server would refuse it today; read as stored)`, w.String())

	got, err = readString(strings.Replace(in, `, resourceVersion: "7"`, "", 1), manifest.Options{WarnInvalidObjects: true})
	require.NoError(t, err)
	require.Len(t, got.Warnings, 1)
	require.Equal(t, manifest.WarningInvalidObject, got.Warnings[0].Reason)
}

// countingReader is head, then fill repeated up to n bytes, then tail, counting what is read.
type countingReader struct {
	r    io.Reader
	read int64
}

func newCountingReader(head string, fill byte, n int64, tail string) *countingReader {
	body := io.LimitReader(repeatReader(fill), n)
	return &countingReader{r: io.MultiReader(strings.NewReader(head), body, strings.NewReader(tail))}
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.read += int64(k)
	return k, err
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// F7 of issue 25, the form left: a JSON stream whose object has a top-level "items" key may be
// a list, so it was read and parsed whole (1,000 MB on stdin: 43 s, 3.67 GB) before its
// ObjectBytes refusal. Its bytes outside the items array are now refused at the bound as
// they are read.
func TestAJSONObjectWithItemsIsRefusedAtTheBoundOutsideItsItems(t *testing.T) {
	t.Parallel()
	const big = 64 << 20
	tests := []struct {
		name, head, tail string
	}{{
		name: "items first, then a huge label value",
		head: `{"items":[],"kind":"Node","metadata":{"name":"n","labels":{"a":"`,
		tail: `"}}}`,
	}, {
		name: "items later, after a huge label value",
		head: `{"kind":"Node","metadata":{"name":"n","labels":{"a":"`,
		tail: `"}},"items":[]}`,
	}, {
		name: "items as an object, not an array",
		head: `{"items":{"a":"`,
		tail: `"},"kind":"Node"}`,
	}, {
		name: "items as a label key",
		head: `{"kind":"Node","metadata":{"labels":{"items":"`,
		tail: `"}}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := newCountingReader(tt.head, 'x', big, tt.tail)
			_, err := manifest.Read("in", in, manifest.Options{})
			require.EqualError(t, err, "in: document 1: an object larger than 3 MiB (limit ObjectBytes; the API server's is 3 MiB)")
			require.Less(t, in.read, int64(8<<20), "bytes read before the refusal")
		})
	}
}

// A list larger than ObjectBytes in its items is still read.
func TestAJSONListLargerThanTheObjectBoundIsRead(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"kind":"List", "apiVersion":"v1", "items":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n%d","labels":{"a":"%s"}}}`, i, strings.Repeat("y", 20))
	}
	b.WriteString(`], "metadata": {"resourceVersion": ""}}`)
	require.Greater(t, b.Len(), 3<<20)
	got, err := manifest.Read("in", strings.NewReader(b.String()), manifest.Options{})
	require.NoError(t, err)
	require.Len(t, got.Snapshot.Nodes, 40000)
}
