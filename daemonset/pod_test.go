package daemonset_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
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
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
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
			got, ok := createdPod(t, ds).Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey]
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
			{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
		}
	})
	want := []v1.Toleration{
		{Key: "a", Operator: v1.TolerationOpExists},
		// DEFTOL-2: replaced in place, losing tolerationSeconds (Surprise 11).
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		// DEFTOL-3: operator Equal is another identity: kept, and the default appended.
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
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
	dup := v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](9)}
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
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "foo", UID: "uid-foo", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
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

func TestPodRules(t *testing.T) {
	ds := rtDS(func(ds *appsv1.DaemonSet) {
		ds.Namespace = "team-a"
		ds.Spec.Template.Namespace = "elsewhere"
		ds.Spec.Template.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "x", "uid-x", true)}
	})
	yes := true
	wantRef := []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "DaemonSet", Name: "rt", UID: "uid-rt", Controller: &yes, BlockOwnerDeletion: &yes,
	}}
	created := func(t *testing.T) (*v1.Pod, *v1.Pod) {
		t.Helper()
		res := rtPlan(t, ds, []*v1.Node{node("a")}, nil)
		require.Len(t, res.Create, 1)
		p, _ := daemonset.Compile(ds, opts())
		return res.Create[0].Pod, p.NewPod("a")
	}
	h := hashOf(rtDS())
	rtRun(t, []rtCase{
		{"POD-2 the pod is placed in the DaemonSet's namespace, not the template's", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Equal(t, "team-a", fromPlan.Namespace)
			require.Equal(t, "team-a", fromNewPod.Namespace)
		}},
		{"POD-5 the pod has exactly one owner reference, the DaemonSet's blocking controller reference", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Empty(t, cmp.Diff(wantRef, fromPlan.OwnerReferences))
			require.Empty(t, cmp.Diff(wantRef, fromNewPod.OwnerReferences))
		}},
		{"POD-7 the pod status is empty, with no phase or conditions defaulted", func(t *testing.T) {
			fromPlan, fromNewPod := created(t)
			require.Empty(t, cmp.Diff(v1.PodStatus{}, fromPlan.Status))
			require.Empty(t, cmp.Diff(v1.PodStatus{}, fromNewPod.Status))
			surge := rtPlan(t, rtDS(rolling(ios(0), ios(1))), []*v1.Node{node("a")}, []*v1.Pod{rtPod("o", "a", "old", readyAt(1))})
			require.Len(t, surge.Create, 1)
			require.Empty(t, cmp.Diff(v1.PodStatus{}, surge.Create[0].Pod.Status))
		}},
		{"POD-9 a created pod fed back unscheduled is found on its node through its matchFields entry", func(t *testing.T) {
			first := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b")}, nil)
			require.Equal(t, []string{"a", "b"}, rtCreateNodes(first))
			pa := first.Create[0].Pod.DeepCopy()
			pa.Name = "pa"
			require.Empty(t, pa.Spec.NodeName)
			res := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b")}, []*v1.Pod{pa})
			require.Equal(t, []string{"b"}, rtCreateNodes(res))
			require.Equal(t, rtCounts{2, 1, 0, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"POD-9 spec.nodeName wins over the matchFields entry once the pod is bound", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), opts())
			pa := p.NewPod("a")
			pa.Name = "pa"
			pa.Spec.NodeName = "b"
			res := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b")}, []*v1.Pod{pa})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
		}},
		{"POD-9 a pod tied to a node only by a hostname label expression has no node", func(t *testing.T) {
			pa := rtPod("pa", "", h, func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
						MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}},
					}}},
				}}
			})
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, []*v1.Pod{pa})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 0, 0, 0, 1, 0}, rtStatus(t, res))
		}},
	})
}

// POD-1: getPodsPrefix uses "<name>-" unless that prefix fails pod-name validation as a
// prefix (apimachinery NameIsDNSSubdomain with prefix true, which masks the trailing dash by
// dropping the last two characters and appending "a"); then the bare name. Only a name that API
// validation rejects (VAL-22: planned as stored) can take the fallback.
func TestPOD1GenerateNameFallback(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, ds, want string }{
		{name: "POD-1 a valid name gets the dash", ds: "foo", want: "foo-"},
		{name: "POD-1 a one-character name gets the dash", ds: "a", want: "a-"},
		{name: "POD-1 an upper-case name fails as a prefix: the bare name", ds: "Foo", want: "Foo"},
		{name: "POD-1 an underscore fails as a prefix: the bare name", ds: "foo_bar", want: "foo_bar"},
		{name: "POD-1 a name ending in a dot passes once its last character is masked: the dash", ds: "foo.", want: "foo.-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) { ds.Name = tt.ds })
			res, err := daemonset.Plan(ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Len(t, res.Create, 1)
			require.Equal(t, tt.want, res.Create[0].Pod.GenerateName)
			p, _ := daemonset.Compile(ds, opts())
			require.Equal(t, tt.want, p.NewPod("n0").GenerateName)
		})
	}
}

// emptyHashRevision is a claimed revision of ds that is current (UPD-16) and whose hash label is
// present but empty, so the sync's hash is "" (UPD-14, audit S7).
func emptyHashRevision(t *testing.T, ds *appsv1.DaemonSet, labels map[string]string) *appsv1.ControllerRevision {
	t.Helper()
	rev := revisionFor(t, ds, "", 1)
	rev.Labels = labels
	rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = ""
	return rev
}

func TestPOD3Labels(t *testing.T) {
	t.Parallel()
	t.Run("POD-3 (audit S7, S10) with an empty hash no hash label is set and a template one survives", func(t *testing.T) {
		t.Parallel()
		ds := newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "from-template"
		})
		p, _ := daemonset.Compile(ds, opts())
		res := p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{emptyHashRevision(t, ds, map[string]string{"app": "d"})}})
		require.Empty(t, res.Skipped)
		require.Equal(t, "", res.RevisionHash)
		require.Len(t, res.Create, 1)
		require.Equal(t, map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: "from-template"}, res.Create[0].Pod.Labels)
	})
	t.Run("POD-3 (audit S10) with a non-empty hash the hash label is set over a template one", func(t *testing.T) {
		t.Parallel()
		ds := newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "from-template"
		})
		res, err := daemonset.Plan(ds, nodes(1), nil, opts())
		require.NoError(t, err)
		require.NotEmpty(t, res.RevisionHash)
		require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	})

	tests := []struct {
		name       string
		annotation *string // nil: absent
		want       string  // the pod's pod-template-generation label; "" absent
	}{
		{name: "POD-3 (audit S10) strconv.ParseInt accepts a leading plus: +7 gives 7, over the template's label", annotation: ptr.To("+7"), want: "7"},
		{name: "POD-3 (audit S10) leading zeros are dropped: 007 gives 7", annotation: ptr.To("007"), want: "7"},
		{name: "POD-3 (audit S10) a negative generation is written as such", annotation: ptr.To("-3"), want: "-3"},
		{name: "POD-3 (audit S10) an absent annotation leaves the template's label", annotation: nil, want: "tmpl"},
		{name: "POD-3 (audit S10) an unparsable annotation leaves the template's label", annotation: ptr.To("seven"), want: "tmpl"},
		{name: "POD-3 (audit S10) an out-of-range annotation leaves the template's label", annotation: ptr.To("9223372036854775808"), want: "tmpl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = "tmpl"
			})
			if tt.annotation != nil {
				annotateGeneration(*tt.annotation)(ds)
			}
			p, _ := daemonset.Compile(ds, opts())
			got := p.NewPod("n0").Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey]
			require.Equal(t, tt.want, got)
			res, err := daemonset.Plan(ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Equal(t, tt.want, res.Create[0].Pod.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey])
		})
	}
}

func TestPOD3NoLabelsRefusesTheCreate(t *testing.T) {
	t.Parallel()
	// The selector matches the empty label set, the template has no labels and the current
	// revision's hash is "": the daemon pod has no labels and RealPodControl.createPods refuses
	// it ("unable to create pods, no labels"). Nothing is created; the deletions of the same
	// list still go (syncNodes submits them after the failed creates).
	empty := func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
		ds.Spec.Template.Labels = nil
	}
	ds := newDS(empty)
	rev := emptyHashRevision(t, ds, map[string]string{})
	pods := []*v1.Pod{pod("s", "n1", podLabels(map[string]string{}), phase(v1.PodSucceeded))}
	sc := scenario{ds: ds, nodes: nodes(2), pods: pods, revisions: []*appsv1.ControllerRevision{rev},
		want: withEvents(sum(nil, list("s:SucceededPod"), st(2, 1, 0, 0, 0, 0, 2)), "SucceededDaemonPod default/s")}
	res := sc.run(t)
	require.Equal(t, "", res.RevisionHash)
	require.Equal(t, &daemonset.RollingUpdate{Reason: daemonset.RollingReasonOnDelete}, res.RollingUpdate)

	// With a parsable generation annotation the pod has a label and is created.
	ds = newDS(empty, annotateGeneration("2"))
	rev = emptyHashRevision(t, ds, map[string]string{})
	p, _ := daemonset.Compile(ds, opts())
	res = p.Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: []*appsv1.ControllerRevision{rev}})
	require.Len(t, res.Create, 1)
	require.Equal(t, map[string]string{extensionsv1beta1.DaemonSetTemplateGenerationKey: "2"}, res.Create[0].Pod.Labels)
}

func TestRollingCreatesRefusedWithoutLabels(t *testing.T) {
	t.Parallel()
	// Surge step with hash "": pods without the hash label are new (DIFF-6, UPD-3 never
	// matches ""), so give the pods another hash; the unavailable old pod's replacement would be
	// created but has no labels. The step still acts; nothing is created.
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
		ds.Spec.Template.Labels = nil
	}, surgeDS)
	rev := emptyHashRevision(t, ds, map[string]string{})
	pods := []*v1.Pod{pod("o", "n0", podLabels(map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "old"}))}
	sc := scenario{ds: ds, nodes: nodes(1), pods: pods, revisions: []*appsv1.ControllerRevision{rev},
		want: sum(nil, nil, st(1, 1, 0, 0, 0, 0, 1))}
	res := sc.run(t)
	require.Equal(t, &daemonset.RollingUpdate{Acted: true, MaxSurge: 1}, res.RollingUpdate)
}
