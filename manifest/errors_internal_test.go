package manifest

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// nodeTemplate has the fields of fleet.NodeTemplate, which this package's tests cannot import.
type nodeTemplate struct {
	Name         string                       `json:"name,omitempty"`
	Labels       map[string]string            `json:"labels,omitempty"`
	Requirements []v1.NodeSelectorRequirement `json:"requirements,omitempty"`
	Taints       []v1.Taint                   `json:"taints,omitempty"`
}

// templateYAML is a node template as one writes it for --node-template: block YAML, which the
// direct converter converts.
const templateYAML = `name: gpu-0
labels:
  kubernetes.io/os: linux
  node.kubernetes.io/instance-type: g5.xlarge
requirements:
- key: topology.kubernetes.io/zone
  operator: In
  values:
  - eu-west-1a
  - eu-west-1b
taints:
- key: nvidia.com/gpu
  value: "true"
  effect: NoSchedule
`

// DecodeStrict converts YAML with the direct converter (yamlToJSON) and reads every document
// as it did through sigs.k8s.io/yaml's strict conversion: the same object, and the same error
// word for word, lines and field paths included.
func TestDecodeStrictAsThroughSigsYAML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		wantErr     string // "" for none; checked on both paths
	}{
		{name: "a block template", input: templateYAML},
		{name: "a flow template", input: "labels: {a: b}\ntaints: [{key: k, effect: NoSchedule}]\n"},
		{name: "a JSON template", input: `{"labels": {"a": "b"}, "taints": []}`},
		{name: "a template with comments", input: "# gpu nodes\nlabels:\n  a: b # the pool\n"},
		{name: "an unknown field with the field meant", input: "lables:\n  a: b\n", wantErr: "lables: unknown field (did you mean labels?)"},
		{name: "an unknown field in a requirement", input: "requirements:\n- key: a\n  operater: Exists\n", wantErr: "requirements[0].operater: unknown field (did you mean operator?)"},
		{name: "every unknown field, sorted", input: "taints:\n- key: k\n  efect: NoSchedule\nfoo: 1\n", wantErr: "foo: unknown field; taints[0].efect: unknown field (did you mean effect?)"},
		{name: "a key given twice at the top", input: "labels:\n  a: b\nname: x\nlabels:\n  c: d\n", wantErr: `line 5: key "labels" already set in map`},
		{name: "a key given twice in a label map", input: "labels:\n  a: b\n  a: c\n", wantErr: `line 3: key "a" already set in map`},
		{name: "a key given twice in a taint", input: "taints:\n- key: a\n  effect: NoSchedule\n  key: b\n", wantErr: `line 4: key "key" already set in map`},
		{name: "a value of the wrong type", input: "taints:\n  key: a\n", wantErr: "taints: cannot unmarshal object into []v1.Taint"},
		{name: "a number where a string is wanted", input: "name: 12\n", wantErr: "name: cannot unmarshal number 12 into string"},
		{name: "a syntax error and its line", input: "labels:\n  a: b\n c: d\n", wantErr: "line 3: did not find expected key"},
		{name: "a tab", input: "labels:\n\ta: b\n", wantErr: "line 2: found character that cannot start any token"},
		{name: "an empty document", input: ""},
		{name: "comments only", input: "# nothing\n"},
		{name: "null", input: "null\n"},
		{name: "a document marker", input: "---\nname: a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.input)
			var want, got nodeTemplate
			wantEmpty, wantErr := decodeStrictWith(yaml.YAMLToJSONStrict, bytes.Clone(data), &want)
			gotEmpty, gotErr := DecodeStrict(data, &got)
			require.Equal(t, wantEmpty, gotEmpty)
			if tt.wantErr != "" {
				require.EqualError(t, wantErr, tt.wantErr, "through sigs.k8s.io/yaml")
				require.EqualError(t, gotErr, tt.wantErr)
				return
			}
			require.NoError(t, wantErr)
			require.NoError(t, gotErr)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("DecodeStrict() mismatch (-through sigs.k8s.io/yaml +got):\n%s", diff)
			}
		})
	}
}

// A node template in block YAML takes the direct conversion, not sigs.k8s.io/yaml's (issue 25,
// item 6): it allocates less than half of what that conversion does.
func TestDecodeStrictConvertsDirectly(t *testing.T) {
	data := []byte(templateYAML)
	var c yamlConv
	_, direct := c.convert(data)
	require.True(t, direct, "the template is not in the subset converted directly")
	decode := func(toJSON func([]byte) ([]byte, error)) float64 {
		return testing.AllocsPerRun(20, func() {
			var tmpl nodeTemplate
			if _, err := decodeStrictWith(toJSON, data, &tmpl); err != nil {
				t.Fatal(err)
			}
		})
	}
	viaSigs := decode(yaml.YAMLToJSONStrict)
	got := testing.AllocsPerRun(20, func() {
		var tmpl nodeTemplate
		if _, err := DecodeStrict(data, &tmpl); err != nil {
			t.Fatal(err)
		}
	})
	if got > viaSigs/2 {
		t.Errorf("DecodeStrict allocates %v times per template, through sigs.k8s.io/yaml %v: not converted directly", got, viaSigs)
	}
}
