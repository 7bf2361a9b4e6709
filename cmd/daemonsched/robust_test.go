package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"
)

// realDump is a List as `kubectl get nodes,pods,daemonsets,controllerrevisions,services -A -o
// yaml` prints it from a v1.36 cluster: managedFields, resourceVersion, the status of every kind.
func realDump(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real-dump-v136", "dump.yaml"))
	require.NoError(t, err)
	return data
}

// runFiles writes each file into a fresh directory and runs daemonsched with args and -f for each,
// in the order given.
func runFiles(t *testing.T, files map[string][]byte, order []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range order {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, files[name], 0o644))
		args = append(args, "-f", path)
	}
	var out, errOut bytes.Buffer
	code = run(args, nil, &out, &errOut)
	return out.String(), errOut.String(), code
}

// items returns the items of a List as generic objects.
func listItems(t testing.TB, listYAML []byte) []map[string]any {
	t.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, yaml.Unmarshal(listYAML, &l))
	return l.Items
}

// kubectlJSON prints v as `kubectl get -o json` does: encoding/json, four-space indent, map keys
// sorted, <, > and & escaped.
func kubectlJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "    ")
	require.NoError(t, err)
	return append(data, '\n')
}

func toUTF16(s string, order binary.AppendByteOrder, bom []byte) []byte {
	out := slices.Clone(bom)
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return out
}

// Every way a real dump reaches the oracle gives the same plan, byte for byte: YAML or JSON,
// with Windows line endings, a byte order mark, UTF-16, document markers, comments and empty
// documents, as one List, as typed lists without per-item kind (as the API server returns them),
// as separate documents in any order, or spread over several files given in any order.
func TestRealDumpPlansTheSameWhateverTheEncoding(t *testing.T) {
	t.Parallel()
	dump := realDump(t)
	want, stderr, code := runFiles(t, map[string][]byte{"dump.yaml": dump}, []string{"dump.yaml"}, "plan", "-o", "json", "--strict")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, want, `"create"`)
	require.True(t, strings.HasSuffix(want, "}\n"), "the JSON ends in one newline")

	items := listItems(t, dump)
	require.Len(t, items, 6)
	asDocs := func(items []map[string]any) []byte {
		var b bytes.Buffer
		for _, it := range items {
			y, err := yaml.Marshal(it)
			require.NoError(t, err)
			b.WriteString("---\n")
			b.Write(y)
		}
		return b.Bytes()
	}
	typedLists := func() []byte {
		var b bytes.Buffer
		for _, kind := range []string{"Node", "Pod", "DaemonSet", "ControllerRevision"} {
			l := map[string]any{"kind": kind + "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "884300"}}
			var its []map[string]any
			for _, it := range items {
				if it["kind"] == kind {
					l["apiVersion"] = it["apiVersion"]
					it = maps.Clone(it)
					delete(it, "kind")
					delete(it, "apiVersion")
					its = append(its, it)
				}
			}
			l["items"] = its
			js, err := json.Marshal(l) // the API server writes compact JSON
			require.NoError(t, err)
			b.Write(js)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	var list map[string]any
	require.NoError(t, yaml.Unmarshal(dump, &list))
	reversed := slices.Clone(items)
	slices.Reverse(reversed)
	crlf := bytes.ReplaceAll(dump, []byte("\n"), []byte("\r\n"))

	single := map[string][]byte{
		"CRLF":                        crlf,
		"UTF-8 BOM and CRLF":          append([]byte("\xEF\xBB\xBF"), crlf...),
		"UTF-16LE with BOM":           toUTF16(string(crlf), binary.LittleEndian, []byte{0xFF, 0xFE}),
		"UTF-16BE with BOM":           toUTF16(string(dump), binary.BigEndian, []byte{0xFE, 0xFF}),
		"leading --- and trailing":    append(append([]byte("# kubectl get ... -o yaml\n---\n"), dump...), "...\n"...),
		"comments and empty docs":     append(append([]byte("---\n# nothing here\n---\n\n---   # still nothing\n---\n"), dump...), "---\n---\n# end\n"...),
		"kubectl -o json":             kubectlJSON(t, list),
		"kubectl -o json, BOM, CRLF":  append([]byte("\xEF\xBB\xBF"), bytes.ReplaceAll(kubectlJSON(t, list), []byte("\n"), []byte("\r\n"))...),
		"typed JSON lists":            typedLists(),
		"separate documents":          asDocs(items),
		"separate documents reversed": asDocs(reversed),
		"tab after a separator":       bytes.ReplaceAll(asDocs(items), []byte("---\n"), []byte("---\t\n")),
	}
	for name, data := range single {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, stderr, code := runFiles(t, map[string][]byte{"in": data}, []string{"in"}, "plan", "-o", "json", "--strict")
			require.Equal(t, exitOK, code, stderr)
			require.Equal(t, want, got)
		})
	}

	// One file per object, given in input order and reversed: the plan is the same bytes.
	files := map[string][]byte{}
	var order []string
	for i, it := range items {
		name := fmt.Sprintf("obj-%d.yaml", i)
		y, err := yaml.Marshal(it)
		require.NoError(t, err)
		files[name] = y
		order = append(order, name)
	}
	backward := slices.Clone(order)
	slices.Reverse(backward)
	for _, o := range [][]string{order, backward} {
		got, stderr, code := runFiles(t, files, o, "plan", "-o", "json", "--strict")
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, want, got, "-f order %v", o)
	}
}

// A dump from a newer Kubernetes carries fields v1.36 does not know. The v1.36 controller's
// decoder drops them, so the oracle does too: same plan, one warning line per kind and field
// (list indices left out) naming where it was first seen; --strict makes it an error.
func TestFieldsOfANewerKubernetesAreWarnings(t *testing.T) {
	t.Parallel()
	dump := realDump(t)
	want, _, code := runFiles(t, map[string][]byte{"d": dump}, []string{"d"}, "plan", "-o", "json")
	require.Equal(t, exitOK, code)

	newer := bytes.ReplaceAll(dump, []byte("\n  status:\n"), []byte("\n  status:\n    fromTheFuture: {a: 1}\n"))
	newer = bytes.ReplaceAll(newer, []byte("\n    - env:\n"), []byte("\n    - sleepAction: {seconds: 3}\n      env:\n"))
	got, stderr, code := runFiles(t, map[string][]byte{"d137.yaml": newer}, []string{"d137.yaml"}, "plan", "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, want, got)
	var warnings []string
	for l := range strings.Lines(stderr) {
		if strings.Contains(l, "unknown field") {
			warnings = append(warnings, regexp.MustCompile(`^daemonsched: warning: \S*/d137.yaml: `).ReplaceAllString(l, ""))
		}
	}
	require.Equal(t, []string{
		"document 1: items[0]: Node worker-1: status.fromTheFuture: unknown field, ignored as by the v1.36 controller (and 1 more Node objects with status.fromTheFuture)\n",
		"document 1: items[2]: Pod kube-system/agent-x7k2p: spec.containers[0].sleepAction: unknown field, ignored as by the v1.36 controller\n",
		"document 1: items[2]: Pod kube-system/agent-x7k2p: status.fromTheFuture: unknown field, ignored as by the v1.36 controller\n",
		"document 1: items[3]: DaemonSet kube-system/agent: status.fromTheFuture: unknown field, ignored as by the v1.36 controller\n",
	}, warnings)

	got, stderr, code = runFiles(t, map[string][]byte{"d137.yaml": newer}, []string{"d137.yaml"}, "plan", "-o", "json", "--strict")
	require.Equal(t, exitBadInput, code)
	require.Empty(t, got)
	require.Regexp(t, `^daemonsched: \S*/d137.yaml: document 1: items\[0\]: Node worker-1: status.fromTheFuture: unknown field\n$`, stderr)
}

// UPD-16 compares a revision's data with the template's patch byte for byte. A revision the
// controller wrote, printed by kubectl as YAML (a nested mapping, sigs.k8s.io/yaml) or as JSON
// (re-indented, <, > and & escaped as \u003c, \u003e, \u0026), is read back to the very bytes the
// controller stored, integers (even above 2^53) included.
func TestRevisionDataRoundTripsThroughKubectl(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "kube-system", UID: "u-1"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      map[string]string{"app": "d"},
					Annotations: map[string]string{"note": "a && b <c> 'q' \"dq\" é \u2028 ✓"},
				},
				Spec: v1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To[int64](30),
					SecurityContext:               &v1.PodSecurityContext{RunAsUser: ptr.To[int64](1<<53 + 1)},
					Containers: []v1.Container{{
						Name: "c", Image: "busybox",
						Env:   []v1.EnvVar{{Name: "X", Value: "<&>"}},
						Ports: []v1.ContainerPort{{ContainerPort: 8080, HostPort: 0}},
						LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
							Path: "/healthz?a=1&b=2", Port: intstr.FromString("http"),
						}}},
					}},
				},
			},
		},
	}
	hash := daemonset.ComputeHash(&ds.Spec.Template, nil)
	cr, err := daemonset.NewRevision(ds, hash, 1)
	require.NoError(t, err)
	cr.APIVersion, cr.Kind = "apps/v1", "ControllerRevision"
	stored := string(cr.Data.Raw)
	require.Contains(t, stored, `\u003c\u0026\u003e`, "the controller's json.Marshal escapes HTML")

	// What the API server returns, and what kubectl makes of it (a generic object).
	served, err := json.Marshal(cr)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, utiljson.Unmarshal(served, &obj)) // kubectl's unstructured decoding: integers stay int64
	asYAML, err := yaml.Marshal(obj)
	require.NoError(t, err)
	require.Contains(t, string(asYAML), "<&>", "YAML has no escapes")

	for name, data := range map[string][]byte{
		"API server JSON": served,
		"kubectl -o json": kubectlJSON(t, obj),
		"kubectl -o yaml": asYAML,
		"kubectl List":    mustYAML(t, map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": []any{obj}}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := &input{}
			require.NoError(t, in.decodeFile(name, data))
			require.Len(t, in.revisions, 1)
			require.Equal(t, stored, string(in.revisions[0].obj.Data.Raw))
		})
	}

	// End to end: the revision is current, so the plan creates the pod with its hash and
	// reports no collision (UPD-21) and no new revision.
	dsYAML := mustYAML(t, ds)
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	out, stderr, code := runFiles(t, map[string][]byte{"all.yaml": []byte(string(dsYAML) + "---\n" + string(asYAML) + "---\n" + node)},
		[]string{"all.yaml"}, "plan", "-o", "json", "--now", "2026-03-02T10:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	var plan daemonset.ClusterResult
	require.NoError(t, json.Unmarshal([]byte(out), &plan))
	require.Len(t, plan.DaemonSets, 1)
	require.Empty(t, plan.DaemonSets[0].Skipped)
	require.Nil(t, plan.DaemonSets[0].CollisionCount)
	require.Equal(t, hash, plan.DaemonSets[0].RevisionHash)
}

func mustYAML(t testing.TB, v any) []byte {
	t.Helper()
	y, err := yaml.Marshal(v)
	require.NoError(t, err)
	return y
}

func TestParseRFC3339(t *testing.T) {
	t.Parallel()
	utc := func(s string, ns int) time.Time {
		t, _ := time.Parse(time.DateTime, s)
		return t.Add(time.Duration(ns))
	}
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{name: "UTC without fraction", in: "2026-03-02T10:00:00Z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "UTC with milliseconds", in: "2026-03-02T10:00:00.123Z", want: utc("2026-03-02 10:00:00", 123e6)},
		{name: "nanoseconds", in: "2026-03-02T10:00:00.000000001Z", want: utc("2026-03-02 10:00:00", 1)},
		{name: "positive offset", in: "2026-03-02T12:00:00+02:00", want: utc("2026-03-02 10:00:00", 0)},
		{name: "negative offset and fraction", in: "2026-03-02T05:00:00.5-05:00", want: utc("2026-03-02 10:00:00", 5e8)},
		{name: "zero offset", in: "2026-03-02T10:00:00+00:00", want: utc("2026-03-02 10:00:00", 0)},
		{name: "lower-case t and z", in: "2026-03-02t10:00:00z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "space between date and time (RFC 3339 5.6)", in: "2026-03-02 10:00:00Z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "no zone is refused", in: "2026-03-02T10:00:00", wantErr: true},
		{name: "offset without colon is refused", in: "2026-03-02T10:00:00+0200", wantErr: true},
		{name: "date only is refused", in: "2026-03-02", wantErr: true},
		{name: "Unix seconds are refused", in: "1772445600", wantErr: true},
		{name: "empty is refused", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f timeFlag
			err := f.Set(tt.in)
			if tt.wantErr {
				require.ErrorContains(t, err, "not an RFC 3339 time")
				return
			}
			require.NoError(t, err)
			require.True(t, tt.want.Equal(f.t), "got %v, want %v", f.t, tt.want)
			require.Equal(t, time.UTC, f.t.Location())
		})
	}
}

// -o yaml holds what -o json holds; both are byte-identical across runs.
func TestYAMLOutputIsTheJSONContent(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"d.yaml": realDump(t)}
	js, _, code := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "json")
	require.Equal(t, exitOK, code)
	y, _, code := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "yaml")
	require.Equal(t, exitOK, code)
	fromYAML, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(js)))
	require.JSONEq(t, compact.String(), string(fromYAML))
	js2, _, _ := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "json")
	require.Equal(t, js, js2)

	// The built-in example too, which has every kind of action.
	var out1, out2, e bytes.Buffer
	require.Equal(t, exitOK, run([]string{"plan", "-o", "json"}, nil, &out1, &e))
	require.Equal(t, exitOK, run([]string{"plan", "-o", "yaml"}, nil, &out2, &e))
	fromYAML, err = yaml.YAMLToJSON(out2.Bytes())
	require.NoError(t, err)
	require.JSONEq(t, out1.String(), string(fromYAML))
}

// Every error is one line "daemonsched: FILE: document N: [items[I]: ][Kind ns/name: ]...",
// nothing is written on stdout, and the exit status is 1.
func TestErrorsAreOneLine(t *testing.T) {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "in.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.input), 0o644))
			var stdout, stderr bytes.Buffer
			code := run([]string{"plan", "-f", path}, nil, &stdout, &stderr)
			require.Equal(t, exitBadInput, code)
			require.Empty(t, stdout.String())
			require.Equal(t, "daemonsched: "+dir+"/"+tt.want+"\n", stderr.String())
		})
	}
}

// splitYAMLList parses the items of a kubectl List one by one (in parallel); that must read
// exactly what parsing the whole document reads. Random Pods and Nodes (strings with newlines,
// "- ", "#", quotes, non-ASCII, long lines that YAML folds) are printed as kubectl prints a List
// and read both ways.
func TestSplitYAMLListReadsWhatTheWholeDocumentReads(t *testing.T) {
	t.Parallel()
	alphabet := []rune("ab -#:'\"\n\t\\é✓{}[]&*!|>%@`,?")
	f := randfill.NewWithSeed(36).NilChance(0.3).NumElements(0, 3).MaxDepth(6).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(5))
			}
		},
		func(x *metav1.FieldsV1, c randfill.Continue) { x.Raw = []byte(`{"f:metadata":{}}`) },
		func(x *metav1.ManagedFieldsEntry, c randfill.Continue) {
			c.FillNoCustom(x)
			x.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:spec":{".":{}}}`)}
		},
		func(s *string, c randfill.Continue) {
			n := c.Intn(40)
			if c.Intn(10) == 0 {
				n = 150 // long enough for YAML to fold it
			}
			r := make([]rune, n)
			for i := range r {
				r[i] = alphabet[c.Intn(len(alphabet))]
			}
			*s = string(r)
		},
	)
	for round := range 20 {
		var items []any
		for i := range 8 {
			var obj any
			if i%2 == 0 {
				pod := &v1.Pod{}
				f.Fill(pod)
				pod.APIVersion, pod.Kind, pod.Name = "v1", "Pod", fmt.Sprintf("p%d", i)
				obj = pod
			} else {
				node := &v1.Node{}
				f.Fill(node)
				node.APIVersion, node.Kind, node.Name = "v1", "Node", fmt.Sprintf("n%d", i)
				obj = node
			}
			items = append(items, obj)
		}
		data := mustYAML(t, map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items})
		doc := document{data: data, line: 1}
		wrapper, split, ok := splitYAMLList(doc)
		require.True(t, ok, "round %d: kubectl's layout is recognised", round)
		require.Len(t, split, len(items))
		fast, err := decodeYAMLList(location{file: "f", doc: 1, item: -1}, wrapper, split)
		require.NoError(t, err, "round %d", round)

		js, err := yaml.YAMLToJSONStrict(data)
		require.NoError(t, err)
		slow, err := decodeValue(location{file: "f", doc: 1, item: -1}, js, "")
		require.NoError(t, err)
		require.Equal(t, len(slow), len(fast))
		for i := range slow {
			a, err := json.Marshal(slow[i].obj)
			require.NoError(t, err)
			b, err := json.Marshal(fast[i].obj)
			require.NoError(t, err)
			require.JSONEq(t, string(a), string(b), "round %d, item %d", round, i)
			require.Equal(t, slow[i].where, fast[i].where)
		}
	}
}

// Layouts splitYAMLList does not know are read as a whole.
func TestSplitYAMLListDeclinesOtherLayouts(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"apiVersion: v1\nkind: List\nitems: []\n",
		"apiVersion: v1\nkind: List\nitems:\n    - apiVersion: v1\n      kind: Node\n",
		"apiVersion: v1\nkind: List\nitems:\n-\n  apiVersion: v1\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n# a comment\n  kind: Node\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	} {
		_, _, ok := splitYAMLList(document{data: []byte(in), line: 1})
		require.False(t, ok, "%q", in)
	}
}
