package daemonset_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
)

// BenchmarkPlanBackoff: 10,000 nodes each holding a Failed daemon pod, with no back-off given
// or half of the nodes in back-off (DIFF-12): the back-off's per-plan cost where it is
// largest, UpdateBackoff included; uncapped (NoBurstLimit), so that every deletion is planned.
func BenchmarkPlanBackoff(b *testing.B) {
	const n = 10000
	ns := numberedNodes("n", n)
	pods := make([]*v1.Pod, n)
	var entries []daemonset.BackoffEntry
	for i, node := range ns {
		pods[i] = pod(fmt.Sprintf("f%05d", i), node.Name, phase(v1.PodFailed))
		if i%2 == 0 {
			entries = append(entries, daemonset.BackoffEntry{DaemonSetUID: "uid-foo", Node: node.Name,
				Delay: metav1.Duration{Duration: time.Minute}, Last: metav1.NewTime(now1000)})
		}
	}
	s := daemonset.Snapshot{Nodes: ns, Pods: pods}
	for _, bc := range []struct {
		name    string
		entries []daemonset.BackoffEntry
		deletes int
	}{{"backoff=none", nil, n}, {"backoff=half", entries, n / 2}} {
		b.Run(bc.name, func(b *testing.B) {
			p, _ := daemonset.Compile(newDS(), daemonset.Options{Version: v1363, Now: now1000, Backoff: bc.entries, BurstLimit: daemonset.NoBurstLimit})
			b.ReportAllocs()
			for b.Loop() {
				res := p.Plan(s)
				if len(res.Delete) != bc.deletes {
					b.Fatalf("%d deletes, want %d", len(res.Delete), bc.deletes)
				}
				daemonset.UpdateBackoff(bc.entries, res, now1000)
			}
		})
	}
}
