package fleet

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// BenchmarkSetMemo shows what the memo buys (issue 6, item 4): the placement and toleration
// classes of 200 reference DaemonSets decided for one reference node, through the memo (nodes
// of a pool share their projection and taints), and afresh, as for a node whose projection
// and taints the memo has not seen. Both share the classes (DaemonSets with equal placement or
// tolerations are evaluated once); only the memo differs.
//
//	go test -run '^$' -bench SetMemo ./fleet
func BenchmarkSetMemo(b *testing.B) {
	s, errs := Compile(workload.DaemonSets(1, 200), daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	nodes := workload.Nodes(1, 10_000)
	b.Logf("%d placement classes, %d toleration classes", len(s.placeRep), len(s.tolRep))
	for _, memo := range []bool{true, false} {
		b.Run(fmt.Sprintf("memo=%v", memo), func(b *testing.B) {
			var sc scratch
			sc.size(s)
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				node := nodes[k]
				if memo {
					s.placements(node, &sc)
					if len(node.Spec.Taints) > 0 {
						s.tolerations(node.Spec.Taints, &sc)
					}
				} else {
					sc.place.Name, sc.place.Labels = node.Name, node.Labels
					s.placementsAfresh(&sc)
					sc.place.Name, sc.place.Labels = "", nil
					if len(node.Spec.Taints) > 0 {
						s.tolerationsAfresh(node.Spec.Taints, &sc)
					}
				}
				if k++; k == len(nodes) {
					k = 0
				}
			}
		})
	}
}
