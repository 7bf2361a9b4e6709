package manifest_test

import (
	"bytes"
	"testing"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
)

// FuzzRead feeds arbitrary bytes to ReadInputs: it never panics, never modifies its input, gives
// the same outcome on one goroutine and on three, and what it returns is a
// snapshot the library can plan: named objects, namespaced ones in a namespace, a source each.
func FuzzRead(f *testing.F) {
	seeds := []string{
		"", // no objects
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",                                                                                               // one node
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n",                                            // a hand-written DaemonSet: defaults and a uid
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n", // a List with a skipped kind
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n- kind: Pod\n  metadata: {name: p}\nkind: List\n",              // kubectl's layout, split per item
		"{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"a\"}}]}",                        // a typed list with a duplicate
		"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"x\":1}}]} {\"a\":\"}\"",                         // an unknown field, then an unterminated value
		"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r}\ndata: {spec: {template: {}}}\nrevision: 1\n",                                  // revision data to re-encode
		"\xFF\xFEa\x00:\x00 \x001\x00\n\x00",                                            // UTF-16LE
		"--- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n%YAML 1.1\n---\n...\n", // markers and a directive
		"a: &x [*x]\n", // a YAML alias
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add(kubectldump.Real()) // a real dump
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		got, err := manifest.ReadInputs([]manifest.Input{{Name: "in", Data: data}}, manifest.Options{})
		if !bytes.Equal(before, data) {
			t.Fatal("ReadInputs modified its input")
		}
		again, err2 := manifest.ReadInputs([]manifest.Input{{Name: "in", Data: data}}, manifest.Options{Workers: 3})
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two reads disagree: %v, then %v", err, err2)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("two reads disagree (-first +second):\n%s", diff)
		}
		s := got.Snapshot
		if len(got.Sources.DaemonSets) != len(s.DaemonSets) || len(got.Sources.Nodes) != len(s.Nodes) ||
			len(got.Sources.Pods) != len(s.Pods) || len(got.Sources.Revisions) != len(s.Revisions) {
			t.Fatal("a source is missing")
		}
		for _, ds := range s.DaemonSets {
			if ds.Name == "" || ds.Namespace == "" || ds.UID == "" || ds.Spec.RevisionHistoryLimit == nil {
				t.Fatalf("DaemonSet %q/%q without its identity or defaults", ds.Namespace, ds.Name)
			}
		}
		for _, p := range s.Pods {
			if p.Name == "" || p.Namespace == "" {
				t.Fatalf("pod %q/%q without name or namespace", p.Namespace, p.Name)
			}
		}
		for _, n := range s.Nodes {
			if n.Name == "" {
				t.Fatal("a node without name")
			}
		}
		_ = manifest.Latest(s)
	})
}
