package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// The random snapshots of the property tests: reference nodes, some mutated, and generated and
// random DaemonSets, drawn from small value menus so that requirements match often enough to
// exercise every branch.

// setNow pins the release to 1.36.3: the generated pods carry 1.36.3's hashes (ComputeHash).
var setNow = daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), Version: must1363()}

func must1363() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}

// withWorkers is setNow with Options.Workers, which Set.Decide shares the nodes among.
func withWorkers(workers int) daemonset.Options {
	o := setNow
	o.Workers = workers
	return o
}

// setLabelValues are the values random nodes and DaemonSets draw label values from, so that
// requirements match often enough to exercise every branch.
var setLabelValues = map[string][]string{
	workload.LabelOS:           {"linux", "windows", ""},
	workload.LabelArch:         {"amd64", "arm64"},
	workload.LabelArchBeta:     {"amd64", "arm64"},
	workload.LabelZone:         {"us-east-1a", "us-east-1b", "eu-west-1a"},
	workload.LabelInstanceType: {"m5.large", "m5.xlarge"},
	workload.LabelCores:        {"2", "16", "016", "abc", "-3"},
	workload.LabelTeam:         {"web", "data"},
	workload.LabelControlPlane: {"", "true"},
	"metadata.name":            {"node-000001"},
	"example.com/unreferenced": {"a", "b"},
}

func setKeys() []string {
	keys := make([]string, 0, len(setLabelValues))
	for k := range setLabelValues {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func setPick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// setTaintMenu holds ordinary and odd taints: an empty and an unknown effect (TAINT-6), a
// timeAdded (TAINT-7), keys the default daemon tolerations cover (DEFTOL-1) and keys they
// do not (DEFTOL-5).
var setTaintMenu = func() []v1.Taint {
	added := metav1.NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	return []v1.Taint{
		{Key: workload.LabelControlPlane, Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoExecute},
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoExecute},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute, TimeAdded: &added},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule},
		{Key: "example.com/spot", Value: "true", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute},
		{Key: "example.com/empty-effect"},
		{Key: "example.com/odd", Value: "5", Effect: "Bogus"},
		{Key: "example.com/limit", Value: "7", Effect: v1.TaintEffectNoSchedule},
	}
}()

// setMutateNode changes a copy of node at random: labels set, removed or added, taints redrawn
// (duplicates included), spec.unschedulable toggled, which must change nothing by itself
// (ELIG-7, TAINT-11).
func setMutateNode(r *rand.Rand, node *v1.Node) *v1.Node {
	out := node.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	keys := setKeys()
	for range 1 + r.IntN(3) {
		k := setPick(r, keys)
		switch r.IntN(3) {
		case 0:
			delete(out.Labels, k)
		default:
			out.Labels[k] = setPick(r, setLabelValues[k])
		}
	}
	if r.IntN(2) == 0 {
		out.Spec.Taints = nil
		for range r.IntN(4) {
			out.Spec.Taints = append(out.Spec.Taints, setPick(r, setTaintMenu))
		}
	}
	if r.IntN(4) == 0 {
		out.Spec.Unschedulable = !out.Spec.Unschedulable
	}
	return out
}

// setRandomRequirement draws a node selector requirement, sometimes malformed (AFF-8).
func setRandomRequirement(r *rand.Rand) v1.NodeSelectorRequirement {
	k := setPick(r, setKeys())
	ops := []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt, "in"}
	op := setPick(r, ops)
	var values []string
	switch op {
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		values = []string{setPick(r, []string{"8", "16", "x"})}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if r.IntN(8) == 0 {
			values = []string{"x"}
		}
	default:
		for range r.IntN(3) + 1 {
			values = append(values, setPick(r, setLabelValues[k]))
		}
	}
	return v1.NodeSelectorRequirement{Key: k, Operator: op, Values: values}
}

// setRandomDaemonSet draws a DaemonSet with random placement, tolerations, containers and
// hostNetwork, named ns/name.
func setRandomDaemonSet(r *rand.Rand, name string, nodeNames []string) *appsv1.DaemonSet {
	ds := workload.ReferenceDaemonSet()
	ds.Name = name
	spec := &ds.Spec.Template.Spec
	spec.NodeSelector, spec.Affinity, spec.Tolerations = nil, nil, nil
	keys := setKeys()
	for range r.IntN(3) {
		if spec.NodeSelector == nil {
			spec.NodeSelector = map[string]string{}
		}
		k := setPick(r, keys)
		spec.NodeSelector[k] = setPick(r, setLabelValues[k])
	}
	if r.IntN(3) > 0 {
		req := &v1.NodeSelector{}
		for range r.IntN(4) { // zero terms match no node (AFF-2)
			var term v1.NodeSelectorTerm
			for range r.IntN(3) {
				term.MatchExpressions = append(term.MatchExpressions, setRandomRequirement(r))
			}
			if r.IntN(5) == 0 && len(nodeNames) > 0 {
				op := setPick(r, []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn})
				key := setPick(r, []string{"metadata.name", "metadata.name", "metadata.uid"})
				term.MatchFields = append(term.MatchFields, v1.NodeSelectorRequirement{Key: key, Operator: op, Values: []string{setPick(r, nodeNames)}})
			}
			req.NodeSelectorTerms = append(req.NodeSelectorTerms, term)
		}
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req}}
	}
	if r.IntN(20) == 0 && len(nodeNames) > 0 {
		spec.NodeName = setPick(r, nodeNames)
	}
	for range r.IntN(4) {
		t := setPick(r, setTaintMenu)
		tol := v1.Toleration{Key: t.Key, Value: t.Value, Effect: t.Effect,
			Operator: setPick(r, []v1.TolerationOperator{v1.TolerationOpExists, v1.TolerationOpEqual, "", "Gt"})}
		if r.IntN(4) == 0 {
			tol.Effect = ""
		}
		if r.IntN(8) == 0 {
			tol.Key = ""
		}
		spec.Tolerations = append(spec.Tolerations, tol)
	}
	spec.HostNetwork = r.IntN(3) == 0
	s := reqRandomPodSpec(r)
	spec.Containers, spec.InitContainers, spec.Overhead, spec.Resources = s.Containers, s.InitContainers, s.Overhead, s.Resources
	return ds
}

// setSnapshot is a random snapshot: reference nodes, some mutated, and a mix of generated and
// random DaemonSets, in random order.
func setSnapshot(r *rand.Rand, nodes, daemonSets int) ([]*appsv1.DaemonSet, []*v1.Node) {
	ns := workload.Nodes(r.Int64(), nodes)
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = n.Name
	}
	for i := range ns {
		if r.IntN(3) == 0 {
			ns[i] = setMutateNode(r, ns[i])
		}
	}
	dss := workload.DaemonSets(r.Int64(), daemonSets/2)
	for i := len(dss); i < daemonSets; i++ {
		dss = append(dss, setRandomDaemonSet(r, fmt.Sprintf("random-%03d", i), names))
	}
	r.Shuffle(len(dss), func(i, j int) { dss[i], dss[j] = dss[j], dss[i] })
	return dss, ns
}

// eligEqual is cmp.Equal for Eligibility values, without reflection: the property tests compare
// millions of them. cmp.Diff still reports any difference.
func eligEqual(a, b daemonset.Eligibility) bool {
	return a.ShouldRun == b.ShouldRun && a.ShouldContinueRunning == b.ShouldContinueRunning && a.Reason == b.Reason &&
		a.Taint.Key == b.Taint.Key && a.Taint.Value == b.Taint.Value && a.Taint.Effect == b.Taint.Effect &&
		a.Taint.TimeAdded.Equal(b.Taint.TimeAdded)
}
