package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
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

// D-5: a DaemonSet without uid gets a deterministic, well-formed name-based UUID.
func TestNameUID(t *testing.T) {
	t.Parallel()
	u := string(nameUID("kube-system", "fluentd"))
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), u)
	require.Equal(t, u, string(nameUID("kube-system", "fluentd")), "same namespace/name, same uid")
	require.NotEqual(t, u, string(nameUID("default", "fluentd")), "namespace is part of the name")
	// Pinned, and equal to Python's uuid.uuid5(namespace, "daemonsets.apps/kube-system/fluentd"): the uid
	// is part of the golden output, so changing the derivation is a visible diff.
	require.Equal(t, "bec67390-ee01-5494-8cc5-c8e9227dfda3", u)
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// Lists as kubectl prints them (items with kind) and as the API server returns typed lists
// (items without kind) are read, as is a JSON stream; namespaced objects without namespace land
// in "default" (D-5); other kinds are skipped with one warning per kind.
func TestLoadListsAndStreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	list := writeFile(t, dir, "list.yaml", `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-1
    creationTimestamp: "2026-03-01T10:00:00Z"
- apiVersion: v1
  kind: Service
  metadata: {name: kubernetes, namespace: default}
  spec: {ports: [{port: 443}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-0}
  status:
    phase: Running
    conditions:
    - {type: Ready, status: "True", lastTransitionTime: "2026-03-02T09:00:00Z"}
- apiVersion: v1
  kind: Service
  metadata: {name: dns, namespace: kube-system}
`)
	typed := writeFile(t, dir, "nodes.json", `{"apiVersion":"v1","kind":"NodeList","metadata":{},"items":[{"metadata":{"name":"worker-2"}}]}
{"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-3"},"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-03-02T09:30:00Z"}]}}`)
	in, err := load([]string{list, typed}, nil, loadOptions{})
	require.NoError(t, err)

	var nodes, pods []string
	for _, n := range in.nodes {
		nodes = append(nodes, n.obj.Kind+" "+n.obj.Name+" at "+n.loc.String())
	}
	for _, p := range in.pods {
		pods = append(pods, p.obj.Namespace+"/"+p.obj.Name)
	}
	wantNodes := []string{
		"Node worker-1 at " + list + ": document 1: items[0]",
		"Node worker-2 at " + typed + ": document 1: items[0]",
		"Node worker-3 at " + typed + ": document 2",
	}
	if diff := cmp.Diff(wantNodes, nodes); diff != "" {
		t.Errorf("nodes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default/web-0"}, pods); diff != "" {
		t.Errorf("pods mismatch (-want +got):\n%s", diff)
	}

	var warnings bytes.Buffer
	in.writeWarnings(&warnings)
	want := "daemonsched: warning: " + list + ": document 1: items[1]: Service default/kubernetes and 1 more: skipped: kind Service of apiVersion v1 is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node and Pod)\n"
	require.Equal(t, want, warnings.String())

	// The latest timestamp is the pod's Ready transition... or the later heartbeat.
	require.Equal(t, time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC), in.latest())
}

func TestLatestWithoutTimestampsIsTheEpoch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := writeFile(t, dir, "n.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n")
	in, err := load([]string{f}, nil, loadOptions{})
	require.NoError(t, err)
	require.Equal(t, time.Unix(0, 0).UTC(), in.latest())
}

func TestLoadReadsStdin(t *testing.T) {
	t.Parallel()
	in, err := load([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"), loadOptions{})
	require.NoError(t, err)
	require.Len(t, in.nodes, 1)
	require.Equal(t, "stdin: document 1", in.nodes[0].loc.String())
}

// Files over 4 GiB are refused before they are read; the test file is sparse, so it takes no
// disk space.
func TestRunTooLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxInputSize+1))
	require.NoError(t, f.Close())

	var stdout, stderr bytes.Buffer
	code := run([]string{"plan", "-f", path, "--now", "2026-03-02T10:00:00Z"}, nil, &stdout, &stderr)
	require.Equal(t, exitBadInput, code)
	require.Empty(t, stdout.String())
	require.Equal(t, "daemonsched: "+path+": file is larger than 4096 MiB\n", stderr.String())
}

// The limit holds for stdin too, where the size is known only by reading: run passes 4 GiB,
// the test a smaller limit so that it stays fast.
func TestReadLimitedStopsAfterTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 2 << 20
	r := &countingReader{}
	_, err := readLimited("stdin", r, limit)
	require.EqualError(t, err, "stdin: file is larger than 2 MiB")
	require.Equal(t, int64(limit+1), r.n, "reads one byte past the limit, no more")

	data, err := readLimited("stdin", bytes.NewReader(make([]byte, limit)), limit)
	require.NoError(t, err)
	require.Len(t, data, limit, "exactly the limit is allowed")
}

// countingReader is an endless stream; what it "reads" is whatever p held.
type countingReader struct{ n int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	r.n += int64(len(p))
	return len(p), nil
}

// UPD-16 compares a revision's data byte for byte with the template's patch: data printed by
// kubectl (indented, any key order) is read back as the controller wrote it.
func TestCanonicalDataIsWhatTheControllerWrites(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a<b>&c"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers:                    []v1.Container{{Name: "c", Image: "busybox"}},
		},
	}}}
	want, err := daemonset.RevisionPatch(ds)
	require.NoError(t, err)

	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, want, "", "    "))
	cr := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: indented.Bytes()}}
	require.NoError(t, canonicalData(cr))
	require.Equal(t, string(want), string(cr.Data.Raw))

	// Key order does not matter either.
	cr.Data.Raw = []byte(`{"spec": {"template": {"spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "busybox", "resources": {}}]}, "metadata": {"labels": {"app": "a<b>&c"}}, "$patch": "replace"}}}`)
	require.NoError(t, canonicalData(cr))
	require.Equal(t, string(want), string(cr.Data.Raw))
}

// The default --now is the latest timestamp an object carries, managedFields times (a dump's
// latest status write) and taint timeAdded included; a deletionTimestamp (in the future) is not.
func TestLatestSeesEveryTimestamp(t *testing.T) {
	t.Parallel()
	base := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  creationTimestamp: \"2026-03-01T00:00:00Z\"\n"
	tests := []struct {
		name, extra string
		want        time.Time
	}{
		{name: "creation only", extra: "", want: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{
			name:  "a managedFields time after every condition",
			extra: "  managedFields:\n  - {manager: kubelet, operation: Update, time: \"2026-03-02T10:00:07Z\"}\nstatus:\n  conditions:\n  - {type: Ready, status: \"True\", lastTransitionTime: \"2026-03-02T09:00:00Z\"}\n",
			want:  time.Date(2026, 3, 2, 10, 0, 7, 0, time.UTC),
		},
		{
			name:  "a deletionTimestamp is ignored",
			extra: "  deletionTimestamp: \"2026-03-09T00:00:00Z\"\n  deletionGracePeriodSeconds: 30\n",
			want:  time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &input{}
			require.NoError(t, in.decodeFile("p.yaml", []byte(base+tt.extra)))
			require.Equal(t, tt.want, in.latest())
		})
	}
	in := &input{}
	require.NoError(t, in.decodeFile("n.yaml", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: node-1, creationTimestamp: \"2026-03-01T00:00:00Z\"}\nspec:\n  taints:\n  - {key: k, effect: NoExecute, timeAdded: \"2026-03-03T00:00:00Z\"}\n")))
	require.Equal(t, time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC), in.latest())
}
