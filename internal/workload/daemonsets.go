package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The shapes a generated DaemonSet's placement takes, with their share out of 100. They mirror
// what real clusters run: node agents everywhere, pool- and hardware-specific daemons, a few
// zone- or team-scoped ones and a rare DaemonSet pinned to named nodes.
var shapes = []struct {
	weight int
	build  func(r *rand.Rand, spec *v1.PodSpec)
}{
	{25, func(r *rand.Rand, spec *v1.PodSpec) { // node agent on every Linux node
		spec.NodeSelector = map[string]string{LabelOS: "linux"}
	}},
	{8, func(r *rand.Rand, spec *v1.PodSpec) {}}, // no constraint at all
	{12, func(r *rand.Rand, spec *v1.PodSpec) { // the reference shape with random zones and type
		spec.NodeSelector = map[string]string{LabelOS: "linux"}
		spec.Affinity = required(
			term(expr(LabelZone, v1.NodeSelectorOpIn, pick(r, zonesEast, 1+r.IntN(3))...),
				expr(LabelInstanceType, v1.NodeSelectorOpNotIn, pools[r.IntN(len(pools))].instanceType)),
			term(expr(LabelControlPlane, v1.NodeSelectorOpExists)))
	}},
	{12, func(r *rand.Rand, spec *v1.PodSpec) { // one node group
		spec.NodeSelector = map[string]string{LabelNodeGroup: pools[r.IntN(len(pools))].name}
	}},
	{8, func(r *rand.Rand, spec *v1.PodSpec) { // one architecture, beta label kept by old charts
		arch := []string{"amd64", "arm64"}[r.IntN(2)]
		spec.Affinity = required(term(expr(LabelOSBeta, v1.NodeSelectorOpIn, "linux"), expr(LabelArchBeta, v1.NodeSelectorOpIn, arch)))
	}},
	{6, func(r *rand.Rand, spec *v1.PodSpec) { // Windows node agent
		spec.NodeSelector = map[string]string{LabelOS: "windows"}
	}},
	{6, func(r *rand.Rand, spec *v1.PodSpec) { // big nodes only (Gt)
		spec.Affinity = required(term(expr(LabelCores, v1.NodeSelectorOpGt, strconv.Itoa([]int{4, 8, 15}[r.IntN(3)]))))
	}},
	{6, func(r *rand.Rand, spec *v1.PodSpec) { // local disks, no spot
		spec.Affinity = required(term(expr(LabelDisk, v1.NodeSelectorOpIn, "nvme", "ssd"), expr(LabelCapacityType, v1.NodeSelectorOpNotIn, "spot")))
	}},
	{6, func(r *rand.Rand, spec *v1.PodSpec) { // one team's tier
		p := pools[r.IntN(len(pools))]
		spec.NodeSelector = map[string]string{LabelTeam: p.team, LabelTier: p.tier}
	}},
	{4, func(r *rand.Rand, spec *v1.PodSpec) { // control plane only
		spec.NodeSelector = map[string]string{LabelControlPlane: ""}
	}},
	{4, func(r *rand.Rand, spec *v1.PodSpec) { // one region, either zone label
		spec.Affinity = required(
			term(expr(LabelRegion, v1.NodeSelectorOpIn, "eu-west-1")),
			term(expr(LabelZoneBeta, v1.NodeSelectorOpIn, pick(r, zonesWest, 1)...)))
	}},
	{2, func(r *rand.Rand, spec *v1.PodSpec) { // pinned to named nodes (matchFields)
		spec.Affinity = required(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{NodeName(r.IntN(1000))}},
		}})
	}},
	{1, func(r *rand.Rand, spec *v1.PodSpec) { // bound by spec.nodeName
		spec.NodeName = NodeName(r.IntN(1000))
	}},
}

// tolerationSets are the toleration lists generated DaemonSets draw from.
var tolerationSets = [][]v1.Toleration{
	nil,
	{{Operator: v1.TolerationOpExists}}, // tolerate everything, as most node agents do
	{{Key: LabelControlPlane, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
	{
		{Key: LabelControlPlane, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: TaintDedicated, Operator: v1.TolerationOpEqual, Value: "infra"},
		{Key: TaintMaintenance, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	},
	{{Key: TaintDedicated, Operator: v1.TolerationOpEqual, Value: "gpu", Effect: v1.TaintEffectNoSchedule}},
	{{Key: TaintDedicated, Operator: v1.TolerationOpExists}},
	{{Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
	{{Key: TaintMaintenance, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))}},
}

// DaemonSets returns n varied DaemonSets named ds-000 .. ds-<n-1> in namespace kube-system,
// generated from seed: placements drawn from realistic shapes with random parameters,
// tolerations from a few common lists, one to three containers with requests, sometimes an
// init container or a restartable sidecar, sometimes host ports or hostNetwork. Each call
// returns fresh objects.
func DaemonSets(seed int64, n int) []*appsv1.DaemonSet {
	r := newRand(seed)
	total := 0
	for _, s := range shapes {
		total += s.weight
	}
	out := make([]*appsv1.DaemonSet, n)
	for i := range out {
		ds := baseDaemonSet("kube-system", fmt.Sprintf("ds-%03d", i), i)
		spec := &ds.Spec.Template.Spec
		w := r.IntN(total)
		for _, s := range shapes {
			if w < s.weight {
				s.build(r, spec)
				break
			}
			w -= s.weight
		}
		if tols := tolerationSets[r.IntN(len(tolerationSets))]; tols != nil {
			spec.Tolerations = append([]v1.Toleration(nil), tols...)
		}
		spec.HostNetwork = r.IntN(4) == 0
		spec.Containers = make([]v1.Container, 1+r.IntN(3))
		for c := range spec.Containers {
			spec.Containers[c] = container(r, fmt.Sprintf("c%d", c), 9000+10*i+c)
		}
		if r.IntN(4) == 0 {
			spec.InitContainers = append(spec.InitContainers, container(r, "init", 0))
		}
		if r.IntN(6) == 0 {
			sidecar := container(r, "sidecar", 19000+i)
			always := v1.ContainerRestartPolicyAlways
			sidecar.RestartPolicy = &always
			spec.InitContainers = append(spec.InitContainers, sidecar)
		}
		out[i] = ds
	}
	return out
}

func container(r *rand.Rand, name string, port int) v1.Container {
	c := v1.Container{
		Name:  name,
		Image: "registry.example.com/" + name + ":1.0.0",
		Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(int64(5*(1+r.IntN(40))), resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(int64(1+r.IntN(16))<<24, resource.BinarySI),
		}},
	}
	if r.IntN(5) == 0 {
		c.Resources.Requests[v1.ResourceEphemeralStorage] = *resource.NewQuantity(int64(1+r.IntN(4))<<30, resource.BinarySI)
	}
	if port > 0 && r.IntN(3) == 0 {
		cp := v1.ContainerPort{Name: "metrics", ContainerPort: int32(port), Protocol: v1.ProtocolTCP}
		if r.IntN(2) == 0 {
			cp.HostPort = int32(port)
		}
		c.Ports = []v1.ContainerPort{cp}
	}
	return c
}

// Pods returns one running, ready daemon pod of ds per node, bound by spec.nodeName, carrying
// the controller reference, the template labels, controller-revision-hash=hash and
// pod-template-generation from the DaemonSet's annotation. Pod names are <ds>-<node index>.
func Pods(ds *appsv1.DaemonSet, nodes []*v1.Node, hash string) []*v1.Pod {
	yes := true
	ref := metav1.OwnerReference{
		APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
	out := make([]*v1.Pod, len(nodes))
	for i, node := range nodes {
		labels := make(map[string]string, len(ds.Spec.Template.Labels)+2)
		for k, v := range ds.Spec.Template.Labels {
			labels[k] = v
		}
		labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
		if g, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
			labels["pod-template-generation"] = g
		}
		spec := ds.Spec.Template.Spec.DeepCopy()
		spec.NodeName = node.Name
		out[i] = &v1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Namespace:         ds.Namespace,
				Name:              fmt.Sprintf("%s-%d", ds.Name, i),
				UID:               "pod-uid-" + ds.UID + "-" + node.UID,
				Labels:            labels,
				CreationTimestamp: ds.CreationTimestamp,
				OwnerReferences:   []metav1.OwnerReference{ref},
			},
			Spec: *spec,
			Status: v1.PodStatus{
				Phase: v1.PodRunning,
				Conditions: []v1.PodCondition{{
					Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: ds.CreationTimestamp,
				}},
			},
		}
	}
	return out
}

func required(terms ...v1.NodeSelectorTerm) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}
}

func term(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: reqs}
}

func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// pick returns k distinct values of from, in from's order.
func pick(r *rand.Rand, from []string, k int) []string {
	idx := r.Perm(len(from))[:k]
	out := make([]string, 0, k)
	for i, v := range from {
		for _, j := range idx {
			if i == j {
				out = append(out, v)
			}
		}
	}
	return out
}
