package rollout_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/rollout"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// An edited template read from a dump carries the template generation of the stored one; the
// pods the stored one made carry it too (pod-template-generation), which the controller takes
// for "up to date". Forecast updates the edited DaemonSet as the API server does, moving the
// template generation on itself (D-14): the rollout replaces every pod. It used to be
// "complete after 0s".
func TestForecastMovesTheTemplateGeneration(t *testing.T) {
	t.Parallel()
	stored := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
	stored.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "1"}
	s := settled(t, stored, 3)
	next := s.DaemonSets[0].DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "agent:2"
	f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Kubelet: rollout.Kubelet{Startup: rollout.Fixed(20 * time.Second)}})
	require.NoError(t, err)
	require.True(t, f.Complete)
	replaced := 0
	for _, st := range f.Steps {
		replaced += st.Replaced
	}
	require.Equal(t, 3, replaced)
	require.Equal(t, 60*time.Second, f.Duration, "one node at a time, 20 s each")
	require.Equal(t, "1", next.Annotations[appsv1.DeprecatedTemplateGeneration], "the input is not modified")
}

// An update the API server refuses is the forecast's error, with its path (D-14).
func TestForecastRefusesWhatTheAPIServerRefuses(t *testing.T) {
	t.Parallel()
	s := settled(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 2)
	next := s.DaemonSets[0].DeepCopy()
	next.Spec.Selector.MatchLabels = map[string]string{"app": "agent-v2"}
	next.Spec.Template.Labels = map[string]string{"app": "agent-v2"}
	_, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0})
	require.ErrorContains(t, err, "spec.selector: Invalid value")
	require.ErrorContains(t, err, "field is immutable")
}
