package daemonset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// ruReference is a model of the v1.36 controller's rolling-update step written straight from
// its description (pkg/controller/daemon: rollingUpdate, findUpdatedPodsOnNode), walking the
// map in the given order as upstream walks a Go map in a random one. It returns the names of
// the pods deleted and of the nodes given a pod, by reason class, or failed.
type ruOutcome struct {
	failed  bool
	deletes map[Reason][]string // pod names
	creates map[Reason][]string // node names
}

func ruReference(ds *appsv1.DaemonSet, states []nodeState, desired int, hash string, now time.Time, order []int) ruOutcome {
	out := ruOutcome{deletes: map[Reason][]string{}, creates: map[Reason][]string{}}
	mu, ms, err := rollingBudgets(ds, desired)
	if err != nil {
		return ruOutcome{failed: true}
	}
	avail := func(pod *v1.Pod) bool { return ruleAvailable(pod, ds.Spec.MinReadySeconds, now) }
	split := func(pods []*v1.Pod) (newPod, oldPod *v1.Pod, ok bool) {
		for _, pod := range pods {
			if pod.DeletionTimestamp != nil {
				continue
			}
			if ruleUpdated(pod, hash, ds) {
				if newPod != nil {
					return nil, nil, false
				}
				newPod = pod
			} else {
				if oldPod != nil {
					return nil, nil, false
				}
				oldPod = pod
			}
		}
		return newPod, oldPod, true
	}
	if ms == 0 {
		unavailable := 0
		var candidates []string
		for _, i := range order {
			newPod, oldPod, ok := split(ruPodsOf(states[i]))
			switch {
			case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				unavailable++
			case newPod != nil:
				if !avail(newPod) {
					unavailable++
				}
			case !avail(oldPod):
				out.deletes[ReasonUpdateOldUnavailable] = append(out.deletes[ReasonUpdateOldUnavailable], oldPod.Name)
				unavailable++
			case unavailable >= mu:
			default:
				candidates = append(candidates, oldPod.Name)
			}
		}
		n := min(max(mu-unavailable, 0), len(candidates))
		out.deletes[ReasonUpdateOldCandidate] = candidates[:n]
		return out
	}
	surge, available := 0, 0
	var ineligible, candidates []string
	for _, i := range order {
		st := states[i]
		newPod, oldPod, ok := split(ruPodsOf(st))
		if !ok {
			surge++
			continue
		}
		if oldPod != nil {
			if avail(oldPod) {
				available++
			}
		} else if newPod != nil && avail(newPod) {
			available++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			if !st.listed() {
				return ruOutcome{failed: true}
			}
			switch {
			case !avail(oldPod) && !st.shouldRun():
				out.deletes[ReasonSurgeOldUnavailableIneligible] = append(out.deletes[ReasonSurgeOldUnavailableIneligible], oldPod.Name)
			case !avail(oldPod):
				out.creates[ReasonSurgeOldUnavailable] = append(out.creates[ReasonSurgeOldUnavailable], st.name)
			case !st.shouldRun():
				ineligible = append(ineligible, oldPod.Name)
			case surge >= ms:
			default:
				candidates = append(candidates, st.name)
			}
		case !avail(newPod):
			surge++
		default:
			out.deletes[ReasonSurgeReplaced] = append(out.deletes[ReasonSurgeReplaced], oldPod.Name)
		}
	}
	if n := available - desired; n > 0 {
		out.deletes[ReasonSurgeIneligibleExcess] = ineligible[:min(n, len(ineligible))]
	}
	out.creates[ReasonSurgeCandidate] = candidates[:min(max(ms-surge, 0), len(candidates))]
	return out
}

// ruRandomStates builds a random per-node map: nodes that should run or not or are missing,
// holding up to three pods, old or new by hash or by generation, Ready or not, recently or
// long ago, terminating or not.
func ruRandomStates(r *rand.Rand) []nodeState {
	n := r.IntN(10)
	states := make([]nodeState, 0, n)
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		var pods []*v1.Pod
		for j := range r.IntN(4) {
			hash := ruOldHash
			if r.IntN(2) == 0 {
				hash = ruHash
			}
			pod := ruPod(fmt.Sprintf("%s-p%d", name, j), hash, r.IntN(4) != 0)
			if r.IntN(8) == 0 {
				ruWithGenerationLabel(pod, "7")
			}
			ruReadySince(pod, ruNow.Add(-time.Duration(r.IntN(40))*time.Second))
			if r.IntN(8) == 0 {
				ruTerminating(pod)
			}
			pods = append(pods, pod)
		}
		switch r.IntN(8) {
		case 0:
			states = append(states, ruMissing(name, pods...))
		case 1, 2:
			states = append(states, ruIneligible(name, pods...))
		default:
			states = append(states, ruRun(name, pods...))
		}
	}
	return states
}

// TestRollingUpdateAgainstReference checks the step against ruReference on random maps and
// budgets, each walked in several random orders as upstream's map walk would: the same failure,
// the same budget-free actions, the same number of actions in each interchangeable class, and
// a choice that upstream could have made for some walk order (D-1, UPD-9, UPD-23).
func TestRollingUpdateAgainstReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 11))
	budgets := []*intstr.IntOrString{nil, apitest.Int(-1), apitest.Int(0), apitest.Int(1), apitest.Int(2), apitest.Str("0%"), apitest.Str("25%"), apitest.Str("50%"), apitest.Str("100%"), apitest.Str("5")}
	interchangeable := map[Reason]bool{ReasonUpdateOldCandidate: true, ReasonSurgeIneligibleExcess: true, ReasonSurgeCandidate: true}
	for c := range 5000 {
		ds := ruStrategy(budgets[r.IntN(len(budgets))], budgets[r.IntN(len(budgets))])
		if r.IntN(4) == 0 {
			ds.Spec.MinReadySeconds = 20
		}
		if r.IntN(4) == 0 {
			ruWithGeneration(ds, "7")
		}
		states := ruRandomStates(r)
		desired := ruDesired(states)
		p := &Planner{ds: ds, opts: Options{Version: v1363, Now: ruNow}}
		got := ruStep(p, states, desired)

		gotDeletes, gotCreates := map[Reason][]string{}, map[Reason][]string{}
		for _, d := range got.deletes {
			gotDeletes[d.Reason] = append(gotDeletes[d.Reason], d.Name)
		}
		for _, cr := range got.creates {
			gotCreates[cr.Reason] = append(gotCreates[cr.Reason], cr.Node)
		}
		// Some walk order must give exactly our choice: the name order does (D-1).
		byName := make([]int, len(states))
		for i := range byName {
			byName[i] = i
		}
		for k := range 4 {
			order := slices.Clone(byName)
			if k > 0 {
				r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			want := ruReference(ds, states, desired, ruHash, ruNow, order)
			require.Equal(t, want.failed, !got.report.Acted, "case %d: failure", c)
			if want.failed {
				require.Empty(t, got.deletes, "case %d", c)
				require.Empty(t, got.creates, "case %d", c)
				continue
			}
			for _, class := range []struct {
				got, want map[Reason][]string
			}{{gotDeletes, want.deletes}, {gotCreates, want.creates}} {
				for reason := range ruMergeKeys(class.got, class.want) {
					g, w := slices.Sorted(slices.Values(class.got[reason])), slices.Sorted(slices.Values(class.want[reason]))
					if k == 0 || !interchangeable[reason] {
						require.Equal(t, w, g, "case %d order %v: %s", c, order, reason)
					} else {
						require.Len(t, g, len(w), "case %d order %v: %s", c, order, reason)
					}
				}
			}
		}
	}
}

func ruMergeKeys(a, b map[Reason][]string) map[Reason]bool {
	keys := map[Reason]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
