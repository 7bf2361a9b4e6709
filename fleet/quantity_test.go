package fleet_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A template with cpu 1e10000000 once made the Set's construction take 4 s (PodRequests adds
// such quantities); Compile refuses it at once, naming the field, and so does an update.
func TestCompileRefusesQuantitiesBeyondMaxQuantityDigits(t *testing.T) {
	t.Parallel()
	huge := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewScaledQuantity(1, 10_000_000),
			v1.ResourceMemory: resource.MustParse("1Gi"),
		}
		ds.Spec.Template.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: *resource.NewScaledQuantity(1, -2000)}
	}
	ds := apitest.DaemonSet(huge, func(ds *appsv1.DaemonSet) { ds.Name = "huge" })
	before := ds.DeepCopy()
	opts := daemonset.Options{Now: time.Unix(0, 0)}
	start := time.Now()
	set, errs := fleet.Compile([]*appsv1.DaemonSet{apitest.DaemonSet(), ds}, opts)
	require.Nil(t, set)
	require.Equal(t, []string{
		"daemonSets[1].spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: a quantity of more than 1000 digits or scaled beyond 10^±1000 cannot be added in bounded time",
		"daemonSets[1].spec.template.spec.overhead[cpu]: Invalid value: a quantity of more than 1000 digits or scaled beyond 10^±1000 cannot be added in bounded time",
	}, errStrings(errs))
	require.Equal(t, before, ds, "not modified, not even its quantities' representation")
	require.Less(t, time.Since(start), 2*time.Second)

	// Right at the bound is accepted.
	edge := apitest.DaemonSet(func(ds *appsv1.DaemonSet) {
		ds.Name = "huge"
		ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: *resource.NewScaledQuantity(1, fleet.MaxQuantityDigits)}
	})
	set, errs = fleet.Compile([]*appsv1.DaemonSet{edge}, opts)
	require.Empty(t, errs)
	require.NotNil(t, set)

	m, errs := set.Decide([]*v1.Node{apitest.Node("n1")})
	require.Empty(t, errs)
	_, errs = m.UpdateDaemonSet(ds, nil)
	require.Len(t, errs, 2)
	require.Same(t, set, m.Set(), "no update")
}

func errStrings[E error](errs []E) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
