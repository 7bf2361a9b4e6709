package rollout_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
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

// lessThan10 tolerates a "tier" taint whose value is an integer below 10: the Lt operator,
// which only TaintTolerationComparisonOperators enables (TAINT-10).
var lessThan10 = v1.Toleration{Key: "tier", Operator: v1.TolerationOpLt, Value: "10", Effect: v1.TaintEffectNoSchedule}

// A forecast decides with the feature gates a plan takes (VER-5): at 1.35 and 1.36 the Lt
// toleration tolerates node-00001's tier=5 taint only with TaintTolerationComparisonOperators
// on; off (the default), that node gets no pod.
func TestForecastDecidesWithTheFeatureGates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		version     daemonset.Version
		gates       daemonset.FeatureGates
		wantCreated int
	}{
		{name: "1.35 with the gate on tolerates the tainted node (TAINT-10)", version: release(t, "1.35.4"),
			gates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}, wantCreated: 2},
		{name: "1.35 at its default gates does not (TAINT-10, VER-5)", version: release(t, "1.35.4"), wantCreated: 1},
		{name: "1.36 with the gate on tolerates the tainted node (TAINT-10)", version: release(t, "1.36.3"),
			gates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}, wantCreated: 2},
		{name: "1.36 with the gate set off does not (TAINT-10)", version: release(t, "1.36.3"),
			gates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: false}, wantCreated: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns := nodes(2)
			ns[1].Spec.Taints = []v1.Taint{{Key: "tier", Value: "5", Effect: v1.TaintEffectNoSchedule}}
			ds := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
			ds.Spec.Template.Spec.Tolerations = []v1.Toleration{lessThan10}
			orig := ds.DeepCopy()
			f, err := rollout.Forecast(daemonset.Snapshot{Nodes: ns}, ds, rollout.ForecastOptions{Now: t0, Version: tt.version, FeatureGates: tt.gates,
				Kubelet: rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second)}})
			require.NoError(t, err)
			created := 0
			for _, st := range f.Steps {
				created += st.Created
			}
			require.Equal(t, tt.wantCreated, created)
			require.True(t, f.Complete, "the nodes the DaemonSet does not tolerate do not hold the rollout: %s", f.Final.Message)
			if diff := cmp.Diff(orig, ds); diff != "" {
				t.Errorf("Forecast modified its DaemonSet (-before +after):\n%s", diff)
			}
		})
	}
}

// The edited DaemonSet is updated as the API server of the release updates it, with the
// gates (D-14, VER-7): an Lt toleration is an unsupported operator with the gate off, and
// valid with it on.
func TestForecastUpdatesWithTheFeatureGates(t *testing.T) {
	t.Parallel()
	v := release(t, "1.36.3")
	s := settledAt(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 2, v)
	next := s.DaemonSets[0].DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "agent:2"
	next.Spec.Template.Spec.Tolerations = []v1.Toleration{lessThan10}

	_, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Version: v})
	require.ErrorContains(t, err, `spec.template.spec.tolerations[0].operator: Unsupported value: "Lt"`)

	f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Version: v,
		FeatureGates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}})
	require.NoError(t, err)
	require.True(t, f.Complete)
	replaced := 0
	for _, st := range f.Steps {
		replaced += st.Replaced
	}
	require.Equal(t, 2, replaced)
}

// A gate the release does not know is an error naming it, never a panic of the plan or the
// API server's validation it would reach (VER-5).
func TestForecastRefusesAGateTheReleaseDoesNotKnow(t *testing.T) {
	t.Parallel()
	v := release(t, "1.34")
	s := settledAt(t, agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0), 1, v)
	next := s.DaemonSets[0].DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "agent:2"
	gates := daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}
	_, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Version: v, FeatureGates: gates})
	require.ErrorContains(t, err, `opts.featureGates[TaintTolerationComparisonOperators]: Unsupported value: "TaintTolerationComparisonOperators"`)
	_, err = rollout.Simulate(s, next, rollout.Options{Start: t0, Version: v, FeatureGates: gates})
	require.ErrorContains(t, err, `opts.featureGates[TaintTolerationComparisonOperators]: Unsupported value`)
}

// release is the supported release s names.
func release(t testing.TB, s string) daemonset.Version {
	t.Helper()
	v, err := daemonset.ParseVersion(s)
	require.NoError(t, err)
	return v
}

// From 1.37 the API server stores a created pod's negative terminationGracePeriodSeconds as 1
// (core/v1 SetDefaults_Pod); before, it kept the negative value and its pod strategy deleted the
// pod with a grace period of 1 anyway. Apply stores the template's value and deletes as the
// strategy does, so a forecast at 1.37 decides alike with -5 and with 1: the default is not
// modelled because nothing the model reads changes (docs/decisions.md, the pod-only defaults).
func TestNegativeGracePeriodDecidesAsOne(t *testing.T) {
	t.Parallel()
	forecast := func(grace int64) *rollout.ForecastResult {
		t.Helper()
		stored := agent(intstr.FromInt32(1), intstr.FromInt32(0), "agent:1", 0)
		stored.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
		s := settledAt(t, stored, 3, release(t, "1.37"))
		next := s.DaemonSets[0].DeepCopy()
		next.Spec.Template.Spec.Containers[0].Image = "agent:2"
		f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Version: release(t, "1.37"),
			Kubelet: rollout.Kubelet{Startup: rollout.Fixed(10 * time.Second), Termination: rollout.Fixed(20 * time.Second)}})
		require.NoError(t, err)
		return f
	}
	one, negative := forecast(1), forecast(-5)
	require.True(t, one.Complete)
	require.Equal(t, 33*time.Second, one.Duration, "each of 3 nodes: 1 s of grace caps the 20 s termination, then 10 s of start-up")
	if diff := cmp.Diff(one.Steps, negative.Steps); diff != "" {
		t.Errorf("a negative grace period forecasts otherwise than 1 (-1 +-5):\n%s", diff)
	}
	require.Equal(t, one.Duration, negative.Duration)
}

// TestForecastSaysWhenNoSyncIsQueued: under maxSurge with minReadySeconds a surge pod can turn
// available while no sync is queued (client-go keeps one delayed entry per key, ROLL-5), and the
// rollout waits for the controller's next event or resync; the forecast ends Progressing and says
// so instead of "pods are on their way" alone. The same rollout without minReadySeconds completes.
func TestForecastSaysWhenNoSyncIsQueued(t *testing.T) {
	kubelet := rollout.Kubelet{Startup: rollout.Distribution{Min: 10 * time.Second, Max: 30 * time.Second}}
	for _, tt := range []struct {
		minReady int32
		stalls   bool
	}{{15, true}, {0, false}} {
		s := settled(t, agent(intstr.FromInt32(0), intstr.FromString("50%"), "agent:1", tt.minReady), 4)
		next := agent(intstr.FromInt32(0), intstr.FromString("50%"), "agent:2", tt.minReady)
		f, err := rollout.Forecast(s, next, rollout.ForecastOptions{Now: t0, Seed: 1, Kubelet: kubelet})
		require.NoError(t, err)
		if !tt.stalls {
			require.True(t, f.Complete, f.Final.Message)
			continue
		}
		require.False(t, f.Complete)
		require.Equal(t, rollout.StateProgressing, f.Final.State)
		require.Contains(t, f.Final.Message, "no sync is queued")
	}
}
