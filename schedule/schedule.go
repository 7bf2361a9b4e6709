package schedule

import (
	"cmp"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Options are the inputs of [Compile] that are not API objects.
type Options struct {
	// Version is the release whose scheduler decides (SCHED-5); the zero Version means
	// daemonset.NewestVersion().
	Version daemonset.Version
	// PriorityClasses maps PriorityClass names to their values, for a pod whose spec.priority
	// is unset (a daemon pod the plan creates: the Priority admission plugin has not run on
	// it). The built-in system-node-critical and system-cluster-critical need no entry. nil
	// knows only those; the map is only read (SCHED-4).
	PriorityClasses map[string]int32
	// FeatureGates are the scheduler's and the API server's feature gates over Version's
	// defaults (VER-5): PodLevelResources decides whether spec.resources is counted (SCHED-5).
	FeatureGates daemonset.FeatureGates
}

func (o Options) release() daemonset.Version { return o.Version.OrNewest() }

// Filter is the name of a kube-scheduler filter plugin, as the scheduler's events and
// configuration spell it.
type Filter string

// The filters this package models, in the order the default profile runs them.
const (
	FilterNodePorts            Filter = "NodePorts"
	FilterNodeResourcesFit     Filter = "NodeResourcesFit"
	FilterNodeDeclaredFeatures Filter = "NodeDeclaredFeatures"
)

// Pod is a pod compiled for the filters: its requests as the scheduler counts them, its host
// ports, the node features it needs and its priority. It is immutable and safe for concurrent
// use.
type Pod struct {
	namespace, name string
	uid             string
	requests        vector
	ports           []fleet.HostPort
	features        []string
	priority        int32
	priorityClass   string
	priorityKnown   bool
	preemptNever    bool
	release         daemonset.Version
	// counting is what requests are counted at: the release, and PodLevelResources as the
	// release and Options.FeatureGates set it (a map of its own: the caller's is not kept).
	counting daemonset.Options
}

// Compile reads pod for the filters of opts.Version. pod is not modified; a nil pod is an
// empty one.
func Compile(pod *v1.Pod, opts Options) *Pod {
	if pod == nil {
		pod = &v1.Pod{}
	}
	rel := opts.release()
	p := &Pod{namespace: pod.Namespace, name: pod.Name, uid: string(pod.UID), release: rel}
	podLevel := daemonset.Options{Version: rel, FeatureGates: opts.FeatureGates}.Enabled(daemonset.GatePodLevelResources)
	p.counting = daemonset.Options{Version: rel, FeatureGates: daemonset.FeatureGates{daemonset.GatePodLevelResources: podLevel}}
	p.requests = p.requestsOf(&pod.Spec)
	p.ports = fleet.PodHostPorts(&pod.Spec)
	p.features = requiredFeatures(&pod.Spec, rel)
	p.priority, p.priorityKnown = priorityOf(&pod.Spec, opts.PriorityClasses)
	p.priorityClass = pod.Spec.PriorityClassName
	p.preemptNever = pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever
	return p
}

// Priority returns the priority the scheduler gives the pod (SCHED-4) and whether it is known:
// false when spec.priority is unset and the priority class is neither built in nor in
// Options.PriorityClasses, in which case it counts as 0.
func (p *Pod) Priority() (int32, bool) { return p.priority, p.priorityKnown }

// Requests returns the pod's requests as NodeResourcesFit counts them (SCHED-1), the zero
// ones left out, as a new list.
func (p *Pod) Requests() v1.ResourceList { return p.requests.list() }

// Verdict is what the filters decide for one pod on one node.
type Verdict struct {
	Node string `json:"node"`
	// ResourcesUnknown is true when the node reports no allocatable at all (a hand-written
	// node, or one whose kubelet has not reported): NodeResourcesFit still judges it, with 0
	// of everything, so it allows no pod ("Too many pods", SCHED-1).
	ResourcesUnknown bool `json:"resourcesUnknown,omitempty"`
	// Insufficient are the resources NodeResourcesFit finds short: the pod count first, then
	// cpu, memory, ephemeral-storage and the others by name (SCHED-1).
	Insufficient []Insufficient `json:"insufficient,omitempty"`
	// PortConflicts are the pod's host ports that a pod on the node holds (SCHED-2).
	PortConflicts []PortConflict `json:"portConflicts,omitempty"`
	// MissingFeatures are the features the pod needs that the node does not declare, sorted
	// (SCHED-3).
	MissingFeatures []string `json:"missingFeatures,omitempty"`
	// Preemption says whether the default preemption would make room; nil when the pod fits.
	Preemption *Preemption `json:"preemption,omitempty"`
}

// Fits reports whether every filter lets the pod bind.
func (v Verdict) Fits() bool {
	return len(v.Insufficient) == 0 && len(v.PortConflicts) == 0 && len(v.MissingFeatures) == 0
}

// Filters returns the filters that refuse the pod, in the order of the Filter constants.
func (v Verdict) Filters() []Filter {
	var out []Filter
	if len(v.PortConflicts) > 0 {
		out = append(out, FilterNodePorts)
	}
	if len(v.Insufficient) > 0 {
		out = append(out, FilterNodeResourcesFit)
	}
	if len(v.MissingFeatures) > 0 {
		out = append(out, FilterNodeDeclaredFeatures)
	}
	return out
}

// Insufficient is one resource NodeResourcesFit finds short on a node: the pod requests more
// than allocatable minus what the node's pods request.
type Insufficient struct {
	Resource    v1.ResourceName   `json:"resource"`
	Requested   resource.Quantity `json:"requested"`
	Used        resource.Quantity `json:"used"`
	Allocatable resource.Quantity `json:"allocatable"`
	// Unresolvable is true when the pod requests more than the node can ever allocate: no
	// eviction helps.
	Unresolvable bool `json:"unresolvable,omitempty"`
}

// Free returns allocatable minus used, or zero when the node's pods already request more.
func (i Insufficient) Free() resource.Quantity {
	f := i.Allocatable.DeepCopy()
	f.Sub(i.Used)
	if f.Sign() < 0 {
		return *resource.NewQuantity(0, i.Allocatable.Format)
	}
	return f
}

// PortConflict is a host port of the pod that a pod bound to the node already holds.
type PortConflict struct {
	Port fleet.HostPort `json:"port"`
	// Namespace and Name are the first pod of the node, by namespace and name, holding a
	// conflicting port.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Fit judges the node for the pod, with the pods bound to it: pods lists the node's pods, and
// only the non-terminal ones whose spec.nodeName is node's count, the pod itself (same uid, or
// same namespace and name) left out, as in the scheduler's cache (SCHED-6). When a filter
// refuses, Fit also says whether the default preemption would make room (SCHED-4). node and
// pods are not modified.
func (p *Pod) Fit(node *v1.Node, pods []*v1.Pod) Verdict {
	on := p.podsOn(node, pods)
	v := Verdict{Node: node.Name}
	v.MissingFeatures = missingFeatures(p.features, node)
	n := p.nodeState(node, on)
	v.ResourcesUnknown = len(node.Status.Allocatable) == 0
	v.Insufficient = p.insufficient(n)
	v.PortConflicts = p.portConflicts(on)
	if !v.Fits() {
		pre := p.preempt(node, on, v)
		v.Preemption = &pre
	}
	return v
}

// podsOn returns the pods of pods the scheduler counts on node (SCHED-6), sorted by namespace
// and name.
func (p *Pod) podsOn(node *v1.Node, pods []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, q := range pods {
		if q == nil || q.Spec.NodeName != node.Name || terminal(q) || p.isSelf(q) {
			continue
		}
		out = append(out, q)
	}
	slices.SortFunc(out, comparePods)
	return out
}

func (p *Pod) isSelf(q *v1.Pod) bool {
	if p.uid != "" && string(q.UID) == p.uid {
		return true
	}
	return p.name != "" && q.Namespace == p.namespace && q.Name == p.name
}

func comparePods(a, b *v1.Pod) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func terminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// PodsByNode indexes the pods the scheduler's cache holds by node: the non-terminal pods with
// a spec.nodeName (SCHED-6); nil entries are skipped. The slices keep the order of pods, which
// is only read.
func PodsByNode(pods []*v1.Pod) map[string][]*v1.Pod {
	out := map[string][]*v1.Pod{}
	for _, pod := range pods {
		if pod == nil || pod.Spec.NodeName == "" || terminal(pod) {
			continue
		}
		out[pod.Spec.NodeName] = append(out[pod.Spec.NodeName], pod)
	}
	return out
}

// portConflicts is the NodePorts filter (SCHED-2).
func (p *Pod) portConflicts(on []*v1.Pod) []PortConflict {
	var out []PortConflict
	for _, want := range p.ports {
		for _, q := range on {
			if slices.ContainsFunc(fleet.PodHostPorts(&q.Spec), want.Conflicts) {
				out = append(out, PortConflict{Port: want, Namespace: q.Namespace, Name: q.Name})
				break
			}
		}
	}
	return out
}

// fitsWith reports whether NodeResourcesFit and NodePorts let the pod bind to the node when
// only the pods of on marked kept count: the check the preemption repeats as it evicts.
func (p *Pod) fitsWith(n nodeState, on []*v1.Pod, kept []bool) bool {
	used := vector{}
	count := 0
	for i, q := range on {
		if kept[i] {
			used.add(p.requestsOf(&q.Spec))
			count++
		}
	}
	n.used, n.pods = used, count
	if len(p.insufficient(n)) > 0 {
		return false
	}
	for _, want := range p.ports {
		for i, q := range on {
			if kept[i] && slices.ContainsFunc(fleet.PodHostPorts(&q.Spec), want.Conflicts) {
				return false
			}
		}
	}
	return true
}

// Placement is the verdict on one pod of [FitAll].
type Placement struct {
	// Index is the pod's index in FitAll's pods.
	Index   int     `json:"index"`
	Verdict Verdict `json:"verdict"`
}

// FitAll binds pods to node one after another, as the scheduler binds the daemon pods of a new
// node (SCHED-8): [FitEach]'s order and verdicts, of which it returns those of the pods a
// filter refuses, in the order they were judged. An empty result means every pod binds.
// Nothing is modified.
func FitAll(pods []*v1.Pod, node *v1.Node, bound []*v1.Pod, opts Options) []Placement {
	verdicts, order := fitEach(pods, node, bound, opts)
	var out []Placement
	for _, i := range order {
		if !verdicts[i].Fits() {
			out = append(out, Placement{Index: i, Verdict: verdicts[i]})
		}
	}
	return out
}

// FitEach binds pods to node one after another, as the scheduler binds the pods of its queue
// (SCHED-8): higher priority first and otherwise as given (the PrioritySort queue: at equal
// priority, the pod queued first), each judged by [Pod.Fit] beside node's pods (those of bound
// that are bound to it) and the pods of the list bound before it, as the scheduler's cache
// holds a pod it has just bound (an assumed pod). A pod a filter refuses is not bound, and no
// preemption among pods of the list is considered. The verdicts are those of pods, by index.
// Nothing is modified.
func FitEach(pods []*v1.Pod, node *v1.Node, bound []*v1.Pod, opts Options) []Verdict {
	verdicts, _ := fitEach(pods, node, bound, opts)
	return verdicts
}

// fitEach is FitEach, with the indexes of pods in the order they were judged.
func fitEach(pods []*v1.Pod, node *v1.Node, bound []*v1.Pod, opts Options) ([]Verdict, []int) {
	compiled := make([]*Pod, len(pods))
	order := make([]int, len(pods))
	for i, pod := range pods {
		compiled[i], order[i] = Compile(pod, opts), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(compiled[b].priority, compiled[a].priority) })
	on := slices.Clone(bound)
	out := make([]Verdict, len(pods))
	for _, i := range order {
		out[i] = compiled[i].Fit(node, on)
		if !out[i].Fits() {
			continue
		}
		placed := pods[i].DeepCopy()
		if placed == nil {
			placed = &v1.Pod{}
		}
		placed.Spec.NodeName = node.Name
		on = append(on, placed)
	}
	return out, order
}
