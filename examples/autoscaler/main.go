// Command autoscaler answers the question a cluster autoscaler asks before it adds a node:
// which DaemonSets would a new node of this shape run, and what do their pods request in total?
// Every new node pays that daemon overhead before any workload pod fits.
//
// It asks daemonset.Planner.Eligibility about a hypothetical node (labels and taints, no name)
// and sums the requests of the eligible DaemonSets' pod templates with the scheduler's formula.
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
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

func run(w io.Writer) error {
	dss, err := decodeAll[appsv1.DaemonSet](daemonSetsYAML)
	if err != nil {
		return fmt.Errorf("daemonsets.yaml: %w", err)
	}
	shapes, err := decodeAll[v1.Node](shapesYAML)
	if err != nil {
		return fmt.Errorf("shapes.yaml: %w", err)
	}
	// Eligibility does not depend on time, but Options.Now must be set.
	opts := daemonset.Options{Now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	planners := make([]*daemonset.Planner, len(dss))
	for i := range dss {
		// The manifests are hand-written: give them the defaults the API server would (D-4).
		dss[i] = daemonset.WithDefaults(dss[i])
		ds := dss[i]
		p, errs := daemonset.Compile(ds, opts)
		if len(errs) > 0 {
			return fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, errs.ToAggregate())
		}
		planners[i] = p
	}

	for i, node := range shapes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Node shape %q\n", node.Annotations["shape"])
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  DAEMONSET\tCPU\tMEMORY\tRUNS HERE")
		var total v1.ResourceList
		n := 0
		for j, p := range planners {
			ds := dss[j]
			e := p.Eligibility(node)
			if !e.ShouldRun {
				why := string(e.Reason)
				if e.Taint.Key != "" {
					why += " " + e.Taint.ToString()
				}
				fmt.Fprintf(tw, "  %s/%s\t-\t-\tno: %s\n", ds.Namespace, ds.Name, why)
				continue
			}
			req := podRequests(&ds.Spec.Template.Spec)
			total = add(total, req)
			n++
			fmt.Fprintf(tw, "  %s/%s\t%s\t%s\tyes\n", ds.Namespace, ds.Name, quantity(req, v1.ResourceCPU), quantity(req, v1.ResourceMemory))
		}
		fmt.Fprintf(tw, "  total of %d daemon pods\t%s\t%s\n", n, quantity(total, v1.ResourceCPU), quantity(total, v1.ResourceMemory))
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// podRequests is what the scheduler reserves for a pod (as k8s.io/component-helpers
// resource.PodRequests computes it, without in-place resize): regular containers and restartable
// init containers (sidecars) run together and are summed; plain init containers run one at a
// time, each beside the sidecars started before it, so only the largest counts; the larger of
// the two phases is taken, and spec.overhead is added.
func podRequests(spec *v1.PodSpec) v1.ResourceList {
	var regular v1.ResourceList
	for i := range spec.Containers {
		regular = add(regular, spec.Containers[i].Resources.Requests)
	}
	var sidecars, initPhase v1.ResourceList
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			sidecars = add(sidecars, c.Resources.Requests)
			initPhase = maxOf(initPhase, sidecars)
			continue
		}
		initPhase = maxOf(initPhase, add(sidecars, c.Resources.Requests))
	}
	return add(maxOf(add(regular, sidecars), initPhase), spec.Overhead)
}

// add returns a+b as a new list.
func add(a, b v1.ResourceList) v1.ResourceList {
	out := a.DeepCopy()
	if out == nil {
		out = v1.ResourceList{}
	}
	for name, q := range b {
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	return out
}

// maxOf returns the per-resource maximum of a and b as a new list.
func maxOf(a, b v1.ResourceList) v1.ResourceList {
	out := a.DeepCopy()
	if out == nil {
		out = v1.ResourceList{}
	}
	for name, q := range b {
		if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
			out[name] = q.DeepCopy()
		}
	}
	return out
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

// decodeAll decodes every document of a YAML stream into a T.
func decodeAll[T any](data []byte) ([]*T, error) {
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*T
	for {
		obj := new(T)
		if err := dec.Decode(obj); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
}
