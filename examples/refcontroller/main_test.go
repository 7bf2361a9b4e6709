package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrent-daemonset-syncs", "0"}, "must be at least 1"},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig"}, "no such file"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) = %d, stderr %q; want failure with %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// The client-side rate limit is kube-controller-manager's by default (20 QPS, burst 30), not
// client-go's 5 and 10, and --kube-api-qps and --kube-api-burst reach the rest config.
func TestRestConfigRateLimit(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		qps   float32
		burst int
	}{
		{[]string{"--kubeconfig", kubeconfig}, 20, 30},
		{[]string{"--kubeconfig", kubeconfig, "--kube-api-qps", "50", "--kube-api-burst", "100"}, 50, 100},
	} {
		var stderr bytes.Buffer
		o, ok := parse(tc.args, &stderr)
		if !ok {
			t.Fatalf("parse(%q): %s", tc.args, stderr.String())
		}
		cfg, err := restConfig(o)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.QPS != tc.qps || cfg.Burst != tc.burst {
			t.Errorf("%q: QPS %v, burst %d; want %v, %d", tc.args, cfg.QPS, cfg.Burst, tc.qps, tc.burst)
		}
	}
}
