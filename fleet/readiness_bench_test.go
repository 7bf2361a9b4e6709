package fleet_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// BenchmarkNodeReadiness decides one node of 1,000 for 30 DaemonSets with a pod on every node
// (30,000 pods): the cluster plan dominates; the pods are scanned once, not once per DaemonSet.
func BenchmarkNodeReadiness(b *testing.B) {
	dss := workload.DaemonSets(3, 30)
	nodes := workload.Nodes(4, 1000)
	var pods []*v1.Pod
	for _, ds := range dss {
		pods = append(pods, workload.Pods(ds, nodes, v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount))...)
	}
	s := daemonset.Snapshot{DaemonSets: dss, Nodes: nodes, Pods: pods}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fleet.NodeReadiness(s, nodes[500].Name, nil, setNow); err != nil {
			b.Fatal(err)
		}
	}
}
