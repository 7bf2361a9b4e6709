package daemonset_test

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestCompileReturnsValidationErrorsAndAPlanner(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil })
	before := ds.DeepCopy()
	p, errs := daemonset.Compile(ds, opts())
	require.NotNil(t, p, "VAL-22: the Planner is returned even for an invalid DaemonSet")
	require.NotEmpty(t, errs)
	if diff := cmp.Diff(daemonset.Validate(ds, opts()), errs); diff != "" {
		t.Errorf("Compile errors differ from Validate (-want +got):\n%s", diff)
	}
	require.Same(t, ds, p.DaemonSet())
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("DaemonSet mutated (-before +after):\n%s", diff)
	}
}

func TestCompileValidDaemonSetHasNoErrors(t *testing.T) {
	t.Parallel()
	p, errs := daemonset.Compile(newDS(), opts())
	require.Empty(t, errs)
	require.NotNil(t, p)
}

func TestCompileSkipRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want daemonset.Skip
	}{
		{name: "SYNC-3 the empty selector is checked first, even on a DaemonSet being deleted",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{}
				ds.DeletionTimestamp = ptr.To(metav1.Unix(1, 0))
			}), want: daemonset.SkipSelectingAll},
		{name: "SYNC-4 deletion is checked before the selector conversion",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "in"}}}
				ds.DeletionTimestamp = ptr.To(metav1.Unix(1, 0))
			}), want: daemonset.SkipBeingDeleted},
		{name: "SYNC-5 a lower-case operator does not convert",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "in", Values: []string{"x"}}}}
			}), want: daemonset.SkipInvalidSelector},
		{name: "SYNC-3 an empty matchExpressions slice is not deep-equal to {} and is planned",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{}}
			}), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Equal(t, tt.want, res.Skipped)
			if tt.want != "" {
				require.Nil(t, res.Status)
				require.Empty(t, res.RevisionHash)
				require.Empty(t, res.Create)
			}
		})
	}
}
