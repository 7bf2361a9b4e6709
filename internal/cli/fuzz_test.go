package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRunPlan feeds arbitrary input to `daemonsched plan`: it never panics, exits 0 or 1, and
// writes nothing to stdout when it fails (STYLE §4). The library behind it gets whatever the
// decoder accepts, so this also checks that bad data never panics there.
func FuzzRunPlan(f *testing.F) {
	seeds := []string{
		"", // no objects
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", // one node, no DaemonSet
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: i}]}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", // a hand-written DaemonSet and a node
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {}\n",                                                                                                      // empty selector (SYNC-3)
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchExpressions: [{key: a, operator: Bogus}]}\n",                                                         // unconvertible selector (SYNC-5)
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: \"x%\"}}\n  selector: {matchLabels: {a: b}}\n", // bad rolling budget (UPD-5)
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, status: {phase: Weird}}\n",                                                                        // list with an unknown pod phase
		"{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"a\"}}]}",                                                                                               // typed JSON list
		"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r}\ndata: {spec: {template: {}}}\nrevision: 1\n",                                                                         // a revision without owner
		"a: [\n", // truncated YAML
		"\xEF\xBB\xBFapiVersion: v1\r\nkind: Node\r\nmetadata: {name: n1}\r\n...\r\n", // BOM, CRLF, document end marker
		"\xFF\xFEa\x00:\x00 \x001\x00\n\x00",                                          // UTF-16LE
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n- kind: Pod\n  metadata: {name: p}\nkind: List\n", // kubectl List layout, split per item
		"--- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n%YAML 1.1\n---\n",                                                            // a document on its marker's line, a directive
		"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"p\"},\"spec\":{\"x\":1}}]} {\"a\":\"}\"",            // typed list with an unknown field, then an unterminated value
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"1e-999999999 \"}}\n",                                    // issue 25, F1: a quantity bomb before a space
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var stdout, stderr bytes.Buffer
		code := run([]string{"plan", "-f", "-", "-o", "json", "--now", "2026-03-02T10:00:00Z"}, bytes.NewReader(data), &stdout, &stderr)
		switch code {
		case exitOK:
		case exitBadInput:
			if stdout.Len() > 0 {
				t.Fatalf("exit 1 with output on stdout:\n%s", stdout.String())
			}
		default:
			t.Fatalf("exit %d, want 0 or 1; stderr:\n%s", code, stderr.String())
		}
	})
}

// FuzzServeAnswersEveryRequest feeds arbitrary lines to `conformance serve`: it exits 0 and
// answers every line that is not blank with one JSON object, a plan or an error (issue 25: it
// stopped at the first request it could not plan).
func FuzzServeAnswersEveryRequest(f *testing.F) {
	f.Add([]byte("not json\n"))                                                  // not a request
	f.Add([]byte(`{"id": 2, "objects": {}}` + "\n\n" + `{"id": 3, "now": "x"}`)) // the wrong shape, a blank line, a bad instant
	f.Add([]byte(`{"id": 1, "case": "c", "now": "2026-03-02T10:00:00Z", "objects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]}` + "\n"))
	f.Add([]byte(`{"id": 1, "now": "2026-03-02T10:00:00Z", "objects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": " 1e-999999999"}}}]}`)) // a quantity bomb
	f.Fuzz(func(t *testing.T, data []byte) {
		want := 0
		for line := range bytes.Lines(data) {
			if len(bytes.TrimSpace(line)) > 0 {
				want++
			}
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"conformance", "serve"}, bytes.NewReader(data), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d on %q: %s", code, data, stderr.String())
		}
		answers := bytes.Split(bytes.TrimSuffix(stdout.Bytes(), []byte("\n")), []byte("\n"))
		if stdout.Len() == 0 {
			answers = nil
		}
		if len(answers) != want {
			t.Fatalf("%d answers to %d requests %q:\n%s", len(answers), want, data, stdout.String())
		}
		for _, a := range answers {
			var v struct {
				DaemonSets json.RawMessage `json:"daemonSets"`
				Error      string          `json:"error"`
			}
			if err := json.Unmarshal(a, &v); err != nil || (v.DaemonSets == nil) == (v.Error == "") {
				t.Fatalf("answer %q to %q: neither a plan nor an error (%v)", a, data, err)
			}
		}
	})
}
