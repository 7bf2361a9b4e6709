//go:build live

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/daemonsched/daemonsched/internal/livecluster"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// The plugin against kube-apiserver and etcd (examples/refcontroller/live/run.sh starts them,
// with RBAC, and sets KUBECONFIG): the built-in example cluster is written into the server,
// and every command's live answer must be the offline answer on the dump --save wrote, and on
// a dump of everything, byte for byte with the same exit status. Forbidden (impersonation of
// users the role does or does not bind), unreachable and refused credentials are asked too.
func TestPluginLive(t *testing.T) {
	kubeconfig := os.Getenv("KUBECONFIG")
	require.NotEmpty(t, kubeconfig, "run by examples/refcontroller/live/run.sh, which sets KUBECONFIG")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	writeExample(t, ctx, client)

	dir := t.TempDir()
	now := time.Now().UTC().Format(time.RFC3339)
	full := filepath.Join(dir, "full.json")
	plugin(t, 0, "node-ready", "-A", "--node", "worker-1", "--now", now, "--save", full, "--chunk-size", "2")

	cases := []struct {
		name      string
		args      []string
		everyKind bool // the dump of everything answers it too: it reads all of each kind it reads, and only kinds that dump has
	}{
		{"plan of every namespace", []string{"plan", "-A"}, true},
		{"plan of the context's namespace", []string{"plan"}, false}, // the dump of everything has every namespace
		{"plan of one namespace", []string{"plan", "-n", "kube-system", "-o", "json"}, true},
		{"explain a node", []string{"explain", "--node", "worker-4", "-A"}, true},
		{"explain a DaemonSet over every node", []string{"explain", "--daemonset", "kube-system/fluentd-elasticsearch"}, true},
		{"explain a pod", []string{"explain", "--pod", "kube-system/fluentd-elasticsearch-h7x2k"}, true},
		{"rollout status of one DaemonSet", []string{"rollout", "status", "-n", "kube-system", "ds/fluentd-elasticsearch"}, true},
		{"rollout status of every DaemonSet", []string{"rollout", "status", "-A", "-o", "yaml"}, true},
		{"whatif a node", []string{"whatif", "-A", "--node", "worker-4"}, false},
		{"node-ready", []string{"node-ready", "-A", "--node", "worker-1"}, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			saved := filepath.Join(t.TempDir(), "saved.json")
			args := append(tt.args, "--now", now)
			live := run(t, runPlugin, append(args, "--save", saved, "--chunk-size", "3")...)
			require.NotEmpty(t, live.stdout, live.stderr)
			require.NotEqual(t, 1, live.exit, live.stderr)
			// A dump does not record the server's release: offline, it is given as the plugin
			// read it from /version (the live servers are v1.36.3, servers/go.mod).
			offline := append(slices.Clone(args), "--kubernetes-version", "1.36")
			require.Equal(t, live.answer(), run(t, cli.Run, append(offline, "-f", saved)...).answer(), "live and --save's dump")
			if tt.everyKind {
				require.Equal(t, live.answer(), run(t, cli.Run, append(offline, "-f", full)...).answer(), "live and the dump of everything")
			}
		})
	}

	t.Run("without -n or -A the namespace is the kubeconfig context's", func(t *testing.T) {
		config, err := clientcmd.LoadFromFile(kubeconfig)
		require.NoError(t, err)
		config.Contexts[config.CurrentContext].Namespace = "kube-system"
		inKubeSystem := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, clientcmd.WriteToFile(*config, inKubeSystem))
		for _, args := range [][]string{
			{"plan", "--now", now},
			{"rollout", "status", "ds/fluentd-elasticsearch", "--now", now},
			{"explain", "--daemonset", "fluentd-elasticsearch", "--now", now},
		} {
			want := run(t, runPlugin, append(slices.Clone(args), "-n", "kube-system")...)
			require.NotEqual(t, 1, want.exit, want.stderr)
			got := run(t, runPlugin, append(slices.Clone(args), "--kubeconfig", inKubeSystem)...)
			require.Equal(t, want.answer(), got.answer(), "%q: the context's namespace and -n kube-system", args)
		}
		// A node's questions read every namespace whatever the context names: a node runs the
		// DaemonSets of every namespace.
		for _, args := range [][]string{
			{"whatif", "--node", "worker-4", "--now", now},
			{"node-ready", "--node", "worker-1", "--now", now},
		} {
			want := run(t, runPlugin, append(slices.Clone(args), "-A")...)
			require.NotEqual(t, 1, want.exit, want.stderr)
			got := run(t, runPlugin, append(slices.Clone(args), "--kubeconfig", inKubeSystem)...)
			require.Equal(t, want.answer(), got.answer(), "%q: every namespace, whatever the context's", args)
		}
		// The story's context names none: default, which holds no DaemonSet of the example.
		require.NotEqual(t, plugin(t, 0, "plan", "-n", "kube-system", "--now", now), plugin(t, 0, "plan", "--now", now))
	})
	t.Run("rollout status --watch gives up at --timeout, still progressing", func(t *testing.T) {
		start := time.Now()
		r := run(t, runPlugin, "rollout", "status", "-n", "kube-system", "ds/fluentd-elasticsearch", "--watch", "--timeout", "2s")
		require.Equal(t, 3, r.exit, r.stderr)
		require.GreaterOrEqual(t, time.Since(start), 2*time.Second)
		require.Equal(t, 1, strings.Count(r.stdout, "kube-system/fluentd-elasticsearch: Progressing"), "each state once:\n%s", r.stdout)
	})
	t.Run("rollout status --watch sees the rollout complete", func(t *testing.T) {
		watchToCompletion(t, ctx, client)
	})
	t.Run("rollout status --watch is refused offline", func(t *testing.T) {
		r := run(t, runPlugin, "rollout", "status", "--watch", "--example")
		require.Equal(t, 2, r.exit, r.stderr)
	})
	t.Run("rbac's role is enough", func(t *testing.T) {
		bindReader(t, ctx, client, "daemonsched-live-reader")
		want := plugin(t, 0, "plan", "--now", now)
		// The authorizer learns of the binding from its informers, shortly after.
		require.Eventually(t, func() bool {
			r := run(t, runPlugin, "plan", "--as", "daemonsched-live-reader", "--now", now)
			return r.exit == 0 && r.stdout == want
		}, 30*time.Second, 200*time.Millisecond)
	})
	t.Run("a forbidden list names the verb and resource", func(t *testing.T) {
		stderr := pluginFails(t, "plan", "--as", "nobody")
		require.Contains(t, stderr, "forbidden: cannot list nodes")
		require.Contains(t, stderr, "kubectl daemonsched rbac")
	})
	t.Run("refused credentials", func(t *testing.T) {
		stderr := pluginFails(t, "plan", "--token", "expired")
		require.Contains(t, stderr, "401 Unauthorized")
	})
	t.Run("an unreachable server", func(t *testing.T) {
		stderr := pluginFails(t, "plan", "--server", "https://127.0.0.1:1", "--request-timeout", "5s")
		require.Contains(t, stderr, "cannot reach the API server")
	})
}

// result is what a command wrote and its exit status.
type result struct {
	stdout, stderr string
	exit           int
}

// answer is what must be the same live and offline: stdout and the exit status (stderr names
// the input).
func (r result) answer() string { return fmt.Sprintf("exit %d\n%s", r.exit, r.stdout) }

// run runs one of the two commands.
func run(t *testing.T, command func([]string, io.Reader, io.Writer, io.Writer) int, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	exit := command(args, nil, &stdout, &stderr)
	return result{stdout.String(), stderr.String(), exit}
}

// runPlugin runs kubectl-daemonsched.
func runPlugin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.RunPlugin(args, stdin, stdout, stderr, livecluster.New())
}

// plugin runs kubectl-daemonsched and returns its stdout, requiring the exit status.
func plugin(t *testing.T, exit int, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	require.Equal(t, exit, runPlugin(args, nil, &stdout, &stderr), "kubectl daemonsched %q: %s", args, stderr.String())
	return stdout.String()
}

// pluginFails runs kubectl-daemonsched, requires exit 1 and nothing on stdout, and returns
// stderr, one line.
func pluginFails(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, runPlugin(args, nil, &stdout, &stderr), "kubectl daemonsched %q", args)
	require.Empty(t, stdout.String())
	require.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	return stderr.String()
}

// writeExample writes the built-in example cluster into the server: its nodes, DaemonSets,
// ControllerRevisions and pods, with their status, each owner reference naming the owner's new
// uid.
func writeExample(t *testing.T, ctx context.Context, client *kubernetes.Clientset) {
	t.Helper()
	in, err := manifest.ReadInputs([]manifest.Input{{Path: filepath.Join("..", "..", "internal", "cli", "example", "cluster.yaml")}}, manifest.Options{})
	require.NoError(t, err)
	s := in.Snapshot
	for _, n := range s.Nodes {
		n = n.DeepCopy()
		clean(&n.ObjectMeta)
		got, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		require.NoError(t, err)
		n.ResourceVersion = got.ResourceVersion
		_, err = client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	uids := map[types.UID]types.UID{}
	for _, ds := range s.DaemonSets {
		old := ds.UID
		ds = ds.DeepCopy()
		clean(&ds.ObjectMeta)
		got, err := client.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{})
		require.NoError(t, err)
		uids[old] = got.UID
		got.Status = ds.Status
		got.Status.ObservedGeneration = got.Generation
		_, err = client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	owned := func(m *metav1.ObjectMeta) {
		for i := range m.OwnerReferences {
			if uid, ok := uids[m.OwnerReferences[i].UID]; ok {
				m.OwnerReferences[i].UID = uid
			}
		}
	}
	for _, cr := range s.Revisions {
		cr = cr.DeepCopy()
		clean(&cr.ObjectMeta)
		owned(&cr.ObjectMeta)
		_, err := client.AppsV1().ControllerRevisions(cr.Namespace).Create(ctx, cr, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	for _, p := range s.Pods {
		p = p.DeepCopy()
		clean(&p.ObjectMeta)
		owned(&p.ObjectMeta)
		got, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		require.NoError(t, err)
		got.Status = p.Status
		_, err = client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
}

// watchToCompletion creates a DaemonSet for one node, starts rollout status --watch on it
// (Progressing: its pod is missing), then creates the pod the controller would, running and
// ready, and its revision: the watch must print Complete and exit 0.
func watchToCompletion(t *testing.T, ctx context.Context, client *kubernetes.Clientset) {
	t.Helper()
	const ns = "plugin-watch"
	_, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	labels := map[string]string{"app": "watched"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "watched"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/hostname": "worker-1"},
					Containers:   []v1.Container{{Name: "agent", Image: "agent:1"}},
				},
			},
		},
	}
	ds, err = client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{})
	require.NoError(t, err)
	listsBefore := lists(t, ctx, client, "controllerrevisions")
	done := make(chan result, 1)
	go func() {
		done <- run(t, runPlugin, "rollout", "status", "-n", ns, "ds/watched", "--watch", "--timeout", "60s")
	}()
	time.Sleep(2 * time.Second) // the first judgment: Progressing

	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	snap := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}
	for i := range nodes.Items {
		snap.Nodes = append(snap.Nodes, &nodes.Items[i])
	}
	plan, err := snap.Plan(daemonset.Options{Now: time.Now()})
	require.NoError(t, err)
	res := plan.DaemonSets[0]
	require.Len(t, res.Create, 1)
	require.NotNil(t, res.Revisions)
	for _, cr := range res.Revisions.Create {
		_, err := client.AppsV1().ControllerRevisions(ns).Create(ctx, cr, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	pod, err := client.CoreV1().Pods(ns).Create(ctx, res.Create[0].Pod, metav1.CreateOptions{})
	require.NoError(t, err)
	pod.Spec.NodeName = "worker-1"
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.Now()}}}
	_, err = client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)

	r := <-done
	require.Equal(t, 0, r.exit, "%s\n%s", r.stdout, r.stderr)
	// Three writes (a ControllerRevision, a pod, its status) came as watch events: the watch
	// listed ControllerRevisions once, and nothing else here lists them.
	require.Equal(t, 1, lists(t, ctx, client, "controllerrevisions")-listsBefore, "lists of ControllerRevisions during --watch")
	require.Equal(t, 1, strings.Count(r.stdout, ns+"/watched: Progressing"), r.stdout)
	require.Equal(t, 1, strings.Count(r.stdout, ns+"/watched: Complete"), r.stdout)
}

// lists is how many LIST requests of resource the API server has answered (its
// apiserver_request_total metric, every code and scope).
func lists(t *testing.T, ctx context.Context, client *kubernetes.Clientset, resource string) int {
	t.Helper()
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	require.NoError(t, err)
	n := 0
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `verb="LIST"`) || !strings.Contains(line, `resource="`+resource+`"`) {
			continue
		}
		var v float64
		_, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
		require.NoError(t, err, line)
		n += int(v)
	}
	return n
}

// clean drops what the server sets itself.
func clean(m *metav1.ObjectMeta) {
	m.UID, m.ResourceVersion, m.Generation, m.CreationTimestamp, m.ManagedFields = "", "", 0, metav1.Time{}, nil
}

// bindReader creates the role rbac prints, bound to user.
func bindReader(t *testing.T, ctx context.Context, client *kubernetes.Clientset, user string) {
	t.Helper()
	docs := strings.Split(plugin(t, 0, "rbac", "--bind", user), "\n---\n")
	require.Len(t, docs, 2)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[0]), &role))
	var binding rbacv1.ClusterRoleBinding
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[1]), &binding))
	_, err := client.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, &binding, metav1.CreateOptions{})
	require.NoError(t, err)
}
