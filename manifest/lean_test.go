package manifest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"
)

// leanKept lists, for each struct lean reading trims, the fields it keeps (D-16); every other
// field is dropped. TestLeanClassifiesEveryField holds keepPod and keepNode to it, field by
// field, and fails on a field of k8s.io/api that is in neither list: whoever upgrades k8s.io/api
// decides whether the plan reads it.
var leanKept = map[reflect.Type][]string{
	reflect.TypeFor[v1.Pod]():  {"TypeMeta", "ObjectMeta", "Spec", "Status"},
	reflect.TypeFor[v1.Node](): {"TypeMeta", "ObjectMeta", "Spec", "Status"},
	// The scheduler's verdict in rollout.Progress (plan's table) reads the containers, the
	// overhead, the pod-level resources, the priority, hostNetwork and hostUsers.
	reflect.TypeFor[v1.PodSpec](): {"NodeName", "Affinity", "TerminationGracePeriodSeconds",
		"Containers", "InitContainers", "EphemeralContainers", "Overhead", "Resources", "Priority", "PriorityClassName",
		"PreemptionPolicy", "HostNetwork", "HostUsers"},
	// rollout.Progress names a container's waiting reason.
	reflect.TypeFor[v1.PodStatus]():  {"Phase", "Conditions", "StartTime", "ContainerStatuses", "InitContainerStatuses"},
	reflect.TypeFor[v1.NodeSpec]():   {"Taints"},
	reflect.TypeFor[v1.NodeStatus](): {"Conditions", "Allocatable", "DeclaredFeatures"},
	// Of a container (and an ephemeral container's common part), what the scheduler reads.
	reflect.TypeFor[v1.Container]():             {"Resources", "RestartPolicy", "RestartPolicyRules", "Ports", "VolumeMounts"},
	reflect.TypeFor[v1.ResourceRequirements]():  {"Limits", "Requests"},
	reflect.TypeFor[v1.EphemeralContainer]():    {"EphemeralContainerCommon"},
	reflect.TypeFor[v1.ContainerStatus]():       {"State"},
	reflect.TypeFor[v1.ContainerState]():        {"Waiting"},
	reflect.TypeFor[v1.ContainerStateWaiting](): {"Reason"},
}

// leanKeptMeta is the same for the ObjectMeta of pods and of nodes.
var leanKeptMeta = map[reflect.Type][]string{
	reflect.TypeFor[v1.Pod](): {"Name", "Namespace", "UID", "ResourceVersion", "CreationTimestamp", "DeletionTimestamp",
		"Labels", "OwnerReferences", "ManagedFields", "Finalizers"},
	reflect.TypeFor[v1.Node](): {"Name", "UID", "ResourceVersion", "CreationTimestamp", "Labels", "ManagedFields"},
}

// leanDropped lists the fields lean reading drops, so that a new field is noticed.
var leanDropped = map[reflect.Type][]string{
	reflect.TypeFor[v1.PodSpec](): {"Volumes", "RestartPolicy",
		"ActiveDeadlineSeconds", "DNSPolicy", "NodeSelector", "ServiceAccountName",
		"DeprecatedServiceAccount", "AutomountServiceAccountToken", "HostPID", "HostIPC",
		"ShareProcessNamespace", "SecurityContext", "ImagePullSecrets", "Hostname", "Subdomain", "SchedulerName",
		"Tolerations", "HostAliases", "DNSConfig", "ReadinessGates", "RuntimeClassName",
		"EnableServiceLinks", "TopologySpreadConstraints", "SetHostnameAsFQDN", "OS",
		"SchedulingGates", "ResourceClaims", "HostnameOverride", "SchedulingGroup",
		"EvictionResponders"}, // new in 1.37; pkg/controller/daemon never reads it
	reflect.TypeFor[v1.PodStatus](): {"ObservedGeneration", "Message", "Reason", "NominatedNodeName", "HostIP", "HostIPs",
		"PodIP", "PodIPs", "QOSClass", "EphemeralContainerStatuses",
		"Resize", "ResourceClaimStatuses", "ExtendedResourceClaimStatus", "AllocatedResources", "Resources",
		"NodeAllocatableResourceClaimStatuses", "VolumeHealth"}, // VolumeHealth: new in 1.37
	reflect.TypeFor[v1.NodeSpec](): {"PodCIDR", "PodCIDRs", "ProviderID", "Unschedulable", "ConfigSource", "DoNotUseExternalID",
		"PodPreemptionPolicy"}, // new in 1.37, read by the scheduler and kubelet only
	reflect.TypeFor[v1.NodeStatus](): {"Capacity", "Phase", "Addresses", "DaemonEndpoints", "NodeInfo",
		"Images", "VolumesInUse", "VolumesAttached", "Config", "RuntimeHandlers", "Features"},
	reflect.TypeFor[v1.Container](): {"Name", "Image", "Command", "Args", "WorkingDir", "EnvFrom", "Env", "ResizePolicy",
		"VolumeDevices", "LivenessProbe", "ReadinessProbe", "StartupProbe", "Lifecycle", "TerminationMessagePath",
		"TerminationMessagePolicy", "ImagePullPolicy", "SecurityContext", "Stdin", "StdinOnce", "TTY"},
	reflect.TypeFor[v1.ResourceRequirements](): {"Claims"},
	reflect.TypeFor[v1.EphemeralContainer]():   {"TargetContainerName"},
	reflect.TypeFor[v1.ContainerStatus](): {"Name", "LastTerminationState", "Ready", "RestartCount", "Image", "ImageID",
		"ContainerID", "Started", "AllocatedResources", "Resources", "VolumeMounts", "User", "AllocatedResourcesStatus", "StopSignal"},
	reflect.TypeFor[v1.ContainerState]():        {"Running", "Terminated"},
	reflect.TypeFor[v1.ContainerStateWaiting](): {"Message"},
}

// leanDroppedMeta lists the ObjectMeta fields dropped; together with leanKeptMeta, all of them.
var leanDroppedMeta = map[reflect.Type][]string{
	reflect.TypeFor[v1.Pod](): {"GenerateName", "SelfLink", "Generation", "DeletionGracePeriodSeconds", "Annotations"},
	reflect.TypeFor[v1.Node](): {"GenerateName", "Namespace", "SelfLink", "Generation", "DeletionTimestamp",
		"DeletionGracePeriodSeconds", "Annotations", "OwnerReferences", "Finalizers"},
}

// fieldNames returns the names of t's fields.
func fieldNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// filler sets every field (no nil), with timestamps around shapefuzz.Base and phases a plan
// tells apart, so that a plan reading a dropped one would notice.
func filler(seed uint64) *randfill.Filler {
	near := func(c randfill.Continue) metav1.Time {
		return metav1.NewTime(shapefuzz.Base.Add(time.Duration(c.Intn(7200)-3600) * time.Second))
	}
	return randfill.NewWithSeed(int64(seed)).NilChance(0).NumElements(1, 2).Funcs(
		func(t **metav1.Time, c randfill.Continue) { *t = new(near(c)) },
		func(t *metav1.Time, c randfill.Continue) { *t = near(c) },
		func(p *v1.PodPhase, c randfill.Continue) {
			*p = []v1.PodPhase{v1.PodRunning, v1.PodPending, v1.PodFailed, v1.PodSucceeded, ""}[c.Intn(5)]
		},
		// Resources, ports and waiting reasons the scheduler's verdict and rollout.Progress
		// tell apart: requests against allocatable, host ports that conflict, a stuck reason.
		func(l *v1.ResourceList, c randfill.Continue) {
			*l = v1.ResourceList{}
			for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods, "example.com/gpu"} {
				if c.Intn(3) > 0 {
					(*l)[name] = *resource.NewQuantity(int64(c.Intn(4)), resource.DecimalSI)
				}
			}
		},
		func(p *v1.ContainerPort, c randfill.Continue) {
			c.FillNoCustom(p)
			p.HostPort, p.ContainerPort, p.HostIP = int32(c.Intn(3)*80), int32(80+c.Intn(2)), ""
			p.Protocol = []v1.Protocol{v1.ProtocolTCP, v1.ProtocolUDP, ""}[c.Intn(3)]
		},
		func(w *v1.ContainerStateWaiting, c randfill.Continue) {
			c.FillNoCustom(w)
			if c.Intn(2) == 0 {
				w.Reason = "CrashLoopBackOff"
			}
		},
	)
}

// filledPod and filledNode return an object with every field set.
func filledPod(seed uint64) *v1.Pod {
	p := &v1.Pod{}
	filler(seed).Fill(p)
	return p
}

func filledNode(seed uint64) *v1.Node {
	n := &v1.Node{}
	filler(seed).Fill(n)
	return n
}

// TestLeanClassifiesEveryField (D-16) requires every field of the trimmed structs to be listed
// as kept or dropped, and keepPod and keepNode to keep exactly the kept ones: on objects with
// every field set, a kept field is still set after trimming and a dropped one is zero.
func TestLeanClassifiesEveryField(t *testing.T) {
	for typ, kept := range leanKept {
		listed := append(slices.Clone(kept), leanDropped[typ]...) // Pod and Node: all four kept
		got := fieldNames(typ)
		slices.Sort(got)
		slices.Sort(listed)
		if diff := cmp.Diff(listed, got); diff != "" {
			t.Errorf("%v: fields not classified as kept or dropped by lean reading (-listed +k8s.io/api):\n%s", typ, diff)
		}
	}
	metaType := reflect.TypeFor[v1.Pod]().Field(1).Type
	for typ, kept := range leanKeptMeta {
		listed := append(slices.Clone(kept), leanDroppedMeta[typ]...)
		got := fieldNames(metaType)
		slices.Sort(got)
		slices.Sort(listed)
		if diff := cmp.Diff(listed, got); diff != "" {
			t.Errorf("%v ObjectMeta: fields not classified (-listed +k8s.io/api):\n%s", typ, diff)
		}
	}
	for seed := range uint64(20) {
		pod, node := filledPod(seed), filledNode(seed)
		leanPod, leanNode := pod.DeepCopy(), node.DeepCopy()
		leanObject(leanPod)
		leanObject(leanNode)
		check := func(what string, full, lean reflect.Value, kept, dropped []string) {
			for _, name := range kept {
				if !full.FieldByName(name).IsZero() && lean.FieldByName(name).IsZero() {
					t.Errorf("seed %d: %s.%s: kept, but zero after trimming", seed, what, name)
				}
			}
			for _, name := range dropped {
				if full.FieldByName(name).IsZero() {
					continue // randfill left it zero (a bool false)
				}
				if !lean.FieldByName(name).IsZero() {
					t.Errorf("seed %d: %s.%s: dropped, but set after trimming", seed, what, name)
				}
			}
		}
		pv, lpv := reflect.ValueOf(pod).Elem(), reflect.ValueOf(leanPod).Elem()
		podType := reflect.TypeFor[v1.Pod]()
		check("Pod.metadata", pv.Field(1), lpv.Field(1), leanKeptMeta[podType], leanDroppedMeta[podType])
		check("Pod.spec", pv.FieldByName("Spec"), lpv.FieldByName("Spec"), leanKept[reflect.TypeFor[v1.PodSpec]()], leanDropped[reflect.TypeFor[v1.PodSpec]()])
		check("Pod.status", pv.FieldByName("Status"), lpv.FieldByName("Status"), leanKept[reflect.TypeFor[v1.PodStatus]()], leanDropped[reflect.TypeFor[v1.PodStatus]()])
		nv, lnv := reflect.ValueOf(node).Elem(), reflect.ValueOf(leanNode).Elem()
		nodeType := reflect.TypeFor[v1.Node]()
		check("Node.metadata", nv.Field(1), lnv.Field(1), leanKeptMeta[nodeType], leanDroppedMeta[nodeType])
		check("Node.spec", nv.FieldByName("Spec"), lnv.FieldByName("Spec"), leanKept[reflect.TypeFor[v1.NodeSpec]()], leanDropped[reflect.TypeFor[v1.NodeSpec]()])
		check("Node.status", nv.FieldByName("Status"), lnv.FieldByName("Status"), leanKept[reflect.TypeFor[v1.NodeStatus]()], leanDropped[reflect.TypeFor[v1.NodeStatus]()])
		checkAs := func(what string, full, lean any) {
			typ := reflect.TypeOf(full)
			check(what, reflect.ValueOf(full), reflect.ValueOf(lean), leanKept[typ], leanDropped[typ])
		}
		for i := range pod.Spec.Containers {
			checkAs("Pod.spec.containers[]", pod.Spec.Containers[i], leanPod.Spec.Containers[i])
			checkAs("Pod.spec.containers[].resources", pod.Spec.Containers[i].Resources, leanPod.Spec.Containers[i].Resources)
		}
		for i := range pod.Spec.InitContainers {
			checkAs("Pod.spec.initContainers[]", pod.Spec.InitContainers[i], leanPod.Spec.InitContainers[i])
		}
		for i := range pod.Spec.EphemeralContainers {
			checkAs("Pod.spec.ephemeralContainers[]", pod.Spec.EphemeralContainers[i], leanPod.Spec.EphemeralContainers[i])
			checkAs("Pod.spec.ephemeralContainers[] common", v1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon),
				v1.Container(leanPod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
		}
		// Filled, every status waits (no nil): each is kept, with its waiting reason alone.
		for _, l := range []struct{ full, lean []v1.ContainerStatus }{
			{pod.Status.ContainerStatuses, leanPod.Status.ContainerStatuses}, {pod.Status.InitContainerStatuses, leanPod.Status.InitContainerStatuses},
		} {
			require.Len(t, l.lean, len(l.full))
			for i := range l.full {
				checkAs("Pod.status.containerStatuses[]", l.full[i], l.lean[i])
				checkAs("Pod.status.containerStatuses[].state", l.full[i].State, l.lean[i].State)
				checkAs("Pod.status.containerStatuses[].state.waiting", *l.full[i].State.Waiting, *l.lean[i].State.Waiting)
			}
		}
		// Kept whole, as read: everything but managedFields and the affinity beyond the
		// required node affinity.
		if !reflect.DeepEqual(pod.Labels, leanPod.Labels) || !reflect.DeepEqual(pod.OwnerReferences, leanPod.OwnerReferences) ||
			!reflect.DeepEqual(readPodConditions(pod), readPodConditions(leanPod)) || !reflect.DeepEqual(node.Spec.Taints, leanNode.Spec.Taints) ||
			!reflect.DeepEqual(readNodeConditions(node), readNodeConditions(leanNode)) || !reflect.DeepEqual(node.Labels, leanNode.Labels) ||
			!reflect.DeepEqual(pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
				leanPod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution) {
			t.Errorf("seed %d: a kept field changed in trimming", seed)
		}
		if leanPod.Spec.Affinity.PodAffinity != nil || leanPod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
			t.Errorf("seed %d: affinity beyond the required node affinity kept", seed)
		}
		if got := Latest(daemonset.Snapshot{Pods: []*v1.Pod{leanPod}, Nodes: []*v1.Node{leanNode}}); !got.Equal(Latest(daemonset.Snapshot{Pods: []*v1.Pod{pod}, Nodes: []*v1.Node{node}})) {
			t.Errorf("seed %d: Latest changed by trimming: %v", seed, got)
		}
		if HandWritten(pod) != HandWritten(leanPod) || HandWritten(node) != HandWritten(leanNode) {
			t.Errorf("seed %d: HandWritten changed by trimming", seed)
		}
	}
}

// withRandomDropped returns a copy of pod whose dropped fields (D-16) are drawn at random and
// whose kept fields are pod's: if the plan read a dropped field, it would tell them apart.
func withRandomDroppedPod(pod *v1.Pod, r *rand.Rand) *v1.Pod {
	out := filledPod(r.Uint64())
	random, randomConditions := out.Spec.Affinity, out.Status.Conditions
	spec, status := out.Spec, out.Status
	keepPod(out, pod)
	// shapefuzz draws no containers, priorities or container statuses: those the filler drew
	// stay, kept fields and dropped ones alike, so that the scheduler's verdicts and the stuck
	// reasons of rollout.Progress judge real values and would notice a dropped field.
	out.Spec.Containers, out.Spec.InitContainers, out.Spec.EphemeralContainers = spec.Containers, spec.InitContainers, spec.EphemeralContainers
	out.Spec.Overhead, out.Spec.Resources = spec.Overhead, spec.Resources
	out.Spec.Priority, out.Spec.PriorityClassName, out.Spec.PreemptionPolicy = spec.Priority, spec.PriorityClassName, spec.PreemptionPolicy
	out.Spec.HostNetwork, out.Spec.HostUsers = spec.HostNetwork, spec.HostUsers
	out.Status.ContainerStatuses, out.Status.InitContainerStatuses = status.ContainerStatuses, status.InitContainerStatuses
	for _, list := range [][]v1.ContainerStatus{out.Status.ContainerStatuses, out.Status.InitContainerStatuses} {
		for i := range list {
			if r.IntN(2) == 0 {
				list[i].State.Waiting = nil // running or terminated: no reason
			}
		}
	}
	// The affinity beyond the required node affinity is dropped too: random as well.
	if out.Spec.Affinity == nil {
		out.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}
	}
	out.Spec.Affinity.PodAffinity, out.Spec.Affinity.PodAntiAffinity = random.PodAffinity, random.PodAntiAffinity
	out.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = random.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	// So are the conditions of the types nobody reads: random ones among the kept.
	for _, c := range randomConditions {
		c.Type = []v1.PodConditionType{v1.PodInitialized, v1.ContainersReady, v1.PodReadyToStartContainers, v1.DisruptionTarget, "Other"}[r.IntN(5)]
		c.Status = []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}[r.IntN(3)]
		i := r.IntN(len(out.Status.Conditions) + 1)
		out.Status.Conditions = slices.Insert(out.Status.Conditions, i, c)
	}
	return out
}

func withRandomDroppedNode(node *v1.Node, r *rand.Rand) *v1.Node {
	out := filledNode(r.Uint64())
	random, allocatable := out.Status.Conditions, out.Status.Allocatable
	keepNode(out, node)
	// shapefuzz's allocatable names no resource the scheduler counts: the filler's does.
	out.Status.Allocatable = allocatable
	// Conditions of the types nobody reads are dropped: random ones among the kept.
	for _, c := range random {
		c.Type = []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure, v1.NodeNetworkUnavailable, "Other"}[r.IntN(5)]
		c.Status = []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}[r.IntN(3)]
		i := r.IntN(len(out.Status.Conditions) + 1)
		out.Status.Conditions = slices.Insert(out.Status.Conditions, i, c)
	}
	return out
}

// readPodConditions and readNodeConditions are the conditions of the types something reads
// (a pod's Ready and PodScheduled, a node's Ready), in their order: those lean reading keeps.
func readPodConditions(p *v1.Pod) []v1.PodCondition {
	return slices.DeleteFunc(slices.Clone(p.Status.Conditions), func(c v1.PodCondition) bool {
		return c.Type != v1.PodReady && c.Type != v1.PodScheduled
	})
}

func readNodeConditions(n *v1.Node) []v1.NodeCondition {
	return slices.DeleteFunc(slices.Clone(n.Status.Conditions), func(c v1.NodeCondition) bool { return c.Type != v1.NodeReady })
}

// TestLeanKeepsWhatThePlanReads is the property behind D-16: on shaped clusters
// (internal/shapefuzz) whose nodes and pods have every dropped field drawn at random, the
// cluster plan, every DaemonSet's rollout.Progress report (which plan's table reads), every
// explanation of every node, the pods on each node and Latest are the same as on the trimmed
// objects. A field the plan starts reading that lean reading drops fails it.
func TestLeanKeepsWhatThePlanReads(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		data := binary.LittleEndian.AppendUint64(nil, r.Uint64())
		data = binary.LittleEndian.AppendUint64(data, r.Uint64())
		data = binary.LittleEndian.AppendUint64(data, r.Uint64())
		c := shapefuzz.New(data)
		currentPods(c, r)
		full := daemonset.Snapshot{DaemonSets: c.DaemonSets, Revisions: c.Revisions}
		for _, n := range c.Nodes {
			full.Nodes = append(full.Nodes, withRandomDroppedNode(n, r))
		}
		for _, p := range c.Pods {
			full.Pods = append(full.Pods, withRandomDroppedPod(p, r))
		}
		lean := full
		lean.Nodes, lean.Pods = nil, nil
		for _, n := range full.Nodes {
			n = n.DeepCopy()
			leanObject(n)
			lean.Nodes = append(lean.Nodes, n)
		}
		for _, p := range full.Pods {
			p = p.DeepCopy()
			leanObject(p)
			lean.Pods = append(lean.Pods, p)
		}
		if !Latest(full).Equal(Latest(lean)) {
			t.Fatalf("cluster %d: Latest %v, lean %v", i, Latest(full), Latest(lean))
		}
		opts := daemonset.Options{Now: shapefuzz.Base}
		want, errFull := full.Plan(opts)
		got, errLean := lean.Plan(opts)
		if (errFull == nil) != (errLean == nil) {
			t.Fatalf("cluster %d: error %v, lean %v", i, errFull, errLean)
		}
		if errFull != nil {
			continue
		}
		if a, b := jsonOf(t, want), jsonOf(t, got); a != b {
			t.Fatalf("cluster %d: the plan differs when trimmed:\nfull %s\nlean %s", i, a, b)
		}
		// The plan command's table asks rollout.Progress who holds a waiting rollout's budget
		// (internal/cli budgetHolders): its report is the same too.
		for j, ds := range full.DaemonSets {
			popts := rollout.ProgressOptions{Now: opts.Now}
			a, errA := rollout.Progress(full, ds, popts)
			b, errB := rollout.Progress(lean, lean.DaemonSets[j], popts)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("cluster %d: progress of %s/%s: error %v, lean %v", i, ds.Namespace, ds.Name, errA, errB)
			}
			if x, y := jsonOf(t, a), jsonOf(t, b); x != y {
				t.Fatalf("cluster %d: progress of %s/%s differs when trimmed:\nfull %s\nlean %s", i, ds.Namespace, ds.Name, x, y)
			}
		}
		for j, ds := range full.DaemonSets {
			p, _ := daemonset.Compile(ds, opts)
			leanP, _ := daemonset.Compile(lean.DaemonSets[j], opts)
			for k, n := range full.Nodes {
				if a, b := p.Explain(n).String(), leanP.Explain(lean.Nodes[k]).String(); a != b {
					t.Fatalf("cluster %d: explain of %q differs when trimmed:\n%s\n%s", i, n.Name, a, b)
				}
				for _, ds := range full.DaemonSets {
					a := podsOnNode(ds, n.Name, full.Pods)
					if b := podsOnNode(ds, n.Name, lean.Pods); a != b {
						t.Fatalf("cluster %d: pods on %q differ when trimmed:\n%s\n%s", i, n.Name, a, b)
					}
				}
			}
		}
	}
}

// currentPods makes some of c's pods of a DaemonSet pods of its current revision (UPD-3), and
// some of those pending daemon pods (targeting their node by required node affinity, unbound),
// so that rollout.Progress judges them: whether they are stuck (a container's waiting reason)
// and what the scheduler would say of the pending ones. shapefuzz's pods are rarely current.
func currentPods(c shapefuzz.Cluster, r *rand.Rand) {
	plan, err := daemonset.Snapshot{DaemonSets: c.DaemonSets, Nodes: c.Nodes, Pods: c.Pods, Revisions: c.Revisions}.Plan(daemonset.Options{Now: shapefuzz.Base})
	if err != nil {
		return
	}
	for _, pod := range c.Pods {
		for _, res := range plan.DaemonSets {
			i := slices.IndexFunc(c.DaemonSets, func(ds *appsv1.DaemonSet) bool { return ds.Namespace == res.Namespace && ds.Name == res.Name })
			if res.RevisionHash == "" || !daemonset.NewestVersion().IsControlledBy(pod, c.DaemonSets[i]) || r.IntN(3) == 0 {
				continue
			}
			labels := maps.Clone(pod.Labels)
			if labels == nil {
				labels = map[string]string{}
			}
			labels[appsv1.DefaultDaemonSetUniqueLabelKey] = res.RevisionHash
			pod.Labels = labels
			if node := pod.Spec.NodeName; node != "" && r.IntN(2) == 0 {
				pod.Spec.NodeName = ""
				pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
						Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
			}
		}
	}
}

// podsOnNode lists the pods ds controls on node, with their readiness, as explain shows them.
func podsOnNode(ds *appsv1.DaemonSet, node string, pods []*v1.Pod) string {
	var b strings.Builder
	for _, p := range pods {
		if n, _ := affinity.TargetNodeName(p); n == node && daemonset.NewestVersion().IsControlledBy(p, ds) {
			fmt.Fprintf(&b, "%s/%s ready=%v; ", p.Namespace, p.Name, daemonset.IsPodReady(p))
		}
	}
	return b.String()
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLeanReadsTheSamePlan reads a realistic kubectl dump (internal/kubectldump), as YAML and
// as JSON, with and without Options.Lean: the same sources, warnings, Latest, cluster plan and
// rollout.Progress reports, and nodes and pods without what lean reading drops.
func TestLeanReadsTheSamePlan(t *testing.T) {
	yamlDump, jsonDump := generatedDump(t, 40)
	for name, data := range map[string][]byte{"yaml": yamlDump, "json": jsonDump, "real": kubectldump.Real()} {
		read := func(lean bool) *Result {
			res, err := ReadInputs([]Input{{Name: "dump", Data: bytes.Clone(data)}}, Options{Lean: lean, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		full, lean := read(false), read(true)
		if diff := cmp.Diff(full.Sources, lean.Sources); diff != "" {
			t.Errorf("%s: sources differ:\n%s", name, diff)
		}
		if diff := cmp.Diff(full.Warnings, lean.Warnings); diff != "" {
			t.Errorf("%s: warnings differ:\n%s", name, diff)
		}
		if !Latest(full.Snapshot).Equal(Latest(lean.Snapshot)) {
			t.Errorf("%s: Latest differs", name)
		}
		opts := daemonset.Options{Now: Latest(full.Snapshot)}
		a, err := full.Snapshot.Plan(opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := lean.Snapshot.Plan(opts)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, a) != jsonOf(t, b) {
			t.Errorf("%s: the plan differs when read lean", name)
		}
		for j, ds := range full.Snapshot.DaemonSets {
			popts := rollout.ProgressOptions{Now: opts.Now}
			a, errA := rollout.Progress(full.Snapshot, ds, popts)
			b, errB := rollout.Progress(lean.Snapshot, lean.Snapshot.DaemonSets[j], popts)
			if (errA == nil) != (errB == nil) || jsonOf(t, a) != jsonOf(t, b) {
				t.Errorf("%s: progress of %s/%s differs when read lean:\nfull %s %v\nlean %s %v", name, ds.Namespace, ds.Name, jsonOf(t, a), errA, jsonOf(t, b), errB)
			}
		}
		for _, p := range lean.Snapshot.Pods {
			// A running pod's container statuses do not wait: none is kept.
			if p.Spec.Volumes != nil || p.Spec.Tolerations != nil || p.Status.ContainerStatuses != nil || len(p.ManagedFields) > 1 ||
				slices.ContainsFunc(p.Spec.Containers, func(c v1.Container) bool { return c.Image != "" || c.Name != "" || c.Env != nil }) {
				t.Errorf("%s: pod %s not trimmed", name, p.Name)
			}
		}
		for _, n := range lean.Snapshot.Nodes {
			if n.Status.Images != nil || n.Status.Capacity != nil || n.Status.Addresses != nil || len(n.ManagedFields) > 1 {
				t.Errorf("%s: node %s not trimmed", name, n.Name)
			}
		}
	}
}

// TestLeanKeepsTheConditionsRead (D-16): of a pod's conditions lean reading keeps Ready
// (readiness and availability, UPD-12, UPD-13) and PodScheduled (rollout.Progress, which plan's
// table asks who holds the budget), of a node's Ready (internal/nodehealth), each in its order;
// another is kept only when its time is the latest the object carries, for Latest.
func TestLeanKeepsTheConditionsRead(t *testing.T) {
	at := func(min int) metav1.Time { return metav1.NewTime(shapefuzz.Base.Add(time.Duration(min) * time.Minute)) }
	podWith := func(conds ...v1.PodCondition) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: at(0),
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Time: new(at(10))}}}, Status: v1.PodStatus{Conditions: conds}}
	}
	pc := func(typ v1.PodConditionType, min int) v1.PodCondition {
		return v1.PodCondition{Type: typ, Status: v1.ConditionTrue, LastTransitionTime: at(min)}
	}
	nodeWith := func(conds ...v1.NodeCondition) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", CreationTimestamp: at(0),
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Time: new(at(10))}}}, Status: v1.NodeStatus{Conditions: conds}}
	}
	nc := func(typ v1.NodeConditionType, transition, heartbeat int) v1.NodeCondition {
		return v1.NodeCondition{Type: typ, Status: v1.ConditionFalse, LastTransitionTime: at(transition), LastHeartbeatTime: at(heartbeat)}
	}
	tests := []struct {
		name      string
		pod       *v1.Pod
		node      *v1.Node
		wantPod   []v1.PodCondition
		wantNodes []v1.NodeCondition
	}{{
		name:    "a running pod's five conditions keep Ready and PodScheduled in their order",
		pod:     podWith(pc(v1.PodReadyToStartContainers, 3), pc(v1.PodInitialized, 1), pc(v1.PodReady, 5), pc(v1.ContainersReady, 5), pc(v1.PodScheduled, 0)),
		wantPod: []v1.PodCondition{pc(v1.PodReady, 5), pc(v1.PodScheduled, 0)},
	}, {
		name:    "a second Ready condition is kept behind the first",
		pod:     podWith(pc(v1.PodReady, 5), pc(v1.ContainersReady, 5), pc(v1.PodReady, 6)),
		wantPod: []v1.PodCondition{pc(v1.PodReady, 5), pc(v1.PodReady, 6)},
	}, {
		name:    "a dropped type holding the latest time is kept, the latest one only",
		pod:     podWith(pc(v1.PodInitialized, 11), pc(v1.PodReady, 5), pc(v1.ContainersReady, 12)),
		wantPod: []v1.PodCondition{pc(v1.PodReady, 5), pc(v1.ContainersReady, 12)},
	}, {
		name:    "a dropped type no later than what is kept goes",
		pod:     podWith(pc(v1.ContainersReady, 10), pc(v1.PodReady, 5)),
		wantPod: []v1.PodCondition{pc(v1.PodReady, 5)},
	}, {
		name:    "no conditions stay none",
		pod:     podWith(),
		wantPod: nil,
	}, {
		name:      "a node's conditions keep Ready",
		node:      nodeWith(nc(v1.NodeMemoryPressure, 0, 10), nc(v1.NodeDiskPressure, 0, 10), nc(v1.NodeReady, 1, 10), nc(v1.NodePIDPressure, 0, 10)),
		wantNodes: []v1.NodeCondition{nc(v1.NodeReady, 1, 10)},
	}, {
		name:      "a node's later heartbeat on a dropped type is kept",
		node:      nodeWith(nc(v1.NodeMemoryPressure, 0, 13), nc(v1.NodeReady, 1, 10)),
		wantNodes: []v1.NodeCondition{nc(v1.NodeMemoryPressure, 0, 13), nc(v1.NodeReady, 1, 10)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, leanS daemonset.Snapshot
			if tt.pod != nil {
				lean := tt.pod.DeepCopy()
				leanObject(lean)
				if diff := cmp.Diff(tt.wantPod, lean.Status.Conditions); diff != "" {
					t.Errorf("pod conditions (-want +got):\n%s", diff)
				}
				s.Pods, leanS.Pods = []*v1.Pod{tt.pod}, []*v1.Pod{lean}
			}
			if tt.node != nil {
				lean := tt.node.DeepCopy()
				leanObject(lean)
				if diff := cmp.Diff(tt.wantNodes, lean.Status.Conditions); diff != "" {
					t.Errorf("node conditions (-want +got):\n%s", diff)
				}
				s.Nodes, leanS.Nodes = []*v1.Node{tt.node}, []*v1.Node{lean}
			}
			require.True(t, Latest(s).Equal(Latest(leanS)), "Latest %v, lean %v", Latest(s), Latest(leanS))
		})
	}
}

// TestLeanPodsShareEqualLabels (D-16): read lean, pods whose labels are equal (the pods of one
// DaemonSet revision) share one label map, others keep their own, and nothing is shared when
// every field is read.
func TestLeanPodsShareEqualLabels(t *testing.T) {
	pod := func(name, hash string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: kube-system\n  labels:\n    app: agent\n    controller-revision-hash: %q\n", name, hash)
	}
	data := []byte(pod("a", "1") + "---\n" + pod("b", "1") + "---\n" + pod("c", "2"))
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	for _, lean := range []bool{true, false} {
		res, err := ReadInputs([]Input{{Name: "pods", Data: data}}, Options{Lean: lean, Workers: 2})
		require.NoError(t, err)
		ps := res.Snapshot.Pods
		require.Len(t, ps, 3)
		slices.SortFunc(ps, func(x, y *v1.Pod) int { return strings.Compare(x.Name, y.Name) })
		if diff := cmp.Diff(map[string]string{"app": "agent", "controller-revision-hash": "1"}, ps[1].Labels); diff != "" {
			t.Errorf("lean %v: labels of b (-want +got):\n%s", lean, diff)
		}
		require.Equal(t, lean, same(ps[0].Labels, ps[1].Labels), "lean %v: a and b share their label map", lean)
		require.False(t, same(ps[0].Labels, ps[2].Labels), "lean %v: a and c share their label map", lean)
	}
}

// TestLeanSharesEqualContainersAndAllocatable (D-16): read lean, the pods of one controller
// whose kept containers are equal share one slice, and nodes with equal allocatable one map;
// a pod whose containers differ, or of another controller, and a node whose allocatable
// differs keep their own, and nothing is shared when every field is read. Kept unshared, they
// took a realistic dump's snapshot from 0.46x its YAML to 0.80x.
func TestLeanSharesEqualContainersAndAllocatable(t *testing.T) {
	pod := func(name, owner, cpu string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: kube-system\n  uid: %s-uid\n"+
			"  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: %s, uid: %s, controller: true}]\n"+
			"spec:\n  containers:\n  - name: c\n    image: i:%s\n    resources: {requests: {cpu: %s}}\n    ports: [{containerPort: 80, hostPort: 80}]\n",
			name, name, owner, owner, name, cpu)
	}
	node := func(name, cpu string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\nstatus:\n  allocatable: {cpu: %q, memory: 8Gi}\n", name, cpu)
	}
	data := []byte(strings.Join([]string{pod("a", "ds1", "100m"), pod("b", "ds1", "100m"), pod("c", "ds1", "200m"), pod("d", "ds2", "100m"),
		node("n1", "4"), node("n2", "4"), node("n3", "8")}, "---\n"))
	for _, lean := range []bool{true, false} {
		res, err := ReadInputs([]Input{{Name: "in", Data: data}}, Options{Lean: lean})
		require.NoError(t, err)
		ps, ns := res.Snapshot.Pods, res.Snapshot.Nodes
		require.Len(t, ps, 4)
		require.Len(t, ns, 3)
		slices.SortFunc(ps, func(x, y *v1.Pod) int { return strings.Compare(x.Name, y.Name) })
		slices.SortFunc(ns, func(x, y *v1.Node) int { return strings.Compare(x.Name, y.Name) })
		same := func(x, y []v1.Container) bool { return &x[0] == &y[0] }
		require.Equal(t, lean, same(ps[0].Spec.Containers, ps[1].Spec.Containers), "lean %v: a and b share their containers", lean)
		require.False(t, same(ps[0].Spec.Containers, ps[2].Spec.Containers), "lean %v: a and c (another request)", lean)
		require.False(t, same(ps[0].Spec.Containers, ps[3].Spec.Containers), "lean %v: a and d (another controller)", lean)
		require.Equal(t, "100m", ps[1].Spec.Containers[0].Resources.Requests.Cpu().String())
		sameMap := func(x, y v1.ResourceList) bool {
			return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
		}
		require.Equal(t, lean, sameMap(ns[0].Status.Allocatable, ns[1].Status.Allocatable), "lean %v: n1 and n2 share their allocatable", lean)
		require.False(t, sameMap(ns[0].Status.Allocatable, ns[2].Status.Allocatable), "lean %v: n1 and n3", lean)
		require.Equal(t, "8", ns[2].Status.Allocatable.Cpu().String())
	}
}
