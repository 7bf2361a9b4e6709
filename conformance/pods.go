package conformance

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ComparePods compares the pod a candidate creates (got) with the daemon pod (want, POD-*) on
// what the controller sets, and returns a go-cmp diff (-want +got), or "" when they agree.
//
//   - Server-filled metadata is ignored: name (the controller sets generateName, POD-1), uid,
//     resourceVersion, creationTimestamp, generation, managedFields; and the status, apiVersion
//     and kind. A pod without metadata.namespace is in the DaemonSet's, as upstream's object
//     has none and the create call carries it (POD-2, D-3).
//   - An API default the candidate carries where the daemon pod leaves the field empty is
//     accepted (a pod read back from an API server): restartPolicy Always, dnsPolicy
//     ClusterFirst, schedulerName default-scheduler, terminationGracePeriodSeconds 30, an empty
//     securityContext, enableServiceLinks true, preemptionPolicy PreemptLowerPriority,
//     priority 0; for containers terminationMessagePath /dev/termination-log,
//     terminationMessagePolicy File, any imagePullPolicy, protocol TCP on ports, and
//     apiVersion v1 on an env var's fieldRef.
//   - Lists the API merges by key are compared as sets keyed that way: containers, volumes,
//     ports, volume mounts, owner references, image pull secrets.
//   - Init containers and each container's env are compared in order, as the API server keeps
//     it: init containers (sidecars among them) start in that order, and an env value's
//     $(VAR) expands only variables defined before it. Atomic lists (tolerations,
//     node-selector terms, args) are compared in order too.
//   - An empty map or list equals a missing one.
func ComparePods(want, got *v1.Pod) string {
	w, g, equal := comparablePods(want, got)
	if equal {
		return ""
	}
	return podDiff(w, g)
}

// comparablePods returns want and got as ComparePods compares them (normalized, keyed lists
// sorted) and whether they are equal, without wording how they differ.
func comparablePods(want, got *v1.Pod) (w, g *v1.Pod, equal bool) {
	if want == nil || got == nil {
		return want, got, want == got
	}
	w, g = normalizePod(want, nil), normalizePod(got, want)
	sortKeyed(w)
	sortKeyed(g)
	return w, g, podsEqual(w, g)
}

// podDiff words how the comparable pods w and g differ (-want +got): go-cmp, some milliseconds
// a daemon pod, which is why a check words at most maxPodDiffs of them.
func podDiff(w, g *v1.Pod) string {
	if w == nil || g == nil {
		return gocmp.Diff(w, g)
	}
	return gocmp.Diff(w, g, cmpopts.EquateEmpty(),
		cmpopts.SortSlices(func(a, b v1.Volume) bool { return a.Name < b.Name }),
		cmpopts.SortSlices(func(a, b v1.VolumeMount) bool { return a.MountPath < b.MountPath }),
		cmpopts.SortSlices(func(a, b v1.ContainerPort) bool {
			return cmp.Or(cmp.Compare(a.ContainerPort, b.ContainerPort), strings.Compare(string(a.Protocol), string(b.Protocol))) < 0
		}),
		cmpopts.SortSlices(func(a, b metav1.OwnerReference) bool { return a.UID < b.UID }),
		cmpopts.SortSlices(func(a, b v1.LocalObjectReference) bool { return a.Name < b.Name }),
	)
}

// podsEqual reports whether the normalized pods w and g are semantically equal
// (equality.Semantic: nil and empty alike, quantities and times by value). reflect.DeepEqual
// is tried first: what it finds equal is semantically equal too (equal quantities and times
// compare equal by value; equal slices and maps are equal whether nil or empty), and on a
// daemon pod it takes a quarter of the time (46 against 172 µs on BenchmarkVerifyLarge's pod,
// one core), having no equality functions to look up at every value. The semantic comparison
// decides only what it does not find equal. Semantic equality is itself an order of magnitude
// cheaper than go-cmp, which only words the difference.
func podsEqual(w, g *v1.Pod) bool {
	return reflect.DeepEqual(w, g) || equality.Semantic.DeepEqual(w, g)
}

// sortKeyed sorts, in place, the lists the API merges by key whose order means nothing (see
// ComparePods); init containers and env keep their order.
func sortKeyed(p *v1.Pod) {
	slices.SortFunc(p.OwnerReferences, func(a, b metav1.OwnerReference) int { return strings.Compare(string(a.UID), string(b.UID)) })
	slices.SortFunc(p.Spec.Volumes, func(a, b v1.Volume) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(p.Spec.ImagePullSecrets, func(a, b v1.LocalObjectReference) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(p.Spec.Containers, func(a, b v1.Container) int { return strings.Compare(a.Name, b.Name) })
	for _, cs := range [][]v1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range cs {
			c := &cs[i]
			slices.SortFunc(c.VolumeMounts, func(a, b v1.VolumeMount) int { return strings.Compare(a.MountPath, b.MountPath) })
			slices.SortFunc(c.Ports, func(a, b v1.ContainerPort) int {
				return cmp.Or(cmp.Compare(a.ContainerPort, b.ContainerPort), strings.Compare(string(a.Protocol), string(b.Protocol)))
			})
		}
	}
}

// podRule names the POD-* rule of the first part of got that differs from want, in the order
// metadata name, namespace, labels, other metadata, owner, spec.
func podRule(want, got *v1.Pod) string {
	w, g, _ := comparablePods(want, got)
	return comparableRule(w, g)
}

// comparableRule is podRule of pods comparablePods returned.
func comparableRule(w, g *v1.Pod) string {
	eq := equality.Semantic.DeepEqual
	switch {
	case w.GenerateName != g.GenerateName || w.Name != g.Name:
		return "POD-1"
	case w.Namespace != g.Namespace:
		return "POD-2"
	case !eq(w.Labels, g.Labels):
		return "POD-3"
	case !eq(w.OwnerReferences, g.OwnerReferences):
		return "POD-5"
	case !eq(w.Spec, g.Spec) && eq(w.ObjectMeta, g.ObjectMeta):
		return "POD-6"
	case !eq(w.ObjectMeta, g.ObjectMeta):
		return "POD-4"
	}
	return "POD-6"
}

// normalizePod returns a copy of pod without server-filled fields; with ref (the daemon pod)
// non-nil, API defaults pod carries where ref has none are cleared too.
func normalizePod(pod, ref *v1.Pod) *v1.Pod {
	p := comparableCopy(pod)
	p.TypeMeta = metav1.TypeMeta{}
	if ref != nil && p.Namespace == "" {
		// Upstream's object has no namespace; the create call carries it (POD-2, D-3).
		p.Namespace = ref.Namespace
	}
	p.Name, p.UID, p.ResourceVersion, p.Generation = "", "", "", 0
	//lint:ignore SA1019 a candidate from an old client may still carry selfLink; it is server-filled
	p.SelfLink = ""
	p.CreationTimestamp = metav1.Time{}
	p.ManagedFields = nil
	p.Status = v1.PodStatus{}
	// Empty and missing are alike to the comparison; one form of each lets podsEqual's first
	// test decide (the daemon pod has empty annotations and finalizers, a decoded one none).
	if len(p.Labels) == 0 {
		p.Labels = nil
	}
	if len(p.Annotations) == 0 {
		p.Annotations = nil
	}
	if len(p.Finalizers) == 0 {
		p.Finalizers = nil
	}
	if ref == nil {
		return p
	}
	s, r := &p.Spec, &ref.Spec
	clearDefault(&s.RestartPolicy, r.RestartPolicy, v1.RestartPolicyAlways)
	clearDefault(&s.DNSPolicy, r.DNSPolicy, v1.DNSClusterFirst)
	clearDefault(&s.SchedulerName, r.SchedulerName, v1.DefaultSchedulerName)
	if r.TerminationGracePeriodSeconds == nil && s.TerminationGracePeriodSeconds != nil && *s.TerminationGracePeriodSeconds == v1.DefaultTerminationGracePeriodSeconds {
		s.TerminationGracePeriodSeconds = nil
	}
	if r.SecurityContext == nil && s.SecurityContext != nil && reflect.DeepEqual(*s.SecurityContext, v1.PodSecurityContext{}) {
		s.SecurityContext = nil
	}
	if r.EnableServiceLinks == nil && s.EnableServiceLinks != nil && *s.EnableServiceLinks {
		s.EnableServiceLinks = nil
	}
	if r.PreemptionPolicy == nil && s.PreemptionPolicy != nil && *s.PreemptionPolicy == v1.PreemptLowerPriority {
		s.PreemptionPolicy = nil
	}
	if r.Priority == nil && s.Priority != nil && *s.Priority == 0 {
		s.Priority = nil
	}
	clearContainerDefaults(s.Containers, r.Containers)
	clearContainerDefaults(s.InitContainers, r.InitContainers)
	return p
}

// comparableCopy returns a copy of pod that normalizePod and sortKeyed may change without
// changing pod: the pod and its spec by value, and every list they sort or write into (owner
// references, volumes, image pull secrets, containers and init containers, and each
// container's ports, volume mounts and env with its fieldRefs) cloned; the rest is shared and
// only read. A deep copy of every pod was a third of verify's comparison on 100,000 creates
// (BenchmarkVerifyLarge).
func comparableCopy(pod *v1.Pod) *v1.Pod {
	p := *pod
	p.OwnerReferences = slices.Clone(p.OwnerReferences)
	s := &p.Spec
	s.Volumes = slices.Clone(s.Volumes)
	s.ImagePullSecrets = slices.Clone(s.ImagePullSecrets)
	s.Containers = comparableContainers(s.Containers)
	s.InitContainers = comparableContainers(s.InitContainers)
	return &p
}

// comparableContainers clones cs, and in each container the lists normalizePod and sortKeyed
// change.
func comparableContainers(cs []v1.Container) []v1.Container {
	cs = slices.Clone(cs)
	for i := range cs {
		c := &cs[i]
		c.Ports = slices.Clone(c.Ports)
		c.VolumeMounts = slices.Clone(c.VolumeMounts)
		c.Env = slices.Clone(c.Env)
		for j := range c.Env {
			if f := c.Env[j].ValueFrom; f != nil && f.FieldRef != nil {
				f, ref := *f, *f.FieldRef
				f.FieldRef = &ref
				c.Env[j].ValueFrom = &f
			}
		}
	}
	return cs
}

func clearDefault[T comparable](field *T, ref, def T) {
	var zero T
	if ref == zero && *field == def {
		*field = zero
	}
}

func clearContainerDefaults(cs, refs []v1.Container) {
	for i := range cs {
		c := &cs[i]
		k := slices.IndexFunc(refs, func(r v1.Container) bool { return r.Name == c.Name })
		if k < 0 {
			continue
		}
		r := &refs[k]
		clearDefault(&c.TerminationMessagePath, r.TerminationMessagePath, v1.TerminationMessagePathDefault)
		clearDefault(&c.TerminationMessagePolicy, r.TerminationMessagePolicy, v1.TerminationMessageReadFile)
		if r.ImagePullPolicy == "" {
			c.ImagePullPolicy = ""
		}
		for j := range c.Env {
			// The API server defaults a fieldRef's apiVersion; env is compared in order, so
			// the daemon pod's var is the one at the same index.
			if j >= len(r.Env) || r.Env[j].Name != c.Env[j].Name {
				break
			}
			if f, rf := c.Env[j].ValueFrom, r.Env[j].ValueFrom; f != nil && f.FieldRef != nil && rf != nil && rf.FieldRef != nil {
				clearDefault(&f.FieldRef.APIVersion, rf.FieldRef.APIVersion, "v1")
			}
		}
		for j := range c.Ports {
			pk := slices.IndexFunc(r.Ports, func(rp v1.ContainerPort) bool { return rp.ContainerPort == c.Ports[j].ContainerPort })
			if pk >= 0 {
				clearDefault(&c.Ports[j].Protocol, r.Ports[pk].Protocol, v1.ProtocolTCP)
			}
		}
	}
}
