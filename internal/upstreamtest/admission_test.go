package upstreamtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	resourcehelper "k8s.io/component-helpers/resource"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	api "k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass"

	"github.com/daemonsched/daemonsched/fleet"
)

var quantities = []string{"0", "50m", "100m", "250m", "1", "2", "64Mi", "128Mi", "1Gi"}

func list(r *rand.Rand, names ...v1.ResourceName) v1.ResourceList {
	if r.IntN(3) == 0 {
		return nil
	}
	out := v1.ResourceList{}
	for _, n := range names {
		if r.IntN(2) == 0 {
			out[n] = resource.MustParse(quantities[r.IntN(len(quantities))])
		}
	}
	return out
}

var cpuMem = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}

func randomSpec(r *rand.Rand) *v1.PodSpec {
	spec := &v1.PodSpec{}
	for i := range r.IntN(3) {
		c := v1.Container{Name: fmt.Sprintf("i%d", i), Resources: v1.ResourceRequirements{Requests: list(r, cpuMem...), Limits: list(r, cpuMem...)}}
		if r.IntN(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		spec.InitContainers = append(spec.InitContainers, c)
	}
	for i := range r.IntN(2) + 1 {
		spec.Containers = append(spec.Containers, v1.Container{Name: fmt.Sprintf("c%d", i),
			Resources: v1.ResourceRequirements{Requests: list(r, cpuMem...), Limits: list(r, cpuMem...)}})
	}
	if r.IntN(5) == 0 {
		spec.Resources = &v1.ResourceRequirements{Requests: list(r, cpuMem...), Limits: list(r, cpuMem...)}
	}
	if r.IntN(6) == 0 {
		spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse(quantities[r.IntN(3)+1])}
	}
	switch r.IntN(5) {
	case 0:
		spec.RuntimeClassName = new("kata")
	case 1:
		spec.RuntimeClassName = new("gvisor")
	case 2:
		spec.RuntimeClassName = new("missing")
	}
	if r.IntN(3) == 0 {
		spec.NodeSelector = map[string]string{"sandbox": []string{"gvisor", "other"}[r.IntN(2)]}
	}
	if r.IntN(3) == 0 {
		spec.Tolerations = []v1.Toleration{{Key: "sandbox", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	}
	return spec
}

func randomLimitRange(r *rand.Rand, name string) *v1.LimitRange {
	lr := &v1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	for range r.IntN(3) {
		typ := []v1.LimitType{v1.LimitTypeContainer, v1.LimitTypeContainer, v1.LimitTypePod}[r.IntN(3)]
		it := v1.LimitRangeItem{Type: typ}
		if r.IntN(3) == 0 {
			it.Min = list(r, cpuMem...)
		}
		if r.IntN(3) == 0 {
			it.Max = list(r, cpuMem...)
		}
		if r.IntN(4) == 0 {
			it.MaxLimitRequestRatio = v1.ResourceList{v1.ResourceCPU: resource.MustParse([]string{"1", "2", "4"}[r.IntN(3)])}
		}
		if typ == v1.LimitTypeContainer {
			it.Default = list(r, cpuMem...)
			it.DefaultRequest = list(r, cpuMem...)
		}
		lr.Spec.Limits = append(lr.Spec.Limits, it)
	}
	return lr
}

var runtimeClasses = []*nodev1.RuntimeClass{
	{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("160Mi")}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}, Handler: "runsc", Scheduling: &nodev1.Scheduling{
		NodeSelector: map[string]string{"sandbox": "gvisor"},
		Tolerations: []v1.Toleration{
			{Key: "sandbox", Operator: v1.TolerationOpEqual, Value: "gvisor", Effect: v1.TaintEffectNoSchedule},
			{Key: "sandbox", Operator: v1.TolerationOpExists},
		},
	}},
}

// upstream runs the linked release's plugins on spec in the API server's order: defaulting,
// LimitRanger and RuntimeClass admission, the registry's pod-level defaulting, then the plugins'
// validation.
func upstream(t *testing.T, spec *v1.PodSpec, lr *v1.LimitRange) (*v1.Pod, error) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	limits, err := limitranger.NewLimitRanger(&limitranger.DefaultLimitRangerActions{})
	if err != nil {
		t.Fatal(err)
	}
	limits.SetExternalKubeInformerFactory(factory)
	limits.SetExternalKubeClientSet(client)
	rc := runtimeclass.NewRuntimeClass()
	rc.SetExternalKubeInformerFactory(factory)
	rc.SetExternalKubeClientSet(client)
	if lr != nil {
		stored := lr.DeepCopy()
		corev1.SetObjectDefaults_LimitRange(stored)
		if err := factory.Core().V1().LimitRanges().Informer().GetStore().Add(stored); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range runtimeClasses {
		if err := factory.Node().V1().RuntimeClasses().Informer().GetStore().Add(c); err != nil {
			t.Fatal(err)
		}
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "daemon"}, Spec: *spec.DeepCopy()}
	corev1.SetObjectDefaults_Pod(pod)
	internal := &api.Pod{}
	if err := corev1.Convert_v1_Pod_To_core_Pod(pod, internal, nil); err != nil {
		t.Fatal(err)
	}
	attrs := admission.NewAttributesRecord(internal, nil, api.Kind("Pod").WithVersion("version"), "ns", "daemon",
		api.Resource("pods").WithVersion("version"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	ctx := context.Background()
	err = limits.Admit(ctx, attrs, nil)
	if err == nil {
		err = rc.Admit(ctx, attrs, nil)
	}
	if err == nil {
		// The registry's create (rest.BeforeCreate, PrepareForCreate) comes between the
		// mutating and the validating admission plugins: it drops the fields of disabled
		// gates (spec.resources until 1.33, ADM-8) and, from 1.37, defaults pod-level
		// resources (ADM-7).
		podutil.DropDisabledPodFields(internal, nil)
		defaultPodLevelResources(internal)
		err = limits.Validate(ctx, attrs, nil)
	}
	if err == nil {
		err = rc.Validate(ctx, attrs, nil)
	}
	out := &v1.Pod{}
	if cerr := corev1.Convert_core_Pod_To_v1_Pod(internal, out, nil); cerr != nil {
		t.Fatal(cerr)
	}
	return out, err
}

func sameList(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for n, q := range a {
		if o, ok := b[n]; !ok || o.Cmp(q) != 0 {
			return false
		}
	}
	return true
}

// TestAdmitAgreesWithUpstream checks fleet's Admission at the linked release (ADM-1..ADM-5,
// ADM-7) against that release's LimitRanger and RuntimeClass plugins, and the admitted pod's requests against
// component-helpers' PodRequests, on random pods, LimitRanges and the two RuntimeClasses.
func TestAdmitAgreesWithUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	rejected, admitted := 0, 0
	for i := range 3000 {
		spec := randomSpec(r)
		var lr *v1.LimitRange
		var lrs []*v1.LimitRange
		if r.IntN(4) != 0 {
			lr = randomLimitRange(r, "limits")
			lrs = []*v1.LimitRange{lr}
		}
		a, errs := fleet.CompileAdmission(lrs, runtimeClasses)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		before := spec.DeepCopy()
		got := a.AdmitFor(release, "ns", spec)
		if !reflect.DeepEqual(before, spec) {
			t.Fatal("Admit modified its input")
		}
		want, err := upstream(t, spec, lr)
		if (err != nil) != (got.Rejection != nil) {
			t.Fatalf("case %d: pod %s, LimitRange %v: upstream says %v, fleet says %v", i, spec.String(), lr, err, got.Rejection)
		}
		if err != nil {
			rejected++
			for _, msg := range strings.Split(got.Rejection.Message, "; ") {
				if !strings.Contains(err.Error(), msg) {
					t.Fatalf("case %d: upstream %q does not say %q", i, err, msg)
				}
			}
			continue
		}
		admitted++
		for j, cs := range [][2][]v1.Container{{got.Spec.Containers, want.Spec.Containers}, {got.Spec.InitContainers, want.Spec.InitContainers}} {
			for k := range cs[0] {
				g, w := cs[0][k].Resources, cs[1][k].Resources
				if !sameList(g.Requests, w.Requests) || !sameList(g.Limits, w.Limits) {
					t.Fatalf("case %d: list %d container %d: fleet %v, upstream %v\npod %s\nLimitRange %v", i, j, k, g, w, spec.String(), lr)
				}
			}
		}
		if !sameList(got.Spec.Overhead, want.Spec.Overhead) {
			t.Fatalf("case %d: overhead: fleet %v, upstream %v", i, got.Spec.Overhead, want.Spec.Overhead)
		}
		if !reflect.DeepEqual(got.Spec.NodeSelector, want.Spec.NodeSelector) || !reflect.DeepEqual(got.Spec.Tolerations, want.Spec.Tolerations) {
			t.Fatalf("case %d: scheduling: fleet %v %v, upstream %v %v", i, got.Spec.NodeSelector, got.Spec.Tolerations, want.Spec.NodeSelector, want.Spec.Tolerations)
		}
		if reqs := resourcehelper.PodRequests(want, resourcehelper.PodResourcesOptions{}); !sameList(got.Requests, reqs) {
			t.Fatalf("case %d: requests: fleet %v, component-helpers on upstream's pod %v\npod %s\nLimitRange %v", i, got.Requests, reqs, spec.String(), lr)
		}
	}
	if rejected < 300 || admitted < 300 {
		t.Fatalf("only %d rejected and %d admitted pods", rejected, admitted)
	}
	t.Logf("%d rejected, %d admitted", rejected, admitted)
}
