package manifest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/manifest"
)

// CheckQuantities refuses oversized quantities where the type holds a quantity, names the
// path, leaves lookalikes elsewhere alone, and honours the limits it is given.
func TestCheckQuantities(t *testing.T) {
	t.Parallel()
	pod := func(labels, cpu string) string {
		return `{"metadata": {"labels": {"l": ` + labels + `}}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": ` + cpu + `}}}]}}`
	}
	tests := []struct {
		name string
		data string
		lim  manifest.Limits
		want string // "" when accepted
	}{
		{"ordinary", pod(`"x"`, `"100m"`), manifest.Limits{}, ""},
		{"a number", pod(`"x"`, `1e3`), manifest.Limits{}, ""},
		{"tiny exponent", pod(`"x"`, `"1e-999999999"`), manifest.Limits{},
			`spec.containers[0].resources.requests[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
		{"huge number", pod(`"x"`, `1e999999999`), manifest.Limits{},
			`spec.containers[0].resources.requests[cpu]: Invalid value: "1e999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
		{"escaped", pod(`"x"`, `"\u0031e-999999999"`), manifest.Limits{},
			`spec.containers[0].resources.requests[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
		{"too long", pod(`"x"`, `"`+strings.Repeat("1", 65)+`"`), manifest.Limits{},
			`spec.containers[0].resources.requests[cpu]: Invalid value: "1111111111111111111111111111111111111111... (25 bytes more)": a quantity longer than 64 characters (limit QuantityLength)`},
		{"a label is text", pod(`"1e-999999999"`, `"1"`), manifest.Limits{}, ""},
		{"a lower limit", pod(`"x"`, `"1e5"`), manifest.Limits{QuantityExponent: 3},
			`spec.containers[0].resources.requests[cpu]: Invalid value: "1e5": a quantity with an exponent beyond ±3 (limit QuantityExponent)`},
		{"not JSON: the decoder's business", `{"spec": 1e-999999999`, manifest.Limits{}, ""},
		{"negative limit", pod(`"x"`, `"1"`), manifest.Limits{QuantityLength: -1}, "manifest: negative QuantityLength or QuantityExponent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := manifest.CheckQuantities([]byte(tt.data), &v1.Pod{}, tt.lim)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
		})
	}
}

// A value that is the whole of data has no path: its error is the field error's body alone,
// never prefixed with the nil path's "<nil>" (issue 25), and still a *field.Error to errors.As.
func TestCheckQuantitiesAtTheTop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		data      string
		obj       any
		want      string
		wantField bool // a *field.Error, not a kind error
	}{
		{"a quantity that is the whole of data", `"1e-999999999"`, &resource.Quantity{},
			`Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`, true},
		{"data of the wrong kind for the whole type", `[1e-999999999]`, &v1.Pod{},
			`cannot unmarshal array into v1.Pod`, false},
		{"a map of quantities keeps its keys' paths", `{"a": "1e-999999999"}`, &map[string]resource.Quantity{},
			`[a]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := manifest.CheckQuantities([]byte(tt.data), tt.obj, manifest.Limits{})
			require.EqualError(t, err, tt.want)
			require.Equal(t, tt.wantField, errors.As(err, new(*field.Error)))
		})
	}
}

// DecodeStrict words the error of a value that is the whole document without a path too.
func TestDecodeStrictAtTheTop(t *testing.T) {
	t.Parallel()
	var q resource.Quantity
	_, err := manifest.DecodeStrict([]byte("\"1x1\"\n"), &q)
	require.EqualError(t, err, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	var n v1.NodeStatus
	_, err = manifest.DecodeStrict([]byte("[1]\n"), &n)
	require.EqualError(t, err, "cannot unmarshal array into v1.NodeStatus")
}

func ExampleCheckQuantities() {
	data := []byte(`{"spec": {"overhead": {"cpu": "1e-999999999"}}}`)
	fmt.Println(manifest.CheckQuantities(data, &v1.Pod{}, manifest.Limits{}))
	// Output: spec.overhead[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)
}

// DecodeStrict refuses an oversized quantity before parsing it, as Read does (issue 25, F1):
// a type of the caller's that holds a quantity is read as safely as a manifest.
func TestDecodeStrictRefusesOversizedQuantities(t *testing.T) {
	t.Parallel()
	var got struct {
		CPU resource.Quantity `json:"cpu"`
	}
	done := make(chan error, 1)
	go func() {
		_, err := manifest.DecodeStrict([]byte("cpu: \" 1e-999999999\"\n"), &got)
		done <- err
	}()
	select {
	case err := <-done:
		require.EqualError(t, err, `cpu: Invalid value: " 1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`)
	case <-time.After(5 * time.Second):
		t.Fatal("DecodeStrict still parsing after 5s")
	}
	_, err := manifest.DecodeStrict([]byte("cpu: 100m\n"), &got)
	require.NoError(t, err)
	require.Equal(t, int64(100), got.CPU.MilliValue())
}

// CheckJSON refuses, with the line and path, what encoding/json would take silently (issue
// 25, F14): a key given twice, at any depth, and invalid UTF-8; the same key in two objects,
// and text that is not JSON, pass.
func TestCheckJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want string
	}{
		{"a plan", `{"now":"x","daemonSets":[{"name":"a","create":[{"node":"n1"},{"node":"n2"}]}]}`, ""},
		{"a key twice at the top", "{\"now\":\"x\",\n\"now\":\"y\"}", `line 2: now: Duplicate value: "now"`},
		{"a key twice deep in lists", "{\"daemonSets\":[{\"name\":\"a\"},\n{\"create\":[1,{\"node\":\"n\",\n\"node\":\"m\"}]}]}",
			`line 3: daemonSets[1].create[1].node: Duplicate value: "node"`},
		{"the same key in sibling objects", `[{"a":1},{"a":2},{"a":{"a":3}}]`, ""},
		{"a key after a closed object is checked in its own object", `{"a":{"b":1},"b":2,"a":3}`, `line 1: a: Duplicate value: "a"`},
		{"invalid UTF-8", "{\"a\":\n\"\xff\"}", "line 2: invalid UTF-8 (byte 0xFF)"},
		{"not JSON: the decoder's business", `{"a":1,"b"`, ""},
		{"a stream of values, each its own", `{"a":1} {"a":2}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := manifest.CheckJSON([]byte(tt.data))
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
		})
	}
}

// BenchmarkCheckJSON checks a candidate plan of 5,000 creations, about 0.4 MB.
func BenchmarkCheckJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"now":"2026-03-02T10:00:00Z","daemonSets":[{"namespace":"ns","name":"ds","create":[`)
	for i := range 5000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"node":"node-%d","reason":"NodeEligible","labels":{"a":"b"}}`, i)
	}
	sb.WriteString(`]}]}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := manifest.CheckJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleParseQuantity() {
	q, err := manifest.ParseQuantity(" 250m ", manifest.Limits{})
	fmt.Println(q.MilliValue(), err)
	_, err = manifest.ParseQuantity(" 1e-999999999", manifest.Limits{})
	fmt.Println(err)
	// Output:
	// 250 <nil>
	// " 1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)
}

func ExampleCheckJSON() {
	fmt.Println(manifest.CheckJSON([]byte(`{"daemonSets": [{"name": "a", "name": "b"}]}`)))
	// Output: line 1: daemonSets[0].name: Duplicate value: "name"
}

// A long value is cut for the message at a rune boundary, as every cut value is
// (errlist.Cut): cutting bytes 10 from the end split the no-break space.
func TestCheckQuantitiesCutsTheValueAtARune(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("1", 70) + "\u00a0\u3000\u3000\u3000"
	err := manifest.CheckQuantities([]byte(`{"status": {"capacity": {"cpu": "`+long+`"}}}`), &v1.Node{}, manifest.Limits{})
	var fe *field.Error
	require.True(t, errors.As(err, &fe), "%v", err)
	value, ok := fe.BadValue.(string)
	require.True(t, ok)
	require.True(t, utf8.ValidString(value), "cut value %q is not UTF-8", value)
	require.Less(t, len(value), len(long))
}
