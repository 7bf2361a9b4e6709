package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
)

// Admission is what the API server's LimitRanger and RuntimeClass admission plugins do to a
// daemon pod when the controller creates it (ADM-1): the LimitRanges of each namespace and
// every RuntimeClass, compiled by [CompileAdmission]. [Admission.Admit] turns a pod spec into
// the pod the API server stores, or says which plugin rejects it. An Admission is immutable and
// safe for concurrent use. A nil *Admission models a cluster whose admission changes nothing:
// no LimitRanges, and no RuntimeClass is looked up.
type Admission struct {
	limitRanges    map[string][]*v1.LimitRange // by namespace, sorted by name, defaulted (ADM-2)
	runtimeClasses map[string]*nodev1.RuntimeClass
}

// CompileAdmission compiles LimitRanges and RuntimeClasses. A nil entry, an entry without a
// name, a LimitRange without a namespace, two objects with the same (namespace and) name and a
// quantity beyond [MaxQuantityDigits] are errors, with paths limitRanges[i] and
// runtimeClasses[i]; Admission is then nil. The objects
// are not modified: a LimitRange is defaulted (ADM-2) on a copy.
func CompileAdmission(limitRanges []*v1.LimitRange, runtimeClasses []*nodev1.RuntimeClass) (*Admission, field.ErrorList) {
	var errs field.ErrorList
	a := &Admission{limitRanges: map[string][]*v1.LimitRange{}, runtimeClasses: map[string]*nodev1.RuntimeClass{}}
	seen := map[string]bool{}
	lrPath := field.NewPath("limitRanges")
	for i, lr := range limitRanges {
		p := lrPath.Index(i)
		switch {
		case lr == nil:
			errs = append(errs, field.Required(p, "a LimitRange"))
			continue
		case lr.Name == "":
			errs = append(errs, field.Required(p.Child("metadata", "name"), "LimitRange"))
			continue
		case lr.Namespace == "":
			errs = append(errs, field.Required(p.Child("metadata", "namespace"), "LimitRange "+lr.Name))
			continue
		case seen[lr.Namespace+"/"+lr.Name]:
			errs = append(errs, field.Duplicate(p.Child("metadata", "name"), lr.Namespace+"/"+lr.Name))
			continue
		}
		seen[lr.Namespace+"/"+lr.Name] = true
		for j, it := range lr.Spec.Limits {
			ip := p.Child("spec", "limits").Index(j)
			errs = append(errs, hugeQuantities(it.Min, ip.Child("min"))...)
			errs = append(errs, hugeQuantities(it.Max, ip.Child("max"))...)
			errs = append(errs, hugeQuantities(it.Default, ip.Child("default"))...)
			errs = append(errs, hugeQuantities(it.DefaultRequest, ip.Child("defaultRequest"))...)
			errs = append(errs, hugeQuantities(it.MaxLimitRequestRatio, ip.Child("maxLimitRequestRatio"))...)
		}
		a.limitRanges[lr.Namespace] = append(a.limitRanges[lr.Namespace], defaultLimitRange(lr))
	}
	rcPath := field.NewPath("runtimeClasses")
	for i, rc := range runtimeClasses {
		p := rcPath.Index(i)
		switch {
		case rc == nil:
			errs = append(errs, field.Required(p, "a RuntimeClass"))
			continue
		case rc.Name == "":
			errs = append(errs, field.Required(p.Child("metadata", "name"), "RuntimeClass"))
			continue
		case a.runtimeClasses[rc.Name] != nil:
			errs = append(errs, field.Duplicate(p.Child("metadata", "name"), rc.Name))
			continue
		}
		if rc.Overhead != nil {
			errs = append(errs, hugeQuantities(rc.Overhead.PodFixed, p.Child("overhead", "podFixed"))...)
		}
		a.runtimeClasses[rc.Name] = rc
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// Upstream applies a namespace's LimitRanges in its informer's order, which no one can
	// rely on; name order makes the answer reproducible (D-13).
	for _, lrs := range a.limitRanges {
		slices.SortFunc(lrs, func(x, y *v1.LimitRange) int { return cmp.Compare(x.Name, y.Name) })
	}
	return a, nil
}

// defaultLimitRange returns a copy of lr with the API server's defaults of a Container item
// (ADM-2): a missing default limit is the max, a missing default request the default limit,
// else the min.
func defaultLimitRange(lr *v1.LimitRange) *v1.LimitRange {
	lr = lr.DeepCopy()
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		if it.Type != v1.LimitTypeContainer {
			continue
		}
		if it.Default == nil {
			it.Default = v1.ResourceList{}
		}
		if it.DefaultRequest == nil {
			it.DefaultRequest = v1.ResourceList{}
		}
		fillMissing(it.Default, it.Max)
		fillMissing(it.DefaultRequest, it.Default)
		fillMissing(it.DefaultRequest, it.Min)
	}
	return lr
}

// hugeQuantities reports the quantities of l beyond MaxQuantityDigits, as Compile does for
// pod templates.
func hugeQuantities(l v1.ResourceList, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(l)) {
		if quantityTooLarge(l[name]) {
			errs = append(errs, field.Invalid(path.Key(string(name)), field.OmitValueType{},
				"a quantity of more than 1000 digits or scaled beyond 10^±1000 cannot be added in bounded time"))
		}
	}
	return errs
}

// fillMissing sets in list every resource of from that list lacks.
func fillMissing(list, from v1.ResourceList) {
	for name, q := range from {
		if _, ok := list[name]; !ok {
			list[name] = q.DeepCopy()
		}
	}
}

// AdmittedPod is a daemon pod as admission leaves it (ADM-1).
type AdmittedPod struct {
	// Spec is the pod spec the API server stores: the requests the API server defaults from
	// limits, the LimitRanges' default limits and requests (ADM-3), the RuntimeClass's overhead
	// and scheduling (ADM-5). When Rejection is set, it is the spec as far as admission got.
	Spec *v1.PodSpec
	// Requests is what the scheduler counts for the pod: [PodRequests] of Spec.
	Requests v1.ResourceList
	// SchedulingSelector is the RuntimeClass's scheduling.nodeSelector, which admission adds
	// to the pod's nodeSelector after the controller decided where the pod goes: on a node
	// without these labels the pod stays pending (ADM-6). Nil without one.
	SchedulingSelector map[string]string
	// Rejection says why the API server refuses the pod; nil when it admits it.
	Rejection *Rejection
}

// Rejection is an admission plugin's refusal of a pod (ADM-4, ADM-5).
type Rejection struct {
	// Plugin is "LimitRanger" or "RuntimeClass".
	Plugin string `json:"plugin"`
	// Object is the LimitRange (namespace/name) or RuntimeClass (name) that refuses the pod.
	Object string `json:"object"`
	// Message says what is wrong, in upstream's words where it has them.
	Message string `json:"message"`
}

func (r *Rejection) String() string {
	return fmt.Sprintf("%s %s: %s", r.Plugin, r.Object, r.Message)
}

// Admit returns the pod that the API server of the newest supported release stores when a pod
// with spec is created in namespace: [Admission.AdmitFor] at [daemonset.NewestVersion]. spec is
// not modified; a nil spec is an empty pod.
func (a *Admission) Admit(namespace string, spec *v1.PodSpec) AdmittedPod {
	return a.AdmitFor(daemonset.NewestVersion(), namespace, spec)
}

// AdmitFor returns the pod that the API server of release version stores when a pod with spec
// is created in namespace, in the order it runs the steps (ADM-1): defaulting, the mutating
// LimitRanger and RuntimeClass plugins, then their validation; from 1.37 the pod-level
// resources are defaulted after the mutating plugins, before the validation (ADM-7); until 1.33
// the API server drops them after the mutating plugins, before the validation, and no 1.33
// mutation reads them (ADM-8). spec is not modified; a nil spec is an empty pod; the zero version is the newest release.
// It admits at the release's default feature gates: [Admission.AdmitWith] takes others.
func (a *Admission) AdmitFor(version daemonset.Version, namespace string, spec *v1.PodSpec) AdmittedPod {
	return a.AdmitWith(daemonset.Options{Version: version}, namespace, spec)
}

// AdmitWith is [Admission.AdmitFor] at the release and feature gates of opts: with
// PodLevelResources set otherwise than the release's default, pod-level resources are kept
// and counted, or dropped, as that gate says (ADM-8, VER-5). The other fields of opts are not
// read.
func (a *Admission) AdmitWith(opts daemonset.Options, namespace string, spec *v1.PodSpec) AdmittedPod {
	return a.admit(opts.Version.OrNewest(), podLevelResources(opts), namespace, spec)
}

// admit is AdmitWith at a release that is not zero, with PodLevelResources on or off.
func (a *Admission) admit(version daemonset.Version, podLevel bool, namespace string, spec *v1.PodSpec) AdmittedPod {
	if spec == nil {
		spec = &v1.PodSpec{}
	}
	late := podLevelDefaultsAfterAdmission(version)
	s := storedSpec(spec, podLevel && !late)
	out := AdmittedPod{Spec: s}
	if a != nil {
		for _, lr := range a.limitRanges[namespace] {
			mergeLimitRange(s, lr)
		}
		if rc, rej := a.runtimeClass(s); rej != nil {
			out.Rejection = rej
		} else if rej := admitRuntimeClass(s, rc); rej != nil {
			out.Rejection = rej
		} else {
			if rc != nil && rc.Scheduling != nil && len(rc.Scheduling.NodeSelector) > 0 {
				out.SchedulingSelector = maps.Clone(rc.Scheduling.NodeSelector)
			}
			prepareForCreate(version, podLevel, s)
			for _, lr := range a.limitRanges[namespace] {
				if msgs := validateLimitRange(s, lr); len(msgs) > 0 {
					out.Rejection = &Rejection{Plugin: "LimitRanger", Object: lr.Namespace + "/" + lr.Name, Message: strings.Join(msgs, "; ")}
					break
				}
			}
			if out.Rejection == nil && (rc == nil || rc.Overhead == nil) && s.Overhead != nil {
				out.Rejection = &Rejection{Plugin: "RuntimeClass", Object: runtimeClassName(s),
					Message: "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"}
			}
		}
	} else {
		prepareForCreate(version, podLevel, s)
	}
	// A pod the RuntimeClass plugin rejects never reaches prepareForCreate, but with the gate
	// off its pod-level resources count no more than an admitted pod's (ADM-8).
	out.Requests = podRequestsWith(podLevel, s)
	return out
}

// podLevelDefaultsAfterAdmission reports whether release v defaults a pod's pod-level
// resources when it prepares the pod for storage, after the mutating admission plugins
// (PodLevelResourcesFixDefaulting, beta and on from 1.37.0), rather than when it decodes the
// pod, before them (ADM-7).
func podLevelDefaultsAfterAdmission(v daemonset.Version) bool { return v.AtLeast(1, 37, 0) }

// prepareForCreate does to s what the registry of release v does to a created pod between the
// mutating and the validating admission plugins (the pod strategy's PrepareForCreate): with
// the PodLevelResources gate off (until 1.33 by default) it drops spec.resources (ADM-8); from
// 1.37 it defaults them (ADM-7).
func prepareForCreate(v daemonset.Version, podLevel bool, s *v1.PodSpec) {
	switch {
	case !podLevel:
		s.Resources = nil
	case podLevelDefaultsAfterAdmission(v):
		defaultPodLevelResources(s)
	}
}

func runtimeClassName(s *v1.PodSpec) string {
	if s.RuntimeClassName == nil {
		return ""
	}
	return *s.RuntimeClassName
}

// runtimeClass returns the RuntimeClass s names, nil when it names none, or the rejection of
// a name that is not found (ADM-5a).
func (a *Admission) runtimeClass(s *v1.PodSpec) (*nodev1.RuntimeClass, *Rejection) {
	if s.RuntimeClassName == nil {
		return nil, nil
	}
	rc, ok := a.runtimeClasses[*s.RuntimeClassName]
	if !ok {
		return nil, &Rejection{Plugin: "RuntimeClass", Object: *s.RuntimeClassName,
			Message: fmt.Sprintf("pod rejected: RuntimeClass %q not found", *s.RuntimeClassName)}
	}
	return rc, nil
}

// storedSpec returns a copy of spec with the resource defaults the API server applies when it
// decodes a pod (core/v1 SetDefaults_Pod): each container's requests default to its limits,
// and, when podLevel is set (until 1.36), pod-level requests as [PodRequests] describes them.
func storedSpec(spec *v1.PodSpec, podLevel bool) *v1.PodSpec {
	s := spec.DeepCopy()
	if podLevel && s.Resources != nil {
		s.Resources.Requests = podLevelRequests(spec, aggregate(spec, addTo)).DeepCopy()
	}
	for _, cs := range [][]v1.Container{s.Containers, s.InitContainers} {
		for i := range cs {
			r := &cs[i].Resources
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; !ok {
					if r.Requests == nil {
						r.Requests = v1.ResourceList{}
					}
					r.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
	return s
}

// defaultPodLevelResources sets the pod-level resources of s as the API server of 1.37 does when
// it prepares a created pod for storage, after the mutating admission plugins (ADM-7; upstream
// pkg/api/pod DefaultPodLevelResources): hugepages limits the pod level lacks come from the
// containers' unless requested there; cpu and memory requests the pod level lacks come from the
// containers' requests, and any other request it lacks from its limit; then a request with no
// pod-level limit gets one when every container limits that resource: the larger of the
// request and the containers' aggregate limit. Nothing happens without pod-level resources.
func defaultPodLevelResources(s *v1.PodSpec) {
	r := s.Resources
	if r == nil || (len(r.Requests) == 0 && len(r.Limits) == 0) {
		return
	}
	for name, q := range aggregate(s, addLimits) {
		if !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
			continue
		}
		_, requested := r.Requests[name]
		_, limited := r.Limits[name]
		if requested || limited {
			continue
		}
		if r.Limits == nil {
			r.Limits = v1.ResourceList{}
		}
		r.Limits[name] = q
	}

	reqs := r.Requests
	if reqs == nil {
		reqs = v1.ResourceList{}
	}
	// The containers' requests as they stand: a limit a LimitRange added is not a request (ADM-1).
	containerReqs := aggregate(s, addRequests)
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := containerReqs[name]; ok {
			if _, set := reqs[name]; !set {
				reqs[name] = q
			}
		}
	}
	for name, q := range r.Limits {
		if _, set := reqs[name]; !set && podLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		r.Requests = reqs
	}

	var candidates []v1.ResourceName
	for name := range r.Requests {
		if _, limited := r.Limits[name]; !limited && podLevelResource(name) && everyContainerLimits(s, name) {
			candidates = append(candidates, name)
		}
	}
	if len(candidates) == 0 {
		return
	}
	limits := aggregate(s, addLimits)
	for _, name := range candidates {
		q, ok := limits[name]
		if !ok {
			continue
		}
		if req := r.Requests[name]; req.Cmp(q) > 0 {
			q = req.DeepCopy()
		}
		if r.Limits == nil {
			r.Limits = v1.ResourceList{}
		}
		r.Limits[name] = q
	}
}

// everyContainerLimits reports whether every container of s, init and ephemeral ones included,
// sets a limit for name.
func everyContainerLimits(s *v1.PodSpec, name v1.ResourceName) bool {
	for _, cs := range [][]v1.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			if _, ok := cs[i].Resources.Limits[name]; !ok {
				return false
			}
		}
	}
	for i := range s.EphemeralContainers {
		if _, ok := s.EphemeralContainers[i].Resources.Limits[name]; !ok {
			return false
		}
	}
	return true
}

// admitRuntimeClass applies the RuntimeClass rc (nil: none) to s (ADM-5): its overhead, which
// must equal any overhead the pod already has, and its scheduling, whose nodeSelector must not
// contradict the pod's and whose tolerations are merged with the pod's.
func admitRuntimeClass(s *v1.PodSpec, rc *nodev1.RuntimeClass) *Rejection {
	if rc == nil {
		return nil
	}
	if rc.Overhead != nil {
		if len(s.Overhead) > 0 && !sameResources(s.Overhead, rc.Overhead.PodFixed) {
			return &Rejection{Plugin: "RuntimeClass", Object: rc.Name, Message: "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"}
		}
		s.Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	if rc.Scheduling == nil {
		return nil
	}
	if s.NodeSelector == nil {
		s.NodeSelector = maps.Clone(rc.Scheduling.NodeSelector)
	} else {
		for _, key := range slices.Sorted(maps.Keys(rc.Scheduling.NodeSelector)) {
			want := rc.Scheduling.NodeSelector[key]
			if have, ok := s.NodeSelector[key]; ok && have != want {
				return &Rejection{Plugin: "RuntimeClass", Object: rc.Name, Message: fmt.Sprintf(
					"conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", key, want, key, have)}
			}
			s.NodeSelector[key] = want
		}
	}
	s.Tolerations = mergeTolerations(s.Tolerations, rc.Scheduling.Tolerations)
	return nil
}

// sameResources reports whether a and b name the same resources with equal quantities.
func sameResources(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		if o, ok := b[name]; !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}
