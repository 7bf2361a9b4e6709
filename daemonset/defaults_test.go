package daemonset_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	ios := func(v int32) *intstr.IntOrString { x := intstr.FromInt32(v); return &x }
	iostr := func(s string) *intstr.IntOrString { x := intstr.FromString(s); return &x }
	rolling := func(mu, ms *intstr.IntOrString) appsv1.DaemonSetUpdateStrategy {
		return appsv1.DaemonSetUpdateStrategy{
			Type:          appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: mu, MaxSurge: ms},
		}
	}
	tests := []struct {
		name     string
		spec     appsv1.DaemonSetSpec
		wantSpec appsv1.DaemonSetSpec
	}{
		{name: "DFLT-1 DFLT-2 an empty spec gets RollingUpdate with maxUnavailable 1, maxSurge 0 and history 10",
			spec:     appsv1.DaemonSetSpec{},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(1), ios(0)), RevisionHistoryLimit: ptr.To[int32](10)}},
		{name: "DFLT-1 RollingUpdate with a nil rollingUpdate gets both defaults",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(1), ios(0)), RevisionHistoryLimit: ptr.To[int32](10)}},
		{name: "DFLT-1 a set maxUnavailable is kept and only maxSurge is defaulted",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: rolling(iostr("25%"), nil)},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(iostr("25%"), ios(0)), RevisionHistoryLimit: ptr.To[int32](10)}},
		{name: "DFLT-1 a set maxSurge is kept and only maxUnavailable is defaulted",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: rolling(nil, ios(2))},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(1), ios(2)), RevisionHistoryLimit: ptr.To[int32](10)}},
		{name: "DFLT-1 invalid values are kept as they are",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(-1), iostr("5")), RevisionHistoryLimit: ptr.To[int32](-3)},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(-1), iostr("5")), RevisionHistoryLimit: ptr.To[int32](-3)}},
		{name: "DFLT-1 OnDelete gets no rollingUpdate",
			spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}},
			wantSpec: appsv1.DaemonSetSpec{
				UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
				RevisionHistoryLimit: ptr.To[int32](10),
			}},
		{name: "DFLT-1 OnDelete keeps a partial rollingUpdate undefaulted",
			spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.OnDeleteDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: ios(1)},
			}},
			wantSpec: appsv1.DaemonSetSpec{
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
					Type: appsv1.OnDeleteDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: ios(1)},
				},
				RevisionHistoryLimit: ptr.To[int32](10),
			}},
		{name: "DFLT-1 an unknown strategy type is kept and not defaulted further",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: "Recreate"}},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: "Recreate"}, RevisionHistoryLimit: ptr.To[int32](10)}},
		{name: "DFLT-2 a revisionHistoryLimit of 0 is kept",
			spec:     appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(1), ios(0)), RevisionHistoryLimit: ptr.To[int32](0)},
			wantSpec: appsv1.DaemonSetSpec{UpdateStrategy: rolling(ios(1), ios(0)), RevisionHistoryLimit: ptr.To[int32](0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := &appsv1.DaemonSet{Spec: tt.spec}
			ds.Name = "foo"
			before := ds.DeepCopy()
			got := daemonset.WithDefaults(ds)
			if diff := cmp.Diff(tt.wantSpec, got.Spec); diff != "" {
				t.Errorf("WithDefaults() spec mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, "foo", got.Name)
			if diff := cmp.Diff(before, ds); diff != "" {
				t.Errorf("WithDefaults mutated its input (-before +after):\n%s", diff)
			}
			// D-4: applying the defaults twice changes nothing more.
			if diff := cmp.Diff(got, daemonset.WithDefaults(got)); diff != "" {
				t.Errorf("WithDefaults is not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestWithDefaultsSharesNothing(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
		Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{},
	}}}
	before := ds.DeepCopy()
	got := daemonset.WithDefaults(ds)
	*got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intstr.FromInt32(9)
	got.Spec.UpdateStrategy.RollingUpdate.MaxSurge = nil
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("the copy shares memory with the input (-before +after):\n%s", diff)
	}
	require.Nil(t, daemonset.WithDefaults(nil))
}

func ExampleWithDefaults() {
	ds := &appsv1.DaemonSet{}
	defaulted := daemonset.WithDefaults(ds)
	ru := defaulted.Spec.UpdateStrategy.RollingUpdate
	fmt.Println(defaulted.Spec.UpdateStrategy.Type, ru.MaxUnavailable.String(), ru.MaxSurge.String(), *defaulted.Spec.RevisionHistoryLimit)
	fmt.Println(ds.Spec.UpdateStrategy.Type == "")
	// Output:
	// RollingUpdate 1 0 10
	// true
}
