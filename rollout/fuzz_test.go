package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
)

// FuzzSimulate rolls a template change out over random clusters, budgets, kubelet models and
// node outages: no error and no panic on valid input, the same trajectory for the same seed
// (ROLL-5), and at the end Progress says Complete exactly when the next plan does nothing and
// every node that should run the daemon runs only available pods of the current revision
// (ROLL-8).
func FuzzSimulate(f *testing.F) {
	f.Add(uint64(1), uint8(5), uint8(25), false, uint8(0), uint8(0), uint8(0))
	f.Add(uint64(2), uint8(12), uint8(10), true, uint8(30), uint8(5), uint8(3))
	f.Add(uint64(3), uint8(7), uint8(100), false, uint8(255), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, n, percent uint8, surge bool, crash, minReady, outage uint8) {
		nodeCount := 1 + int(n)%16
		budget := intstr.FromString(fmt.Sprintf("%d%%", 1+int(percent)%100))
		mu, ms := budget, intstr.FromInt32(0)
		if surge {
			mu, ms = intstr.FromInt32(0), budget
		}
		s := settled(t, agent(mu, ms, "agent:1", int32(minReady%20)), nodeCount)
		next := agent(mu, ms, "agent:2", int32(minReady%20))
		opts := rollout.Options{Start: t0, Seed: seed, Horizon: time.Hour,
			Kubelet: rollout.Kubelet{Startup: rollout.Distribution{Min: time.Second, Max: 40 * time.Second},
				Termination: rollout.Distribution{Max: 5 * time.Second}, CrashLoop: float64(crash%101) / 100}}
		if outage > 0 {
			node := s.Nodes[int(outage)%nodeCount].Name
			opts.Events = []rollout.Event{{After: time.Duration(outage) * time.Second, Type: rollout.EventNodeNotReady, Node: node}}
			if outage%2 == 0 {
				opts.Events = append(opts.Events, rollout.Event{After: time.Duration(outage) * 2 * time.Second, Type: rollout.EventNodeReady, Node: node})
			}
		}
		a, err := rollout.Simulate(s, next, opts)
		require.NoError(t, err)
		b, err := rollout.Simulate(s, next, opts)
		require.NoError(t, err)
		require.Equal(t, a.Steps, b.Steps)

		end := a.End.DaemonSets[0]
		rep, err := rollout.Progress(a.End, end, rollout.ProgressOptions{Now: a.EndTime})
		require.NoError(t, err)
		res, err := daemonset.Plan(end, a.End.Nodes, a.End.Pods, daemonset.Options{Now: a.EndTime})
		require.NoError(t, err)
		done := len(res.Create)+len(res.Delete)+len(res.Adopt)+len(res.Release) == 0
		p, _ := daemonset.Compile(end, daemonset.Options{Now: a.EndTime})
		for _, node := range a.End.Nodes {
			if !p.Eligibility(node).ShouldRun {
				continue
			}
			found := false
			for _, pod := range a.End.Pods {
				if n, _ := affinity.TargetNodeName(pod); n != node.Name || !daemonset.NewestVersion().IsControlledBy(pod, end) {
					continue
				}
				found = true
				if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != res.RevisionHash || !availableAt(pod, end.Spec.MinReadySeconds, a.EndTime) {
					done = false
				}
			}
			if !found {
				done = false
			}
		}
		require.Equal(t, done, rep.State == rollout.StateComplete, "%s: %s", rep.State, rep.Message)
		if rep.State == rollout.StateStuck {
			require.NotEmpty(t, rep.Blocking, "Stuck names the blocking nodes")
		}
		if crash == 0 && outage == 0 {
			require.Equal(t, rollout.StateComplete, rep.State, "every pod turns Ready, so the rollout completes: %s", rep.Message)
		}
	})
}

// availableAt is UPD-12, written out for the fuzz target.
func availableAt(p *v1.Pod, minReady int32, now time.Time) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue && !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).After(now)
		}
	}
	return false
}
