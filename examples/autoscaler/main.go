// Command autoscaler answers the question a cluster autoscaler asks before it adds a node:
// which DaemonSets would a new node of this shape run, what do their pods request in total, and
// do they claim a host port twice? Every new node pays that daemon overhead before any workload
// pod fits, and of two daemon pods that claim one host port the scheduler leaves one pending.
//
// It compiles the DaemonSets into a fleet.Set once and asks it about each hypothetical node
// (labels and taints, no name): the Set decides every DaemonSet as the controller would and
// counts each daemon pod's requests and host ports as the scheduler does.
package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/manifest"
)

//go:embed testdata/daemonsets.yaml
var daemonSetsYAML []byte

//go:embed testdata/shapes.yaml
var shapesYAML []byte

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "autoscaler:", err)
		os.Exit(1)
	}
}

// row is what one DaemonSet brings to a node shape.
type row struct {
	ds       *appsv1.DaemonSet
	decision daemonset.Eligibility
	requests v1.ResourceList  // of one daemon pod, when it runs
	ports    []fleet.HostPort // of one daemon pod, when it runs
}

// conflict is two daemon pods that could not share the node (fleet.HostPort.Conflicts).
type conflict struct {
	a, b *appsv1.DaemonSet
	port fleet.HostPort
}

// whatIf is the answer for one node shape.
type whatIf struct {
	rows      []row // in namespace/name order
	running   int
	total     v1.ResourceList
	conflicts []conflict
}

// compile reads the DaemonSets and compiles them into a Set. The manifests are hand-written:
// manifest gives them the defaults the API server would (D-4, D-5).
func compile() (*fleet.Set, error) {
	in, err := manifest.Read("daemonsets.yaml", bytes.NewReader(daemonSetsYAML), manifest.Options{})
	if err != nil {
		return nil, err
	}
	// Eligibility does not depend on time, but Options.Now must be set.
	set, errs := fleet.Compile(in.Snapshot.DaemonSets, daemonset.Options{Now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)})
	if len(errs) > 0 {
		return nil, fmt.Errorf("daemonsets.yaml: %w", errs.ToAggregate())
	}
	return set, nil
}

// ask decides node for every DaemonSet of set; d is reused from one node to the next.
func ask(set *fleet.Set, node *v1.Node, d *fleet.NodeDecision) whatIf {
	set.DecideNode(node, d)
	w := whatIf{running: len(d.ShouldRun()), total: d.Requests(nil)}
	for i := range set.Len() {
		r := row{ds: set.Planner(i).DaemonSet(), decision: d.Eligibility(i)}
		if r.decision.ShouldRun {
			r.requests, r.ports = set.Requests(i), set.HostPorts(i)
		}
		w.rows = append(w.rows, r)
	}
	for i, a := range w.rows {
		for _, b := range w.rows[i+1:] {
			for _, p := range a.ports {
				for _, q := range b.ports {
					if p.Conflicts(q) {
						w.conflicts = append(w.conflicts, conflict{a: a.ds, b: b.ds, port: p})
					}
				}
			}
		}
	}
	return w
}

func run(w io.Writer) error {
	set, err := compile()
	if err != nil {
		return err
	}
	shapes, err := decodeAll[v1.Node](shapesYAML)
	if err != nil {
		return fmt.Errorf("shapes.yaml: %w", err)
	}
	var d fleet.NodeDecision
	for i, node := range shapes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Node shape %q\n", node.Annotations["shape"])
		if err := render(w, ask(set, node, &d)); err != nil {
			return err
		}
	}
	return nil
}

func render(w io.Writer, answer whatIf) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  DAEMONSET\tCPU\tMEMORY\tHOST PORTS\tRUNS HERE")
	for _, r := range answer.rows {
		name := r.ds.Namespace + "/" + r.ds.Name
		if !r.decision.ShouldRun {
			why := string(r.decision.Reason)
			if r.decision.Taint.Key != "" {
				why += " " + r.decision.Taint.ToString()
			}
			fmt.Fprintf(tw, "  %s\t-\t-\t-\tno: %s\n", name, why)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\tyes\n", name, quantity(r.requests, v1.ResourceCPU), quantity(r.requests, v1.ResourceMemory), ports(r.ports))
	}
	fmt.Fprintf(tw, "  total of %d daemon pods\t%s\t%s\n", answer.running, quantity(answer.total, v1.ResourceCPU), quantity(answer.total, v1.ResourceMemory))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range answer.conflicts {
		fmt.Fprintf(w, "  host port conflict: %s/%s and %s/%s both claim %s; the scheduler leaves one pending\n",
			c.a.Namespace, c.a.Name, c.b.Namespace, c.b.Name, ports([]fleet.HostPort{c.port}))
	}
	return nil
}

func ports(ps []fleet.HostPort) string {
	if len(ps) == 0 {
		return "-"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
	}
	return strings.Join(s, ",")
}

func quantity(l v1.ResourceList, name v1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "0"
	}
	if name == v1.ResourceCPU {
		return fmt.Sprintf("%dm", q.MilliValue())
	}
	return fmt.Sprintf("%dMi", q.Value()>>20)
}

// decodeAll decodes every document of a YAML stream into a T, strictly: a field T does not
// have, a key given twice or spelt with other capitals ("Capacity" is not capacity) is an
// error naming the document, its line and the field (manifest.DecodeStrictAll, D-20). The node
// shapes are read with it, not with manifest.Read: a shape is a node before it registers, so
// it has no name, and Read reads only objects a cluster could hold.
func decodeAll[T any](data []byte) ([]*T, error) {
	return manifest.DecodeStrictAll[T](data)
}
