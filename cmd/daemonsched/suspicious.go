package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
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
		verb := "are"
		if pods == 1 {
			verb = "is"
		}
		out = append(out, fmt.Sprintf("%s %s bound to %s the input does not hold (%s); the plan acts only on the nodes "+
			"it holds: was the dump taken of some nodes only?", count(pods, "pod"), verb, count(len(missing), "node"), shown))
	}
	return out
}

// warnSuspicious writes the warnings of suspicious.
func warnSuspicious(w io.Writer, in *manifest.Result) {
	for _, s := range suspicious(in) {
		fmt.Fprintf(w, "daemonsched: warning: %s\n", s)
	}
}
