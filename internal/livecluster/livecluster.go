// Package livecluster reads a live cluster for the kubectl plugin kubectl-daemonsched: what a
// command's question (cli.Question) needs, page by page, with get, list and watch only, as the
// kubectl-style List daemonsched reads offline. It decides nothing. It is kept out of
// internal/cli so that daemonsched, which never contacts an API server, does not link client-go
// and cli-runtime (its binary is 37 MB without them, 93 MB with them).
package livecluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
)

// Cluster is the cluster kubectl's connection flags name (k8s.io/cli-runtime's ConfigFlags:
// --kubeconfig, --context, --cluster, --user, --as, --request-timeout, ...), as every kubectl
// plugin reads them, and how many objects a list request asks for (--chunk-size). It is the
// cli.Cluster of the plugin.
type Cluster struct {
	config    *genericclioptions.ConfigFlags
	chunkSize int64
}

// New returns the Cluster of flags not yet parsed.
func New() *Cluster {
	c := &Cluster{config: genericclioptions.NewConfigFlags(false)}
	c.config.Namespace = nil // -n is each command's flag, with its own help
	return c
}

// AddFlags registers the connection flags and --chunk-size on fs.
func (c *Cluster) AddFlags(fs *pflag.FlagSet) {
	c.config.AddFlags(fs)
	fs.Int64Var(&c.chunkSize, "chunk-size", 500, "list at most `N` objects per request, the rest page by page (0: all at once), as kubectl get")
}

// Read reads what q needs from the cluster: first /version, whose release must be a supported
// one, then the lists, into a kubectl-style List (JSON) with every object's apiVersion and kind.
func (c *Cluster) Read(ctx context.Context, q cli.Question) (*cli.Dump, error) {
	cs, name, err := c.connect()
	if err != nil {
		return nil, err
	}
	version, err := serverVersion(cs, name)
	if err != nil {
		return nil, err
	}
	if c.chunkSize < 0 {
		return nil, fmt.Errorf("--chunk-size must not be negative, got %d", c.chunkSize)
	}
	r := &reader{cs: cs, name: name, pageSize: c.chunkSize}
	items, err := r.all(ctx, q)
	if err != nil {
		return nil, err
	}
	data, err := listJSON(items)
	if err != nil {
		return nil, err
	}
	return &cli.Dump{Name: name, Data: data, Version: version, At: time.Now().UTC()}, nil
}

// listJSON is a kubectl-style List of items, each with its apiVersion and kind, as --save
// writes it and manifest reads it.
func listJSON(items []any) ([]byte, error) {
	if items == nil {
		items = []any{}
	}
	data, err := json.MarshalIndent(struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Metadata   metav1.ListMeta `json:"metadata"`
		Items      []any           `json:"items"`
	}{"v1", "List", metav1.ListMeta{}, items}, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Role is the ClusterRole with every verb on every resource the plugin uses and, for a user
// bind, a ClusterRoleBinding granting it, as YAML for kubectl apply. A namespaced question
// reads nodes, which are cluster-wide, so the role is a ClusterRole.
func (c *Cluster) Role(bind string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: daemonsched-reader
rules:
`)
	for _, r := range reads {
		fmt.Fprintf(&b, "- apiGroups: [%q]\n  resources: [%s]\n  verbs: [%s]\n", r.group, r.resource, strings.Join(r.verbs, ", "))
	}
	if bind != "" {
		fmt.Fprintf(&b, `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: daemonsched-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: daemonsched-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: %q
`, bind)
	}
	return b.String()
}

// read is one resource the plugin reads and the verbs it uses on it.
type read struct {
	group, resource string
	verbs           []string
}

// reads are every resource and verb the plugin uses: the RBAC of a read-only role (rbac
// prints it) and what a forbidden error names.
var reads = []read{
	{"", "nodes", []string{"get", "list", "watch"}},
	{"", "pods", []string{"list", "watch"}},
	{"", "limitranges", []string{"list"}},
	{"apps", "daemonsets", []string{"list", "watch"}},
	{"apps", "controllerrevisions", []string{"list", "watch"}},
	{"node.k8s.io", "runtimeclasses", []string{"list"}},
}

// Namespace is the namespace of the kubeconfig's context (--context's, else the current one),
// "default" when it names none, as kubectl reads it (in a pod, the pod's service account's).
func (c *Cluster) Namespace() (string, error) {
	ns, _, err := c.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("kubeconfig: %w", err)
	}
	return cmp.Or(ns, metav1.NamespaceDefault), nil
}

// connect returns the client of the flags' cluster and the name messages give it.
func (c *Cluster) connect() (*kubernetes.Clientset, string, error) {
	cfg, err := c.config.ToRESTConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	name := "the cluster at " + cfg.Host
	if raw, err := c.config.ToRawKubeConfigLoader().RawConfig(); err == nil {
		if c := cmp.Or(deref(c.config.Context), raw.CurrentContext); c != "" {
			name += " (context " + c + ")"
		}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return cs, name, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// serverVersion asks /version which release the cluster runs: the release of its minor (VER-1),
// an error outside the supported ones.
func serverVersion(cs kubernetes.Interface, name string) (daemonset.Version, error) {
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		return daemonset.Version{}, liveError(name, "get", "", "/version", "", err)
	}
	v, err := releaseOf(info.Major, info.Minor, info.GitVersion)
	if err != nil {
		return daemonset.Version{}, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

var leadingDigits = regexp.MustCompile(`^\d+`)

// releaseOf is the supported release of a server's /version: its major and minor ("1", "36";
// "36+" on some providers), which a development build states even where its gitVersion is
// "v0.0.0-master", else gitVersion's ("v1.35.2-eks-1a2b"). A minor stands for its newest
// supported patch, whose controller a patch release of the same minor runs: daemonsched models
// minors, so a newer patch is not refused.
func releaseOf(major, minor, gitVersion string) (daemonset.Version, error) {
	mj, mn := leadingDigits.FindString(major), leadingDigits.FindString(minor)
	if mj == "" || mn == "" {
		m := gitVersionRE.FindStringSubmatch(gitVersion)
		if m == nil {
			return daemonset.Version{}, fmt.Errorf("server version %q (major %q, minor %q) names no release", gitVersion, major, minor)
		}
		mj, mn = m[1], m[2]
	}
	v, err := daemonset.ParseVersion(mj + "." + mn)
	if err != nil {
		return daemonset.Version{}, fmt.Errorf("server version %s.%s (%s): %w", mj, mn, gitVersion, err)
	}
	return v, nil
}

var gitVersionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// reader lists the objects of one cluster.
type reader struct {
	cs       kubernetes.Interface
	name     string
	pageSize int64 // objects per list request (--chunk-size); 0 lists at once
}

// all returns every object q needs, each with its apiVersion and kind, in the order a dump
// lists them: nodes, DaemonSets, ControllerRevisions, pods, LimitRanges, RuntimeClasses.
func (r *reader) all(ctx context.Context, q cli.Question) ([]any, error) {
	items := []any{}
	add := func(apiVersion, kind string) func([]any, error) error {
		return func(objs []any, err error) error {
			if err != nil {
				return err
			}
			for _, o := range objs {
				o.(runtime.Object).GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind))
			}
			items = append(items, objs...)
			return nil
		}
	}
	ns := q.Namespace
	steps := []func() error{
		func() error { return add("v1", "Node")(r.nodes(ctx, q.Node)) },
		func() error {
			return add("apps/v1", "DaemonSet")(list(ctx, r, "list", "apps", "daemonsets", ns, func(ctx context.Context, o metav1.ListOptions) ([]appsv1.DaemonSet, metav1.ListMeta, error) {
				l, err := r.cs.AppsV1().DaemonSets(ns).List(ctx, o)
				return listOf(l, err, func(l *appsv1.DaemonSetList) ([]appsv1.DaemonSet, metav1.ListMeta) { return l.Items, l.ListMeta })
			}))
		},
	}
	if !q.NoPods {
		steps = append(steps,
			func() error {
				return add("apps/v1", "ControllerRevision")(list(ctx, r, "list", "apps", "controllerrevisions", ns, func(ctx context.Context, o metav1.ListOptions) ([]appsv1.ControllerRevision, metav1.ListMeta, error) {
					l, err := r.cs.AppsV1().ControllerRevisions(ns).List(ctx, o)
					return listOf(l, err, func(l *appsv1.ControllerRevisionList) ([]appsv1.ControllerRevision, metav1.ListMeta) {
						return l.Items, l.ListMeta
					})
				}))
			},
			func() error {
				return add("v1", "Pod")(list(ctx, r, "list", "", "pods", ns, func(ctx context.Context, o metav1.ListOptions) ([]v1.Pod, metav1.ListMeta, error) {
					l, err := r.cs.CoreV1().Pods(ns).List(ctx, o)
					return listOf(l, err, func(l *v1.PodList) ([]v1.Pod, metav1.ListMeta) { return l.Items, l.ListMeta })
				}))
			})
	}
	if q.Admission {
		steps = append(steps,
			func() error {
				return add("v1", "LimitRange")(list(ctx, r, "list", "", "limitranges", "", func(ctx context.Context, o metav1.ListOptions) ([]v1.LimitRange, metav1.ListMeta, error) {
					l, err := r.cs.CoreV1().LimitRanges("").List(ctx, o)
					return listOf(l, err, func(l *v1.LimitRangeList) ([]v1.LimitRange, metav1.ListMeta) { return l.Items, l.ListMeta })
				}))
			},
			func() error {
				return add("node.k8s.io/v1", "RuntimeClass")(list(ctx, r, "list", "node.k8s.io", "runtimeclasses", "", func(ctx context.Context, o metav1.ListOptions) ([]nodev1.RuntimeClass, metav1.ListMeta, error) {
					l, err := r.cs.NodeV1().RuntimeClasses().List(ctx, o)
					return listOf(l, err, func(l *nodev1.RuntimeClassList) ([]nodev1.RuntimeClass, metav1.ListMeta) { return l.Items, l.ListMeta })
				}))
			})
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// nodes lists every node, or gets the one named; a node not found is left to the command,
// which names the nodes it is a typo of, so then every node is listed.
func (r *reader) nodes(ctx context.Context, name string) ([]any, error) {
	if name != "" {
		n, err := r.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return []any{n}, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, liveError(r.name, "get", "", "nodes", "", err)
		}
	}
	return list(ctx, r, "list", "", "nodes", "", func(ctx context.Context, o metav1.ListOptions) ([]v1.Node, metav1.ListMeta, error) {
		l, err := r.cs.CoreV1().Nodes().List(ctx, o)
		return listOf(l, err, func(l *v1.NodeList) ([]v1.Node, metav1.ListMeta) { return l.Items, l.ListMeta })
	})
}

// listOf unpacks a typed list.
func listOf[L any, T any](l *L, err error, unpack func(*L) ([]T, metav1.ListMeta)) ([]T, metav1.ListMeta, error) {
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	items, meta := unpack(l)
	return items, meta, nil
}

// list reads every page of a list (r.pageSize objects each) and returns pointers to the items.
// A continue token that expired (410, the server compacted its history) restarts the list
// once, whole, as kubectl's pager falls back.
func list[T any](ctx context.Context, r *reader, verb, group, resource, namespace string, page func(context.Context, metav1.ListOptions) ([]T, metav1.ListMeta, error)) ([]any, error) {
	out, _, err := listAt(ctx, r, verb, group, resource, namespace, page)
	return out, err
}

// listAt is list, and the resourceVersion the list was read at (its last page's: every page
// of a list is read at its first page's), from which a watch goes on.
func listAt[T any](ctx context.Context, r *reader, verb, group, resource, namespace string, page func(context.Context, metav1.ListOptions) ([]T, metav1.ListMeta, error)) ([]any, string, error) {
	var out []any
	opts := metav1.ListOptions{Limit: r.pageSize}
	restarted := false
	for {
		items, meta, err := page(ctx, opts)
		if err != nil && apierrors.IsResourceExpired(err) && opts.Continue != "" && !restarted {
			out, opts, restarted = nil, metav1.ListOptions{}, true
			continue
		}
		if err != nil {
			return nil, "", liveError(r.name, verb, group, resource, namespace, err)
		}
		for i := range items {
			out = append(out, &items[i])
		}
		if meta.Continue == "" {
			return out, meta.ResourceVersion, nil
		}
		opts.Continue = meta.Continue
	}
}

// liveError says in one line what went wrong talking to the cluster: a server that cannot be
// reached, credentials refused (expired ones most often), a forbidden verb on a resource (with
// the role that allows it), or the server's own message.
func liveError(name, verb, group, resource, namespace string, err error) error {
	what := resource
	if group != "" {
		what += "." + group
	}
	where := ""
	if namespace != "" {
		where = " in namespace " + namespace
	} else if resource != "nodes" && resource != "runtimeclasses" && !strings.HasPrefix(resource, "/") {
		where = " in every namespace"
	}
	var uerr *url.Error
	var nerr net.Error
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: forbidden: cannot %s %s%s (the plugin needs get, list and watch: `kubectl daemonsched rbac` prints the role): %w", name, verb, what, where, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the server refused the credentials (401 Unauthorized; expired?): log in again, or choose others with --kubeconfig, --context or --user: %w", name, err)
	case errors.As(err, &uerr) || errors.As(err, &nerr):
		return fmt.Errorf("%s: cannot reach the API server: %w", name, err)
	}
	return fmt.Errorf("%s: %s %s%s: %w", name, verb, what, where, err)
}
