package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// agentManifest is the manifest from git of the DaemonSet of testdata/apply-over-dump, as
// kubectl applied it.
const agentManifest = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      priorityClassName: system-node-critical
      containers:
      - name: agent
        image: registry.example.com/agent:1.0
        env:
        - {name: GREETING, value: fish & chips <b>}
        resources:
          limits: {memory: 200Mi}
          requests: {cpu: 100m, memory: 200Mi}
`

// lastApplied is agentManifest as kubectl records it.
const lastApplied = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"annotations":{},"name":"agent","namespace":"kube-system"},` +
	`"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"env":[{"name":"GREETING","value":"fish \u0026 chips \u003cb\u003e"}],` +
	`"image":"registry.example.com/agent:1.0","name":"agent","resources":{"limits":{"memory":"200Mi"},"requests":{"cpu":"100m","memory":"200Mi"}}}],"priorityClassName":"system-node-critical"}}}}` + "\n"

// restartedDump is testdata/apply-over-dump/dump.yaml after `kubectl rollout restart`: the
// stored template carries kubectl.kubernetes.io/restartedAt, its last applied configuration
// does not.
func restartedDump(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("testdata", "apply-over-dump", "dump.yaml"))
	require.NoError(t, err)
	s := string(dump)
	for _, r := range []struct{ old, new string }{
		{"      deprecated.daemonset.template.generation: \"1\"\n    creationTimestamp: \"2026-02-01T09:59:59Z\"",
			"      deprecated.daemonset.template.generation: \"2\"\n      kubectl.kubernetes.io/last-applied-configuration: |\n        " + lastApplied + "    creationTimestamp: \"2026-02-01T09:59:59Z\""},
		{"    template:\n      metadata:\n        creationTimestamp: null\n        labels:",
			"    template:\n      metadata:\n        annotations:\n          kubectl.kubernetes.io/restartedAt: \"2026-03-01T08:00:00Z\"\n        creationTimestamp: null\n        labels:"},
	} {
		require.Equal(t, 1, strings.Count(s, r.old), r.old)
		s = strings.Replace(s, r.old, r.new, 1)
	}
	return s
}

func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	t.Chdir(dir)
	code = run(args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// The manifest from git applied unchanged after `kubectl rollout restart` keeps the restart
// annotation, as kubectl's three-way merge does: the plan is the dump's own (D-14). It was a
// template change, with a delete and a full rollout.
func TestApplyUnchangedAfterRestartPlansAsStored(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dump.yaml"), []byte(restartedDump(t)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(agentManifest), 0o644))
	want, _, code := runIn(t, dir, "plan", "-f", "dump.yaml", "-o", "json")
	require.Equal(t, 0, code)
	got, stderr, code := runIn(t, dir, "plan", "-f", "dump.yaml", "--apply", "agent.yaml", "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)
}

// A change the API server refuses is exit 1 with its message and nothing on stdout, for
// --apply as for forecast --template and rollout status --apply (D-14).
func TestApplyRefusedChanges(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		wantErr  string
	}{
		{name: "a changed selector is immutable",
			manifest: strings.ReplaceAll(agentManifest, "{app: agent}", "{app: agent-v2}"),
			wantErr:  `spec.selector: Invalid value: {"matchLabels":{"app":"agent-v2"}}: field is immutable`},
		{name: "a selector that does not match the template labels",
			manifest: strings.Replace(agentManifest, "labels: {app: agent}", "labels: {app: other}", 1),
			wantErr:  `spec.template.metadata.labels: Invalid value: {"app":"other"}: selector does not match template labels`},
		{name: "maxSurge beside the defaulted maxUnavailable",
			manifest: strings.Replace(agentManifest, "  template:\n", "  updateStrategy:\n    rollingUpdate: {maxSurge: 1}\n  template:\n", 1),
			wantErr:  `spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "dump.yaml"), []byte(restartedDump(t)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(tt.manifest), 0o644))
			for _, args := range [][]string{
				{"plan", "-f", "dump.yaml", "--apply", "agent.yaml"},
				{"rollout", "status", "-f", "dump.yaml", "--apply", "agent.yaml", "--now", "2026-03-02T10:00:00Z"},
				{"forecast", "-f", "dump.yaml", "--template", "agent.yaml"},
			} {
				stdout, stderr, code := runIn(t, dir, args...)
				require.Equal(t, 1, code, "%v: %s", args, stderr)
				require.Empty(t, stdout, args)
				require.Equal(t, "daemonsched: agent.yaml: document 1: DaemonSet kube-system/agent: the API server would refuse this update: "+tt.wantErr+"\n",
					stderr, args)
			}
		})
	}
}
