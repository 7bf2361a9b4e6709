package daemonset

import (
	"maps"
	"math"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PodRequests returns the effective resource requests of a pod with spec, counted as the
// scheduler counts them when it fits the pod on a node (component-helpers resource.PodRequests
// with pod-level resources enabled, as the v1.36 scheduler's NodeResourcesFit calls it):
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
// (core/v1 SetDefaults_Pod, with the PodLevelResources feature on as in v1.36): a container
// that sets a limit but no request for a resource requests its limit; and when spec.resources
// sets pod-level limits, a pod-level request it lacks defaults to the containers' figure (cpu,
// memory) or, for a resource no container requests, to the pod-level limit, hugepages limits
// being first defaulted from the containers'. A resource appears in the result when any part
// of the pod names it, even with a zero quantity. spec is not modified; nil means an empty pod.
func PodRequests(spec *v1.PodSpec) v1.ResourceList {
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

// HostPort is a host port a pod claims on its node, as the scheduler's NodePorts filter sees it:
// IP "" is normalised to "0.0.0.0" (every address) and Protocol "" to TCP.
type HostPort struct {
	IP       string
	Protocol v1.Protocol
	Port     int32
}

// Conflicts reports whether two pods claiming p and o could not share a node (the scheduler's
// HostPortInfo.CheckConflict): same protocol and port, and the same IP or either one 0.0.0.0.
func (p HostPort) Conflicts(o HostPort) bool {
	if p.Port != o.Port || p.Protocol != o.Protocol {
		return false
	}
	return p.IP == o.IP || p.IP == anyIP || o.IP == anyIP
}

const anyIP = "0.0.0.0"

// PodHostPorts returns the host ports a pod with spec claims, in declaration order (restartable
// init containers first, then regular containers), as the scheduler's NodePorts filter reads
// them (scheduler util.GetHostPorts): every port with a hostPort above zero of the regular
// containers and of the restartable init containers (sidecars); ordinary init containers have
// finished before the pod runs and claim nothing. With spec.hostNetwork the API server defaults
// a zero hostPort to the containerPort (core/v1 SetDefaults_Pod), so every containerPort above
// zero is claimed. spec is not modified; nil claims nothing.
func PodHostPorts(spec *v1.PodSpec) []HostPort {
	var out []HostPort
	if spec == nil {
		return out
	}
	add := func(c *v1.Container) {
		for _, p := range c.Ports {
			port := p.HostPort
			if port == 0 && spec.HostNetwork {
				port = p.ContainerPort
			}
			if port <= 0 {
				continue
			}
			hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: port}
			if hp.IP == "" {
				hp.IP = anyIP
			}
			if hp.Protocol == "" {
				hp.Protocol = v1.ProtocolTCP
			}
			out = append(out, hp)
		}
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	for i := range spec.Containers {
		add(&spec.Containers[i])
	}
	return out
}

// resourceTable is the Set's compiled view of its DaemonSets' requests: one column per resource
// name any of them requests. A column whose quantities are all whole multiples of a common
// scale (1, milli, micro or nano) and whose grand total fits an int64 at that scale is summed
// as int64 counts of 10^scale units, so that a per-node total is a few integer additions
// instead of resource.Quantity arithmetic. Any other column (nano-precision values in the
// exabytes) is summed as Quantities, exactly and more slowly.
type resourceTable struct {
	names   []v1.ResourceName // sorted
	scales  []resource.Scale
	formats []resource.Format
	exact   []bool // false: summed as Quantities
	// perDS[i] is the request vector of DaemonSet i on exact columns, sparse, in column
	// order; perDSQuantity[i] the rest.
	perDS         [][]resourceAmount
	perDSQuantity [][]resourceQuantity
}

type resourceAmount struct {
	col int
	v   int64 // the quantity in 10^scale units
}

type resourceQuantity struct {
	col int
	q   resource.Quantity
}

// newResourceTable compiles the requests of every DaemonSet.
func newResourceTable(reqs []v1.ResourceList) *resourceTable {
	t := &resourceTable{perDS: make([][]resourceAmount, len(reqs)), perDSQuantity: make([][]resourceQuantity, len(reqs))}
	col := map[v1.ResourceName]int{}
	for _, rl := range reqs {
		for name := range rl {
			if _, ok := col[name]; !ok {
				col[name] = 0
				t.names = append(t.names, name)
			}
		}
	}
	slices.Sort(t.names)
	for i, name := range t.names {
		col[name] = i
	}
	n := len(t.names)
	t.scales = make([]resource.Scale, n)
	t.formats = make([]resource.Format, n)
	t.exact = make([]bool, n)
	for c, name := range t.names {
		t.scales[c], t.exact[c], t.formats[c] = chooseScale(name, reqs)
	}
	for i, rl := range reqs {
		var amounts []resourceAmount
		var quantities []resourceQuantity
		for name, q := range rl {
			c := col[name]
			if t.exact[c] {
				amounts = append(amounts, resourceAmount{col: c, v: q.ScaledValue(t.scales[c])})
			} else {
				quantities = append(quantities, resourceQuantity{col: c, q: q.DeepCopy()})
			}
		}
		slices.SortFunc(amounts, func(a, b resourceAmount) int { return a.col - b.col })
		slices.SortFunc(quantities, func(a, b resourceQuantity) int { return a.col - b.col })
		t.perDS[i], t.perDSQuantity[i] = amounts, quantities
	}
	return t
}

// chooseScale picks, for one resource, the coarsest scale among 1, milli, micro and nano at
// which every DaemonSet's quantity is a whole number, provided the sum of all of them still
// fits an int64 there (exact); otherwise the column is summed as Quantities. format is the
// first DaemonSet's, so that memory prints as binary-SI like its inputs.
func chooseScale(name v1.ResourceName, reqs []v1.ResourceList) (scale resource.Scale, exact bool, format resource.Format) {
	var sum float64
	for _, rl := range reqs {
		if q, ok := rl[name]; ok {
			if format == "" {
				format = q.Format
			}
			sum += math.Abs(q.AsApproximateFloat64())
		}
	}
	for _, s := range []resource.Scale{0, resource.Milli, resource.Micro, resource.Nano} {
		// Keep two decimal orders of headroom below MaxInt64 (9.2e18) for the float estimate.
		if sum*math.Pow10(-int(s)) >= 9e16 {
			break
		}
		all := true
		for _, rl := range reqs {
			if q, ok := rl[name]; ok && !wholeAt(q, s) {
				all = false
				break
			}
		}
		if all {
			return s, true, format
		}
	}
	return 0, false, format
}

func wholeAt(q resource.Quantity, s resource.Scale) bool {
	return resource.NewScaledQuantity(q.ScaledValue(s), s).Cmp(q) == 0
}

// quantity converts the total of an exact column back to a Quantity.
func (t *resourceTable) quantity(c int, v int64) resource.Quantity {
	q := *resource.NewScaledQuantity(v, t.scales[c])
	if t.formats[c] != "" {
		q.Format = t.formats[c]
	}
	return q
}

// summarize derives the running list, the request totals and the host ports from the cells.
func (d *NodeDecision) summarize() {
	s := d.set
	cols := len(s.res.names)
	if cap(d.totals) < cols {
		d.totals, d.qtotals, d.present = make([]int64, cols), make([]resource.Quantity, cols), make([]bool, cols)
	}
	d.totals, d.qtotals, d.present = d.totals[:cols], d.qtotals[:cols], d.present[:cols]
	clear(d.totals)
	clear(d.qtotals)
	clear(d.present)
	d.run, d.ports = d.run[:0], d.ports[:0]
	for i, c := range d.cells {
		if c != cellRun {
			continue
		}
		d.run = append(d.run, i)
		for _, a := range s.res.perDS[i] {
			d.totals[a.col] += a.v
			d.present[a.col] = true
		}
		for _, a := range s.res.perDSQuantity[i] {
			d.qtotals[a.col].Add(a.q)
			d.present[a.col] = true
		}
		d.ports = append(d.ports, s.ports[i]...)
	}
}

// Request returns the total request of resource name by the daemon pods that should run on
// the node, and whether any of them names that resource.
func (d *NodeDecision) Request(name v1.ResourceName) (resource.Quantity, bool) {
	c, ok := slices.BinarySearch(d.set.res.names, name)
	if !ok || !d.present[c] {
		return resource.Quantity{}, false
	}
	return d.total(c), true
}

func (d *NodeDecision) total(c int) resource.Quantity {
	if !d.set.res.exact[c] {
		return d.qtotals[c].DeepCopy()
	}
	return d.set.res.quantity(c, d.totals[c])
}

// Requests stores in into, after clearing it, the total requests of the daemon pods that
// should run on the node, and returns it. A nil into allocates a new list; reusing one avoids
// all allocation once it has held every resource. The totals are the sums of [PodRequests].
func (d *NodeDecision) Requests(into v1.ResourceList) v1.ResourceList {
	if into == nil {
		into = v1.ResourceList{}
	}
	clear(into)
	for c, name := range d.set.res.names {
		if d.present[c] {
			into[name] = d.total(c)
		}
	}
	return into
}

// HostPorts returns the host ports the daemon pods that should run on the node claim, in
// DaemonSet order, each pod's in [PodHostPorts] order. Two entries that conflict
// ([HostPort.Conflicts]) mean that the scheduler would leave one of those pods pending. The
// slice is owned by d and valid until d is reused.
func (d *NodeDecision) HostPorts() []HostPort { return d.ports }
