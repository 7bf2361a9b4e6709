package fleet

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/taints"
)

// Set is a compiled set of DaemonSets that answers, for any node, which of them would run
// there, which may keep running, why the others do not, and what their daemon pods would
// request and which host ports they would claim. It is built for simulators and autoscalers
// that ask that question many times per decision, for real or hypothetical nodes.
//
// A Set gives exactly the decisions of [daemonset.Planner.Eligibility] for each of its
// DaemonSets, but shares the work between them: DaemonSets whose placement (spec.nodeName,
// spec.nodeSelector and required node affinity) is identical are evaluated once per node, and
// so are DaemonSets whose tolerations (after the default daemon tolerations are merged,
// DEFTOL-1..3) are identical; each DaemonSet's pod requests and host ports are computed once, by [Compile].
// Nodes of one pool share most labels, and a placement reads only the label keys it names (or
// the node name, for spec.nodeName and matchFields): the caller's [NodeDecision] and
// [Matrix] remember the placement answers of each distinct projection of node labels onto
// those keys, and the toleration answers of each distinct list of taints, so that a node like
// one seen before costs a map lookup per key instead of an evaluation per class.
//
// The DaemonSets are ordered by namespace, then name; index i in every method refers to that
// order. A Set is immutable and safe for concurrent use.
type Set struct {
	opts     daemonset.Options
	planners []*daemonset.Planner

	// placeOf maps a DaemonSet to its placement class; placeRep holds one Planner per class,
	// evaluated on a node stripped of its taints. placeKeys[i] is DaemonSet i's class key.
	placeOf   []int32
	placeRep  []*daemonset.Planner
	placeKeys []string
	// tolOf maps a DaemonSet to its toleration class (its tolerations and hostNetwork); tolRep
	// holds the class's merged, compiled tolerations (the first member Planner's), which decide
	// the taint part of eligibility (ELIG-4, ELIG-5) for every member.
	tolOf   []int32
	tolRep  []*taints.Tolerations
	tolKeys []string

	// keys are the label keys any name-independent placement class reads, sorted; byName
	// lists the classes that read the node name (spec.nodeName or matchFields), which the
	// memo never covers.
	keys   []string
	byName []int

	res      *resourceTable
	requests []v1.ResourceList
	ports    [][]HostPort
}

// Compile compiles dss into a Set. A nil entry, two DaemonSets with the same namespace and
// name, or a resource quantity in a pod template beyond [MaxQuantityDigits] make the set
// inconsistent: Compile then returns nil and those errors (paths daemonSets[i]...). Otherwise it returns the Set and what API validation would reject in each
// DaemonSet (as [daemonset.Compile] reports it, with paths rooted at daemonSets[i]); the Set
// decides the objects as stored, as the controller would (D-4). dss is not modified; an empty
// dss gives an empty Set. opts.Workers is how many goroutines [Set.Decide] uses.
//
// Compile panics on misuse of opts, as [daemonset.Options.Check] says (a zero Now, a negative
// Workers), even when dss is empty.
func Compile(dss []*appsv1.DaemonSet, opts daemonset.Options) (*Set, field.ErrorList) {
	opts.Check()
	root := field.NewPath("daemonSets")
	var errs field.ErrorList
	order := make([]int, 0, len(dss))
	for i, ds := range dss {
		if ds == nil {
			errs = append(errs, field.Required(root.Index(i), "a DaemonSet"))
			continue
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareIdentity(dss[a], dss[b]) })
	for k := 1; k < len(order); k++ {
		if compareIdentity(dss[order[k-1]], dss[order[k]]) == 0 {
			ds := dss[order[k]]
			errs = append(errs, field.Duplicate(root.Index(order[k]), ds.Namespace+"/"+ds.Name))
		}
	}
	for _, i := range order {
		errs = append(errs, checkQuantities(dss[i], root.Index(i))...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	planners := make([]*daemonset.Planner, len(order))
	for k, i := range order {
		p, perrs := daemonset.Compile(dss[i], opts)
		planners[k] = p
		errs = append(errs, rootErrors(root.Index(i), perrs)...)
	}
	return newSet(planners, opts, nil), errs
}

// compareIdentity orders DaemonSets by namespace, then name.
func compareIdentity(a, b *appsv1.DaemonSet) int {
	return compareNames(a.Namespace, a.Name, b.Namespace, b.Name)
}

func compareNames(aNamespace, aName, bNamespace, bName string) int {
	return cmp.Or(strings.Compare(aNamespace, bNamespace), strings.Compare(aName, bName))
}

// rootErrors returns errs with fldPath prepended to each path.
func rootErrors(fldPath *field.Path, errs field.ErrorList) field.ErrorList {
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		c := *e
		if c.Field == "" {
			c.Field = fldPath.String()
		} else {
			c.Field = fldPath.String() + "." + c.Field
		}
		out = append(out, &c)
	}
	return out
}

// newSet builds the classes, requests and ports of planners. prev, when not nil, is a Set
// whose class keys, requests and ports are reused for the Planners both share (they depend on
// the Planner only).
func newSet(planners []*daemonset.Planner, opts daemonset.Options, prev *Set) *Set {
	n := len(planners)
	s := &Set{
		opts:      opts,
		planners:  planners,
		placeOf:   make([]int32, n),
		placeKeys: make([]string, n),
		tolOf:     make([]int32, n),
		tolKeys:   make([]string, n),
		requests:  make([]v1.ResourceList, n),
		ports:     make([][]HostPort, n),
	}
	placeClass := map[string]int32{}
	tolClass := map[string]int32{}
	for i, p := range planners {
		spec := &p.DaemonSet().Spec.Template.Spec
		same := prev != nil && i < len(prev.planners) && prev.planners[i] == p
		if same {
			s.placeKeys[i], s.tolKeys[i] = prev.placeKeys[i], prev.tolKeys[i]
		} else {
			s.placeKeys[i], s.tolKeys[i] = placementKey(spec), tolerationKey(spec)
		}
		c, ok := placeClass[s.placeKeys[i]]
		if !ok {
			c = int32(len(s.placeRep))
			placeClass[s.placeKeys[i]] = c
			s.placeRep = append(s.placeRep, p)
		}
		s.placeOf[i] = c
		c, ok = tolClass[s.tolKeys[i]]
		if !ok {
			c = int32(len(s.tolRep))
			tolClass[s.tolKeys[i]] = c
			s.tolRep = append(s.tolRep, p.Tolerations())
		}
		s.tolOf[i] = c
		if same {
			s.requests[i], s.ports[i] = prev.requests[i], prev.ports[i]
		} else {
			s.requests[i], s.ports[i] = podRequestsWith(p.Enabled(daemonset.GatePodLevelResources), spec), PodHostPorts(spec)
		}
	}
	s.res = newResourceTable(s.requests)
	keys := map[string]bool{}
	for c, rep := range s.placeRep {
		spec := &rep.DaemonSet().Spec.Template.Spec
		if readsName(spec) {
			s.byName = append(s.byName, c)
			continue
		}
		for k := range spec.NodeSelector {
			keys[k] = true
		}
		if required := requiredSelector(spec); required != nil {
			for _, term := range required.NodeSelectorTerms {
				for _, r := range term.MatchExpressions {
					keys[r.Key] = true
				}
			}
		}
	}
	s.keys = slices.Sorted(maps.Keys(keys))
	return s
}

// readsName reports whether the placement of spec reads the node's name: spec.nodeName
// (ELIG-2) or any matchFields requirement (AFF-9). Every other placement reads only the
// labels its nodeSelector and matchExpressions name (NSEL-2, AFF-6, AFF-11).
func readsName(spec *v1.PodSpec) bool {
	if spec.NodeName != "" {
		return true
	}
	if required := requiredSelector(spec); required != nil {
		for _, term := range required.NodeSelectorTerms {
			if len(term.MatchFields) > 0 {
				return true
			}
		}
	}
	return false
}

// requiredSelector is spec's required node affinity, or nil.
func requiredSelector(spec *v1.PodSpec) *v1.NodeSelector {
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return nil
	}
	return spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

// placementKey identifies what the placement checks ELIG-2 and ELIG-3 read: spec.nodeName,
// spec.nodeSelector and the required node affinity. Two specs with equal keys are decided
// alike on every node. JSON sorts map keys, so the key is deterministic; it only merges nil
// and empty lists and maps, which NSEL-1, AFF-2 and AFF-4 treat alike.
func placementKey(spec *v1.PodSpec) string {
	key := struct {
		NodeName     string
		NodeSelector map[string]string
		Required     *v1.NodeSelector
	}{NodeName: spec.NodeName, NodeSelector: spec.NodeSelector, Required: requiredSelector(spec)}
	return mustJSON(key)
}

// tolerationKey identifies what ELIG-4 reads: the template's tolerations and hostNetwork,
// from which the merged tolerations follow (DEFTOL-1..3, DEFTOL-6).
func tolerationKey(spec *v1.PodSpec) string {
	return mustJSON(struct {
		Tolerations []v1.Toleration
		HostNetwork bool
	}{spec.Tolerations, spec.HostNetwork})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// API types always marshal; failing here is a bug, not bad data.
		panic(fmt.Sprintf("fleet: marshal class key: %v", err))
	}
	return string(b)
}

// Len returns the number of DaemonSets in the set.
func (s *Set) Len() int { return len(s.planners) }

// Planner returns the compiled i-th DaemonSet.
func (s *Set) Planner(i int) *daemonset.Planner { return s.planners[i] }

// Index returns the position of the DaemonSet namespace/name.
func (s *Set) Index(namespace, name string) (int, bool) {
	return slices.BinarySearchFunc(s.planners, [2]string{namespace, name}, func(p *daemonset.Planner, id [2]string) int {
		ds := p.DaemonSet()
		return compareNames(ds.Namespace, ds.Name, id[0], id[1])
	})
}

// Requests returns a copy of the effective requests of one daemon pod of the i-th DaemonSet
// ([PodRequests] at the release of its Planner).
func (s *Set) Requests(i int) v1.ResourceList { return s.requests[i].DeepCopy() }

// HostPorts returns a copy of the host ports one daemon pod of the i-th DaemonSet claims
// ([PodHostPorts]).
func (s *Set) HostPorts(i int) []HostPort { return slices.Clone(s.ports[i]) }
