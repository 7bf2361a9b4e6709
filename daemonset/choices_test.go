package daemonset_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/choice"
	appsv1 "k8s.io/api/apps/v1"
)

// TestOrdersAcceptEveryModelOrder is the differential test of Orders (D-1): the literal model
// of an upstream sync is walked in random orders (informer sets, the node cache, Go maps), and
// every plan it produces must be one the Orders of the same sync allow, checked through
// conformance.Verify. Across the seeds the random orders must also produce plans that differ
// from the project's own, so that the choices are exercised and not only the project's picks.
func TestOrdersAcceptEveryModelOrder(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	differing := 0
	for seed := uint64(0); seed < 1500; seed++ {
		ds, nodes, pods, burst := modelInputs(seed)
		opts := conformance.Options{Version: v1363, Now: now, BurstLimit: burst}
		snap := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes, Pods: pods}
		want, err := conformance.Expect(snap, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now, BurstLimit: burst})
		own := p.Plan(daemonset.Snapshot{Nodes: nodes, Pods: pods})
		hash := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		order := rand.New(rand.NewPCG(seed, 13))
		for range 6 {
			m := syncModel(p, nodes, pods, hash, now, burst, order)
			cand := modelResult(p, own, m)
			if ms := conformance.Verify(want, []*daemonset.Result{cand}, opts); len(ms) > 0 {
				t.Fatalf("seed %d: a plan of the upstream model in a random order is rejected: %v\ncreates %v deletes %v",
					seed, ms, m.creates, m.deletes)
			}
			if !sameActions(own, cand) {
				differing++
			}
		}
	}
	t.Logf("%d of %d model plans differ from the project's", differing, 1500*6)
	if differing < 100 {
		t.Errorf("only %d model plans differ from the project's; the random orders no longer reach the choices", differing)
	}
}

// modelResult turns a model plan into the candidate the controller's requests would give: the
// project's plan for what the model does not compute (observedGeneration, the reports), the
// model's actions and counters.
func modelResult(p *daemonset.Planner, own *daemonset.Result, m modelPlan) *daemonset.Result {
	ds := p.DaemonSet()
	r := &daemonset.Result{Namespace: ds.Namespace, Name: ds.Name, Create: []daemonset.Creation{}, Delete: []daemonset.Deletion{}}
	for _, n := range m.creates {
		pod := p.NewPod(n)
		pod.Namespace = "" // as upstream submits it (POD-2)
		r.Create = append(r.Create, daemonset.Creation{Node: n, Pod: pod})
	}
	for _, name := range m.deletes {
		r.Delete = append(r.Delete, daemonset.Deletion{Namespace: ds.Namespace, Name: name})
	}
	for _, name := range m.adopts {
		r.Adopt = append(r.Adopt, daemonset.ObjectRef{Namespace: ds.Namespace, Name: name})
	}
	for _, name := range m.releases {
		r.Release = append(r.Release, daemonset.ObjectRef{Namespace: ds.Namespace, Name: name})
	}
	st := *own.Status
	s := m.status
	st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled = s[0], s[1], s[2]
	st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable = s[3], s[4], s[5], s[6]
	r.Status = &st
	return r
}

func sameActions(a, b *daemonset.Result) bool {
	key := func(r *daemonset.Result) string {
		var l []string
		for _, c := range r.Create {
			l = append(l, "c "+c.Node)
		}
		for _, d := range r.Delete {
			l = append(l, "d "+d.Name)
		}
		slices.Sort(l)
		return strings.Join(l, ",")
	}
	return key(a) == key(b)
}

// TestOrdersOfferOnlyReachableChoices is the other direction: every candidate Orders offers
// (each group of a UPD-9 or UPD-23 class, each Failed pod of a DIFF-17 choice) is picked by the
// upstream model in some random order, so the verifier accepts no choice the controller could
// not make. Runs without a burst cap, whose cut is checked by TestVerifySelection.
func TestOrdersOfferOnlyReachableChoices(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	checked := 0
	for seed := uint64(0); seed < 4000; seed++ {
		ds, nodes, pods, _ := modelInputs(seed)
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now})
		orders := p.Orders(daemonset.Snapshot{Nodes: nodes, Pods: pods})
		offered := map[string]bool{}
		for _, list := range [][]choice.ActionClass[daemonset.Creation, daemonset.Deletion]{orders.Creates, orders.Deletes} {
			for _, cl := range list {
				for _, g := range cl.Groups {
					for _, part := range g.Parts {
						if cl.Rule != "" {
							for _, c := range part.Creates {
								offered["c "+c.Node] = true
							}
							for _, d := range part.Deletes {
								offered["d "+d.Name] = true
							}
						}
						if len(part.OneOf) > 1 {
							for _, d := range part.OneOf {
								offered["d "+d.Name] = true
							}
						}
					}
				}
			}
		}
		if len(offered) == 0 {
			continue
		}
		checked++
		hash := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		order := rand.New(rand.NewPCG(seed, 29))
		for range 80 {
			m := syncModel(p, nodes, pods, hash, now, 0, order)
			for _, n := range m.creates {
				delete(offered, "c "+n)
			}
			for _, n := range m.deletes {
				delete(offered, "d "+n)
			}
		}
		if len(offered) > 0 {
			t.Errorf("seed %d: Orders offers choices no order of the model makes: %v", seed, offered)
		}
	}
	if checked < 30 {
		t.Errorf("only %d snapshots with choices", checked)
	}
	t.Logf("%d snapshots with choices", checked)
}
