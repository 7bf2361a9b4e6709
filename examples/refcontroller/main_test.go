package main

import (
	"errors"

	"bytes"
	"context"
	"github.com/daemonsched/daemonsched/daemonset"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
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
		{[]string{"--feature-gates", "NoSuchGate=true"}, `unknown feature gate "NoSuchGate"`},
		{[]string{"--feature-gates", "StaleControllerConsistencyDaemonSet"}, "want Name=true or Name=false"},
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

// The release comes from the API server's /version unless --kubernetes-version names one; a
// release the library does not model is refused with an error that names the flag.
func TestRelease(t *testing.T) {
	for _, tc := range []struct {
		name, server, flag string
		want               string // the release, or a fragment of the error
		wantErr            bool
	}{
		{name: "the server's release", server: "v1.36.3", want: "1.36.3"},
		{name: "an older supported release", server: "v1.34.4", want: "1.34.4"},
		{name: "a vendor suffix is dropped", server: "v1.35.2-gke.1100", want: "1.35.2"},
		{name: "build metadata is dropped", server: "v1.33.1+k3s1", want: "1.33.1"},
		{name: "an unsupported release is refused", server: "v1.32.9", want: "--kubernetes-version", wantErr: true},
		{name: "a newer patch than supported is refused", server: "v1.36.99", want: "newest supported", wantErr: true},
		{name: "the flag overrides an unsupported server", server: "v1.32.9", flag: "1.35", want: "1.35.4"},
		{name: "a bad flag is refused", server: "v1.36.3", flag: "1.30", want: "--kubernetes-version", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}, FakedServerVersion: &version.Info{GitVersion: tc.server}}
			got, err := release(d, tc.flag)
			switch {
			case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("release(%q, %q) = %v, %v; want an error with %q", tc.server, tc.flag, got, err, tc.want)
			case !tc.wantErr && (err != nil || got.String() != tc.want):
				t.Errorf("release(%q, %q) = %v, %v; want %s", tc.server, tc.flag, got, err, tc.want)
			}
		})
	}
}

// An API server whose version cannot be read stops the controller before it starts.
func TestReleaseDiscoveryFailure(t *testing.T) {
	f := &clienttesting.Fake{}
	f.AddReactor("get", "version", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	if _, err := release(&fakediscovery.FakeDiscovery{Fake: f}, ""); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("release = %v; want the discovery error", err)
	}
}

// TestCheckGates: --feature-gates is checked against the release behaved as (VER-5): 1.35
// does not know StaleControllerConsistencyDaemonSet, 1.36 does.
func TestCheckGates(t *testing.T) {
	gates := daemonset.FeatureGates{daemonset.GateStaleControllerConsistencyDaemonSet: false}
	v135, _ := daemonset.ParseVersion("1.35")
	v136, _ := daemonset.ParseVersion("1.36")
	if err := checkGates(v135, gates); err == nil || !strings.Contains(err.Error(), `--feature-gates[StaleControllerConsistencyDaemonSet]`) {
		t.Errorf("1.35: %v, want the gate refused", err)
	}
	if err := checkGates(v136, gates); err != nil {
		t.Errorf("1.36: %v", err)
	}
	if err := checkGates(v135, nil); err != nil {
		t.Errorf("no gates: %v", err)
	}
}
