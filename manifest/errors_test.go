package manifest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Every error is one line "FILE: document N: [items[I]: ][Kind ns/name: ]...", with the file's
// line where the parser gives one.
func TestReadErrorsAreOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{
			name:  "a tab indenting YAML in a later document names the file's line",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n# comment\napiVersion: v1\nkind: Node\nmetadata:\n\tname: b\n",
			want:  "in.yaml: document 2: line 9: found character that cannot start any token",
		},
		{
			name:  "a JSON syntax error names its line",
			input: "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \"v1\",\n \"kind\" \"Node\"}\n",
			want:  "in.yaml: document 2: line 3: invalid character '\"' after object key",
		},
		{
			name:  "a wrong type inside a list item names the item and the object",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: ns}\n  spec: {priority: high}\n",
			want:  "in.yaml: document 1: items[1]: Pod ns/p: spec.priority: cannot unmarshal string into int32",
		},
		{
			name:  "a YAML error inside a kubectl List item names the file's line",
			input: "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: [b}\nkind: List\n",
			want:  "in.yaml: document 1: line 8: did not find expected ',' or ']'",
		},
		{
			name:  "a key given twice in JSON",
			input: "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}",
			want:  "in.yaml: document 1: Node b: metadata.name: duplicate field",
		},
		{
			name:  "UTF-16 with an odd number of bytes",
			input: "\xFF\xFEa",
			want:  "in.yaml: UTF-16 text (it starts with a byte order mark) with an odd number of bytes",
		},
		{
			name:  "an apiVersion that is not read",
			input: "apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata: {name: d, namespace: kube-system}\n",
			want:  `in.yaml: document 1: DaemonSet kube-system/d: apiVersion: Unsupported value: "extensions/v1beta1": supported values: "apps/v1"`,
		},
		{
			name:  "two nodes with one name",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
			want:  `in.yaml: document 2: Node a: metadata.name: Duplicate value: "a" (first at in.yaml: document 1)`,
		},
		{
			name:  "comments only",
			input: "# nothing\n---\n",
			want:  "in.yaml: no objects",
		},
		{
			name:  "a misspelt cluster-scoped kind is named without a namespace",
			input: "apiVersion: v1\nkind: node\nmetadata: {name: cp-1}\n",
			want:  `in.yaml: document 1: node cp-1: kind: unknown kind "node": did you mean Node?`,
		},
		{
			name:  "a misspelt namespaced kind is named in default",
			input: "apiVersion: v1\nkind: Pdo\nmetadata: {name: p}\n",
			want:  `in.yaml: document 1: Pdo default/p: kind: unknown kind "Pdo": did you mean Pod?`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Read("in.yaml", strings.NewReader(tt.input), manifest.Options{})
			require.EqualError(t, err, tt.want)
		})
	}
}

// Identity problems carry their field error, for callers that branch on the field or type
// rather than on the text.
func TestReadErrorsCarryTheirFieldError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		want        *field.Error
	}{
		{name: "no kind", input: "apiVersion: v1\nmetadata: {name: a}\n", want: field.Required(field.NewPath("kind"), "")},
		{name: "no apiVersion", input: "kind: Node\nmetadata: {name: a}\n", want: field.Required(field.NewPath("apiVersion"), "")},
		{name: "no name", input: "apiVersion: v1\nkind: Node\n", want: field.Required(field.NewPath("metadata", "name"), "")},
		{name: "an apiVersion that is not read", input: "apiVersion: apps/v1beta2\nkind: DaemonSet\nmetadata: {name: d}\n", want: field.NotSupported(field.NewPath("apiVersion"), "apps/v1beta2", []string{"apps/v1"})},
		{name: "two pods with one name", input: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", want: field.Duplicate(field.NewPath("metadata", "name"), "default/p")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Read("in.yaml", strings.NewReader(tt.input), manifest.Options{})
			var got *field.Error
			require.ErrorAs(t, err, &got)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, field.ErrorList{tt.want}, field.ErrorList{got})
		})
	}
}

// A key given twice is an error, with its line; apimachinery's util/yaml ToJSON, which Read does
// not use, keeps the second value silently.
func TestYAMLKeyGivenTwiceIsAnError(t *testing.T) {
	t.Parallel()
	const input = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n"
	_, err := manifest.Read("node.yaml", strings.NewReader(input), manifest.Options{})
	require.EqualError(t, err, `node.yaml: document 1: line 5: key "name" already set in map`)

	js, err := utilyaml.ToJSON([]byte(input))
	require.NoError(t, err)
	require.JSONEq(t, `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}`, string(js))
}

// A file beside the input that is not a Kubernetes object is read as strictly as a hand-written
// manifest, and its errors read alike: the unknown field's path and the field meant. One
// document is read, and a second is refused (D-20); a resource quantity is gated as written,
// whether a string or a number, and a JSON number is read as resource.Quantity's UnmarshalJSON
// reads it (D-20).
func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	type inner struct {
		Effect string `json:"effect"`
	}
	type doc struct {
		Labels   map[string]string `json:"labels"`
		Taints   []inner           `json:"taints"`
		Requests v1.ResourceList   `json:"requests"`
	}
	const exponentErr = `requests[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
	digits := strings.Repeat("1234567890", 10)
	lengthErr := `requests[cpu]: Invalid value: "` + digits[:40] + `... (60 bytes more)": a quantity longer than 64 characters (limit QuantityLength)`
	tests := []struct {
		name, input string
		wantEmpty   bool
		wantCPU     string // the cpu request read, "" for none
		wantErr     string
	}{
		{name: "a valid document", input: "labels: {a: b}\ntaints: [{effect: NoSchedule}]\n"},
		{name: "an unknown field with the field meant", input: "lables: {a: b}\n", wantErr: "lables: unknown field (did you mean labels?)"},
		{name: "an unknown field in a list item", input: "taints: [{efect: NoSchedule}]\n", wantErr: "taints[0].efect: unknown field (did you mean effect?)"},
		{name: "every unknown field", input: "lables: {}\nfoo: 1\n", wantErr: "foo: unknown field; lables: unknown field (did you mean labels?)"},
		{name: "a key given twice", input: "labels: {}\nlabels: {}\n", wantErr: `line 2: key "labels" already set in map`},
		{name: "a key given twice in JSON", input: `{"labels": {}, "labels": {}}`, wantErr: `labels: duplicate field`},
		{name: "a value of the wrong type", input: "taints: {}\n", wantErr: "taints: cannot unmarshal object into []manifest_test.inner"},
		{name: "an empty document", input: "", wantEmpty: true},
		{name: "comments only", input: "# nothing\n", wantEmpty: true},

		// D-20: one document.
		{name: "D-20: a second YAML document is refused with its line", input: "labels: {a: b}\n---\nlabels: {c: d}\n",
			wantErr: "document 2 (line 3): a second document, where one is read (the first would be read alone, the others dropped)"},
		{name: "D-20: a second document after an end marker is refused", input: "---\nlabels: {a: b}\n...\n--- {labels: {c: d}}\n",
			wantErr: "document 2 (line 4): a second document, where one is read (the first would be read alone, the others dropped)"},
		{name: "D-20: a second JSON value is refused", input: "{\"labels\": {}}\n\n{\"labels\": {}}\n",
			wantErr: "document 2 (line 3): a second document, where one is read (the first would be read alone, the others dropped)"},
		{name: "D-20: an empty document after the first is no document", input: "labels: {a: b}\n---\n# the end\n---\n"},
		{name: "D-20: the one document after a marker and comments keeps its lines", input: "# pool\n---\nlabels: {a: b}\n\tc: d\n",
			wantErr: "line 4: found character that cannot start any token"},

		// D-20: quantities gated as written.
		{name: "D-20: a YAML number beyond the exponent bound is refused as its string is", input: "requests: {cpu: 1e-999999999}\n", wantErr: exponentErr},
		{name: "D-20: the quoted YAML form is refused", input: "requests: {cpu: '1e-999999999'}\n", wantErr: exponentErr},
		{name: "D-20: a block YAML number is refused", input: "requests:\n  cpu: 1e-999999999\n", wantErr: exponentErr},
		{name: "D-20: a JSON number beyond the exponent bound is refused", input: `{"requests": {"cpu": 1e-999999999}}`, wantErr: exponentErr},
		{name: "D-20: the JSON string form is refused", input: `{"requests": {"cpu": "1e-999999999"}}`, wantErr: exponentErr},
		{name: "D-20: a YAML number of 100 digits is refused by the length bound", input: "requests: {cpu: " + digits + "}\n", wantErr: lengthErr},
		{name: "D-20: a JSON number of 100 digits is refused by the length bound", input: `{"requests": {"cpu": ` + digits + `}}`, wantErr: lengthErr},
		{name: "D-20: a YAML number named by an alias is refused", input: "x: &n 1e-999999999\nrequests: {cpu: *n}\n", wantErr: exponentErr},
		{name: "D-20: a YAML number named by an alias in a known field is refused", input: "labels: {a: &n b}\nrequests: {cpu: &m 1e-999999999, memory: *m}\n", wantErr: exponentErr},
		{name: "D-20: an aliased mapping holding the number is refused", input: "x: &r {cpu: 1e-999999999}\nrequests: *r\n", wantErr: exponentErr},
		{name: "D-20: a YAML number within the bounds is read", input: "requests: {cpu: 1e-99}\n", wantCPU: "1e-9"},
		{name: "D-20: a JSON number within the bounds is read as UnmarshalJSON reads it", input: `{"requests": {"cpu": 1e-99}}`, wantCPU: "1e-9"},
		{name: "D-20: a JSON number is read to the nano, not through a float64", input: `{"requests": {"cpu": 0.1000000000000000000001}}`, wantCPU: "100000001n"},
		{name: "D-20: a long exponent outside a quantity is not one", input: "labels: {x1e-999999999: b}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d doc
			empty, err := manifest.DecodeStrict([]byte(tt.input), &d)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantEmpty, empty)
			if tt.wantCPU != "" {
				q := d.Requests[v1.ResourceCPU]
				require.Equal(t, tt.wantCPU, q.String())
			}
		})
	}
}

// A JSON number in a quantity field reads as resource.Quantity's UnmarshalJSON reads it, as
// the API server decodes a JSON body, and not through a float64 (D-20).
func TestDecodeStrictReadsJSONNumbersAsUnmarshalJSON(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"1", "0.1", "0.1000000000000000000001", "12345678901234567890", "1e-9", "1e-99", "1.5e+99", "-0.0000000001", "7e3"} {
		var want resource.Quantity
		require.NoError(t, json.Unmarshal([]byte(n), &want), n)
		var got struct {
			Q resource.Quantity `json:"q"`
		}
		_, err := manifest.DecodeStrict([]byte(`{"q": `+n+`}`), &got)
		require.NoError(t, err, n)
		require.Zero(t, want.Cmp(got.Q), "%s: got %s, UnmarshalJSON %s", n, got.Q.String(), want.String())
	}
}
