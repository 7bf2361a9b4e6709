package schedule_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/schedule"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	"k8s.io/utils/ptr"
)

// TestRequiredFeaturesAgainstComponentHelpers compares the features Fit finds missing with
// what the linked component-helpers (v0.37.2, the default release's) infers for scheduling and
// finds unsatisfied on the node (SCHED-3), on random pods that use each feature's fields in
// every container list and random nodes declaring a subset of the registry's features.
func TestRequiredFeaturesAgainstComponentHelpers(t *testing.T) {
	t.Parallel()
	newest := daemonset.NewestVersion()
	target := version.MustParseGeneric(newest.String())
	names := []string{schedule.FeatureRestartAllContainers, schedule.FeatureUserNamespacesHostNetwork,
		schedule.FeatureVolumeBindMountOptions, "InPlacePodLevelResourcesVerticalScaling", "NotAFeature"}
	r := rand.New(rand.NewPCG(3, 2026))
	seen := map[string]int{}
	for i := range 2000 {
		spec := randomFeatureSpec(r)
		node := &v1.Node{}
		for _, f := range names {
			if r.IntN(3) == 0 {
				node.Status.DeclaredFeatures = append(node.Status.DeclaredFeatures, f)
			}
		}
		reqs, err := ndf.DefaultFramework.InferForPodScheduling(&ndf.PodInfo{Spec: spec}, target)
		require.NoError(t, err)
		match, err := ndf.DefaultFramework.MatchNode(reqs, node)
		require.NoError(t, err)
		want := match.UnsatisfiedRequirements
		slices.Sort(want)

		got := schedule.Compile(&v1.Pod{Spec: *spec}, schedule.Options{}).Fit(node, nil).MissingFeatures
		if !slices.Equal(want, got) {
			t.Fatalf("case %d: component-helpers misses %q, schedule %q\nspec %+v\nnode declares %q", i, want, got, spec, node.Status.DeclaredFeatures)
		}
		for _, f := range got {
			seen[f]++
		}
	}
	for _, f := range names[:3] {
		require.Greater(t, seen[f], 50, fmt.Sprintf("the generator rarely needs %s", f))
	}
}

// randomFeatureSpec returns a pod spec that uses, or nearly uses, the fields from which
// features are inferred: restart rules of either action, hostNetwork with or without
// hostUsers false, bind mount options (empty or not) in containers, init and ephemeral
// containers.
func randomFeatureSpec(r *rand.Rand) *v1.PodSpec {
	container := func() v1.Container {
		c := v1.Container{Name: "c", Image: "x"}
		if r.IntN(6) == 0 {
			action := []v1.ContainerRestartRuleAction{v1.ContainerRestartRuleActionRestart, v1.ContainerRestartRuleActionRestartAllContainers}[r.IntN(2)]
			c.RestartPolicyRules = []v1.ContainerRestartRule{{Action: action}}
		}
		if r.IntN(6) == 0 {
			m := v1.VolumeMount{Name: "data", MountPath: "/data"}
			if r.IntN(4) > 0 {
				m.BindMountOptions = []string{"nosuid"}
			} else if r.IntN(2) == 0 {
				m.BindMountOptions = []string{}
			}
			c.VolumeMounts = append(c.VolumeMounts, v1.VolumeMount{Name: "other", MountPath: "/other"}, m)
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
