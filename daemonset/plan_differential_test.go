package daemonset_test

// A whole sync against a model of the upstream controller, on random snapshots.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ---- a literal model of one upstream sync, as a differential oracle ----
//
// syncModel follows the v1.36.3 functions step by step, in their own structure rather than the
// library's (getDaemonPods with FilterPodsByOwner and ClaimPods, getNodesToDaemonPods,
// podsShouldBeOnNode, getUnscheduledPodsWithoutNode, rollingUpdate with
// updatedDesiredNodeCounts and findUpdatedPodsOnNode, updateDaemonSetStatus). Node eligibility
// is taken from Planner.Eligibility (checked on its own elsewhere). Where upstream iterates a
// Go map or an informer set, the model iterates in name order, which is the library's D-1
// choice, so that the two must agree exactly; with order non-nil it iterates in a random order
// instead, as the controller may (TestOrdersAcceptEveryModelOrder).
type modelPlan struct {
	creates, deletes, adopts, releases []string
	events                             []string
	status                             [7]int32
	rollingErr                         bool
	// writesStatus is storeDaemonSetStatus's decision to write (STAT-9); requeue the smallest
	// enqueueDaemonSetAfter of the sync (SYNC-8: the back-off, starting from none; STAT-15).
	writesStatus bool
	requeue      time.Duration
}

func syncModel(p *daemonset.Planner, nodes []*v1.Node, pods []*v1.Pod, hash string, now time.Time, burst int, order *rand.Rand) modelPlan {
	ds := p.DaemonSet()
	nodes = inOrder(order, nodes)
	var out modelPlan
	capped := func(l []string) []string { // syncNodes' burstReplicas
		if burst > 0 && len(l) > burst {
			return l[:burst]
		}
		return l
	}
	sel := func(pod *v1.Pod) bool {
		s, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		return err == nil && s.Matches(k8slabels.Set(pod.Labels))
	}
	ctrl := func(pod *v1.Pod) *metav1.OwnerReference { return metav1.GetControllerOf(pod) }

	// FilterPodsByOwner: the pods indexed under ns/DaemonSet/name/uid, then the namespace's orphans.
	var owned, orphans []*v1.Pod
	for _, pod := range pods {
		if pod.Namespace != ds.Namespace {
			continue
		}
		c := ctrl(pod)
		switch {
		case c == nil:
			orphans = append(orphans, pod)
		case c.Kind == "DaemonSet" && c.Name == ds.Name && c.UID == ds.UID:
			owned = append(owned, pod)
		}
	}
	byName := func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(owned, byName)
	slices.SortFunc(orphans, byName)
	owned, orphans = inOrder(order, owned), inOrder(order, orphans)
	// ClaimPods / ClaimObject.
	var claimed []*v1.Pod
	for _, pod := range append(append([]*v1.Pod{}, owned...), orphans...) {
		if c := ctrl(pod); c != nil {
			if c.UID != ds.UID {
				continue
			}
			if sel(pod) {
				claimed = append(claimed, pod)
				continue
			}
			out.releases = append(out.releases, pod.Name)
			continue
		}
		if !sel(pod) || pod.DeletionTimestamp != nil {
			continue
		}
		out.adopts = append(out.adopts, pod.Name)
		claimed = append(claimed, pod)
	}
	// getNodesToDaemonPods(includeDeletedTerminal=false).
	nodeToPods := func() map[string][]*v1.Pod {
		m := map[string][]*v1.Pod{}
		for _, pod := range claimed {
			terminal := pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded
			if terminal && pod.DeletionTimestamp != nil {
				continue
			}
			name, ok := affinity.TargetNodeName(pod)
			if !ok {
				continue
			}
			m[name] = append(m[name], pod)
		}
		return m
	}
	less := func(a, b *v1.Pod) int { // podByCreationTimestampAndPhase
		as, bs := a.Spec.NodeName != "", b.Spec.NodeName != ""
		if as != bs {
			if as {
				return -1
			}
			return 1
		}
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return strings.Compare(a.Name, b.Name)
		}
		if a.CreationTimestamp.Before(&b.CreationTimestamp) {
			return -1
		}
		return 1
	}
	ready := func(pod *v1.Pod) bool {
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.PodReady {
				return c.Status == v1.ConditionTrue
			}
		}
		return false
	}
	available := func(pod *v1.Pod) bool {
		if !ready(pod) {
			return false
		}
		var c v1.PodCondition
		for _, cc := range pod.Status.Conditions {
			if cc.Type == v1.PodReady {
				c = cc
				break
			}
		}
		m := ds.Spec.MinReadySeconds
		return m == 0 || (!c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(time.Duration(m)*time.Second).After(now))
	}
	var gen *int64
	if a, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		if g, err := strconv.ParseInt(a, 10, 64); err == nil {
			gen = &g
		}
	}
	updated := func(pod *v1.Pod) bool {
		return (gen != nil && pod.Labels["pod-template-generation"] == fmt.Sprint(*gen)) ||
			(hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash)
	}
	scaled := func(v *intstr.IntOrString, total int) (int, error) {
		return intstr.GetScaledValueFromIntOrPercent(v, total, true)
	}
	surgeCount := func(total int) (int, error) {
		s := ds.Spec.UpdateStrategy
		if s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil || s.RollingUpdate.MaxSurge == nil {
			return 0, nil
		}
		return scaled(s.RollingUpdate.MaxSurge, total)
	}
	unavailableCount := func(total int) (int, error) {
		s := ds.Spec.UpdateStrategy
		if s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil {
			return 0, nil
		}
		return scaled(s.RollingUpdate.MaxUnavailable, total)
	}
	allowsSurge := func() bool { n, err := surgeCount(1); return err == nil && n > 0 }
	elig := func(n *v1.Node) (bool, bool) { e := p.Eligibility(n); return e.ShouldRun, e.ShouldContinueRunning }

	// manage.
	m := nodeToPods()
	backoff := map[string]bool{}
	var creates, deletes []string
	for _, node := range nodes {
		shouldRun, shouldContinue := elig(node)
		daemonPods, exists := m[node.Name]
		switch {
		case shouldRun && !exists:
			creates = append(creates, node.Name)
		case shouldContinue:
			var running []*v1.Pod
			for _, pod := range daemonPods {
				if pod.DeletionTimestamp != nil {
					continue
				}
				switch pod.Status.Phase {
				case v1.PodFailed:
					if backoff[node.Name] {
						// In back-off since the Next of this sync: requeued after Get, 1 s.
						out.requeue = minRequeue(out.requeue, time.Second)
						continue
					}
					backoff[node.Name] = true
					out.events = append(out.events, "FailedDaemonPod "+pod.Name)
					deletes = append(deletes, pod.Name)
				case v1.PodSucceeded:
					out.events = append(out.events, "SucceededDaemonPod "+pod.Name)
					deletes = append(deletes, pod.Name)
				default:
					running = append(running, pod)
				}
			}
			if !allowsSurge() {
				if len(running) > 1 {
					slices.SortFunc(running, less)
					for _, pod := range running[1:] {
						deletes = append(deletes, pod.Name)
					}
				}
				break
			}
			if len(running) <= 1 {
				if len(running) == 0 && shouldRun {
					creates = append(creates, node.Name)
				}
				break
			}
			slices.SortFunc(running, less)
			var newest, oldest *v1.Pod
			for _, pod := range running {
				if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
					if newest == nil {
						newest = pod
						continue
					}
				} else if oldest == nil {
					oldest = pod
					continue
				}
				deletes = append(deletes, pod.Name)
			}
			if newest != nil && oldest != nil && (!ready(oldest) || available(newest)) {
				deletes = append(deletes, oldest.Name)
			}
		case !shouldContinue && exists:
			for _, pod := range daemonPods {
				if pod.DeletionTimestamp == nil {
					deletes = append(deletes, pod.Name)
				}
			}
		}
	}
	listed := map[string]*v1.Node{}
	for _, n := range nodes {
		listed[n.Name] = n
	}
	for _, name := range inOrder(order, slices.Sorted(maps.Keys(m))) {
		ps := m[name]
		if listed[name] != nil {
			continue
		}
		for _, pod := range ps {
			if pod.Spec.NodeName == "" {
				deletes = append(deletes, pod.Name)
			}
		}
	}
	out.creates, out.deletes = capped(creates), capped(deletes)

	// rollingUpdate, when manage submitted nothing.
	if len(creates)+len(deletes) == 0 && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		m := nodeToPods()
		desired := 0
		for _, n := range nodes {
			if run, _ := elig(n); run {
				desired++
				if _, ok := m[n.Name]; !ok {
					m[n.Name] = nil
				}
			}
		}
		keys := inOrder(order, slices.Sorted(maps.Keys(m)))
		find := func(ps []*v1.Pod) (newPod, oldPod *v1.Pod, ok bool) {
			for _, pod := range ps {
				if pod.DeletionTimestamp != nil {
					continue
				}
				if updated(pod) {
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
		mu, err1 := unavailableCount(desired)
		ms, err2 := surgeCount(desired)
		switch {
		case err1 != nil || err2 != nil:
			out.rollingErr = true
		case ms == 0 || (desired > 0 && mu == 0 && ms == 0):
			if desired > 0 && mu == 0 && ms == 0 {
				mu = 1
			}
			numUnavailable := 0
			var allowed, candidates []string
			for _, k := range keys {
				newPod, oldPod, ok := find(m[k])
				if !ok {
					numUnavailable++
					continue
				}
				switch {
				case oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
					numUnavailable++
				case newPod != nil:
					if !available(newPod) {
						numUnavailable++
					}
				default:
					switch {
					case !available(oldPod):
						allowed = append(allowed, oldPod.Name)
						numUnavailable++
					case numUnavailable >= mu:
					default:
						candidates = append(candidates, oldPod.Name)
					}
				}
			}
			r := min(max(mu-numUnavailable, 0), len(candidates))
			out.deletes = capped(append(allowed, candidates[:r]...))
		default:
			var oldDel, notRun, candNodes, allowedNodes []string
			numSurge, numAvailable := 0, 0
			for _, k := range keys {
				newPod, oldPod, ok := find(m[k])
				if !ok {
					numSurge++
					continue
				}
				if oldPod != nil {
					if available(oldPod) {
						numAvailable++
					}
				} else if newPod != nil && available(newPod) {
					numAvailable++
				}
				switch {
				case oldPod == nil:
				case newPod == nil:
					node := listed[k]
					if node == nil {
						out.rollingErr = true
						return out.withStatus(ds, nodes, m, elig, less, ready, available, updated)
					}
					run, _ := elig(node)
					switch {
					case !available(oldPod) && !run:
						oldDel = append(oldDel, oldPod.Name)
					case !available(oldPod):
						allowedNodes = append(allowedNodes, k)
					case !run:
						notRun = append(notRun, oldPod.Name)
					case numSurge >= ms:
					default:
						candNodes = append(candNodes, k)
					}
				default:
					if !available(newPod) {
						numSurge++
						continue
					}
					oldDel = append(oldDel, oldPod.Name)
				}
			}
			if d := numAvailable - desired; d > 0 {
				oldDel = append(oldDel, notRun[:min(d, len(notRun))]...)
			}
			r := min(max(ms-numSurge, 0), len(candNodes))
			out.creates = capped(append(allowedNodes, candNodes[:r]...))
			out.deletes = capped(oldDel)
		}
	}
	return out.withStatus(ds, nodes, nodeToPods(), elig, less, ready, available, updated)
}

// inOrder returns l in the model's order: as given when order is nil, else shuffled.
func inOrder[T any](order *rand.Rand, l []T) []T {
	if order == nil {
		return l
	}
	return shuffled(order, l)
}

// withStatus is updateDaemonSetStatus's counting, storeDaemonSetStatus's decision to write and
// the minReadySeconds requeue.
func (out modelPlan) withStatus(ds *appsv1.DaemonSet, nodes []*v1.Node, m map[string][]*v1.Pod, elig func(*v1.Node) (bool, bool),
	less func(a, b *v1.Pod) int, ready, available, updated func(*v1.Pod) bool) modelPlan {
	// The status pass claims the cached pods again: an orphan this sync adopted and deleted,
	// which the API server removed at once (unbound, terminal, no grace period; no finalizer),
	// is not found by the second adoption and not counted (STAT-16).
	gone := func(pod *v1.Pod) bool {
		if !slices.Contains(out.adopts, pod.Name) || !slices.Contains(out.deletes, pod.Name) || len(pod.Finalizers) > 0 {
			return false
		}
		g := pod.Spec.TerminationGracePeriodSeconds
		return pod.Spec.NodeName == "" || pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded || g == nil || *g == 0
	}
	var s [7]int32
	for _, n := range nodes {
		run, _ := elig(n)
		ps := slices.DeleteFunc(slices.Clone(m[n.Name]), gone)
		if !run {
			if len(ps) > 0 {
				s[2]++
			}
			continue
		}
		s[0]++
		if len(ps) == 0 {
			continue
		}
		s[1]++
		slices.SortFunc(ps, less)
		if ready(ps[0]) {
			s[3]++
			if available(ps[0]) {
				s[5]++
			}
		}
		if updated(ps[0]) {
			s[4]++
		}
	}
	s[6] = s[0] - s[5]
	out.status = s
	old := ds.Status
	out.writesStatus = !(old.DesiredNumberScheduled == s[0] && old.CurrentNumberScheduled == s[1] &&
		old.NumberMisscheduled == s[2] && old.NumberReady == s[3] && old.UpdatedNumberScheduled == s[4] &&
		old.NumberAvailable == s[5] && old.NumberUnavailable == s[6] && old.ObservedGeneration >= ds.Generation)
	if ds.Spec.MinReadySeconds > 0 && s[3] != s[5] {
		out.requeue = minRequeue(out.requeue, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	return out
}

func minRequeue(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}

func TestPlanAgainstUpstreamModel(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	for seed := uint64(0); seed < 8000; seed++ {
		ds, ns, pods, burst := modelInputs(seed / 2)
		if seed%2 == 1 {
			// The same inputs with the status the first plan computed stored, so that the
			// write is skipped (STAT-9), or not when the generation moved on.
			first, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now, BurstLimit: burst})
			ds = ds.DeepCopy()
			ds.Status = *first.Plan(daemonset.Snapshot{Nodes: ns, Pods: pods}).Status
			ds.Generation += int64(seed/2%3) - 1
		}
		p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now, BurstLimit: burst})
		hash := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		want := syncModel(p, ns, pods, hash, now, burst, nil)
		res := p.Plan(daemonset.Snapshot{Nodes: ns, Pods: pods})
		got := modelPlan{rollingErr: res.RollingUpdate != nil && res.RollingUpdate.Reason == "Error"}
		for _, c := range res.Create {
			got.creates = append(got.creates, c.Node)
		}
		for _, d := range res.Delete {
			got.deletes = append(got.deletes, d.Name)
		}
		for _, a := range res.Adopt {
			got.adopts = append(got.adopts, a.Name)
		}
		for _, a := range res.Release {
			got.releases = append(got.releases, a.Name)
		}
		for _, e := range res.Events {
			got.events = append(got.events, string(e.Reason)+" "+strings.TrimPrefix(e.Pod, "default/"))
		}
		got.writesStatus, got.requeue = res.StatusWrite != nil, res.RequeueAfter.Duration
		st := res.Status
		got.status = [7]int32{st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled,
			st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable}
		for _, l := range []*[]string{&want.creates, &want.deletes, &want.adopts, &want.releases, &want.events,
			&got.creates, &got.deletes, &got.adopts, &got.releases, &got.events} {
			slices.Sort(*l)
			if len(*l) == 0 {
				*l = nil
			}
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(modelPlan{})); diff != "" {
			t.Fatalf("seed %d: plan differs from the upstream model (-model +plan):\n%s", seed, diff)
		}
	}
}

// modelInputs draws the inputs of one model comparison: a DaemonSet, its nodes and pods, and a
// burst cap.
func modelInputs(seed uint64) (*appsv1.DaemonSet, []*v1.Node, []*v1.Pod, int) {
	now := time.Unix(1000, 0)
	r := rand.New(rand.NewPCG(seed, 77))
	ds := randomDS(r)
	switch r.IntN(6) {
	case 0:
		ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: []string{"1", "2", "+1", "x"}[r.IntN(4)]}
	case 1:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ios(r.IntN(3)), MaxSurge: []*intstr.IntOrString{ios(0), ios(2), iostr("30%"), iostr("-1")}[r.IntN(4)]}}
	case 2:
		ds.Spec.MinReadySeconds = int32(r.IntN(5) * 100)
	}
	nodeCount := 1 + r.IntN(7)
	ns := randomNodes(r, nodeCount)
	var pods []*v1.Pod
	if seed%2 == 0 {
		pods = randomPods(r, nodeCount, r.IntN(16), genConfig{terminal: r.IntN(2) == 0, terminating: r.IntN(2) == 0})
	} else {
		pods = settledPods(r, compiled(ds, now), ns)
	}
	for _, pod := range pods {
		if r.IntN(5) == 0 {
			pod.Labels["pod-template-generation"] = []string{"1", "2"}[r.IntN(2)]
		}
	}
	burst := []int{0, 0, 1, 2, 3}[r.IntN(5)]
	return ds, ns, pods, burst
}

// settledPods gives the nodes zero, one or two daemon pods, old or current, ready at various
// times, sometimes terminating, mostly where the node keeps them, plus bound pods on two missing
// names, so that the base diff is often empty and the rolling step runs.
func settledPods(r *rand.Rand, p *daemonset.Planner, nodes []*v1.Node) []*v1.Pod {
	var out []*v1.Pod
	for i := 0; i < len(nodes)+2; i++ {
		target := fmt.Sprintf("n%02d", i)
		k := []int{0, 1, 1, 1, 1, 2}[r.IntN(6)]
		if i < len(nodes) {
			e := p.Eligibility(nodes[i])
			switch {
			case !e.ShouldContinueRunning && r.IntN(4) > 0:
				k = 0
			case !e.ShouldRun && r.IntN(2) > 0:
				k = min(k, 1)
			}
		}
		for j := 0; j < k; j++ {
			var mods []podMod
			if r.IntN(2) == 0 {
				mods = append(mods, oldHash)
			}
			if r.IntN(3) > 0 {
				mods = append(mods, readyAt(int64(1+r.IntN(999))))
			}
			if r.IntN(10) == 0 {
				mods = append(mods, terminating)
			}
			if i < len(nodes) && r.IntN(10) == 0 {
				mods = append(mods, unscheduledFor(target))
			}
			mods = append(mods, created(int64(r.IntN(3))))
			out = append(out, pod(fmt.Sprintf("p%02d-%d", i, j), target, mods...))
		}
	}
	return out
}
