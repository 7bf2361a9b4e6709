// Package workload generates the project's reference cluster: seeded, deterministic nodes,
// DaemonSets and daemon pods shaped like a large multi-pool cloud cluster, for benchmarks and
// property tests. The same seed and size always give the same objects. It never reads a clock
// or global randomness.
//
// The reference workload (issue 6): every node carries 15 labels (hostname, os, arch and their
// beta twins, zone, region, beta zone, instance type, node group, capacity type, tier, disk,
// cores, team); about 3% are control-plane nodes that also carry the empty-valued role label
// node-role.kubernetes.io/control-plane="" and the control-plane NoSchedule taint. Nodes have 0
// to 3 taints (40% none, 30% one, 20% two, 10% three). [ReferenceDaemonSet] is eligible
// (shouldRun) on about 46% of the nodes [Nodes] returns.
package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Label keys the generated nodes carry.
const (
	LabelHostname     = "kubernetes.io/hostname"
	LabelOS           = "kubernetes.io/os"
	LabelArch         = "kubernetes.io/arch"
	LabelOSBeta       = "beta.kubernetes.io/os"
	LabelArchBeta     = "beta.kubernetes.io/arch"
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelZoneBeta     = "failure-domain.beta.kubernetes.io/zone"
	LabelInstanceType = "node.kubernetes.io/instance-type"
	LabelNodeGroup    = "example.com/node-group"
	LabelCapacityType = "example.com/capacity-type"
	LabelTier         = "example.com/tier"
	LabelDisk         = "example.com/disk"
	LabelCores        = "example.com/cores"
	LabelTeam         = "example.com/team"
	LabelControlPlane = "node-role.kubernetes.io/control-plane"
)

// Taint keys the generated nodes carry besides the well-known node.kubernetes.io ones.
const (
	TaintDedicated   = "dedicated"
	TaintSpot        = "example.com/spot"
	TaintMaintenance = "example.com/maintenance"
)

// pool is a node group: every node of a pool shares all labels but hostname and zone.
type pool struct {
	name, os, arch, instanceType, capacity, tier, disk, team string
	cores                                                    int
	region                                                   string
	zones                                                    []string
	weight                                                   int
}

var (
	zonesEast = []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}
	zonesWest = []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}
)

// pools is the fixed catalogue of node groups; weight is the relative share of nodes. The
// reference DaemonSet excludes instance type m5.large and runs only in us-east-1a..c.
var pools = []pool{
	{"general-a", "linux", "amd64", "m5.xlarge", "on-demand", "general", "ssd", "platform", 4, "us-east-1", zonesEast, 14},
	{"general-b", "linux", "amd64", "m5.2xlarge", "on-demand", "general", "ssd", "web", 8, "us-east-1", zonesEast, 12},
	{"small", "linux", "amd64", "m5.large", "spot", "general", "ssd", "web", 2, "us-east-1", zonesEast, 4},
	{"compute", "linux", "amd64", "c6i.4xlarge", "on-demand", "compute", "nvme", "data", 16, "us-east-1", zonesEast, 8},
	{"compute-spot", "linux", "amd64", "c6i.4xlarge", "spot", "compute", "nvme", "batch", 16, "us-east-1", zonesEast, 8},
	{"memory", "linux", "amd64", "r6i.8xlarge", "on-demand", "memory", "ssd", "data", 32, "us-east-1", zonesEast, 5},
	{"arm", "linux", "arm64", "m7g.2xlarge", "on-demand", "general", "ssd", "platform", 8, "us-east-1", zonesEast, 8},
	{"arm-spot", "linux", "arm64", "m7g.xlarge", "spot", "general", "ssd", "batch", 4, "us-east-1", zonesEast, 5},
	{"gpu", "linux", "amd64", "p4d.24xlarge", "on-demand", "gpu", "nvme", "ml", 96, "us-east-1", zonesEast, 3},
	{"storage", "linux", "amd64", "i4i.4xlarge", "on-demand", "storage", "nvme", "data", 16, "us-east-1", zonesEast, 3},
	{"eu-general", "linux", "amd64", "m5.xlarge", "on-demand", "general", "ssd", "web", 4, "eu-west-1", zonesWest, 6},
	{"eu-spot", "linux", "amd64", "m5.large", "spot", "general", "hdd", "batch", 2, "eu-west-1", zonesWest, 4},
	{"windows", "windows", "amd64", "m5.2xlarge", "on-demand", "general", "ssd", "web", 8, "us-east-1", zonesEast, 4},
}

// controlPlanePool holds the control-plane nodes (about 3% of all nodes).
var controlPlanePool = pool{"control-plane", "linux", "amd64", "m5.2xlarge", "on-demand", "system", "ssd", "platform", 8, "us-east-1", zonesEast, 0}

// workerTaints are drawn (without repetition) for every node; control-plane nodes carry the
// control-plane taint in addition, as their first taint.
var workerTaints = []v1.Taint{
	{Key: TaintDedicated, Value: "infra", Effect: v1.TaintEffectNoExecute},
	{Key: TaintDedicated, Value: "gpu", Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeDiskPressure, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule},
	{Key: TaintSpot, Value: "true", Effect: v1.TaintEffectPreferNoSchedule},
	{Key: TaintMaintenance, Effect: v1.TaintEffectNoExecute},
}

var controlPlaneTaint = v1.Taint{Key: LabelControlPlane, Effect: v1.TaintEffectNoSchedule}

func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

// NodeName is the name of the i-th generated node.
func NodeName(i int) string { return fmt.Sprintf("node-%06d", i) }

// Nodes returns n nodes named NodeName(0..n-1), generated from seed. Each call returns fresh
// objects that the caller may modify.
func Nodes(seed int64, n int) []*v1.Node {
	r := newRand(seed)
	total := 0
	for _, p := range pools {
		total += p.weight
	}
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		p := &controlPlanePool
		if r.IntN(100) >= 3 {
			w := r.IntN(total)
			for j := range pools {
				if w < pools[j].weight {
					p = &pools[j]
					break
				}
				w -= pools[j].weight
			}
		}
		nodes[i] = newNode(r, NodeName(i), p, p == &controlPlanePool)
	}
	return nodes
}

// Node returns one node like those of Nodes, drawn from r's stream for seed and index i: the
// same (seed, i) always gives the same node, so property tests can draw "a changed node".
func Node(seed int64, i int) *v1.Node {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
	nodes := Nodes(int64(r.Uint64()>>1), 1)
	nodes[0].Name = NodeName(i)
	nodes[0].Labels[LabelHostname] = NodeName(i)
	return nodes[0]
}

func newNode(r *rand.Rand, name string, p *pool, controlPlane bool) *v1.Node {
	zone := p.zones[r.IntN(len(p.zones))]
	labels := make(map[string]string, 16) // 15 labels, 16 on control-plane nodes
	labels[LabelHostname] = name
	labels[LabelOS] = p.os
	labels[LabelArch] = p.arch
	labels[LabelOSBeta] = p.os
	labels[LabelArchBeta] = p.arch
	labels[LabelZone] = zone
	labels[LabelRegion] = p.region
	labels[LabelZoneBeta] = zone
	labels[LabelInstanceType] = p.instanceType
	labels[LabelNodeGroup] = p.name
	labels[LabelCapacityType] = p.capacity
	labels[LabelTier] = p.tier
	labels[LabelDisk] = p.disk
	labels[LabelCores] = strconv.Itoa(p.cores)
	labels[LabelTeam] = p.team
	var taints []v1.Taint
	if controlPlane {
		labels[LabelControlPlane] = ""
		taints = append(taints, controlPlaneTaint)
	}
	count := 0
	switch x := r.IntN(10); {
	case x < 4:
		count = 0
	case x < 7:
		count = 1
	case x < 9:
		count = 2
	default:
		count = 3
	}
	if controlPlane && count > 0 {
		count-- // the control-plane taint is one of the node's 0 to 3
	}
	picked := r.Perm(len(workerTaints))[:count]
	for _, k := range picked {
		taints = append(taints, workerTaints[k])
	}
	return &v1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels},
		Spec:       v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			Allocatable: v1.ResourceList{
				v1.ResourceCPU:    *resource.NewQuantity(int64(p.cores), resource.DecimalSI),
				v1.ResourceMemory: *resource.NewQuantity(int64(p.cores)*4<<30, resource.BinarySI),
				v1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
			},
		},
	}
}

// created is the creationTimestamp of the first generated DaemonSet; the i-th is i seconds later.
var created = metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ReferenceDaemonSet returns the reference DaemonSet kube-system/node-agent: nodeSelector
// kubernetes.io/os=linux; required affinity (zone In [us-east-1a, us-east-1b, us-east-1c] AND
// instance-type NotIn [m5.large]) OR control-plane Exists; tolerations control-plane Exists
// NoSchedule, dedicated=infra Equal (any effect) and maintenance Exists NoExecute. It carries
// the API defaults (DFLT-1, DFLT-2) and the template generation annotation (DFLT-4).
func ReferenceDaemonSet() *appsv1.DaemonSet {
	ds := baseDaemonSet("kube-system", "node-agent", 0)
	spec := &ds.Spec.Template.Spec
	spec.NodeSelector = map[string]string{LabelOS: "linux"}
	spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: LabelZone, Operator: v1.NodeSelectorOpIn, Values: []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
				{Key: LabelInstanceType, Operator: v1.NodeSelectorOpNotIn, Values: []string{"m5.large"}},
			}},
			{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: LabelControlPlane, Operator: v1.NodeSelectorOpExists},
			}},
		}},
	}}
	spec.Tolerations = []v1.Toleration{
		{Key: LabelControlPlane, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: TaintDedicated, Operator: v1.TolerationOpEqual, Value: "infra"},
		{Key: TaintMaintenance, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	}
	spec.Containers = []v1.Container{{
		Name:  "agent",
		Image: "registry.example.com/node-agent:1.0.0",
		Ports: []v1.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100, Protocol: v1.ProtocolTCP}},
		Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")},
		},
	}}
	return ds
}

func baseDaemonSet(namespace, name string, i int) *appsv1.DaemonSet {
	labels := map[string]string{"app.kubernetes.io/name": name}
	maxUnavailable := intstr.FromInt32(1)
	maxSurge := intstr.FromInt32(0)
	history := int32(10)
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         namespace,
			Name:              name,
			UID:               types.UID(fmt.Sprintf("ds-uid-%s-%s", namespace, name)),
			Generation:        1,
			CreationTimestamp: metav1.NewTime(created.Add(time.Duration(i) * time.Second)),
			Annotations:       map[string]string{appsv1.DeprecatedTemplateGeneration: "1"},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &maxUnavailable, MaxSurge: &maxSurge},
			},
			RevisionHistoryLimit: &history,
		},
	}
}
