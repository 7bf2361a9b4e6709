package manifest_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// sorted returns the objects of s sorted by namespace and name, so that snapshots read from
// inputs in different orders compare equal.
func sorted(s daemonset.Snapshot) daemonset.Snapshot {
	byName := func(a, b metav1.Object) int {
		return cmp.Or(strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
	}
	out := daemonset.Snapshot{
		DaemonSets: slices.Clone(s.DaemonSets), Nodes: slices.Clone(s.Nodes),
		Pods: slices.Clone(s.Pods), Revisions: slices.Clone(s.Revisions),
	}
	slices.SortFunc(out.DaemonSets, func(a, b *appsv1.DaemonSet) int { return byName(a, b) })
	slices.SortFunc(out.Nodes, func(a, b *v1.Node) int { return byName(a, b) })
	slices.SortFunc(out.Pods, func(a, b *v1.Pod) int { return byName(a, b) })
	slices.SortFunc(out.Revisions, func(a, b *appsv1.ControllerRevision) int { return byName(a, b) })
	return out
}

// compactFields compares managedFields by content: kubectl -o json re-indents them.
var compactFields = gocmp.Transformer("compactFields", func(f metav1.FieldsV1) string {
	var b bytes.Buffer
	raw := f.GetRawBytes()
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
})

// readStrict reads the inputs strictly, templates as written: these tests are about encodings.
func readStrict(t *testing.T, inputs ...manifest.Input) *manifest.Result {
	t.Helper()
	got, err := manifest.ReadInputs(inputs, manifest.Options{StrictFields: true, SkipDefaults: manifest.DefaultPodTemplate})
	require.NoError(t, err)
	return got
}

// Every way a real dump is written reads as the same objects: YAML or JSON, with Windows line
// endings, a byte order mark, UTF-16, document markers, comments and empty documents, as one
// List, as typed lists without per-item kind (as the API server returns them), as separate
// documents in any order, or spread over several inputs given in any order.
func TestRealDumpReadsTheSameWhateverTheEncoding(t *testing.T) {
	t.Parallel()
	dump := realDump(t)
	want := sorted(readStrict(t, manifest.Input{Name: "dump.yaml", Data: dump}).Snapshot)
	require.Len(t, want.Nodes, 2)
	require.Len(t, want.Pods, 1)
	require.Len(t, want.DaemonSets, 1)
	require.Len(t, want.Revisions, 1)

	items := listItems(t, dump)
	require.Len(t, items, 6)
	asDocs := func(items []map[string]any) []byte {
		var b bytes.Buffer
		for _, it := range items {
			b.WriteString("---\n")
			b.Write(mustYAML(t, it))
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
			got := sorted(readStrict(t, manifest.Input{Name: "in", Data: data}).Snapshot)
			if diff := gocmp.Diff(want, got, compactFields); diff != "" {
				t.Errorf("snapshot mismatch (-dump.yaml +%s):\n%s", name, diff)
			}
		})
	}

	// One input per object, in input order and reversed.
	var inputs []manifest.Input
	for i, it := range items {
		inputs = append(inputs, manifest.Input{Name: fmt.Sprintf("obj-%d.yaml", i), Data: mustYAML(t, it)})
	}
	backward := slices.Clone(inputs)
	slices.Reverse(backward)
	for _, in := range [][]manifest.Input{inputs, backward} {
		got := sorted(readStrict(t, in...).Snapshot)
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("snapshot mismatch (-dump.yaml +one input per object):\n%s", diff)
		}
	}
}

// A dump from a newer Kubernetes carries fields the linked 1.37 types do not know. The 1.37
// controller's decoder drops them, so Read does too: the same objects, one warning per kind and
// field (list indices left out) naming the release whose schema lacks it and where it was first
// seen; StrictFields makes it an error.
func TestFieldsOfANewerKubernetesAreWarnings(t *testing.T) {
	t.Parallel()
	dump := realDump(t)
	want, err := manifest.Read("d", bytes.NewReader(dump), manifest.Options{})
	require.NoError(t, err)

	newer := bytes.ReplaceAll(dump, []byte("\n  status:\n"), []byte("\n  status:\n    fromTheFuture: {a: 1}\n"))
	newer = bytes.ReplaceAll(newer, []byte("\n    - env:\n"), []byte("\n    - sleepAction: {seconds: 3}\n      env:\n"))
	got, err := manifest.Read("d137.yaml", bytes.NewReader(newer), manifest.Options{})
	require.NoError(t, err)
	if diff := gocmp.Diff(want.Snapshot, got.Snapshot); diff != "" {
		t.Errorf("snapshot mismatch (-known +newer):\n%s", diff)
	}
	var warnings []string
	var unknown []manifest.Warning
	for _, w := range got.Warnings {
		if w.Reason == manifest.WarningUnknownField {
			warnings = append(warnings, w.String())
			unknown = append(unknown, w)
		}
	}
	require.Equal(t, []string{
		"d137.yaml: document 1: items[0]: Node worker-1: status.fromTheFuture: unknown field in the Kubernetes 1.37 API, ignored as by the controller (and 1 more Node objects with status.fromTheFuture)",
		"d137.yaml: document 1: items[2]: Pod kube-system/agent-x7k2p: spec.containers[0].sleepAction: unknown field in the Kubernetes 1.37 API, ignored as by the controller",
		"d137.yaml: document 1: items[2]: Pod kube-system/agent-x7k2p: status.fromTheFuture: unknown field in the Kubernetes 1.37 API, ignored as by the controller",
		"d137.yaml: document 1: items[3]: DaemonSet kube-system/agent: status.fromTheFuture: unknown field in the Kubernetes 1.37 API, ignored as by the controller",
	}, warnings)
	require.Equal(t, manifest.Warning{
		Reason: manifest.WarningUnknownField, Source: manifest.Source{File: "d137.yaml", Document: 1, Item: 2},
		APIVersion: "v1", Kind: "Pod", Namespace: "kube-system", Name: "agent-x7k2p",
		Field: "spec.containers[0].sleepAction", Message: "unknown field in the Kubernetes 1.37 API, ignored as by the controller",
	}, unknown[1])

	_, err = manifest.Read("d137.yaml", bytes.NewReader(newer), manifest.Options{StrictFields: true})
	require.EqualError(t, err, "d137.yaml: document 1: items[0]: Node worker-1: status.fromTheFuture: unknown field")
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
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
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
	asYAML := mustYAML(t, obj)
	require.Contains(t, string(asYAML), "<&>", "YAML has no escapes")

	for name, data := range map[string][]byte{
		"API server JSON": served,
		"kubectl -o json": kubectlJSON(t, obj),
		"kubectl -o yaml": asYAML,
		"kubectl List":    mustYAML(t, map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": []any{obj}}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := readStrict(t, manifest.Input{Name: name, Data: data})
			require.Len(t, got.Snapshot.Revisions, 1)
			require.Equal(t, stored, string(got.Snapshot.Revisions[0].Data.Raw))
		})
	}

	// End to end: the revision is current, so the plan creates the pod with its hash and
	// reports no collision (UPD-21) and no new revision.
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	got := readStrict(t, manifest.Input{Name: "all.yaml", Data: []byte(string(mustYAML(t, ds)) + "---\n" + string(asYAML) + "---\n" + node)})
	plan, err := got.Snapshot.Plan(daemonset.Options{Now: manifest.Latest(got.Snapshot)})
	require.NoError(t, err)
	require.Len(t, plan.DaemonSets, 1)
	require.Empty(t, plan.DaemonSets[0].Skipped)
	require.Nil(t, plan.DaemonSets[0].CollisionCount)
	require.Equal(t, hash, plan.DaemonSets[0].RevisionHash)
	require.Len(t, plan.DaemonSets[0].Create, 1)
}

// v1363 is the release whose hash these pods and revisions carry, as they did when the test was
// written: 1.36.3, not the default release.
var v1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()
