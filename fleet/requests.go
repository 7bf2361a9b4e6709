package fleet

import (
	"maps"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonsched/daemonsched/daemonset"
)

// podRequests is PodRequests at a release with pod-level resources.
func podRequests(spec *v1.PodSpec) v1.ResourceList {
	if spec == nil {
		return v1.ResourceList{}
	}
	reqs := aggregate(spec, addTo)
	if spec.Resources != nil {
		for name, q := range podLevelRequests(spec, reqs) {
			if podLevelResource(name) {
				reqs[name] = q.DeepCopy()
			}
		}
	}
	addList(reqs, spec.Overhead)
	return reqs
}

// PodRequests returns the effective resource requests of a pod with spec at release version,
// counted as the scheduler counts them when it fits the pod on a node (component-helpers
// resource.PodRequests with pod-level resources enabled, as NodeResourcesFit calls it from
// 1.34):
//
//   - the requests of the regular containers are summed;
//   - init containers run one at a time before them: while init container i runs, the pod
//     uses its requests plus those of every restartable init container (sidecar,
//     restartPolicy Always) declared before it, and the pod reserves the maximum of that over
//     all init containers;
//   - a sidecar keeps running beside the regular containers, so its requests are also added
//     to the sum;
//   - per resource, the larger of the sum and the init maximum counts;
//   - pod-level requests (spec.resources.requests) of cpu, memory and hugepages-* replace the
//     container figure for that resource;
//   - the pod overhead (spec.overhead) is added.
//
// The daemon pod is counted as the API server stores it when the controller creates it
// (core/v1 SetDefaults_Pod, with the PodLevelResources feature on as from 1.34): a container
// that sets a limit but no request for a resource requests its limit; and when spec.resources
// sets pod-level limits, a pod-level request it lacks defaults to the containers' figure (cpu,
// memory) or, for a resource no container requests, to the pod-level limit, hugepages limits
// being first defaulted from the containers'. A resource appears in the result when any part
// of the pod names it, even with a zero quantity. spec is not modified; nil means an empty pod.
// Its time grows with the digits and scales of the quantities: [Compile] refuses those beyond
// [MaxQuantityDigits] before it calls PodRequests.
//
// Until 1.33, where the PodLevelResources gate is alpha and off, spec.resources is left out:
// that release's API server drops it from new pods and templates and its scheduler does not
// read it (ADM-8, SCHED-5), unless opts.FeatureGates turns it on. PodRequests counts at
// opts.Version (the zero Version is the newest release) and opts.FeatureGates; only those two
// fields are read.
func PodRequests(opts daemonset.Options, spec *v1.PodSpec) v1.ResourceList {
	return podRequestsWith(podLevelResources(opts), spec)
}

// podRequestsWith is PodRequests with the PodLevelResources gate on or off.
func podRequestsWith(podLevel bool, spec *v1.PodSpec) v1.ResourceList {
	if spec != nil && spec.Resources != nil && !podLevel {
		s := *spec
		s.Resources = nil
		spec = &s
	}
	return podRequests(spec)
}

// podLevelResources reports whether the options' release and gates have pod-level resources
// (spec.resources): the PodLevelResources gate, alpha and off until 1.33, beta and on from
// 1.34.0 (ADM-8, VER-5).
func podLevelResources(o daemonset.Options) bool { return o.Enabled(daemonset.GatePodLevelResources) }

// aggregate sums add over the regular containers and the sidecars, and raises the result to
// the largest init-time use (each ordinary init container plus the sidecars declared before
// it), as component-helpers AggregateContainerRequests and AggregateContainerLimits do.
func aggregate(spec *v1.PodSpec, add func(v1.ResourceList, *v1.ResourceRequirements)) v1.ResourceList {
	out := v1.ResourceList{}
	for i := range spec.Containers {
		add(out, &spec.Containers[i].Resources)
	}
	sidecars := v1.ResourceList{}
	initMax := v1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			add(out, &c.Resources)
			add(sidecars, &c.Resources)
			maxInto(initMax, sidecars)
			continue
		}
		running := v1.ResourceList{}
		add(running, &c.Resources)
		addList(running, sidecars)
		maxInto(initMax, running)
	}
	maxInto(out, initMax)
	return out
}

// podLevelRequests returns spec.resources.requests as the API server stores them (core/v1
// defaultHugePagePodLimits, then defaultPodRequests); containerReqs is the containers'
// aggregate. spec.resources must not be nil.
func podLevelRequests(spec *v1.PodSpec, containerReqs v1.ResourceList) v1.ResourceList {
	r := spec.Resources
	if len(r.Limits) == 0 && len(r.Requests) == 0 {
		return r.Requests
	}
	// Hugepages limits the pod level lacks come from the containers, unless requested there.
	limits := r.Limits
	for name, q := range aggregate(spec, addLimits) {
		if !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
			continue
		}
		_, requested := r.Requests[name]
		_, limited := limits[name]
		if requested || limited {
			continue
		}
		if len(limits) == len(r.Limits) {
			limits = maps.Clone(r.Limits)
			if limits == nil {
				limits = v1.ResourceList{}
			}
		}
		limits[name] = q
	}
	if len(limits) == 0 {
		return r.Requests
	}
	reqs := maps.Clone(r.Requests)
	if reqs == nil {
		reqs = v1.ResourceList{}
	}
	// cpu and memory (the overcommittable pod-level resources) default to the containers'.
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := containerReqs[name]; ok {
			if _, set := reqs[name]; !set {
				reqs[name] = q
			}
		}
	}
	for name, q := range limits {
		if _, set := reqs[name]; !set && podLevelResource(name) {
			reqs[name] = q
		}
	}
	return reqs
}

// addLimits adds the limits of one container to list.
func addLimits(list v1.ResourceList, r *v1.ResourceRequirements) { addList(list, r.Limits) }

// podLevelResource reports whether pod-level requests of name override the containers' (cpu,
// memory and hugepages-*, component-helpers resource.IsSupportedPodLevelResource).
func podLevelResource(name v1.ResourceName) bool {
	return name == v1.ResourceCPU || name == v1.ResourceMemory || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// addTo adds the effective requests of one container to list: its requests, and its limits
// for resources it sets no request for (SetDefaults_Pod).
func addTo(list v1.ResourceList, r *v1.ResourceRequirements) {
	addList(list, r.Requests)
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			addOne(list, name, q)
		}
	}
}

func addList(list, add v1.ResourceList) {
	for name, q := range add {
		addOne(list, name, q)
	}
}

func addOne(list v1.ResourceList, name v1.ResourceName, q resource.Quantity) {
	if cur, ok := list[name]; ok {
		cur.Add(q)
		list[name] = cur
		return
	}
	list[name] = q.DeepCopy()
}

// maxInto raises every resource of list to at least its quantity in other.
func maxInto(list, other v1.ResourceList) {
	for name, q := range other {
		if cur, ok := list[name]; !ok || q.Cmp(cur) > 0 {
			list[name] = q.DeepCopy()
		}
	}
}
