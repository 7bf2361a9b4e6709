package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
)

func reqList(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func reqContainer(name string, requests, limits v1.ResourceList) v1.Container {
	return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func reqSidecar(name string, requests v1.ResourceList) v1.Container {
	always := v1.ContainerRestartPolicyAlways
	c := reqContainer(name, requests, nil)
	c.RestartPolicy = &always
	return c
}

// reqEqual compares resource lists by keys and quantity values (Cmp), not by formatting.
func reqEqual(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		o, ok := b[name]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

func reqString(l v1.ResourceList) string {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, string(n))
	}
	slices.Sort(names)
	s := ""
	for _, n := range names {
		q := l[v1.ResourceName(n)]
		s += fmt.Sprintf("%s=%s ", n, q.String())
	}
	return s
}

func TestPodRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec *v1.PodSpec
		want v1.ResourceList
	}{
		{
			name: "nil spec requests nothing",
			spec: nil,
			want: v1.ResourceList{},
		},
		{
			name: "regular containers are summed",
			spec: &v1.PodSpec{Containers: []v1.Container{
				reqContainer("a", reqList("cpu", "100m", "memory", "64Mi"), nil),
				reqContainer("b", reqList("cpu", "250m"), nil),
			}},
			want: reqList("cpu", "350m", "memory", "64Mi"),
		},
		{
			name: "an init container larger than the containers sets the request",
			spec: &v1.PodSpec{
				InitContainers: []v1.Container{reqContainer("init", reqList("cpu", "2", "memory", "1Mi"), nil)},
				Containers:     []v1.Container{reqContainer("a", reqList("cpu", "1", "memory", "1Gi"), nil)},
			},
			want: reqList("cpu", "2", "memory", "1Gi"),
		},
		{
			name: "sidecars add to the containers and to every later init container",
			// The sidecar KEP example: sidecar 1 CPU, then init 2 CPU runs beside it (3),
			// then containers 1 CPU beside the sidecar (2): the maximum, 3, counts.
			spec: &v1.PodSpec{
				InitContainers: []v1.Container{reqSidecar("proxy", reqList("cpu", "1")), reqContainer("migrate", reqList("cpu", "2"), nil)},
				Containers:     []v1.Container{reqContainer("app", reqList("cpu", "1"), nil)},
			},
			want: reqList("cpu", "3"),
		},
		{
			name: "a sidecar declared after an init container does not add to it",
			spec: &v1.PodSpec{
				InitContainers: []v1.Container{reqContainer("migrate", reqList("cpu", "2"), nil), reqSidecar("proxy", reqList("cpu", "1"))},
				Containers:     []v1.Container{reqContainer("app", reqList("cpu", "500m"), nil)},
			},
			want: reqList("cpu", "2"),
		},
		{
			name: "a container with only a limit requests its limit as the API server defaults it",
			spec: &v1.PodSpec{Containers: []v1.Container{
				reqContainer("a", reqList("cpu", "100m"), reqList("cpu", "1", "memory", "256Mi")),
			}},
			want: reqList("cpu", "100m", "memory", "256Mi"),
		},
		{
			name: "pod-level requests replace cpu and memory but not other resources",
			spec: &v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Requests: reqList("cpu", "4", "ephemeral-storage", "1Gi")},
				Containers: []v1.Container{reqContainer("a", reqList("cpu", "1", "memory", "1Gi", "ephemeral-storage", "2Gi"), nil)},
			},
			want: reqList("cpu", "4", "memory", "1Gi", "ephemeral-storage", "2Gi"),
		},
		{
			name: "pod-level limits default the missing pod-level requests: containers' cpu, the limit's memory",
			spec: &v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Limits: reqList("cpu", "2", "memory", "1Gi")},
				Containers: []v1.Container{reqContainer("a", reqList("cpu", "500m"), nil)},
			},
			want: reqList("cpu", "500m", "memory", "1Gi"),
		},
		{
			// Validation would want equal hugepages request and limit; as stored, the pod level
			// takes the containers' limit, which then replaces their request.
			name: "a pod-level hugepages limit defaults from the containers' limits and then becomes the request",
			spec: &v1.PodSpec{
				Resources:  &v1.ResourceRequirements{Requests: reqList("cpu", "1")},
				Containers: []v1.Container{reqContainer("a", reqList("hugepages-2Mi", "2Mi"), reqList("hugepages-2Mi", "4Mi", "memory", "64Mi"))},
			},
			want: reqList("cpu", "1", "memory", "64Mi", "hugepages-2Mi", "4Mi"),
		},
		{
			name: "overhead is added last",
			spec: &v1.PodSpec{
				Overhead:   reqList("cpu", "250m", "memory", "120Mi"),
				Resources:  &v1.ResourceRequirements{Requests: reqList("cpu", "1")},
				Containers: []v1.Container{reqContainer("a", reqList("memory", "8Mi"), nil)},
			},
			want: reqList("cpu", "1250m", "memory", "128Mi"),
		},
		{
			name: "an explicit zero request is reported",
			spec: &v1.PodSpec{Containers: []v1.Container{reqContainer("a", reqList("example.com/gpu", "0"), nil)}},
			want: reqList("example.com/gpu", "0"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var before *v1.PodSpec
			if tt.spec != nil {
				before = tt.spec.DeepCopy()
			}
			got := fleet.PodRequests(daemonset.Options{}, tt.spec)
			require.True(t, reqEqual(tt.want, got), "PodRequests() = %s, want %s", reqString(got), reqString(tt.want))
			if diff := cmp.Diff(before, tt.spec); diff != "" {
				t.Errorf("PodRequests() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// reqDefaulted applies what core/v1 SetDefaults_Pod does to requests, the test's own reading
// of upstream, so that the differential oracle sees the pod the API server would store: a
// container limit without a request becomes the request; then, with PodLevelResources (on by
// default in v1.36), defaultHugePagePodLimits and defaultPodRequests, built here on
// component-helpers' own aggregation functions.
func reqDefaulted(spec *v1.PodSpec) *v1.PodSpec {
	out := spec.DeepCopy()
	for _, list := range [][]v1.Container{out.Containers, out.InitContainers} {
		for i := range list {
			r := &list[i].Resources
			if r.Limits == nil {
				continue
			}
			if r.Requests == nil {
				r.Requests = v1.ResourceList{}
			}
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; !ok {
					r.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
	res := out.Resources
	if res == nil {
		return out
	}
	pod := &v1.Pod{Spec: *out}
	hugePages := func(name v1.ResourceName) bool { return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) }
	if len(res.Limits) > 0 || len(res.Requests) > 0 { // defaultHugePagePodLimits
		lims := res.Limits
		if lims == nil {
			lims = v1.ResourceList{}
		}
		for name, q := range resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{}) {
			if !resourcehelper.IsSupportedPodLevelResource(name) || !hugePages(name) {
				continue
			}
			if _, ok := res.Requests[name]; ok {
				continue
			}
			if _, ok := lims[name]; !ok {
				lims[name] = q.DeepCopy()
			}
		}
		if len(lims) > 0 {
			res.Limits = lims
		}
	}
	if len(res.Limits) > 0 { // defaultPodRequests
		reqs := res.Requests
		if reqs == nil {
			reqs = v1.ResourceList{}
		}
		overcommit := func(name v1.ResourceName) bool {
			native := !strings.Contains(string(name), "/") || strings.HasPrefix(string(name), "kubernetes.io/")
			return native && !hugePages(name)
		}
		for name, q := range resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{}) {
			if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && overcommit(name) {
				reqs[name] = q.DeepCopy()
			}
		}
		for name, q := range res.Limits {
			if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
				reqs[name] = q.DeepCopy()
			}
		}
		if len(reqs) > 0 {
			res.Requests = reqs
		}
	}
	return out
}

var reqResources = []v1.ResourceName{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu"}

func reqRandomList(r *rand.Rand) v1.ResourceList {
	if r.IntN(5) == 0 {
		return nil
	}
	out := v1.ResourceList{}
	for _, name := range reqResources {
		if r.IntN(3) != 0 {
			continue
		}
		switch r.IntN(4) {
		case 0:
			out[name] = *resource.NewMilliQuantity(r.Int64N(5000), resource.DecimalSI)
		case 1:
			out[name] = *resource.NewQuantity(r.Int64N(1<<34), resource.BinarySI)
		case 2:
			out[name] = *resource.NewScaledQuantity(r.Int64N(1000), resource.Scale(-9+3*r.IntN(4)))
		default:
			out[name] = resource.Quantity{Format: resource.DecimalSI} // an explicit zero
		}
	}
	return out
}

func reqRandomContainer(r *rand.Rand, name string, init bool) v1.Container {
	c := reqContainer(name, reqRandomList(r), reqRandomList(r))
	if init && r.IntN(3) == 0 {
		p := v1.ContainerRestartPolicyAlways
		if r.IntN(8) == 0 {
			p = v1.ContainerRestartPolicy("OnFailure") // not a sidecar: only Always is
		}
		c.RestartPolicy = &p
	}
	if r.IntN(3) == 0 {
		c.Ports = append(c.Ports, v1.ContainerPort{ContainerPort: int32(r.IntN(4)), HostPort: int32(r.IntN(3) - 1)})
	}
	return c
}

func reqRandomPodSpec(r *rand.Rand) *v1.PodSpec {
	spec := &v1.PodSpec{HostNetwork: r.IntN(4) == 0}
	for i := range r.IntN(4) {
		spec.InitContainers = append(spec.InitContainers, reqRandomContainer(r, fmt.Sprintf("i%d", i), true))
	}
	for i := range r.IntN(4) {
		spec.Containers = append(spec.Containers, reqRandomContainer(r, fmt.Sprintf("c%d", i), false))
	}
	if r.IntN(4) == 0 {
		spec.Resources = &v1.ResourceRequirements{Requests: reqRandomList(r), Limits: reqRandomList(r)}
	}
	if r.IntN(4) == 0 {
		spec.Overhead = reqRandomList(r)
	}
	return spec
}

// TestPodRequestsDifferential checks PodRequests against component-helpers resource.PodRequests
// with the options of the v1.36 scheduler's NodeResourcesFit (pod-level resources on), on
// random pods after the API server's container request defaulting.
// TestPodRequestsByRelease: spec.resources counts from 1.34 and not before (ADM-8, SCHED-5).
func TestPodRequestsByRelease(t *testing.T) {
	t.Parallel()
	spec := &v1.PodSpec{
		Containers: []v1.Container{reqContainer("a", reqList("cpu", "1", "memory", "1Gi"), nil)},
		Resources:  &v1.ResourceRequirements{Requests: reqList("cpu", "3")},
	}
	tests := []struct {
		name    string
		version string
		gates   daemonset.FeatureGates
		want    v1.ResourceList
	}{
		{name: "ADM-8 until 1.33 the pod-level request is left out", version: "1.33.13",
			want: reqList("cpu", "1", "memory", "1Gi")},
		{name: "ADM-8 from 1.34.0 the pod-level request replaces the containers'", version: "1.34.0",
			want: reqList("cpu", "3", "memory", "1Gi")},
		{name: "ADM-8 the zero version is the newest release, which counts it",
			want: reqList("cpu", "3", "memory", "1Gi")},
		{name: "VER-5 a 1.33 cluster that turned PodLevelResources on counts it", version: "1.33.13",
			gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: true}, want: reqList("cpu", "3", "memory", "1Gi")},
		{name: "VER-5 a 1.37 cluster that turned PodLevelResources off leaves it out", version: "1.37.2",
			gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: false}, want: reqList("cpu", "1", "memory", "1Gi")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var version daemonset.Version
			if tt.version != "" {
				v, err := daemonset.ParseVersion(tt.version)
				require.NoError(t, err)
				version = v
			}
			before := spec.DeepCopy()
			got := fleet.PodRequests(daemonset.Options{Version: version, FeatureGates: tt.gates}, spec)
			if diff := cmp.Diff(before, spec); diff != "" {
				t.Fatalf("PodRequests modified its input (-before +after):\n%s", diff)
			}
			if !reqEqual(got, tt.want) {
				t.Errorf("PodRequests() = %s, want %s", reqString(got), reqString(tt.want))
			}
		})
	}
}

func TestPodRequestsDifferential(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 6))
	for range 6000 {
		spec := reqRandomPodSpec(r)
		before := spec.DeepCopy()
		got := fleet.PodRequests(daemonset.Options{}, spec)
		want := resourcehelper.PodRequests(&v1.Pod{Spec: *reqDefaulted(spec)}, resourcehelper.PodResourcesOptions{})
		if !reqEqual(want, got) {
			t.Fatalf("PodRequests(%s) = %s, component-helpers says %s", spec.String(), reqString(got), reqString(want))
		}
		if !reflect.DeepEqual(before, spec) {
			t.Fatalf("PodRequests() modified its input (-before +after):\n%s", cmp.Diff(before, spec))
		}
	}
}
