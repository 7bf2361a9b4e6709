package daemonset_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultTolerations are the six daemon tolerations of DEFTOL-1 without hostNetwork: the
// tests' own list, written independently of pod.go and shared by the upstream models.
func defaultTolerations() []v1.Toleration {
	return []v1.Toleration{
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	}
}

// networkToleration is the seventh default, for hostNetwork pods only (DEFTOL-6).
var networkToleration = v1.Toleration{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}

// daemonDefaults is DEFTOL-1's list for a pod with or without hostNetwork.
func daemonDefaults(hostNetwork bool) []v1.Toleration {
	if hostNetwork {
		return append(defaultTolerations(), networkToleration)
	}
	return defaultTolerations()
}

func boundAffinity(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{fieldTerm(expr("metadata.name", v1.NodeSelectorOpIn, node))},
	}}}
}

// createdPod plans ds on one empty node n0 and returns the pod of the create.
func createdPod(t *testing.T, ds *appsv1.DaemonSet) *v1.Pod {
	t.Helper()
	before := ds.DeepCopy()
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.Len(t, res.Create, 1)
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("DaemonSet mutated (-before +after):\n%s", diff)
	}
	return res.Create[0].Pod
}

func TestNewPodSCN35D3PlainTemplateInTheDaemonSetNamespace(t *testing.T) {
	t.Parallel()
	ds := newDS()
	want := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "foo-",
			Namespace:    "default", // D-3
			Labels:       map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: hashOf(ds)},
			Annotations:  map[string]string{},
			Finalizers:   []string{},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: "foo", UID: "uid-foo",
				Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
		},
		Spec: v1.PodSpec{
			RestartPolicy: v1.RestartPolicyAlways,
			Containers:    []v1.Container{{Name: "c", Image: "img"}},
			Tolerations:   defaultTolerations(),
			Affinity:      boundAffinity("n0"),
		},
	}
	if diff := cmp.Diff(want, createdPod(t, ds)); diff != "" {
		t.Errorf("created pod mismatch (-want +got):\n%s", diff)
	}
	p, errs := daemonset.Compile(ds, opts())
	require.Empty(t, errs)
	if diff := cmp.Diff(want, p.NewPod("n0")); diff != "" {
		t.Errorf("NewPod() mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodSCN36TemplateGenerationLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		annotation string
		wantLabel  string
		wantOK     bool
	}{
		{name: "a numeric annotation becomes the pod-template-generation label", annotation: "7", wantLabel: "7", wantOK: true},
		{name: "the label is printed in canonical decimal", annotation: "007", wantLabel: "7", wantOK: true},
		{name: "an unparsable annotation adds no label", annotation: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: tt.annotation}
			})
			got, ok := createdPod(t, ds).Labels[daemonset.LabelTemplateGeneration]
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantLabel, got)
		})
	}
}

func TestNewPodSCN37RequiredTermsReplaced(t *testing.T) {
	t.Parallel()
	preferred := []v1.PreferredSchedulingTerm{{Weight: 5, Preference: term(expr("disk", v1.NodeSelectorOpIn, "ssd"))}}
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				term(expr("zone", v1.NodeSelectorOpNotIn, "b")),
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: preferred,
		}}
	})
	want := boundAffinity("n0")
	want.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = preferred
	if diff := cmp.Diff(want, createdPod(t, ds).Spec.Affinity); diff != "" {
		t.Errorf("POD-6 affinity mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodSCN38DefaultTolerations(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.HostNetwork = true
		ds.Spec.Template.Spec.Tolerations = []v1.Toleration{
			{Key: "a", Operator: v1.TolerationOpExists},
			{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](300)},
			{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](300)},
		}
	})
	want := []v1.Toleration{
		{Key: "a", Operator: v1.TolerationOpExists},
		// DEFTOL-2: replaced in place, losing tolerationSeconds (Surprise 11).
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		// DEFTOL-3: operator Equal is another identity: kept, and the default appended.
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](300)},
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		networkToleration,
	}
	if diff := cmp.Diff(want, createdPod(t, ds).Spec.Tolerations); diff != "" {
		t.Errorf("DEFTOL-2 tolerations mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodDEFTOL3DuplicatesStayDuplicated(t *testing.T) {
	t.Parallel()
	dup := v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule, TolerationSeconds: ptr[int64](9)}
	noEffect := v1.Toleration{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists}
	ds := newDS(tolerations(dup, noEffect, dup))
	clean := dup
	clean.TolerationSeconds = nil
	want := append([]v1.Toleration{clean, noEffect, clean}, defaultTolerations()[:5]...)
	if diff := cmp.Diff(want, createdPod(t, ds).Spec.Tolerations); diff != "" {
		t.Errorf("DEFTOL-3 tolerations mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodSCN39OnlyFinalizersAnnotationsLabelsCarried(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.ObjectMeta = metav1.ObjectMeta{
			Name: "tmpl", Namespace: "elsewhere", GenerateName: "g-", UID: "u",
			Labels:          map[string]string{"app": "d"},
			Annotations:     map[string]string{"note": "x"},
			Finalizers:      []string{"x/y"},
			OwnerReferences: []metav1.OwnerReference{ownedBy("Thing", "t", "t-uid", false)},
		}
	})
	got := createdPod(t, ds)
	want := metav1.ObjectMeta{
		GenerateName:    "foo-",
		Namespace:       "default",
		Labels:          map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: hashOf(ds)},
		Annotations:     map[string]string{"note": "x"},
		Finalizers:      []string{"x/y"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "foo", UID: "uid-foo", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
	}
	if diff := cmp.Diff(want, got.ObjectMeta); diff != "" {
		t.Errorf("POD-4 metadata mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodSCN17TemplateNodeNameKept(t *testing.T) {
	t.Parallel()
	res, err := daemonset.Plan(newDS(withNodeName("n1")), nodes(2), nil, opts())
	require.NoError(t, err)
	require.Len(t, res.Create, 1)
	require.Equal(t, "n1", res.Create[0].Pod.Spec.NodeName)
	if diff := cmp.Diff(boundAffinity("n1"), res.Create[0].Pod.Spec.Affinity); diff != "" {
		t.Errorf("affinity mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPodPOD8PodsDifferOnlyInTheirNode(t *testing.T) {
	t.Parallel()
	ds := newDS(nodeSelector("os", "linux"), tolerations(tol("k", v1.TolerationOpExists, "", "")))
	res, err := daemonset.Plan(ds, []*v1.Node{node("a", labels("os", "linux")), node("b", labels("os", "linux"))}, nil, opts())
	require.NoError(t, err)
	require.Len(t, res.Create, 2)
	a, b := res.Create[0].Pod, res.Create[1].Pod
	a.Spec.Affinity = boundAffinity("x")
	b.Spec.Affinity = boundAffinity("x")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("POD-8 pods differ beyond their node (-a +b):\n%s", diff)
	}
}

func TestNewPodReturnsIndependentObjects(t *testing.T) {
	t.Parallel()
	p, _ := daemonset.Compile(newDS(tolerations(tol("k", v1.TolerationOpExists, "", ""))), opts())
	first := p.NewPod("n0")
	first.Labels["mutated"] = "yes"
	first.Spec.Tolerations[0].Key = "mutated"
	first.Spec.Containers[0].Image = "mutated"
	first.Annotations["x"] = "y"
	second := p.NewPod("n0")
	require.NotContains(t, second.Labels, "mutated")
	require.Equal(t, "k", second.Spec.Tolerations[0].Key)
	require.Equal(t, "img", second.Spec.Containers[0].Image)
	require.Empty(t, second.Annotations)
}
