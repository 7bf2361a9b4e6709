package fleet_test

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzFleetShaped builds a Set from DaemonSets shaped from the first half of the fuzzer's
// bytes and decides their nodes, then updates the matrix with nodes and a DaemonSet shaped from
// the second half: DecideNode, the matrix and every incremental update agree with each
// DaemonSet's own Planner, on 1 and 3 goroutines, no input is modified, and each step ends
// within a time bound.
func FuzzFleetShaped(f *testing.F) {
	f.Add([]byte(nil))
	f.Add([]byte("0123456789abcdef0123456789abcdef"))
	f.Add([]byte{255, 254, 253, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 30, 40, 50, 60})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := shapefuzz.New(data[:len(data)/2])
		next := shapefuzz.New(data[len(data)/2:])
		before, nextBefore := c.DeepCopy(), next.DeepCopy()
		opts := daemonset.Options{Now: shapefuzz.Base}
		var matrices []*fleet.Matrix
		for _, workers := range []int{1, 3} {
			opts.Workers = workers
			start := time.Now()
			s, errs := fleet.Compile(c.DaemonSets, opts)
			if s == nil {
				t.Fatalf("Compile: %v", errs)
			}
			var nd fleet.NodeDecision
			for _, node := range c.Nodes {
				s.DecideNode(node, &nd)
				for i := range s.Len() {
					if want, got := s.Planner(i).Eligibility(node), nd.Eligibility(i); !cmp.Equal(want, got) {
						t.Fatalf("DecideNode(%q), DaemonSet %d (-planner +set):\n%s", node.Name, i, cmp.Diff(want, got))
					}
				}
				_ = nd.Requests(nil)
			}
			m, errs := s.Decide(c.Nodes)
			if len(errs) > 0 {
				t.Fatalf("Decide: %v", errs)
			}
			// The nodes of the second cluster replace those of the same name, or are added.
			for _, node := range next.Nodes {
				m.UpdateNode(node, nil)
			}
			// The first DaemonSet of the second cluster replaces the one of its name.
			if ds := next.DaemonSets[0]; len(c.DaemonSets) > 0 {
				upd := ds.DeepCopy()
				upd.Namespace, upd.Name = c.DaemonSets[0].Namespace, c.DaemonSets[0].Name
				_, errs := m.UpdateDaemonSet(upd, nil)
				for _, e := range errs {
					if e.Type == field.ErrorTypeNotFound {
						t.Fatalf("UpdateDaemonSet: %v", e) // validation problems are reported, the update happens (D-4)
					}
				}
			}
			for r := range m.Rows() {
				node := m.NodeAt(r)
				if node == nil {
					continue
				}
				for i := range m.Set().Len() {
					if want, got := m.Set().Planner(i).Eligibility(node), m.Eligibility(r, i); !cmp.Equal(want, got) {
						t.Fatalf("after updates, node %q DaemonSet %d (-planner +matrix):\n%s", node.Name, i, cmp.Diff(want, got))
					}
				}
			}
			if d := time.Since(start); d > shapefuzz.Bound {
				t.Fatalf("the set, its decisions and updates took %v", d)
			}
			matrices = append(matrices, m)
		}
		a, b := matrices[0], matrices[1]
		for r := range a.Rows() {
			for i := range a.Set().Len() {
				if a.NodeAt(r) != nil && !cmp.Equal(a.Eligibility(r, i), b.Eligibility(r, i)) {
					t.Fatalf("1 and 3 goroutines disagree at row %d, DaemonSet %d", r, i)
				}
			}
		}
		if diff := cmp.Diff(before, c); diff != "" {
			t.Fatalf("input modified (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(nextBefore, next); diff != "" {
			t.Fatalf("update input modified (-before +after):\n%s", diff)
		}
	})
}
