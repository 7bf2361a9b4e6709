package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// freshCluster is a new DaemonSet on n nodes: every node gets a pod, the burst cap keeps 250.
func freshCluster(n int) daemonset.Snapshot {
	s := rollingCluster(n)
	s.Pods = nil
	return s
}

// contestedCluster has k DaemonSets selecting the same pods and n nodes, each holding one
// orphan: every order of the k may adopt differently (D-2), so Check weighs k! plans.
func contestedCluster(k, n int) daemonset.Snapshot {
	s := freshCluster(n)
	s.DaemonSets = nil
	for i := range k {
		s.DaemonSets = append(s.DaemonSets, handDS(func(ds *appsv1.DaemonSet) {
			ds.Name, ds.UID = fmt.Sprintf("ds-%d", i), types.UID(fmt.Sprintf("uid-%d", i))
			ds.CreationTimestamp = metav1.NewTime(epoch.Add(time.Duration(i) * time.Minute))
		}))
	}
	for _, nd := range s.Nodes {
		s.Pods = append(s.Pods, handPod("orphan-"+nd.Name, nd.Name, "old", v1.PodRunning, false))
	}
	return s
}

func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    daemonset.Snapshot
	}{{"rolling/nodes=100", rollingCluster(100)}, {"rolling/nodes=5000", rollingCluster(5000)}, {"fresh/nodes=5000", freshCluster(5000)},
		{"contested/daemonsets=3/nodes=100", contestedCluster(3, 100)}, {"contested/daemonsets=6/nodes=100", contestedCluster(6, 100)}} {
		s, n := bc.s, bc.name
		opts := Options{Version: v1363, Now: epoch.Add(time.Hour), BurstLimit: 250}
		plan, err := s.Plan(opts.planOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(n+"/plan", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = s.Plan(opts.planOptions())
			}
		})
		b.Run(n+"/check", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ms, _ := Check(s, plan.DaemonSets, opts); len(ms) > 0 {
					b.Fatal(ms)
				}
			}
		})
	}
}
