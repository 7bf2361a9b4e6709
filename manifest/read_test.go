package manifest_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// Lists as kubectl prints them (items with kind) and as the API server returns typed lists
// (items without kind) are read, as is a JSON stream; namespaced objects without namespace land
// in "default" (D-5); other kinds are skipped with one warning per kind.
func TestReadListsAndStreams(t *testing.T) {
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
	got, err := manifest.ReadFiles([]string{list, typed}, manifest.Options{})
	require.NoError(t, err)

	var nodes, pods []string
	for i, n := range got.Snapshot.Nodes {
		nodes = append(nodes, n.Kind+" "+n.Name+" at "+got.Sources.Nodes[i].String())
	}
	for _, p := range got.Snapshot.Pods {
		pods = append(pods, p.Namespace+"/"+p.Name)
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

	wantWarnings := []manifest.Warning{{
		Reason: manifest.WarningSkippedKind, Source: manifest.Source{File: list, Document: 1, Item: 1},
		APIVersion: "v1", Kind: "Service", Namespace: "default", Name: "kubernetes",
		Message: "skipped: kind Service of apiVersion v1 is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node, Pod and LimitRange, node.k8s.io/v1 RuntimeClass)",
		More:    1,
	}}
	if diff := cmp.Diff(wantWarnings, got.Warnings); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
	require.Equal(t, list+": document 1: items[1]: Service default/kubernetes and 1 more: skipped: kind Service of apiVersion v1 is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node, Pod and LimitRange, node.k8s.io/v1 RuntimeClass)",
		got.Warnings[0].String())

	// The latest timestamp is the pod's Ready transition... or the later heartbeat.
	require.Equal(t, time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC), manifest.Latest(got.Snapshot))
}

func TestLatestWithoutTimestampsIsTheEpoch(t *testing.T) {
	t.Parallel()
	got, err := manifest.Read("n.yaml", strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"), manifest.Options{})
	require.NoError(t, err)
	require.Equal(t, time.Unix(0, 0).UTC(), manifest.Latest(got.Snapshot))
}

func TestReadNamesTheStream(t *testing.T) {
	t.Parallel()
	got, err := manifest.Read("stdin", strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"), manifest.Options{})
	require.NoError(t, err)
	require.Len(t, got.Snapshot.Nodes, 1)
	require.Equal(t, "stdin: document 1", got.Sources.Nodes[0].String())
}

// Files over Limits.InputBytes are refused before they are read; the test file is sparse, so it
// takes no disk space.
func TestReadFilesRefusesATooLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(manifest.DefaultInputBytes+1))
	require.NoError(t, f.Close())
	_, err = manifest.ReadFiles([]string{path}, manifest.Options{})
	require.EqualError(t, err, path+": input is larger than 1 GiB (limit InputBytes)")
}

// Inputs are read in turn: an error in one input is reported before a later file is opened.
func TestReadInputsReadsFilesInTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := manifest.ReadInputs([]manifest.Input{
		{Name: "bad.yaml", Data: []byte("a: [\n")},
		{Path: filepath.Join(dir, "missing.yaml")},
	}, manifest.Options{})
	require.EqualError(t, err, "bad.yaml: document 1: line 2: did not find expected node content")
	_, err = manifest.ReadInputs([]manifest.Input{{Path: filepath.Join(dir, "missing.yaml")}}, manifest.Options{})
	require.EqualError(t, err, filepath.Join(dir, "missing.yaml")+": no such file or directory")
}

// The default --now is the latest timestamp an object carries, managedFields times (a dump's
// latest status write) and taint timeAdded included; a deletionTimestamp (in the future) is not.
func TestLatestSeesEveryTimestamp(t *testing.T) {
	t.Parallel()
	base := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  creationTimestamp: \"2026-03-01T00:00:00Z\"\n"
	tests := []struct {
		name, input string
		want        time.Time
	}{
		{name: "creation only", input: base, want: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{
			name:  "a managedFields time after every condition",
			input: base + "  managedFields:\n  - {manager: kubelet, operation: Update, time: \"2026-03-02T10:00:07Z\"}\nstatus:\n  conditions:\n  - {type: Ready, status: \"True\", lastTransitionTime: \"2026-03-02T09:00:00Z\"}\n",
			want:  time.Date(2026, 3, 2, 10, 0, 7, 0, time.UTC),
		},
		{
			name:  "a deletionTimestamp is ignored",
			input: base + "  deletionTimestamp: \"2026-03-09T00:00:00Z\"\n  deletionGracePeriodSeconds: 30\n",
			want:  time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		},
		{
			name:  "a node taint's timeAdded counts",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: node-1, creationTimestamp: \"2026-03-01T00:00:00Z\"}\nspec:\n  taints:\n  - {key: k, effect: NoExecute, timeAdded: \"2026-03-03T00:00:00Z\"}\n",
			want:  time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := manifest.Read("p.yaml", strings.NewReader(tt.input), manifest.Options{})
			require.NoError(t, err)
			require.Equal(t, tt.want, manifest.Latest(got.Snapshot))
		})
	}
}

// Workers shares the decoding out; the result, and the first error, do not depend on it.
func TestReadWorkersDoNotChangeTheResult(t *testing.T) {
	t.Parallel()
	dump, err := kubectldump.Realistic(40)
	require.NoError(t, err)
	bad := append(bytes.Clone(dump), "---\napiVersion: v1\nkind: Node\nmetadata: {name: [x}\n---\napiVersion: v1\nkind: Pod\n"...)
	one, err := manifest.Read("dump.yaml", bytes.NewReader(dump), manifest.Options{})
	require.NoError(t, err)
	_, oneErr := manifest.Read("bad.yaml", bytes.NewReader(bad), manifest.Options{})
	require.Error(t, oneErr)
	for _, workers := range []int{1, 2, 7} {
		got, err := manifest.Read("dump.yaml", bytes.NewReader(dump), manifest.Options{Workers: workers})
		require.NoError(t, err)
		if diff := cmp.Diff(one, got); diff != "" {
			t.Errorf("Workers %d: Read() mismatch (-one goroutine +%d):\n%s", workers, workers, diff)
		}
		_, err = manifest.Read("bad.yaml", bytes.NewReader(bad), manifest.Options{Workers: workers})
		require.EqualError(t, err, oneErr.Error(), "Workers %d", workers)
	}
}

func TestReadPanicsOnNegativeWorkers(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "manifest: negative Options.Workers", func() {
		_, _ = manifest.Read("n.yaml", strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"), manifest.Options{Workers: -1})
	})
}

// Read judges a quantity written as a plain YAML number as written, as DecodeStrict does
// (D-20): "1e-999999999" unquoted, which goyaml.v2's float64 makes 0, is refused with the
// message of its quoted form and of the JSON number, which the API server's UnmarshalJSON
// parses as written. A number the gate takes, or one outside a quantity, reads as before.
func TestReadJudgesYAMLNumbersInQuantitiesAsWritten(t *testing.T) {
	t.Parallel()
	node := func(cpu string) string {
		return "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: " + cpu + "\n"
	}
	ds := func(cpu string) string {
		return `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: agent:1
        resources:
          requests:
            cpu: ` + cpu + "\n"
	}
	const (
		nodeErr = `in: document 1: Node n1: status.allocatable[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
		dsErr   = `in: document 1: DaemonSet kube-system/agent: spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
	)
	tests := []struct {
		name    string
		input   string
		wantErr string
	}{
		{name: "D-20: a plain YAML number in a node's allocatable is refused as written", input: node("1e-999999999"), wantErr: nodeErr},
		{name: "D-20: the quoted form in a node's allocatable is refused", input: node(`"1e-999999999"`), wantErr: nodeErr},
		{name: "D-20: a plain YAML number in a template's requests is refused as written", input: ds("1e-999999999"), wantErr: dsErr},
		{name: "D-20: the quoted form in a template's requests is refused", input: ds(`'1e-999999999'`), wantErr: dsErr},
		{name: "D-20: a plain YAML number in a flow mapping is refused as written",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 1e-999999999}}\n", wantErr: nodeErr},
		{name: "D-20: a JSON number is refused as UnmarshalJSON would parse it",
			input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":1e-999999999}}}`, wantErr: nodeErr},
		{name: "D-20: a JSON string is refused", input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"1e-999999999"}}}`, wantErr: nodeErr},
		{name: "a plain YAML number within the bounds is read", input: node("1e-3")},
		{name: "an oversized number outside a quantity is text", input: "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations:\n    note: x1e-999999999\nstatus:\n  allocatable:\n    cpu: 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Read("in", strings.NewReader(tt.input), manifest.Options{})
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

// The items of a YAML list, which the reader streams, are judged as written too (D-20).
func TestReadJudgesYAMLNumbersInListItemsAsWritten(t *testing.T) {
	t.Parallel()
	const list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n  status:\n    allocatable:\n      cpu: 1e-999999999\n"
	_, err := manifest.Read("in", strings.NewReader(list), manifest.Options{})
	require.EqualError(t, err, `in: document 1: items[0]: Node n1: status.allocatable[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`)
	// A typed list as the API server's objects print in YAML: the items without a kind, the
	// list's kind after them. Such an item waited for the kind as JSON, where the number was
	// already 0, and was accepted with cpu 0 (review33, F9), from memory and from a stream.
	const kindAfter = "apiVersion: v1\nitems:\n- metadata:\n    name: n1\n  status:\n    allocatable:\n      cpu: 1e-999999999\nkind: NodeList\n"
	for _, in := range []manifest.Input{{Name: "in", Data: []byte(kindAfter)}, {Name: "in", Reader: io.MultiReader(strings.NewReader(kindAfter))}} {
		_, err := manifest.ReadInputs([]manifest.Input{in}, manifest.Options{})
		require.ErrorContains(t, err, `status.allocatable[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`)
	}
}

// A merge key's mappings are judged as written as the conversion merges them (D-20): "<<"
// was left out of the written value, and the merged 1e-999999999 read as 0 (review33, F1).
func TestReadJudgesYAMLNumbersMergedIn(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n"
	const want = `status.allocatable[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
	for _, tt := range []struct{ name, status, want string }{
		{"a mapping", "  allocatable:\n    <<: {cpu: 1e-999999999}\n", want},
		{"an alias", "  capacity: &c {cpu: 1e-999999999}\n  allocatable:\n    <<: *c\n", want},
		{"a sequence of mappings", "  allocatable:\n    <<: [{memory: 1Gi}, {cpu: 1e-999999999}]\n", want},
		{"beside a key", "  allocatable:\n    memory: 1Gi\n    <<: {cpu: 1e-999999999}\n", want},
		// The strict conversion refuses a key both given and merged, as a key given twice.
		{"a key given and merged", "  allocatable:\n    cpu: 2\n    <<: {cpu: 1e-999999999}\n", `key "cpu" already set in map`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := manifest.Read("in", strings.NewReader(head+tt.status), manifest.Options{})
			require.ErrorContains(t, err, tt.want)
			var status v1.NodeStatus
			_, err = manifest.DecodeStrict([]byte(strings.ReplaceAll(tt.status, "\n  ", "\n")[2:]), &status)
			require.ErrorContains(t, err, strings.TrimPrefix(tt.want, "status."), "DecodeStrict")
		})
	}
}

// YAML reads a plain number without its underscores (goyaml.v2, in kubectl and the API server,
// as v3): the gate judges the number read, as written otherwise. "1_e-999999999" was read as
// cpu 0 and 100 digits with underscores as 1.23e+99, where the same numbers without them are
// refused (review33, F2). A list item, DecodeStrict and a short number read as itself.
func TestReadJudgesYAMLNumbersWithUnderscores(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: "
	digits := strings.Repeat("1234567890_", 10)
	tests := []struct{ name, cpu, want string }{
		{"an exponent", "1_e-999999999", `Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
		{"underscores in the exponent", "1e_-_99_9", `Invalid value: "1e-999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
		{"100 digits", digits, `Invalid value: "` + strings.Repeat("1234567890", 4) + `... (60 bytes more)": a quantity longer than 64 characters (limit QuantityLength)`},
		{"a number within the bounds", "1_000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := head + tt.cpu + "\n"
			list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
			var status v1.NodeStatus
			_, strictErr := manifest.DecodeStrict([]byte("allocatable:\n  cpu: "+tt.cpu+"\n"), &status)
			for _, in := range []string{doc, list} {
				objs, err := manifest.Read("in", strings.NewReader(in), manifest.Options{})
				if tt.want != "" {
					require.ErrorContains(t, err, "status.allocatable[cpu]: "+tt.want)
					continue
				}
				require.NoError(t, err)
				require.Equal(t, "1k", objs.Snapshot.Nodes[0].Status.Allocatable.Cpu().String())
			}
			if tt.want != "" {
				require.ErrorContains(t, strictErr, "allocatable[cpu]: "+tt.want, "DecodeStrict")
			} else {
				require.NoError(t, strictErr, "DecodeStrict")
				require.Equal(t, "1k", status.Allocatable.Cpu().String())
			}
		})
	}
}

// A document or list item with two errors, one of them a quantity written as a plain YAML
// number, names the error its quoted form names (D-20): the quantity gate judges both forms
// before the typed decoding, in the order of its walk (keys sorted: the order in which the JSON
// kubectl sends reaches the API server's decoder, which would parse the quantity for hours
// before anything else is reported). The plain number was judged after the typed decoding, so
// a value of the wrong type elsewhere was named instead, and a quoted quantity later in that
// order before it. Every input is read from memory and from a stream (the two list readers).
func TestReadNamesTheFirstOfTwoErrorsAsTheQuotedFormDoes(t *testing.T) {
	t.Parallel()
	node := func(indent, capacity, allocatable, unschedulable string) string {
		doc := "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  unschedulable: " + unschedulable +
			"\nstatus:\n  allocatable:\n    cpu: " + allocatable + "\n  capacity:\n    cpu: " + capacity + "\n"
		if indent == "" {
			return doc
		}
		return "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
	}
	const (
		bomb    = "1e-999999999"
		quoted  = `"1e-999999999"`
		cpuErr  = `status.allocatable[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
		capErr  = `status.capacity[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`
		fine    = "2"
		notBool = `"yes"`
	)
	tests := []struct {
		name          string
		plain, quoted [3]string // capacity, allocatable, unschedulable
		want          string
	}{{
		name:   "D-20 a plain quantity bomb is named before a value of the wrong type",
		plain:  [3]string{fine, bomb, notBool},
		quoted: [3]string{fine, quoted, notBool},
		want:   cpuErr,
	}, {
		name:   "D-20 a plain quantity bomb is named before a quoted one later in key order",
		plain:  [3]string{quoted, bomb, "false"},
		quoted: [3]string{quoted, quoted, "false"},
		want:   cpuErr,
	}, {
		name:   "D-20 a quoted quantity bomb is named before a plain one later in key order",
		plain:  [3]string{bomb, quoted, "false"},
		quoted: [3]string{quoted, quoted, "false"},
		want:   cpuErr,
	}, {
		name:   "D-20 a plain quantity bomb alone is named",
		plain:  [3]string{bomb, fine, "false"},
		quoted: [3]string{quoted, fine, "false"},
		want:   capErr,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, list := range []string{"", "  "} {
				for _, streamed := range []bool{false, true} {
					read := func(text string) error {
						in := manifest.Input{Name: "in", Data: []byte(text)}
						if streamed {
							in = manifest.Input{Name: "in", Reader: strings.NewReader(text)}
						}
						_, err := manifest.ReadInputs([]manifest.Input{in}, manifest.Options{})
						return err
					}
					wantErr := read(node(list, tt.quoted[0], tt.quoted[1], tt.quoted[2]))
					require.Error(t, wantErr)
					require.True(t, strings.HasSuffix(wantErr.Error(), tt.want), "the quoted form: %v", wantErr)
					err := read(node(list, tt.plain[0], tt.plain[1], tt.plain[2]))
					require.EqualError(t, err, wantErr.Error(), "in a list: %t, streamed: %t", list != "", streamed)
				}
			}
			// DecodeStrict judges so too.
			_, wantErr := manifest.DecodeStrict([]byte(node("", tt.quoted[0], tt.quoted[1], tt.quoted[2])), &v1.Node{})
			require.True(t, wantErr != nil && strings.HasSuffix(wantErr.Error(), tt.want), "DecodeStrict of the quoted form: %v", wantErr)
			_, err := manifest.DecodeStrict([]byte(node("", tt.plain[0], tt.plain[1], tt.plain[2])), &v1.Node{})
			require.EqualError(t, err, wantErr.Error(), "DecodeStrict")
		})
	}
}
