package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// A typo of a kind read is caught, whatever its case, and only within its apiVersion; real
// kinds of Kubernetes that are not read are not typos.
func TestMisspelledKind(t *testing.T) {
	for _, tt := range []struct{ kind, apiVersion, want string }{
		{"Daemonset", "apps/v1", "DaemonSet"},
		{"daemonset", "", "DaemonSet"},
		{"DaemonSets", "apps/v1", "DaemonSet"},
		{"DeamonSet", "apps/v1", "DaemonSet"},
		{"Nodes", "v1", "Node"},
		{"pod", "v1", "Pod"},
		{"ControlerRevision", "apps/v1", "ControllerRevision"},
		{"Daemonset", "v1", ""}, // no DaemonSet in v1
		{"Deployment", "apps/v1", ""},
		{"Service", "v1", ""},
		{"ConfigMap", "v1", ""},
		{"Role", "rbac.authorization.k8s.io/v1", ""},
		{"Secret", "v1", ""},
		{"Event", "v1", ""},
		{"Binding", "v1", ""},
		{"Po", "v1", ""}, // too short to be sure
	} {
		if got := misspelledKind(tt.kind, tt.apiVersion); got != tt.want {
			t.Errorf("misspelledKind(%q, %q) = %q, want %q", tt.kind, tt.apiVersion, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"nodeSelecter", "nodeSelector", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// An unknown field gets the name it is a typo of, found among its parent's fields through
// lists, pointers and inlined structs; no suggestion when nothing is near.
func TestFieldSuggestion(t *testing.T) {
	ds := reflect.TypeFor[*appsv1.DaemonSet]()
	for _, tt := range []struct {
		typ        reflect.Type
		path, want string
	}{
		{ds, "spec.template.spec.nodeSelecter", " (did you mean nodeSelector?)"},
		{ds, "spec.template.spec.containers[0].imagePullPolcy", " (did you mean imagePullPolicy?)"},
		{ds, "spec.template.spec.tolerations[2].opertor", " (did you mean operator?)"},
		{ds, "metadata.lables", " (did you mean labels?)"},
		{ds, "spec.updateStrategy.rollingUpdate.maxSurges", " (did you mean maxSurge?)"},
		{ds, "spec.template.spec.somethingNew", ""},
		{ds, "spec.nothere.x", ""},
		{reflect.TypeFor[*v1.Node](), "spec.taints[0].tolerationSeconds", ""},
		{reflect.TypeFor[*v1.Node](), "spec.taint", " (did you mean taints?)"},
		{nil, "metadata.lables", ""}, // a list wrapper has no type
	} {
		if got := fieldSuggestion(tt.typ, tt.path); got != tt.want {
			t.Errorf("fieldSuggestion(%v, %q) = %q, want %q", tt.typ, tt.path, got, tt.want)
		}
	}
}

// StrictHandWritten refuses an unknown field in a hand-written object and keeps it a warning in
// one read from the API server (resourceVersion or managedFields set).
func TestStrictHandWritten(t *testing.T) {
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1%s}\nspec: {unschedulabel: true}\n"
	for _, tt := range []struct {
		meta    string
		wantErr bool
	}{
		{"", true},
		{`, uid: u1`, true},
		{`, resourceVersion: "7"`, false},
		{`, managedFields: [{manager: kubelet}]`, false},
	} {
		in := fmt.Sprintf(node, tt.meta)
		_, err := Read("n.yaml", strings.NewReader(in), Options{StrictHandWritten: true})
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), "spec.unschedulabel: unknown field (did you mean unschedulable?)") {
				t.Errorf("%q: error %v, want the unknown field with its suggestion", tt.meta, err)
			}
			continue
		}
		got, err := Read("n.yaml", strings.NewReader(in), Options{StrictHandWritten: true})
		if err != nil || len(got.Warnings) != 1 || got.Warnings[0].Reason != WarningUnknownField {
			t.Errorf("%q: %v, %v: want one unknown-field warning", tt.meta, err, got)
		}
	}
}

// Two candidates as near as each other make no suggestion.
func TestSuggestIsNotAmbiguous(t *testing.T) {
	nodes := []string{"worker-1", "worker-2", "worker-3"}
	if got := Suggest("worker-9", nodes); got != "" {
		t.Errorf("Suggest(worker-9) = %q, want none: every node is one edit away", got)
	}
	if got := Suggest("worker2", nodes); got != "worker-2" {
		t.Errorf("Suggest(worker2) = %q, want worker-2", got)
	}
}
