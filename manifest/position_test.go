package manifest_test

import (
	"bytes"
	"testing"

	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
)

// multiDoc is three documents, the DaemonSet second, after a comment and a marker, so that
// its lines are the file's, not the document's.
const multiDoc = `# agents
apiVersion: v1
kind: Node
metadata: {name: a}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostNetwork: true
      containers:
      - name: sidecar
        image: s:1
      - name: agent
        image: a:1
        ports: [{containerPort: 9100, hostPort: 9100}]
        resources:
          requests: {cpu: 250m, example.com/gpu: "1"}
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: one}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: two}
  spec:
    revisionHistoryLimit: 0
`

// TestPositionsField: a field path of a finding is found at its key's line and column in the
// file, across documents and list items; a field the object does not write points at its
// closest written parent; an unknown document has no position.
func TestPositionsField(t *testing.T) {
	t.Parallel()
	p := manifest.NewPositions([]byte(multiDoc))
	tests := []struct {
		name      string
		src       manifest.Source
		path      string
		want      manifest.Position
		wantExact bool
		wantOK    bool
	}{
		{"a scalar field of the second document", manifest.Source{File: "f", Document: 2, Item: -1}, "spec.template.spec.hostNetwork", manifest.Position{Line: 16, Column: 7}, true, true},
		{"a list index, then a flow mapping", manifest.Source{File: "f", Document: 2, Item: -1}, "spec.template.spec.containers[1].ports[0].hostPort", manifest.Position{Line: 22, Column: 39}, true, true},
		{"a map key with dots and a slash", manifest.Source{File: "f", Document: 2, Item: -1}, "spec.template.spec.containers[1].resources.requests[example.com/gpu]", manifest.Position{Line: 24, Column: 33}, true, true},
		{"an unwritten field points at its parent", manifest.Source{File: "f", Document: 2, Item: -1}, "spec.template.spec.priorityClassName", manifest.Position{Line: 15, Column: 5}, false, true},
		{"an item of a list", manifest.Source{File: "f", Document: 3, Item: 1}, "spec.revisionHistoryLimit", manifest.Position{Line: 36, Column: 5}, true, true},
		{"no such document", manifest.Source{File: "f", Document: 4, Item: -1}, "spec", manifest.Position{}, false, false},
		{"no such item", manifest.Source{File: "f", Document: 3, Item: 2}, "spec", manifest.Position{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, exact, ok := p.Field(tt.src, tt.path)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantExact, exact)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestPositionsFieldJSON: JSON documents are located too, the columns of a value that starts
// within a line shifted by what precedes it.
func TestPositionsFieldJSON(t *testing.T) {
	t.Parallel()
	p := manifest.NewPositions([]byte("{\"kind\": \"Node\"} {\"kind\": \"DaemonSet\", \"spec\": {\"revisionHistoryLimit\": 0}}\n{\"kind\": \"DaemonSet\",\n \"spec\": {}}\n"))
	got, exact, ok := p.Field(manifest.Source{Document: 2, Item: -1}, "spec.revisionHistoryLimit")
	require.True(t, ok)
	require.True(t, exact)
	require.Equal(t, manifest.Position{Line: 1, Column: 49}, got)
	got, exact, ok = p.Field(manifest.Source{Document: 3, Item: -1}, "spec.revisionHistoryLimit")
	require.True(t, ok)
	require.False(t, exact)
	require.Equal(t, manifest.Position{Line: 3, Column: 2}, got)
}

// FuzzPositions: any text and any path give a position or none, never a panic, and do not
// modify the text; a position found is inside the file's lines.
func FuzzPositions(f *testing.F) {
	f.Add([]byte(multiDoc), 2, -1, "spec.template.spec.containers[1].ports[0].hostPort") // a multi-document file
	f.Add([]byte(multiDoc), 3, 1, "spec.revisionHistoryLimit")                           // a list item
	f.Add([]byte(`{"a": 1} {"b": [1, {"c": 2}]}`), 2, -1, "b[1].c")                      // a JSON stream
	f.Add([]byte("a: &x {b: 1}\nc: *x\n"), 1, -1, "c.b")                                 // an alias
	f.Add([]byte("a: [1, 2"), 1, -1, "a[5]")                                             // does not parse
	f.Add([]byte("--- {a: 1}\n...\n"), 1, -1, "a[")                                      // an unclosed bracket
	f.Fuzz(func(t *testing.T, data []byte, doc, item int, path string) {
		in := bytes.Clone(data)
		pos, _, ok := manifest.NewPositions(data).Field(manifest.Source{Document: doc, Item: item}, path)
		require.Equal(t, in, data, "the text is not modified")
		if ok {
			require.GreaterOrEqual(t, pos.Line, 1)
			require.LessOrEqual(t, pos.Line, bytes.Count(data, []byte("\n"))+1)
		}
	})
}
