package cli

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
)

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }
func (f *fileList) Type() string   { return "FILE" }

func (f *fileList) Set(s string) error {
	if s == "" {
		return errors.New("empty file name")
	}
	*f = append(*f, s)
	return nil
}

// outputFormat is an output format of -o.
type outputFormat string

const (
	formatTable outputFormat = "table"
	formatJSON  outputFormat = "json"
	formatYAML  outputFormat = "yaml"
	formatWide  outputFormat = "wide" // the table, every action on its own line (plan only)
)

// outputFlag is the -o flag of one command: it accepts only the formats that command prints,
// so that -o wide on a command without a wide table is a usage error rather than another
// format printed silently.
type outputFlag struct {
	format  *outputFormat
	allowed []outputFormat
}

func (o outputFlag) String() string { return string(*o.format) }

func (o outputFlag) Type() string { return strings.Join(o.names(), "|") }

func (o outputFlag) names() []string {
	names := make([]string, len(o.allowed))
	for i, f := range o.allowed {
		names[i] = string(f)
	}
	return names
}

func (o outputFlag) Set(s string) error {
	if f := outputFormat(s); slices.Contains(o.allowed, f) {
		*o.format = f
		return nil
	}
	names := o.names()
	list := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if outputFormat(s) == formatWide {
		return fmt.Errorf("unsupported output format %q: this command prints %s (only plan has a wide table)", s, list)
	}
	return fmt.Errorf("unsupported output format %q: want %s", s, list)
}

// timeFlag is --now; zero when not given.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f *timeFlag) Type() string { return "RFC3339" }

func (f *timeFlag) Set(s string) error {
	t, err := parseRFC3339(s)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time (like 2026-03-02T10:00:00Z): %q", s)
	}
	*f = timeFlag{t: t.UTC()}
	return nil
}

// parseRFC3339 parses an RFC 3339 time, which may have fractional seconds, lower-case "t" and
// "z" and, as RFC 3339 section 5.6 allows, a space between date and time.
func parseRFC3339(s string) (time.Time, error) {
	b := []byte(strings.TrimSpace(s))
	if len(b) > 10 && (b[10] == 't' || b[10] == ' ') {
		b[10] = 'T'
	}
	if n := len(b); n > 0 && b[n-1] == 'z' {
		b[n-1] = 'Z'
	}
	return time.Parse(time.RFC3339Nano, string(b))
}

// addInputFlags registers -f/--filename, -R/--recursive, --apply and --example on fs.
func addInputFlags(fs *pflag.FlagSet, src *inputs) {
	fs.VarP(&src.files, "filename", "f", "input file or directory (repeatable; - reads stdin; without -f, stdin when it is not a terminal)")
	fs.BoolVarP(&src.recursive, "recursive", "R", false, "read the directories of -f and their subdirectories")
	fs.Var(&src.apply, "apply", "DaemonSet manifests laid over the input as kubectl diff would apply them (repeatable)")
	fs.BoolVar(&src.example, "example", false, "read the built-in example cluster instead of -f or stdin")
}

// addOutputFlag registers -o/--output on fs, accepting the formats of allowed (the first is
// the default, already in *format) and no other.
func addOutputFlag(fs *pflag.FlagSet, format *outputFormat, allowed ...outputFormat) {
	usage := "output format: table, json or yaml"
	if slices.Contains(allowed, formatWide) {
		usage = "output format: table, wide (the table with every action on its own line), json or yaml"
	}
	fs.VarP(outputFlag{format: format, allowed: allowed}, "output", "o", usage)
}

// namespaceFlags are -n/--namespace and -A/--all-namespaces.
type namespaceFlags struct {
	namespace string
	all       bool
	// fromContext says that namespace is the kubeconfig context's (resolve), not -n's: a
	// NAMESPACE/NAME elsewhere then names its own namespace, as kubectl reads it.
	fromContext bool
}

func addNamespaceFlags(fs *pflag.FlagSet, n *namespaceFlags, e *env) {
	fs.StringVarP(&n.namespace, "namespace", "n", "", "only the DaemonSets of this `NAMESPACE` (and the namespace of a --daemonset or --pod NAME without one)")
	all := "the DaemonSets of every namespace (the default)"
	if e.plugin != nil {
		all = "the DaemonSets of every namespace (without -n or -A: the namespace of the kubeconfig's context, as kubectl)"
	}
	fs.BoolVarP(&n.all, "all-namespaces", "A", false, all)
}

// addNodeNamespaceFlags adds -n and -A to a command whose question is one node's (whatif,
// node-ready): a node runs the DaemonSets of every namespace, so without -n every namespace is
// read, in the kubectl plugin too (no resolve: the context's namespace would leave out
// kube-system's daemons and answer for part of the node without saying so).
func addNodeNamespaceFlags(fs *pflag.FlagSet, n *namespaceFlags) {
	fs.StringVarP(&n.namespace, "namespace", "n", "", "only the DaemonSets of this `NAMESPACE`")
	fs.BoolVarP(&n.all, "all-namespaces", "A", false, "the DaemonSets of every namespace (the default, in the kubectl plugin too: a node runs the DaemonSets of every namespace)")
}

// resolve gives a command of the kubectl plugin that reads the live cluster, with neither -n
// nor -A, the namespace kubectl would use: that of the kubeconfig's context (--context's, else
// the current one), "default" when it names none. Offline, and with -f or --example, no -n
// means every namespace, as a dump holds what was asked of it.
func (n *namespaceFlags) resolve(e *env, c *clusterFlags) error {
	if n.all || n.namespace != "" || !c.live(e) {
		return nil
	}
	ns, err := e.plugin.cluster.Namespace()
	if err != nil {
		return err
	}
	n.namespace, n.fromContext = ns, true
	return nil
}

// check refuses -n with -A.
func (n namespaceFlags) check() error {
	if n.all && n.namespace != "" {
		return usagef("-n/--namespace and -A/--all-namespaces cannot be combined")
	}
	return nil
}

// present refuses a -n namespace that holds none of the DaemonSets dss, when other namespaces
// hold some: "No DaemonSets in the input" would be false, and a misspelled namespace would
// look like an empty one. The error lists the namespaces that have DaemonSets, with the one
// meant.
func (n namespaceFlags) present(dss []*appsv1.DaemonSet) error {
	if n.namespace == "" || len(dss) == 0 || slices.ContainsFunc(dss, func(ds *appsv1.DaemonSet) bool { return ds.Namespace == n.namespace }) {
		return nil
	}
	seen := map[string]bool{}
	for _, ds := range dss {
		seen[ds.Namespace] = true
	}
	names := slices.Sorted(maps.Keys(seen))
	quoted := make([]string, len(names))
	for i, ns := range names {
		quoted[i] = q(ns)
	}
	where := "namespace "
	if len(names) > 1 {
		where = "namespaces "
	}
	flag := "-n"
	if n.fromContext {
		flag = "the kubeconfig context's; -A for every one"
	}
	return fmt.Errorf("no DaemonSets in namespace %s (%s): the input has %s, in %s%s", q(n.namespace), flag,
		count(len(dss), "DaemonSet"), where+strings.Join(quoted, ", "), didYouMean(n.namespace, names))
}

// keep says whether a DaemonSet of namespace ns is shown.
func (n namespaceFlags) keep(ns string) bool { return n.namespace == "" || n.namespace == ns }

// daemonSetKey returns the namespace and name of a --daemonset value, NAME alone being in the
// -n namespace or "default", as kubectl reads names.
func (n namespaceFlags) daemonSetKey(s string) (string, string, error) {
	if s == "" {
		return "", "", nil
	}
	switch strings.Count(s, "/") {
	case 0:
		return cmp.Or(n.namespace, "default"), s, nil
	case 1:
		ns, name, _ := strings.Cut(s, "/")
		if ns == "" || name == "" {
			break
		}
		if n.namespace != "" && !n.fromContext && ns != n.namespace {
			return "", "", usagef("--daemonset %s is not in namespace %s (-n)", s, n.namespace)
		}
		return ns, name, nil
	}
	return "", "", usagef("--daemonset wants NAME or NAMESPACE/NAME, got %q", s)
}
