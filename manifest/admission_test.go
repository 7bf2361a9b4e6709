package manifest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/manifest"
)

const admissionInput = `apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: 100m}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClassList
items:
- metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {cpu: 250m}}
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: gvisor}
  handler: runsc
---
apiVersion: v1
kind: Node
metadata: {name: n1}
`

// TestReadAdmissionObjects: LimitRanges (namespaced, "default" without a namespace, D-5) and
// RuntimeClasses (cluster-scoped, in typed lists too) go to Result.Admission, not the snapshot.
func TestReadAdmissionObjects(t *testing.T) {
	res, err := manifest.Read("in.yaml", strings.NewReader(admissionInput), manifest.Options{})
	require.NoError(t, err)
	require.Len(t, res.Snapshot.Nodes, 1)
	require.Empty(t, res.Warnings)
	a := res.Admission
	require.Len(t, a.LimitRanges, 1)
	require.Equal(t, "default", a.LimitRanges[0].Namespace)
	require.Equal(t, "100m", a.LimitRanges[0].Spec.Limits[0].DefaultRequest.Cpu().String())
	require.Len(t, a.RuntimeClasses, 2)
	require.Equal(t, []string{"kata", "gvisor"}, []string{a.RuntimeClasses[0].Name, a.RuntimeClasses[1].Name})
	require.Equal(t, "", a.RuntimeClasses[0].Namespace)
	require.Equal(t, "250m", a.RuntimeClasses[0].Overhead.PodFixed.Cpu().String())
	require.Equal(t, "in.yaml: document 2: items[1]", a.RuntimeClassSources[1].String())
}

func TestReadAdmissionObjectErrors(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"duplicate LimitRange", "apiVersion: v1\nkind: LimitRange\nmetadata: {name: a}\n---\napiVersion: v1\nkind: LimitRange\nmetadata: {name: a, namespace: default}\n",
			"in.yaml: document 2: LimitRange default/a: metadata.name: Duplicate value: \"default/a\""},
		{"RuntimeClass of another apiVersion", "apiVersion: node.k8s.io/v1beta1\nkind: RuntimeClass\nmetadata: {name: a}\nhandler: x\n",
			`in.yaml: document 1: RuntimeClass a: apiVersion: Unsupported value: "node.k8s.io/v1beta1": supported values: "node.k8s.io/v1"`},
		{"wrong type", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: a}\nhandler: [x]\n", "in.yaml: document 1: RuntimeClass a: handler:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Read("in.yaml", strings.NewReader(tc.input), manifest.Options{})
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}
