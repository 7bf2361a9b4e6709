package cli

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// suspicious returns what in an input most likely means the input is not what the user meant
// to give, one warning each: DaemonSets without any node (a dump taken without `nodes`), and
// pods bound to nodes the input does not hold (a dump of some of the nodes).
func suspicious(in *manifest.Result) []string {
	var out []string
	s := in.Snapshot
	if len(s.DaemonSets) > 0 && len(s.Nodes) == 0 {
		out = append(out, fmt.Sprintf("the input has %s but no nodes, so no DaemonSet runs on any node of it; "+
			"was it taken without nodes? (kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml)", count(len(s.DaemonSets), "DaemonSet")))
	}
	nodes := make(map[string]bool, len(s.Nodes))
	for _, n := range s.Nodes {
		nodes[n.Name] = true
	}
	missing := map[string]int{}
	pods := 0
	for _, p := range s.Pods {
		if name := p.Spec.NodeName; name != "" && !nodes[name] {
			missing[name]++
			pods++
		}
	}
	if pods > 0 && len(s.Nodes) > 0 {
		names := make([]string, 0, len(missing))
		for n := range missing {
			names = append(names, printable.Quote(n))
		}
		slices.Sort(names)
		shown := strings.Join(names[:min(3, len(names))], ", ")
		if len(names) > 3 {
			shown += fmt.Sprintf(" and %d more", len(names)-3)
		}
		out = append(out, fmt.Sprintf("%s %s bound to %s the input does not hold (%s); the plan acts only on the nodes "+
			"it holds: was the dump taken of some nodes only?", count(pods, "pod"), agree(pods, "is", "are"), count(len(missing), "node"), shown))
	}
	return append(out, foreignOwners(in)...)
}

// foreignOwners warns, once per DaemonSet, about pods whose controller ownerReference names
// the DaemonSet (kind, namespace and name) with another uid, when none names its uid: most
// likely a manifest given with a uid of its own beside a dump of the cluster, or a dump of the
// DaemonSet taken after it was recreated. Pods belong to a DaemonSet only through its uid, so
// the plan creates a pod beside each of them, and the user should hear why.
func foreignOwners(in *manifest.Result) []string {
	type key struct{ namespace, name string }
	mine := map[key]bool{}
	others := map[key]map[string]int{}
	dss := map[key]*appsv1.DaemonSet{}
	for _, ds := range in.Snapshot.DaemonSets {
		dss[key{ds.Namespace, ds.Name}] = ds
	}
	for _, p := range in.Snapshot.Pods {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || ref.Kind != "DaemonSet" {
			continue
		}
		k := key{p.Namespace, ref.Name}
		ds := dss[k]
		switch {
		case ds == nil:
		case ref.UID == ds.UID:
			mine[k] = true
		default:
			if others[k] == nil {
				others[k] = map[string]int{}
			}
			others[k][string(ref.UID)]++
		}
	}
	var out []string
	for _, ds := range sortedDaemonSets(in.Snapshot.DaemonSets) {
		k := key{ds.Namespace, ds.Name}
		if mine[k] || len(others[k]) == 0 {
			continue
		}
		uids := slices.Sorted(maps.Keys(others[k]))
		n := 0
		for _, u := range uids {
			n += others[k][u]
		}
		with := "uid " + printable.Quote(uids[0])
		switch {
		case len(uids) > 1:
			quoted := make([]string, len(uids))
			for i, u := range uids {
				quoted[i] = fmt.Sprintf("%s (%d)", cmp.Or(printable.Quote(u), "none"), others[k][u])
			}
			with = "uids " + strings.Join(quoted, ", ")
		case uids[0] == "":
			with = "no uid"
		}
		out = append(out, fmt.Sprintf("%s %s DaemonSet %s/%s as %s controller with %s; the input's DaemonSet has uid %s: %s "+
			"(a pod belongs to a DaemonSet by uid)", count(n, "pod"), agree(n, "names", "name"), q(ds.Namespace), q(ds.Name),
			agree(n, "its", "their"), with, printable.Quote(string(ds.UID)), agree(n, "it is not one of its pods", "they are not its pods")))
	}
	return out
}

// warnSuspicious writes the warnings of suspicious.
func warnSuspicious(w io.Writer, in *manifest.Result) {
	for _, s := range suspicious(in) {
		fmt.Fprintf(w, "daemonsched: warning: %s\n", s)
	}
}
