package apitest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// The builders promise objects that share nothing, so that a test changing its object never
// changes another test's.
func TestBuildersShareNothing(t *testing.T) {
	t.Parallel()
	a, b := apitest.DaemonSet(), apitest.DaemonSet()
	a.Spec.Selector.MatchLabels["app"] = "changed"
	a.Spec.Template.Spec.Containers[0].Image = "changed"
	*a.Spec.RevisionHistoryLimit = 3
	if diff := cmp.Diff(apitest.DaemonSet(), b); diff != "" {
		t.Errorf("changing one DaemonSet changed another (-want +got):\n%s", diff)
	}
	n, m := apitest.Node("n", apitest.Labels("k", "v")), apitest.Node("n", apitest.Labels("k", "v"))
	n.Labels["k"] = "changed"
	require.Equal(t, "v", m.Labels["k"])
}

func TestModsApplyInOrder(t *testing.T) {
	t.Parallel()
	ds := apitest.DaemonSet(apitest.Rolling(apitest.Int(1), nil), apitest.Rolling(apitest.Str("10%"), apitest.Int(2)))
	require.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, ds.Spec.UpdateStrategy.Type)
	require.Equal(t, "10%", ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String())
	require.Equal(t, "2", ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge.String())
	n := apitest.Node("n", apitest.Labels("a", "1"), apitest.Labels("a", "2", "b", "3"),
		apitest.Taint("k", "", v1.TaintEffectNoSchedule), apitest.Taint("k", "v", v1.TaintEffectNoExecute))
	require.Equal(t, map[string]string{"a": "2", "b": "3"}, n.Labels)
	require.Equal(t, []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}, {Key: "k", Value: "v", Effect: v1.TaintEffectNoExecute}}, n.Spec.Taints)
}
