package fleet_test

import (
	"maps"
	"math/rand/v2"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
)

func admLimitRange(name string, items ...v1.LimitRangeItem) *v1.LimitRange {
	return &v1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: v1.LimitRangeSpec{Limits: items}}
}

var admRuntimeClasses = []*nodev1.RuntimeClass{
	{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: reqList("cpu", "250m")}},
	{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}, Handler: "runsc", Scheduling: &nodev1.Scheduling{
		NodeSelector: map[string]string{"sandbox": "gvisor"},
		Tolerations:  []v1.Toleration{{Key: "sandbox", Operator: v1.TolerationOpExists}},
	}},
}

// TestAdmissionRules checks each admission rule on one pod: what the API server stores and
// what the scheduler then counts, or who refuses the pod.
func TestAdmissionRules(t *testing.T) {
	container := func(requests, limits v1.ResourceList) v1.PodSpec {
		return v1.PodSpec{Containers: []v1.Container{reqContainer("c", requests, limits)}}
	}
	withRC := func(spec v1.PodSpec, rc string) v1.PodSpec {
		spec.RuntimeClassName = &rc
		return spec
	}
	for _, tc := range []struct {
		name        string
		limitRanges []*v1.LimitRange
		spec        v1.PodSpec
		requests    v1.ResourceList
		rejectedBy  string
		selector    map[string]string
	}{
		{name: "ADM-1 no admission objects: the pod as defaulted", spec: container(nil, reqList("cpu", "1")), requests: reqList("cpu", "1")},
		{name: "ADM-2 a default request defaults to the default limit", spec: container(nil, nil),
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: reqList("memory", "128Mi")})},
			requests:    reqList("memory", "128Mi")},
		{name: "ADM-2 a default limit defaults to the max, the request to it", spec: container(nil, nil),
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, Max: reqList("cpu", "2")})},
			requests:    reqList("cpu", "2")},
		{name: "ADM-2 a default request defaults to the min", spec: container(nil, nil),
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, Min: reqList("cpu", "100m")})},
			requests:    reqList("cpu", "100m")},
		{name: "ADM-3 limits-only container keeps its limit as request, not the default request",
			spec:        container(nil, reqList("cpu", "300m")),
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, DefaultRequest: reqList("cpu", "50m", "memory", "64Mi")})},
			requests:    reqList("cpu", "300m", "memory", "64Mi")},
		{name: "ADM-3 D-13 the first LimitRange by name sets a resource", spec: container(nil, nil),
			limitRanges: []*v1.LimitRange{
				admLimitRange("z", v1.LimitRangeItem{Type: v1.LimitTypeContainer, DefaultRequest: reqList("cpu", "2")}),
				admLimitRange("a", v1.LimitRangeItem{Type: v1.LimitTypeContainer, DefaultRequest: reqList("cpu", "1")}),
			},
			requests: reqList("cpu", "1")},
		{name: "ADM-4 a request under the min is refused", spec: container(reqList("cpu", "10m"), nil),
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, Min: reqList("cpu", "100m")})},
			rejectedBy:  "LimitRanger"},
		{name: "ADM-4 a pod total over the Pod max is refused", spec: v1.PodSpec{Containers: []v1.Container{
			reqContainer("a", reqList("cpu", "1"), reqList("cpu", "1")), reqContainer("b", reqList("cpu", "1"), reqList("cpu", "1"))}},
			limitRanges: []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypePod, Max: reqList("cpu", "1500m")})},
			rejectedBy:  "LimitRanger"},
		{name: "ADM-5 RuntimeClass overhead is added", spec: withRC(container(reqList("cpu", "100m"), nil), "kata"), requests: reqList("cpu", "350m")},
		{name: "ADM-5 a RuntimeClass that does not exist refuses the pod", spec: withRC(container(nil, nil), "wasm"), rejectedBy: "RuntimeClass"},
		{name: "ADM-5 an overhead other than the RuntimeClass's is refused",
			spec: func() v1.PodSpec {
				s := withRC(container(nil, nil), "kata")
				s.Overhead = reqList("cpu", "1")
				return s
			}(), rejectedBy: "RuntimeClass"},
		{name: "ADM-5 an overhead without a RuntimeClass is refused",
			spec: func() v1.PodSpec { s := container(nil, nil); s.Overhead = reqList("cpu", "1"); return s }(), rejectedBy: "RuntimeClass"},
		{name: "ADM-5 a nodeSelector that contradicts the RuntimeClass's is refused",
			spec: func() v1.PodSpec {
				s := withRC(container(nil, nil), "gvisor")
				s.NodeSelector = map[string]string{"sandbox": "runc"}
				return s
			}(), rejectedBy: "RuntimeClass"},
		{name: "ADM-6 the RuntimeClass's nodeSelector is the pod's scheduling selector",
			spec: withRC(container(nil, nil), "gvisor"), requests: v1.ResourceList{}, selector: map[string]string{"sandbox": "gvisor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, errs := fleet.CompileAdmission(tc.limitRanges, admRuntimeClasses)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if tc.limitRanges == nil && tc.spec.RuntimeClassName == nil && tc.spec.Overhead == nil {
				a = nil // a nil Admission changes nothing
			}
			got := a.Admit("ns", &tc.spec)
			if tc.rejectedBy != "" {
				if got.Rejection == nil || got.Rejection.Plugin != tc.rejectedBy {
					t.Fatalf("want a rejection by %s, got %+v", tc.rejectedBy, got.Rejection)
				}
				return
			}
			if got.Rejection != nil {
				t.Fatalf("rejected: %v", got.Rejection)
			}
			if !reqEqual(got.Requests, tc.requests) {
				t.Fatalf("requests %s, want %s", reqString(got.Requests), reqString(tc.requests))
			}
			if len(got.SchedulingSelector) != len(tc.selector) || got.SchedulingSelector["sandbox"] != tc.selector["sandbox"] {
				t.Fatalf("scheduling selector %v, want %v", got.SchedulingSelector, tc.selector)
			}
		})
	}
}

// TestAdmissionByRelease checks ADM-7 release by release: until 1.36 a pod's pod-level
// resources are defaulted when the API server decodes it, before the LimitRanger; from 1.37
// after the mutating plugins, with the LimitRange defaults in the containers, and pod-level
// limits default too.
func TestAdmissionByRelease(t *testing.T) {
	// A pod with a pod-level cpu limit and a container without resources, in a namespace whose
	// LimitRange gives containers 2 cpu and allows pods a limit of at most twice the request
	// (random case 93 of TestAdmitAgreesWithUpstream).
	podLimitOnly := v1.PodSpec{Containers: []v1.Container{reqContainer("c", nil, nil)},
		Resources: &v1.ResourceRequirements{Limits: reqList("cpu", "64")}}
	ratio := []*v1.LimitRange{admLimitRange("l",
		v1.LimitRangeItem{Type: v1.LimitTypePod, MaxLimitRequestRatio: reqList("cpu", "2")},
		v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: reqList("cpu", "2")})}
	// A pod-level cpu request under its containers' limits, and no pod-level limit.
	podRequestOnly := v1.PodSpec{Containers: []v1.Container{
		reqContainer("a", nil, reqList("cpu", "1")), reqContainer("b", nil, reqList("cpu", "1"))},
		Resources: &v1.ResourceRequirements{Requests: reqList("cpu", "1")}}
	// A pod-level cpu request over its only container's limit, and a Pod min above that limit.
	podRequestOverLimits := v1.PodSpec{Containers: []v1.Container{reqContainer("a", nil, reqList("cpu", "1"))},
		Resources: &v1.ResourceRequirements{Requests: reqList("cpu", "3")}}
	podMin := []*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypePod, Min: reqList("cpu", "2")})}
	tests := []struct {
		name           string
		version        string
		gates          daemonset.FeatureGates
		limitRanges    []*v1.LimitRange
		runtimeClasses bool // admit with admRuntimeClasses
		spec           v1.PodSpec
		wantRejectedBy string
		wantPodLevel   *v1.ResourceRequirements
		wantRequests   v1.ResourceList
	}{
		{name: "ADM-7 until 1.36 the pod-level request is the limit before the LimitRange, so the ratio holds",
			version: "1.36.3", limitRanges: ratio, spec: podLimitOnly,
			wantPodLevel: &v1.ResourceRequirements{Limits: reqList("cpu", "64"), Requests: reqList("cpu", "64")},
			wantRequests: reqList("cpu", "64")},
		{name: "ADM-7 from 1.37 the pod-level request is the containers' defaulted request, so the ratio refuses",
			version: "1.37.2", limitRanges: ratio, spec: podLimitOnly, wantRejectedBy: "LimitRanger"},
		{name: "ADM-7 the zero version is the newest release",
			limitRanges: ratio, spec: podLimitOnly, wantRejectedBy: "LimitRanger"},
		{name: "ADM-7 from 1.37 a pod-level request over its containers' limits is the pod's limit, which the Pod min allows",
			version: "1.37.2", limitRanges: podMin, spec: podRequestOverLimits,
			wantPodLevel: &v1.ResourceRequirements{Limits: reqList("cpu", "3"), Requests: reqList("cpu", "3")},
			wantRequests: reqList("cpu", "3")},
		{name: "ADM-7 until 1.36 the pod's limit is its containers', which the Pod min refuses",
			version: "1.36.3", limitRanges: podMin, spec: podRequestOverLimits, wantRejectedBy: "LimitRanger"},
		{name: "ADM-7 from 1.37 the pod-level limit is defaulted without any admission object",
			version: "1.37.2", spec: podRequestOnly,
			wantPodLevel: &v1.ResourceRequirements{Limits: reqList("cpu", "2"), Requests: reqList("cpu", "1")},
			wantRequests: reqList("cpu", "1")},
		{name: "ADM-7 from 1.37 the pod-level limit is the request when that is larger",
			version: "1.37.2", spec: v1.PodSpec{Containers: []v1.Container{reqContainer("a", nil, reqList("cpu", "1"))},
				Resources: &v1.ResourceRequirements{Requests: reqList("cpu", "3")}},
			wantPodLevel: &v1.ResourceRequirements{Limits: reqList("cpu", "3"), Requests: reqList("cpu", "3")},
			wantRequests: reqList("cpu", "3")},
		{name: "ADM-7 from 1.37 no pod-level limit when a container has none",
			version: "1.37.2", spec: v1.PodSpec{Containers: []v1.Container{reqContainer("a", nil, reqList("cpu", "1")), reqContainer("b", nil, nil)},
				Resources: &v1.ResourceRequirements{Requests: reqList("cpu", "3")}},
			wantPodLevel: &v1.ResourceRequirements{Requests: reqList("cpu", "3")},
			wantRequests: reqList("cpu", "3")},
		{name: "ADM-8 until 1.33 spec.resources is dropped, so the containers' defaulted request passes the Pod ratio",
			version: "1.33.13", limitRanges: ratio, spec: podLimitOnly,
			wantRequests: reqList("cpu", "2")},
		{name: "ADM-8 until 1.33 the pod-level request is neither defaulted nor counted without any admission object",
			version: "1.33.13", spec: podRequestOnly,
			wantRequests: reqList("cpu", "2")},
		{name: "ADM-8 every 1.33 patch drops spec.resources",
			version: "1.33.0", spec: podRequestOverLimits,
			wantRequests: reqList("cpu", "1")},
		{name: "ADM-8 at 1.33 a pod RuntimeClass rejects does not count its pod-level resources either",
			version: "1.33.13", runtimeClasses: true, spec: withRuntimeClass(podRequestOverLimits, "missing"),
			wantRejectedBy: "RuntimeClass", wantRequests: reqList("cpu", "1")},
		{name: "ADM-8 from 1.34 a pod RuntimeClass rejects counts its pod-level request",
			version: "1.34.4", runtimeClasses: true, spec: withRuntimeClass(podRequestOverLimits, "missing"),
			wantRejectedBy: "RuntimeClass", wantRequests: reqList("cpu", "3")},
		{name: "VER-5 ADM-8 1.33 with PodLevelResources on keeps spec.resources and counts its request",
			version: "1.33.13", gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: true}, spec: podRequestOnly,
			wantPodLevel: &v1.ResourceRequirements{Requests: reqList("cpu", "1")},
			wantRequests: reqList("cpu", "1")},
		{name: "VER-5 ADM-8 1.36 with PodLevelResources off drops spec.resources",
			version: "1.36.3", gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: false}, spec: podRequestOnly,
			wantRequests: reqList("cpu", "2")},
		{name: "ADM-8 from 1.34.0 spec.resources is kept and its request counts",
			version: "1.34.0", spec: podRequestOnly,
			wantPodLevel: &v1.ResourceRequirements{Requests: reqList("cpu", "1")},
			wantRequests: reqList("cpu", "1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var version daemonset.Version
			if tt.version != "" {
				v, err := daemonset.ParseVersion(tt.version)
				require.NoError(t, err)
				version = v
			}
			var a *fleet.Admission
			if tt.limitRanges != nil || tt.runtimeClasses {
				var errs field.ErrorList
				var rcs []*nodev1.RuntimeClass
				if tt.runtimeClasses {
					rcs = admRuntimeClasses
				}
				a, errs = fleet.CompileAdmission(tt.limitRanges, rcs)
				require.Empty(t, errs)
			}
			spec := tt.spec.DeepCopy()
			got := a.AdmitWith(daemonset.Options{Version: version, FeatureGates: tt.gates}, "ns", spec)
			if diff := cmp.Diff(tt.spec.DeepCopy(), spec); diff != "" {
				t.Fatalf("AdmitWith modified its input (-before +after):\n%s", diff)
			}
			if tt.gates == nil {
				if diff := cmp.Diff(got, a.AdmitFor(version, "ns", spec)); diff != "" {
					t.Fatalf("AdmitFor differs from AdmitWith at the default gates:\n%s", diff)
				}
			}
			if tt.wantRejectedBy != "" {
				require.NotNil(t, got.Rejection)
				require.Equal(t, tt.wantRejectedBy, got.Rejection.Plugin)
				if tt.wantRequests != nil && !reqEqual(got.Requests, tt.wantRequests) {
					t.Errorf("requests %s, want %s", reqString(got.Requests), reqString(tt.wantRequests))
				}
				return
			}
			require.Nil(t, got.Rejection)
			if diff := cmp.Diff(tt.wantPodLevel, got.Spec.Resources); diff != "" {
				t.Errorf("AdmitFor() pod-level resources mismatch (-want +got):\n%s", diff)
			}
			if !reqEqual(got.Requests, tt.wantRequests) {
				t.Errorf("requests %s, want %s", reqString(got.Requests), reqString(tt.wantRequests))
			}
		})
	}
}

// withRuntimeClass is spec naming the RuntimeClass name.
func withRuntimeClass(spec v1.PodSpec, name string) v1.PodSpec {
	out := *spec.DeepCopy()
	out.RuntimeClassName = &name
	return out
}

func TestCompileAdmissionRefusesHugeQuantities(t *testing.T) {
	huge := resource.MustParse("1e999")
	huge.Add(resource.MustParse("1e-999"))
	_, errs := fleet.CompileAdmission(
		[]*v1.LimitRange{admLimitRange("l", v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: v1.ResourceList{"cpu": huge}})},
		[]*nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "k"}, Overhead: &nodev1.Overhead{PodFixed: v1.ResourceList{"memory": huge}}}})
	if len(errs) != 2 || errs[0].Field != "limitRanges[0].spec.limits[0].default[cpu]" || errs[1].Field != "runtimeClasses[0].overhead.podFixed[memory]" {
		t.Fatalf("errors %v", errs)
	}
}

func TestCompileAdmissionErrors(t *testing.T) {
	_, errs := fleet.CompileAdmission(
		[]*v1.LimitRange{nil, {ObjectMeta: metav1.ObjectMeta{Name: "x"}}, admLimitRange("l"), admLimitRange("l")},
		[]*nodev1.RuntimeClass{{}, admRuntimeClasses[0], admRuntimeClasses[0]})
	want := field.ErrorList{
		field.Required(field.NewPath("limitRanges").Index(0), "a LimitRange"),
		field.Required(field.NewPath("limitRanges").Index(1).Child("metadata", "namespace"), "LimitRange x"),
		field.Duplicate(field.NewPath("limitRanges").Index(3).Child("metadata", "name"), "ns/l"),
		field.Required(field.NewPath("runtimeClasses").Index(0).Child("metadata", "name"), "RuntimeClass"),
		field.Duplicate(field.NewPath("runtimeClasses").Index(2).Child("metadata", "name"), "kata"),
	}
	if errs.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Fatalf("errors\n%v\nwant\n%v", errs, want)
	}
}

// TestWhatIfDecideNodeAgreesWithSet: without admission objects a WhatIf answers as the Set,
// and with them a rejected or pending pod is the only difference (ADM-4..ADM-6).
func TestWhatIfDecideNodeAgreesWithSet(t *testing.T) {
	dss, nodes := setSnapshot(rand.New(rand.NewPCG(15, 3)), 300, 30)
	set, _ := fleet.Compile(dss, setNow)
	plain := set.WhatIf(fleet.Config{})
	var nd fleet.NodeDecision
	var d fleet.Decision
	for _, node := range nodes {
		set.DecideNode(node, &nd)
		plain.DecideNode(node, &d)
		for i := range set.Len() {
			e := nd.Eligibility(i)
			if !eligEqual(e, d.Eligibility(i)) || (d.Verdict(i).Answer == fleet.Runs) != e.ShouldRun {
				t.Fatalf("node %s, DaemonSet %d: Set %+v, WhatIf %v", node.Name, i, e, d.Verdict(i))
			}
		}
		a, _ := nd.Request(v1.ResourceCPU)
		b, _ := d.Request(v1.ResourceCPU)
		if a.Cmp(b) != 0 {
			t.Fatalf("node %s: cpu %s vs %s", node.Name, a.String(), b.String())
		}
	}
}

// TestWhatIfAdmitsAtThePlannersRelease: a WhatIf admits each DaemonSet's pod at the release
// its Planner plans for (ADM-7, ADM-8), and a Set counts its template's requests there.
func TestWhatIfAdmitsAtThePlannersRelease(t *testing.T) {
	// Random case 93 of TestAdmitAgreesWithUpstream as a DaemonSet: a pod-level cpu limit, a
	// container without resources, a LimitRange that gives containers 2 cpu and allows pods a
	// limit of at most twice the request.
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: v1.PodSpec{Containers: []v1.Container{reqContainer("c", nil, nil)},
					Resources: &v1.ResourceRequirements{Limits: reqList("cpu", "64")}},
			},
		},
	}
	a, errs := fleet.CompileAdmission([]*v1.LimitRange{admLimitRange("l",
		v1.LimitRangeItem{Type: v1.LimitTypePod, MaxLimitRequestRatio: reqList("cpu", "2")},
		v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: reqList("cpu", "2")})}, nil)
	require.Empty(t, errs)
	tests := []struct {
		name           string
		version        string
		gates          daemonset.FeatureGates
		wantSetCPU     string
		wantRejectedBy string
		wantCPU        string
	}{
		{name: "ADM-8 at 1.33 spec.resources is dropped: the containers' default counts",
			version: "1.33.13", wantSetCPU: "0", wantCPU: "2"},
		{name: "VER-5 ADM-8 at 1.33 with PodLevelResources on the pod-level request is its limit, which the ratio allows",
			version: "1.33.13", gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: true}, wantSetCPU: "64", wantCPU: "64"},
		{name: "VER-5 ADM-8 at 1.36 with PodLevelResources off spec.resources is dropped",
			version: "1.36.3", gates: daemonset.FeatureGates{daemonset.GatePodLevelResources: false}, wantSetCPU: "0", wantCPU: "2"},
		{name: "ADM-7 at 1.36 the pod-level request is its limit, which the ratio allows",
			version: "1.36.3", wantSetCPU: "64", wantCPU: "64"},
		{name: "ADM-7 at 1.37 the pod-level request is the containers' default, which the ratio refuses",
			version: "1.37.2", wantSetCPU: "64", wantRejectedBy: "LimitRanger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := daemonset.ParseVersion(tt.version)
			require.NoError(t, err)
			opts := setNow
			opts.Version = v
			opts.FeatureGates = tt.gates
			before := ds.DeepCopy()
			set, errs := fleet.Compile([]*appsv1.DaemonSet{ds}, opts)
			require.Empty(t, errs)
			q := set.Requests(0)[v1.ResourceCPU]
			require.Zero(t, q.Cmp(resource.MustParse(tt.wantSetCPU)), "Set requests cpu %s, want %s", q.String(), tt.wantSetCPU)
			pod := set.WhatIf(fleet.Config{Admission: a}).Pod(0)
			if diff := cmp.Diff(before, ds); diff != "" {
				t.Fatalf("the DaemonSet was modified (-before +after):\n%s", diff)
			}
			if tt.wantRejectedBy != "" {
				require.NotNil(t, pod.Rejection)
				require.Equal(t, tt.wantRejectedBy, pod.Rejection.Plugin)
				return
			}
			require.Nil(t, pod.Rejection)
			q = pod.Requests[v1.ResourceCPU]
			require.Zero(t, q.Cmp(resource.MustParse(tt.wantCPU)), "admitted cpu %s, want %s", q.String(), tt.wantCPU)
		})
	}
}

// TestRequestResolver (WHATIF-4): a resolver sizes each running pod per node; the totals of a
// node and of a template follow it, and the admitted requests are what it is given.
func TestRequestResolver(t *testing.T) {
	dss, nodes := setSnapshot(rand.New(rand.NewPCG(15, 4)), 50, 20)
	set, _ := fleet.Compile(dss, setNow)
	calls := 0
	double := fleet.RequestResolver(func(ds *appsv1.DaemonSet, labels map[string]string, admitted v1.ResourceList) v1.ResourceList {
		calls++
		out := v1.ResourceList{}
		for name, q := range admitted {
			if labels["pool"] == "big" {
				q.Add(q)
			}
			out[name] = q
		}
		return out
	})
	plain, sized := set.WhatIf(fleet.Config{}), set.WhatIf(fleet.Config{Resolver: double})
	var a, b fleet.Decision
	for _, node := range nodes {
		big := node.DeepCopy()
		big.Labels["pool"] = "big"
		plain.DecideNode(node, &a)
		sized.DecideNode(big, &b)
		qa, _ := a.Request(v1.ResourceCPU)
		qb, _ := b.Request(v1.ResourceCPU)
		if 2*qa.MilliValue() != qb.MilliValue() {
			t.Fatalf("node %s: cpu %s, doubled %s", node.Name, qa.String(), qb.String())
		}
		sized.DecideNode(node, &b)
		if qb, _ = b.Request(v1.ResourceCPU); qa.Cmp(qb) != 0 {
			t.Fatalf("node %s: cpu %s, resolved without the label %s", node.Name, qa.String(), qb.String())
		}
		labels := maps.Clone(big.Labels)
		tpl, errs := fleet.CompileTemplate(&fleet.NodeTemplate{Name: node.Name, Labels: labels, Taints: node.Spec.Taints}, nil)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var td fleet.TemplateDecision
		sized.DecideTemplate(tpl, &td)
		if m := td.Requests.Max[v1.ResourceCPU]; 2*qa.MilliValue() != m.MilliValue() {
			t.Fatalf("template of %s: cpu %s, want twice %s", node.Name, m.String(), qa.String())
		}
	}
	if calls == 0 {
		t.Fatal("the resolver was never called")
	}
}
