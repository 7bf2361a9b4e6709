package conformance

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

func planOf(t *testing.T, s daemonset.Snapshot, opts Options) []*daemonset.Result {
	t.Helper()
	c, err := s.Plan(opts.planOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c.DaemonSets
}

// cloneResult copies r deeply enough for a mutation.
func cloneResult(r *daemonset.Result) *daemonset.Result {
	c := *r
	c.Create = slices.Clone(r.Create)
	for i := range c.Create {
		c.Create[i].Pod = c.Create[i].Pod.DeepCopy()
	}
	c.Delete = slices.Clone(r.Delete)
	c.Adopt = slices.Clone(r.Adopt)
	c.Release = slices.Clone(r.Release)
	if r.Status != nil {
		st := *r.Status
		c.Status = &st
	}
	return &c
}

// TestPropertyProjectPlansAndEveryDrawConform checks D-1 both ways round: the project's own plan
// conforms, and so does every plan drawn from the Orders the way a controller with another
// random order would produce it (UPD-9, UPD-23, DIFF-17, DIFF-10).
func TestPropertyProjectPlansAndEveryDrawConform(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	for i := range 200 {
		s := randomSnapshot(r)
		opts := Options{Version: v1363, Now: epoch, BurstLimit: []int{0, 0, 1, 2, 3}[r.IntN(5)]}
		plans := planOf(t, s, opts)
		if ms, err := Check(s, plans, opts); err != nil || len(ms) > 0 {
			t.Fatalf("case %d: the project's plan does not conform: %v %v", i, err, ms)
		}
		want, _ := Expect(s, opts)
		for range 5 {
			cand := cloneResult(plans[0])
			cand.Create, cand.Delete = sample(r, want[0].Orders.choices())
			// Another pick of deletions may count another status (STAT-16); whether it is
			// written turns on the stored counters, so the draw leaves statusWrite out.
			if st := want[0].Orders.choices().StatusWith(plans[0].Status, deletedIn(plans[0].Delete), deletedIn(cand.Delete)); st != plans[0].Status {
				cand.Status, cand.StatusWrite = st, nil
			}
			if ms := Verify(want, []*daemonset.Result{cand}, opts); len(ms) > 0 {
				t.Fatalf("case %d: a valid draw is rejected: %v\norders %+v", i, ms, want[0].Orders.choices())
			}
		}
	}
}

// TestPropertyHarmfulMutationsAreRejected changes one thing in a conforming plan and expects at
// least one mismatch: a missing or extra action, a pod field, a counter, an impossible choice.
func TestPropertyHarmfulMutationsAreRejected(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	counts := map[string]int{}
	for i := range 250 {
		s := randomSnapshot(r)
		opts := Options{Version: v1363, Now: epoch, BurstLimit: []int{0, 0, 0, 1, 2}[r.IntN(5)]}
		plan := planOf(t, s, opts)[0]
		want, err := Expect(s, opts)
		if err != nil {
			t.Fatal(err)
		}
		for name, mutate := range mutations(r, s, want[0].Orders.choices()) {
			cand := cloneResult(plan)
			if !mutate(cand) {
				continue
			}
			counts[name]++
			if ms := Verify(want, []*daemonset.Result{cand}, opts); len(ms) == 0 {
				t.Fatalf("case %d: mutation %s accepted: %+v", i, name, cand)
			}
		}
	}
	t.Logf("mutations run: %v", counts)
	for _, name := range []string{"drop create", "drop delete", "extra delete", "extra create", "pod image", "pod label", "status", "over choice", "swap failed", "adopt", "hash"} {
		if counts[name] < 5 {
			t.Errorf("mutation %q ran %d times; the generator no longer reaches it", name, counts[name])
		}
	}
}

func mutations(r *rand.Rand, s daemonset.Snapshot, o *orders) map[string]func(*daemonset.Result) bool {
	return map[string]func(*daemonset.Result) bool{
		"drop create": func(c *daemonset.Result) bool {
			if len(c.Create) == 0 {
				return false
			}
			c.Create = slices.Delete(c.Create, 0, 1)
			return true
		},
		"drop delete": func(c *daemonset.Result) bool {
			if len(c.Delete) == 0 {
				return false
			}
			k := r.IntN(len(c.Delete))
			c.Delete = slices.Delete(c.Delete, k, k+1)
			return true
		},
		"extra delete": func(c *daemonset.Result) bool {
			for _, p := range s.Pods {
				if !slices.ContainsFunc(c.Delete, func(d daemonset.Deletion) bool { return d.Name == p.Name }) {
					c.Delete = append(c.Delete, daemonset.Deletion{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName})
					return true
				}
			}
			return false
		},
		"extra create": func(c *daemonset.Result) bool {
			for _, n := range s.Nodes {
				if !slices.ContainsFunc(c.Create, func(x daemonset.Creation) bool { return x.Node == n.Name }) && c.Skipped == "" && len(c.Create) > 0 {
					x := c.Create[0]
					x.Node = n.Name
					c.Create = append(c.Create, x)
					return true
				}
			}
			return false
		},
		"pod image": func(c *daemonset.Result) bool {
			if len(c.Create) == 0 {
				return false
			}
			c.Create[0].Pod.Spec.Containers[0].Image = "img:other"
			return true
		},
		"pod label": func(c *daemonset.Result) bool {
			if len(c.Create) == 0 {
				return false
			}
			c.Create[0].Pod.Labels["controller-revision-hash"] = "elsewhere"
			return true
		},
		"status": func(c *daemonset.Result) bool {
			if c.Status == nil {
				return false
			}
			c.Status.NumberAvailable++
			return true
		},
		"adopt": func(c *daemonset.Result) bool {
			c.Adopt = append(c.Adopt, daemonset.ObjectRef{Namespace: "ns", Name: "nobody"})
			return true
		},
		"hash": func(c *daemonset.Result) bool {
			if c.RevisionHash == "" {
				return false
			}
			c.RevisionHash += "x"
			return true
		},
		// One candidate more than the controller takes.
		"over choice": func(c *daemonset.Result) bool {
			for _, cl := range o.Deletes {
				if cl.Rule == "" || cl.Take == len(cl.Groups) || o.BurstLimit != 0 {
					continue
				}
				for _, g := range cl.Groups {
					d := g.Parts[0].Deletes[0]
					if !slices.ContainsFunc(c.Delete, func(x daemonset.Deletion) bool { return x.Name == d.Name }) {
						c.Delete = append(c.Delete, d)
						return true
					}
				}
			}
			for _, cl := range o.Creates {
				if cl.Rule == "" || cl.Take == len(cl.Groups) || o.BurstLimit != 0 {
					continue
				}
				for _, g := range cl.Groups {
					x := g.Parts[0].Creates[0]
					if !slices.ContainsFunc(c.Create, func(y daemonset.Creation) bool { return y.Node == x.Node }) {
						c.Create = append(c.Create, x)
						return true
					}
				}
			}
			return false
		},
		// A second Failed pod of the same node: the controller deletes one per sync.
		"swap failed": func(c *daemonset.Result) bool {
			for _, cl := range o.Deletes {
				for _, g := range cl.Groups {
					for _, p := range g.Parts {
						if len(p.OneOf) < 2 || o.BurstLimit != 0 {
							continue
						}
						for _, d := range p.OneOf {
							if !slices.ContainsFunc(c.Delete, func(x daemonset.Deletion) bool { return x.Name == d.Name }) {
								c.Delete = append(c.Delete, d)
								return true
							}
						}
					}
				}
			}
			return false
		},
	}
}
