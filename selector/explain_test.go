package selector_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/selector"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		sel         *metav1.LabelSelector
		labels      map[string]string
		wantMatched bool
		wantNothing bool
		wantFailed  string // the failing requirement, rendered
		wantValue   string
		wantPresent bool
		wantString  string
	}{
		{name: "SEL-12 a match says so", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}, labels: map[string]string{"app": "d"},
			wantMatched: true, wantString: "labels match the selector"},
		{name: "SEL-1 a nil selector explains that it matches nothing", sel: nil, labels: map[string]string{"app": "d"},
			wantNothing: true, wantString: "the selector is nil and matches no labels"},
		{name: "SEL-2 an empty selector matches", sel: &metav1.LabelSelector{}, labels: nil,
			wantMatched: true, wantString: "labels match the selector"},
		{name: "SEL-12 the first failing requirement in key order, not input order",
			sel: &metav1.LabelSelector{
				MatchLabels:      map[string]string{"tier": "web"},
				MatchExpressions: []metav1.LabelSelectorRequirement{expr("zone", metav1.LabelSelectorOpIn, "a"), expr("app", metav1.LabelSelectorOpIn, "d", "e")},
			},
			labels:     map[string]string{"app": "x", "tier": "db"},
			wantFailed: `app In ["d", "e"]`, wantValue: "x", wantPresent: true,
			wantString: `label app is "x", which does not satisfy app In ["d", "e"]`},
		{name: "SEL-12 an absent label is reported as absent",
			sel:        &metav1.LabelSelector{MatchLabels: map[string]string{"app": ""}},
			labels:     nil,
			wantFailed: `app In [""]`,
			wantString: `label app is absent, which does not satisfy app In [""]`},
		{name: "SEL-12 a present label fails DoesNotExist",
			sel:        &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("canary", metav1.LabelSelectorOpDoesNotExist)}},
			labels:     map[string]string{"canary": ""},
			wantFailed: `canary DoesNotExist`, wantValue: "", wantPresent: true,
			wantString: `label canary is "", which does not satisfy canary DoesNotExist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, errs := selector.Compile(tt.sel, nil)
			require.Empty(t, errs)
			got := s.Explain(tt.labels)
			require.Equal(t, s.Matches(tt.labels), got.Matched)
			require.Equal(t, tt.wantMatched, got.Matched)
			require.Equal(t, tt.wantNothing, got.Nothing)
			if tt.wantFailed != "" {
				require.Equal(t, tt.wantFailed, got.Failed.String())
			} else {
				require.Equal(t, selector.Requirement{}, got.Failed)
			}
			require.Equal(t, tt.wantValue, got.Value)
			require.Equal(t, tt.wantPresent, got.Present)
			require.Equal(t, tt.wantString, got.String())
		})
	}
}
