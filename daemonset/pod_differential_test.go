package daemonset_test

// The created pod against a model of the upstream pod construction.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// upstreamPodModel builds the pod syncNodes submits for node, step by step as upstream does:
// util.CreatePodTemplate (deep copy, AddOrUpdateDaemonPodTolerations, labels made non-nil,
// pod-template-generation when the annotation parses, the hash label when non-empty),
// util.ReplaceDaemonSetPodNodeNameNodeAffinity on a copy, then controller.GetPodFromTemplate
// (fresh label and annotation sets, a finalizers copy, generateName, the controller reference,
// a deep copy of the spec). The namespace is set as D-3 says.
func upstreamPodModel(ds *appsv1.DaemonSet, hash, node string) *v1.Pod {
	tmpl := ds.Spec.Template.DeepCopy()
	addOrUpdate := func(spec *v1.PodSpec, tol v1.Toleration) {
		var out []v1.Toleration
		updated := false
		for i := range spec.Tolerations {
			if tol.MatchToleration(&spec.Tolerations[i]) {
				out = append(out, tol)
				updated = true
				continue
			}
			out = append(out, spec.Tolerations[i])
		}
		if !updated {
			out = append(out, tol)
		}
		spec.Tolerations = out
	}
	for _, d := range daemonDefaults(tmpl.Spec.HostNetwork) {
		addOrUpdate(&tmpl.Spec, d)
	}
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	if a, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		if g, err := strconv.ParseInt(a, 10, 64); err == nil {
			tmpl.Labels["pod-template-generation"] = fmt.Sprint(g)
		}
	}
	if hash != "" {
		tmpl.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	req := v1.NodeSelectorRequirement{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}
	sel := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req}}}}
	switch a := tmpl.Spec.Affinity; {
	case a == nil:
		tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	case a.NodeAffinity == nil:
		a.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	case a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	default:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req}}}
	}
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for k, v := range tmpl.Annotations {
		annotations[k] = v
	}
	finalizers := make([]string, len(tmpl.Finalizers))
	copy(finalizers, tmpl.Finalizers)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Labels: labels, Annotations: annotations, Finalizers: finalizers, GenerateName: ds.Name + "-",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
	}}
	pod.Spec = *tmpl.Spec.DeepCopy()
	pod.Namespace = ds.Namespace
	return pod
}

// POD-1..POD-8, DEFTOL-1..3: every created pod equals, field by field (nil and empty told apart),
// the object upstream builds, on 1,000 random templates.
func TestCreatedPodAgainstUpstreamModel(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	for seed := uint64(0); seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		ds := newDS()
		tmpl := &ds.Spec.Template
		switch r.IntN(3) {
		case 0:
			tmpl.Labels["extra"] = "x"
		case 1:
			tmpl.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = "9"
		}
		switch r.IntN(3) {
		case 0:
			tmpl.Annotations = map[string]string{}
		case 1:
			tmpl.Annotations = map[string]string{"a": "b"}
		}
		switch r.IntN(3) {
		case 0:
			tmpl.Finalizers = []string{}
		case 1:
			tmpl.Finalizers = []string{"example.com/f"}
		}
		tmpl.Name, tmpl.Namespace, tmpl.GenerateName = []string{"", "tmpl"}[r.IntN(2)], []string{"", "elsewhere"}[r.IntN(2)], []string{"", "g-"}[r.IntN(2)]
		tmpl.Spec.HostNetwork = r.IntN(2) == 0
		tmpl.Spec.NodeName = []string{"", "", "n0"}[r.IntN(3)]
		var tols []v1.Toleration
		for i := r.IntN(4); i > 0; i-- {
			tols = append(tols, []v1.Toleration{
				{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)},
				{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
				{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
				{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoSchedule},
				{Operator: v1.TolerationOpExists},
			}[r.IntN(5)])
		}
		if r.IntN(3) > 0 {
			tmpl.Spec.Tolerations = tols
		} else if r.IntN(2) == 0 {
			tmpl.Spec.Tolerations = []v1.Toleration{}
		}
		switch r.IntN(6) {
		case 1:
			tmpl.Spec.Affinity = &v1.Affinity{}
		case 2:
			tmpl.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{}, NodeAffinity: &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: term(expr("zone", v1.NodeSelectorOpIn, "a"))}}}}
		case 3, 4:
			tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{term(expr("zone", v1.NodeSelectorOpDoesNotExist)), fieldTerm(expr("metadata.name", v1.NodeSelectorOpNotIn, "zz"))}}}}
		case 5:
			tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}}
		}
		switch r.IntN(4) {
		case 0:
			ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: []string{"3", "+4", "007", "x", ""}[r.IntN(5)]}
		case 1:
			ds.Status.CollisionCount = ptr.To[int32](int32(r.IntN(3)))
		}
		ns := []*v1.Node{node("n0"), node("n1")}
		planner := compiled(ds, now)
		res := planner.Plan(daemonset.Snapshot{Nodes: ns})
		hash := hashOf(ds)
		require.Equal(t, hash, res.RevisionHash, "seed %d", seed)
		want := 0
		for _, n := range ns {
			if planner.Eligibility(n).ShouldRun {
				want++
			}
		}
		require.Len(t, res.Create, want, "seed %d", seed)
		for _, c := range res.Create {
			if diff := cmp.Diff(upstreamPodModel(ds, hash, c.Node), c.Pod); diff != "" {
				t.Fatalf("seed %d: pod for %s differs from upstream's (-upstream +plan):\n%s", seed, c.Node, diff)
			}
		}
	}
}
