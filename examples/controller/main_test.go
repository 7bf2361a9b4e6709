package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/golden"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden.Check(t, "testdata/output.txt", out.Bytes())
}

// The requests follow the order of one sync (SYNC-2): revision, claims, pod actions, status;
// each action of the plan becomes exactly one request.
func TestReconcileSendsOneRequestPerAction(t *testing.T) {
	snap, err := decode(clusterYAML)
	require.NoError(t, err)
	ds := snap.DaemonSets[0]
	p, errs := daemonset.Compile(ds, daemonset.Options{Now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)})
	require.Empty(t, errs)
	reqs, err := reconcile(ds, snap, p.Plan(snap))
	require.NoError(t, err)
	var got []string
	for _, r := range reqs {
		got = append(got, r.method+" "+strings.Fields(r.path)[0])
	}
	want := []string{
		"POST /apis/apps/v1/namespaces/logging/controllerrevisions",
		"PATCH /api/v1/namespaces/logging/pods/log-agent-manual", // adopt the orphan (OWN-4)
		"PATCH /api/v1/namespaces/logging/pods/log-agent-debug",  // release the relabelled pod (OWN-3)
		"DELETE /api/v1/namespaces/logging/pods/log-agent-m4q8z", // NoExecute taint (ELIG-4, TAINT-5)
		"POST /api/v1/namespaces/logging/pods",                   // the new node-d (DIFF-2)
		"PUT /apis/apps/v1/namespaces/logging/daemonsets/log-agent/status",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reconcile() mismatch (-want +got):\n%s", diff)
	}
}

// The cache may come as one kind: List, as `kubectl get -o yaml` prints several kinds: it reads
// as the same objects as the separate documents, and plans the same requests.
func TestDecodeReadsAKubectlList(t *testing.T) {
	want, err := decode(clusterYAML)
	require.NoError(t, err)

	var list bytes.Buffer
	list.WriteString("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(clusterYAML)))
	items := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal(doc, &obj))
		if obj == nil {
			continue // a comment-only document
		}
		y, err := yaml.Marshal(obj)
		require.NoError(t, err)
		for i, line := range strings.SplitAfter(strings.TrimSuffix(string(y), "\n"), "\n") {
			list.WriteString(map[bool]string{true: "- ", false: "  "}[i == 0] + line)
		}
		list.WriteString("\n")
		items++
	}
	require.Equal(t, len(want.DaemonSets)+len(want.Nodes)+len(want.Pods)+len(want.Revisions), items)

	got, err := decode(list.Bytes())
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode(List) mismatch (-documents +List):\n%s", diff)
	}
}
