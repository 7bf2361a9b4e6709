package livecluster

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// The release a live cluster runs is read from /version: its major and minor first (a
// development build's gitVersion is v0.0.0-master), gitVersion otherwise; outside 1.33-1.37 it
// is an error (VER-1).
func TestReleaseOf(t *testing.T) {
	tests := []struct {
		name                     string
		major, minor, gitVersion string
		want                     string
		wantErr                  string
	}{
		{name: "a release names its minor's newest supported patch", major: "1", minor: "36", gitVersion: "v1.36.3", want: "1.36.3"},
		{name: "a newer patch of a supported minor is that minor", major: "1", minor: "35", gitVersion: "v1.35.9", want: "1.35.4"},
		{name: "a provider's minor with a plus is read", major: "1", minor: "34+", gitVersion: "v1.34.2-gke.1", want: "1.34.4"},
		{name: "a development build states its minor", major: "1", minor: "36", gitVersion: "v0.0.0-master+$Format:%H$", want: "1.36.3"},
		{name: "without major and minor gitVersion tells", gitVersion: "v1.33.1-eks-1a2b", want: "1.33.13"},
		{name: "an older release is refused", major: "1", minor: "32", gitVersion: "v1.32.0", wantErr: "not supported: supported are 1.33 to 1.37"},
		{name: "a newer release is refused", major: "1", minor: "38", gitVersion: "v1.38.0", wantErr: "not supported: supported are 1.33 to 1.37"},
		{name: "a version that names nothing is refused", gitVersion: "unknown", wantErr: "names no release"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := releaseOf(tt.major, tt.minor, tt.gitVersion)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.String())
		})
	}
}

// fakeServer answers /version with version and every list with status (and a Status body of
// that code), and counts the list requests by path.
func fakeServer(t *testing.T, version string, status int) (*httptest.Server, map[string]int) {
	t.Helper()
	lists := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/version" {
			major, minor, _ := strings.Cut(version, ".")
			json.NewEncoder(w).Encode(map[string]string{"major": major, "minor": minor, "gitVersion": "v" + version + ".0"})
			return
		}
		lists[r.URL.Path]++
		reason := map[int]string{http.StatusForbidden: "Forbidden", http.StatusUnauthorized: "Unauthorized"}[status]
		if status == http.StatusOK && strings.HasPrefix(r.URL.Path, "/api/v1/nodes/") {
			w.WriteHeader(http.StatusNotFound) // a node to get is not there: then every node is listed
			json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": 404, "reason": "NotFound"})
			return
		}
		if status == http.StatusOK {
			w.Write([]byte(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[]}`))
			return
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": status, "reason": reason,
			"message": "nodes is forbidden: User \"jane\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"})
	}))
	t.Cleanup(srv.Close)
	return srv, lists
}

// The plugin's errors about the cluster fit on one line, say what went wrong and write nothing
// on stdout; exit 1.
func TestPluginClusterErrors(t *testing.T) {
	tests := []struct {
		name    string
		version string
		status  int
		want    string
	}{
		{"an unsupported release is refused before anything is read", "1.32", http.StatusOK, "server version 1.32 (v1.32.0): kubernetes version \"1.32\" is not supported: supported are 1.33 to 1.37"},
		{"a forbidden list names the verb and the resource", "1.36", http.StatusForbidden, "forbidden: cannot list nodes (the plugin needs get, list and watch: `kubectl daemonsched rbac` prints the role)"},
		{"refused credentials say so", "1.36", http.StatusUnauthorized, "the server refused the credentials (401 Unauthorized; expired?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, lists := fakeServer(t, tt.version, tt.status)
			var stdout, stderr bytes.Buffer
			code := runPlugin([]string{"plan", "--server", srv.URL, "--kubeconfig", os.DevNull}, nil, &stdout, &stderr)
			require.Equal(t, 1, code, stderr.String())
			require.Empty(t, stdout.String())
			require.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
			require.Contains(t, stderr.String(), tt.want)
			if tt.status == http.StatusOK {
				require.Empty(t, lists)
			}
		})
	}
	t.Run("an unreachable server says so", func(t *testing.T) {
		srv, _ := fakeServer(t, "1.36", http.StatusOK)
		srv.Close()
		var stdout, stderr bytes.Buffer
		require.Equal(t, 1, runPlugin([]string{"plan", "--server", srv.URL, "--kubeconfig", os.DevNull}, nil, &stdout, &stderr))
		require.Contains(t, stderr.String(), "cannot reach the API server")
	})
}

// Each question reads what it needs: one DaemonSet's namespace, one node without pods; and
// --save writes the List that -f reads back to the same answer.
func TestPluginReadsWhatTheQuestionNeeds(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"plan -A reads every namespace", []string{"plan", "-A"},
			[]string{"/api/v1/nodes", "/apis/apps/v1/daemonsets", "/apis/apps/v1/controllerrevisions", "/api/v1/pods"}},
		{"plan without -n or -A reads default when the kubeconfig names no namespace", []string{"plan"},
			[]string{"/api/v1/nodes", "/apis/apps/v1/namespaces/default/daemonsets", "/apis/apps/v1/namespaces/default/controllerrevisions", "/api/v1/namespaces/default/pods"}},
		{"rollout status of one DaemonSet reads its namespace", []string{"rollout", "status", "ds/agent", "-n", "infra"},
			[]string{"/api/v1/nodes", "/apis/apps/v1/namespaces/infra/daemonsets", "/apis/apps/v1/namespaces/infra/controllerrevisions", "/api/v1/namespaces/infra/pods"}},
		{"whatif --node gets the node (every node when it is not found), every namespace's DaemonSets and no pods", []string{"whatif", "--node", "worker-1"},
			[]string{"/api/v1/nodes/worker-1", "/api/v1/nodes", "/apis/apps/v1/daemonsets", "/api/v1/limitranges", "/apis/node.k8s.io/v1/runtimeclasses"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, lists := fakeServer(t, "1.36", http.StatusOK)
			var stdout, stderr bytes.Buffer
			runPlugin(append(tt.args, "--server", srv.URL, "--kubeconfig", os.DevNull, "--now", "2026-03-02T10:00:00Z"), nil, &stdout, &stderr)
			var got []string
			for p := range lists {
				got = append(got, p)
			}
			require.ElementsMatch(t, tt.want, got, stderr.String())
		})
	}
	t.Run("--save writes a List -f reads", func(t *testing.T) {
		srv, _ := fakeServer(t, "1.36", http.StatusOK)
		saved := filepath.Join(t.TempDir(), "saved.json")
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, runPlugin([]string{"plan", "--server", srv.URL, "--kubeconfig", os.DevNull, "--now", "2026-03-02T10:00:00Z", "--save", saved}, nil, &stdout, &stderr), stderr.String())
		require.Contains(t, stderr.String(), "answer it offline with -f "+saved+" --now 2026-03-02T10:00:00Z")
		data, err := os.ReadFile(saved)
		require.NoError(t, err)
		var list map[string]any
		require.NoError(t, yaml.Unmarshal(data, &list))
		require.Equal(t, "List", list["kind"])
		var offline, offlineErr bytes.Buffer
		require.Equal(t, 0, cli.Run([]string{"plan", "-f", saved, "--now", "2026-03-02T10:00:00Z"}, nil, &offline, &offlineErr), offlineErr.String())
		require.Equal(t, stdout.String(), offline.String())
	})
}

// Without -n or -A the plugin reads the namespace of the kubeconfig's context, as kubectl does:
// the current context's, or --context's, "default" when the context names none; -n and -A
// say otherwise, and offline (-f, --example) no -n is still every namespace.
func TestPluginNamespaceOfTheContext(t *testing.T) {
	srv, _ := fakeServer(t, "1.36", http.StatusOK)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "`+srv.URL+`"}
users:
- name: jane
  user: {token: "t"}
contexts:
- name: infra
  context: {cluster: fake, user: jane, namespace: infra}
- name: ops
  context: {cluster: fake, user: jane, namespace: ops}
- name: bare
  context: {cluster: fake, user: jane}
current-context: infra
`), 0o600))
	tests := []struct {
		name string
		args []string
		want []string // the paths of the DaemonSets listed
	}{
		{"the current context's namespace", []string{"plan"}, []string{"/apis/apps/v1/namespaces/infra/daemonsets"}},
		{"--context's namespace", []string{"plan", "--context", "ops"}, []string{"/apis/apps/v1/namespaces/ops/daemonsets"}},
		{"a context without a namespace reads default", []string{"plan", "--context", "bare"}, []string{"/apis/apps/v1/namespaces/default/daemonsets"}},
		{"-n wins over the context", []string{"plan", "-n", "kube-system"}, []string{"/apis/apps/v1/namespaces/kube-system/daemonsets"}},
		{"-A reads every namespace", []string{"plan", "-A"}, []string{"/apis/apps/v1/daemonsets"}},
		{"rollout status of ds/NAME reads it in the context's namespace", []string{"rollout", "status", "ds/agent"}, []string{"/apis/apps/v1/namespaces/infra/daemonsets"}},
		{"explain --daemonset NAME reads it in the context's namespace", []string{"explain", "--daemonset", "agent"}, []string{"/apis/apps/v1/namespaces/infra/daemonsets"}},
		{"explain --daemonset NAMESPACE/NAME reads its own namespace", []string{"explain", "--daemonset", "kube-system/agent"}, []string{"/apis/apps/v1/namespaces/kube-system/daemonsets"}},
		{"lint reads the context's namespace", []string{"lint"}, []string{"/apis/apps/v1/namespaces/infra/daemonsets"}},
		{"forecast reads the context's namespace", []string{"forecast"}, []string{"/apis/apps/v1/namespaces/infra/daemonsets"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, lists := fakeServer(t, "1.36", http.StatusOK)
			var stdout, stderr bytes.Buffer
			runPlugin(append(tt.args, "--kubeconfig", kubeconfig, "--server", srv.URL, "--now", "2026-03-02T10:00:00Z"), nil, &stdout, &stderr)
			var got []string
			for p := range lists {
				if strings.HasSuffix(p, "/daemonsets") {
					got = append(got, p)
				}
			}
			require.Equal(t, tt.want, got, stderr.String())
		})
	}
	t.Run("offline no -n is every namespace", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, runPlugin([]string{"plan", "--example", "--kubeconfig", kubeconfig, "--now", "2026-03-02T10:00:00Z"}, nil, &stdout, &stderr), stderr.String())
		var want, wantErr bytes.Buffer
		require.Equal(t, 0, cli.Run([]string{"plan", "--example", "--now", "2026-03-02T10:00:00Z"}, nil, &want, &wantErr), wantErr.String())
		require.Equal(t, want.String(), stdout.String())
	})
}

// runPlugin runs kubectl-daemonsched.
func runPlugin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.RunPlugin(args, stdin, stdout, stderr, New())
}

// daemonsched itself never contacts an API server: it has none of kubectl's connection flags.
func TestDaemonschedHasNoConnectionFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, cli.Run([]string{"plan", "--server", "https://127.0.0.1:1", "--example"}, nil, &stdout, &stderr))
	require.Contains(t, stderr.String(), "unknown flag: --server")
}
