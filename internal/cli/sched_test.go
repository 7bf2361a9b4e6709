package cli

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSchedulerDoneWhen is issue 24's done-when, kept: on a dump with a full node (full-1),
// a host-port clash (port-1) and a node missing a declared feature (nofeature-1), explain,
// rollout status and lint each name all three with their numbers (SCHED-1 to SCHED-3,
// SCHED-7, ROLL-8, LINT-7, LINT-11, LINT-12), and so does plan --scheduler's JSON.
func TestSchedulerDoneWhen(t *testing.T) {
	t.Parallel()
	dump := filepath.Join("testdata", "manifests", "sched-cluster.yaml")
	full := "cpu 250m requested, 120m free of 4"
	port := "host port 9100/TCP held by monitoring/legacy-exporter"
	feature := "NodeDeclaredFeatures: the node does not declare UserNamespacesHostNetworkSupport"
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"explain names the three nodes' filters (SCHED-7)", []string{"explain", "--daemonset", "kube-system/node-agent"},
			[]string{"full-1", full, "port-1", port, "nofeature-1", feature}},
		{"rollout status blocks on the three nodes (ROLL-8)", []string{"rollout", "status"},
			[]string{"node full-1: Unschedulable", full, "node port-1: Unschedulable", port, "node nofeature-1: Unschedulable", feature}},
		{"lint finds the three (LINT-7, LINT-11, LINT-12)", []string{"lint"},
			[]string{"cpu requests 250m, 120m free of 4 on full-1", "host port 9100/TCP is held by another pod on 1 node (pod monitoring/legacy-exporter on port-1)",
				"the pod needs node feature UserNamespacesHostNetworkSupport, which 1 node does not declare", "nofeature-1"}},
		{"plan --scheduler gives the numbers as data (SCHED-7)", []string{"plan", "--scheduler", "-o", "json"},
			[]string{`"node": "full-1"`, `"requested": "250m"`, `"used": "3880m"`, `"allocatable": "4"`,
				`"node": "port-1"`, `"port": 9100`, `"name": "legacy-exporter"`,
				`"node": "nofeature-1"`, `"missingFeatures": [`, `"UserNamespacesHostNetworkSupport"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append(append(tt.args, "-f", dump), "--now", "2026-11-27T12:00:00Z")
			var stdout, stderr bytes.Buffer
			run(args, nil, &stdout, &stderr)
			for _, w := range tt.want {
				require.Contains(t, stdout.String(), w)
			}
		})
	}
}
