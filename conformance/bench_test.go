package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rollingCluster is a DaemonSet halfway through a rolling update on n nodes: every node holds
// one available old pod, so the step chooses maxUnavailable of n candidates (UPD-9).
func rollingCluster(n int) daemonset.Snapshot {
	ds := handDS(rolling(n/10, 0))
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		s.Nodes = append(s.Nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		s.Pods = append(s.Pods, handPod("p-"+name, name, "old", v1.PodRunning, true))
	}
	return s
}

func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100, 5000} {
		s := rollingCluster(n)
		opts := Options{Now: epoch.Add(time.Hour), BurstLimit: 250}
		plan, err := daemonset.PlanCluster(s, opts.planOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d/plan", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = daemonset.PlanCluster(s, opts.planOptions())
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/check", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ms, _ := Check(s, plan.DaemonSets, opts); len(ms) > 0 {
					b.Fatal(ms)
				}
			}
		})
	}
}
