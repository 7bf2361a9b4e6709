//go:build !(k8s_1_33 || k8s_1_34 || k8s_1_35)

package upstreamtest

import (
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/schedule"
)

// TestRequiredFeaturesAgainstComponentHelpers compares the features package schedule's Fit
// finds missing with what the linked release's component-helpers infers for scheduling and
// finds unsatisfied on the node (SCHED-3), on random pods that use each feature's fields in
// every container list and random nodes declaring a subset of the features. From 1.36, where
// the scheduler's NodeDeclaredFeatures filter is on by default (in 1.35 it is off, and the
// library requires nothing there).
func TestRequiredFeaturesAgainstComponentHelpers(t *testing.T) {
	target := version.MustParseGeneric(release.String())
	names := []string{schedule.FeatureRestartAllContainers, schedule.FeatureUserNamespacesHostNetwork,
		schedule.FeatureVolumeBindMountOptions, "InPlacePodLevelResourcesVerticalScaling", "NotAFeature"}
	r := rand.New(rand.NewPCG(3, 2026))
	seen := map[string]int{}
	for i := range 2000 {
		spec := randomFeatureSpec(r)
		node := &v1.Node{}
		for _, f := range names {
			if r.IntN(3) == 0 {
				declareFeature(node, f)
			}
		}
		reqs, err := ndf.DefaultFramework.InferForPodScheduling(&ndf.PodInfo{Spec: spec}, target)
		if err != nil {
			t.Fatal(err)
		}
		match, err := ndf.DefaultFramework.MatchNode(reqs, node)
		if err != nil {
			t.Fatal(err)
		}
		want := match.UnsatisfiedRequirements
		slices.Sort(want)
		got := schedule.Compile(&v1.Pod{Spec: *spec}, schedule.Options{Version: release}).Fit(node, nil).MissingFeatures
		if !slices.Equal(want, got) {
			t.Fatalf("case %d: component-helpers misses %q, schedule %q\nspec %+v\nnode declares %q", i, want, got, spec, node.Status.DeclaredFeatures)
		}
		for _, f := range got {
			seen[f]++
		}
	}
	t.Logf("features missing, by name: %v", seen)
	for _, f := range []string{schedule.FeatureRestartAllContainers, schedule.FeatureUserNamespacesHostNetwork} {
		if seen[f] < 50 {
			t.Errorf("the generator rarely needs %s: %d", f, seen[f])
		}
	}
	if release.AtLeast(1, 37, 0) && seen[schedule.FeatureVolumeBindMountOptions] < 50 {
		t.Errorf("the generator rarely needs %s: %d", schedule.FeatureVolumeBindMountOptions, seen[schedule.FeatureVolumeBindMountOptions])
	}
}

// randomFeatureSpec returns a pod spec that uses, or nearly uses, the fields features are
// inferred from: restart rules of either action, hostNetwork with or without hostUsers false,
// bind mount options (from 1.37, bindMountOptionsOn) in containers, init and ephemeral
// containers.
func randomFeatureSpec(r *rand.Rand) *v1.PodSpec {
	container := func() v1.Container {
		c := v1.Container{Name: "c", Image: "x"}
		if r.IntN(6) == 0 {
			restartAllContainersOn(&c)
			if r.IntN(3) == 0 {
				c.RestartPolicyRules[0].Action = v1.ContainerRestartRuleActionRestart
			}
		}
		if r.IntN(6) == 0 {
			c.VolumeMounts = []v1.VolumeMount{{Name: "other", MountPath: "/other"}}
			bindMountOptionsOn(&c)
		}
		return c
	}
	spec := &v1.PodSpec{Containers: []v1.Container{container()}}
	if r.IntN(3) == 0 {
		spec.InitContainers = []v1.Container{container()}
	}
	if r.IntN(4) == 0 {
		c := container()
		spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{
			Name: "debug", Image: "x", VolumeMounts: c.VolumeMounts, RestartPolicyRules: c.RestartPolicyRules}}}
	}
	spec.HostNetwork = r.IntN(3) == 0
	spec.HostUsers = []*bool{nil, ptr.To(true), ptr.To(false)}[r.IntN(3)]
	return spec
}
