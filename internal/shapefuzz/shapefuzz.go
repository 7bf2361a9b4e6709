// Package shapefuzz turns a fuzzer's bytes into a cluster snapshot shaped like a real one:
// DaemonSets, nodes, pods and revisions whose names, labels, taints, selectors, tolerations,
// affinities, owner references, phases, conditions, quantities and update strategies are drawn
// (with sigs.k8s.io/randfill reading the bytes) from small vocabularies, so that selectors
// match, pods land on known nodes and belong to known DaemonSets often enough for the fuzzer
// to reach every part of a sync, while values the API server would refuse (a control
// character in a name, an unknown operator or effect, a negative budget) still turn up. It is
// for fuzz targets only.
package shapefuzz

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// Cluster is one snapshot.
type Cluster struct {
	DaemonSets []*appsv1.DaemonSet
	Nodes      []*v1.Node
	Pods       []*v1.Pod
	Revisions  []*appsv1.ControllerRevision
}

// Base is the instant the drawn timestamps are around; a plan's Now should be near it.
var Base = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// The vocabularies. Each holds valid values and a few the API server refuses.
var (
	words   = []string{"a", "b", "app", "agent", "linux", "windows", "infra", "1", "4", "16", "", "x\ny", "é"}
	keys    = []string{"app", "tier", "kubernetes.io/os", "kubernetes.io/hostname", "zone", "cores", "-bad", "a/b/c"}
	names   = []string{"node-0", "node-1", "node-2", "node-3", "n\x1b[1m"}
	spaces  = []string{"kube-system", "default"}
	effects = []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute, "", "Sometimes"}
	selOps  = []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt, "Bogus"}
	labelOps = []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn,
		metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist, "Gt"}
	tolOps = []v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists, "", "Lt"}
	phases = []v1.PodPhase{v1.PodRunning, v1.PodPending, v1.PodFailed, v1.PodSucceeded, "", "Weird"}
	status = []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}
)

func pick[T any](c randfill.Continue, from []T) T { return from[c.Intn(len(from))] }

// filler returns the randfill Filler reading data, with the vocabularies.
func filler(data []byte) *randfill.Filler {
	return randfill.NewFromGoFuzz(data).NilChance(0.3).NumElements(0, 3).MaxDepth(8).Funcs(
		func(s *string, c randfill.Continue) { *s = pick(c, words) },
		func(m *map[string]string, c randfill.Continue) {
			*m = map[string]string{}
			for range c.Intn(4) {
				(*m)[pick(c, keys)] = pick(c, words)
			}
		},
		func(e *v1.TaintEffect, c randfill.Continue) { *e = pick(c, effects) },
		func(o *v1.NodeSelectorOperator, c randfill.Continue) { *o = pick(c, selOps) },
		func(o *metav1.LabelSelectorOperator, c randfill.Continue) { *o = pick(c, labelOps) },
		func(o *v1.TolerationOperator, c randfill.Continue) { *o = pick(c, tolOps) },
		func(p *v1.PodPhase, c randfill.Continue) { *p = pick(c, phases) },
		func(s *v1.ConditionStatus, c randfill.Continue) { *s = pick(c, status) },
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(Base.Add(time.Duration(c.Intn(7200)-3600) * time.Second))
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewScaledQuantity(int64(c.Intn(2000)-10), resource.Scale(c.Intn(13)-9))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(int32(c.Intn(6) - 1))
			} else {
				*x = intstr.FromString(pick(c, []string{"0%", "10%", "50%", "100%", "101%", "x%", "3"}))
			}
		},
		func(s *appsv1.DaemonSetUpdateStrategyType, c randfill.Continue) {
			*s = pick(c, []appsv1.DaemonSetUpdateStrategyType{appsv1.RollingUpdateDaemonSetStrategyType, appsv1.OnDeleteDaemonSetStrategyType, ""})
		},
	)
}

// New draws a cluster from data: up to 3 DaemonSets, 6 nodes, 12 pods and 3 revisions. The
// same data always gives the same cluster.
func New(data []byte) Cluster {
	f := filler(data)
	var c Cluster
	var n int
	f.Fill(&n)
	dsCount, nodeCount, podCount := 1+abs(n)%3, abs(n/3)%7, abs(n/21)%13
	for i := range dsCount {
		ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}}
		ds.Name, ds.Namespace = fmt.Sprintf("ds-%d", i), spaces[i%2]
		ds.UID = types.UID(fmt.Sprintf("uid-%d", i))
		f.Fill(&ds.CreationTimestamp)
		f.Fill(&ds.Generation)
		f.Fill(&ds.Annotations)
		ds.Spec.Selector = &metav1.LabelSelector{}
		f.Fill(ds.Spec.Selector)
		f.Fill(&ds.Spec.Template.Labels)
		f.Fill(&ds.Spec.Template.Spec.NodeSelector)
		f.Fill(&ds.Spec.Template.Spec.Affinity)
		f.Fill(&ds.Spec.Template.Spec.Tolerations)
		f.Fill(&ds.Spec.Template.Spec.HostNetwork)
		var ctr v1.Container
		f.Fill(&ctr.Resources)
		ctr.Name, ctr.Image = "c", "img"
		ds.Spec.Template.Spec.Containers = []v1.Container{ctr}
		f.Fill(&ds.Spec.UpdateStrategy)
		f.Fill(&ds.Spec.MinReadySeconds)
		ds.Spec.MinReadySeconds %= 600
		c.DaemonSets = append(c.DaemonSets, ds)
	}
	for i := range nodeCount {
		node := &v1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}}
		node.Name = names[i%len(names)]
		if i >= len(names) {
			node.Name = fmt.Sprintf("node-%d", i)
		}
		f.Fill(&node.Labels)
		f.Fill(&node.Spec.Taints)
		f.Fill(&node.Spec.Unschedulable)
		f.Fill(&node.Status.Allocatable)
		c.Nodes = append(c.Nodes, node)
	}
	for i := range podCount {
		pod := &v1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
		pod.Name = fmt.Sprintf("pod-%d", i)
		f.Fill(&pod.Labels)
		var owner, node int
		f.Fill(&owner)
		f.Fill(&node)
		ds := c.DaemonSets[abs(owner)%len(c.DaemonSets)]
		pod.Namespace = ds.Namespace
		if owner%4 != 0 { // most pods belong to a DaemonSet; the others are orphans
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet",
				Name: ds.Name, UID: ds.UID, Controller: new(owner%5 != 0)}}
			if owner%3 == 0 {
				pod.Labels = maps.Clone(ds.Spec.Template.Labels)
			}
		}
		if len(c.Nodes) > 0 && node%6 != 0 {
			pod.Spec.NodeName = c.Nodes[abs(node)%len(c.Nodes)].Name
		}
		f.Fill(&pod.Status.Phase)
		f.Fill(&pod.Status.Conditions)
		f.Fill(&pod.CreationTimestamp)
		if node%7 == 0 {
			f.Fill(&pod.DeletionTimestamp)
		}
		c.Pods = append(c.Pods, pod)
	}
	var revs int
	f.Fill(&revs)
	for i := range abs(revs) % 4 {
		ds := c.DaemonSets[i%len(c.DaemonSets)]
		cr := &appsv1.ControllerRevision{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}}
		cr.Name, cr.Namespace = fmt.Sprintf("%s-r%d", ds.Name, i), ds.Namespace
		cr.Labels = maps.Clone(ds.Spec.Template.Labels)
		f.Fill(&cr.Revision)
		cr.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: new(true)}}
		cr.Data = runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)}
		c.Revisions = append(c.Revisions, cr)
	}
	return c
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// Bound is the time one call on a drawn cluster may take before a fuzz target reports it:
// generous, to catch what runs for minutes (a quantity of 10^999999999 took hours).
const Bound = 5 * time.Second

// DeepCopy returns a copy sharing nothing with c, to check that c is not modified.
func (c Cluster) DeepCopy() Cluster {
	return Cluster{
		DaemonSets: copyAll(c.DaemonSets, (*appsv1.DaemonSet).DeepCopy),
		Nodes:      copyAll(c.Nodes, (*v1.Node).DeepCopy),
		Pods:       copyAll(c.Pods, (*v1.Pod).DeepCopy),
		Revisions:  copyAll(c.Revisions, (*appsv1.ControllerRevision).DeepCopy),
	}
}

func copyAll[T any](in []*T, deepCopy func(*T) *T) []*T {
	if in == nil {
		return nil
	}
	out := make([]*T, len(in))
	for i, x := range in {
		out[i] = deepCopy(x)
	}
	return out
}

// Shuffled returns c with every list in another order, drawn from seed: what must not change
// any output.
func (c Cluster) Shuffled(seed uint64) Cluster {
	r := rand.New(rand.NewPCG(seed, 1))
	return Cluster{
		DaemonSets: shuffle(r, c.DaemonSets),
		Nodes:      shuffle(r, c.Nodes),
		Pods:       shuffle(r, c.Pods),
		Revisions:  shuffle(r, c.Revisions),
	}
}

func shuffle[T any](r *rand.Rand, in []T) []T {
	out := slices.Clone(in)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Objects returns every object of c, DaemonSets first, for writing out as manifests.
func (c Cluster) Objects() []any {
	var out []any
	for _, x := range c.DaemonSets {
		out = append(out, x)
	}
	for _, x := range c.Nodes {
		out = append(out, x)
	}
	for _, x := range c.Pods {
		out = append(out, x)
	}
	for _, x := range c.Revisions {
		out = append(out, x)
	}
	return out
}
