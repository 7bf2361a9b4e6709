package daemonset_test

// A second review of the plan against the pinned v1.36.3 controller, function by function
// (pkg/controller/daemon daemon_controller.go and update.go, pkg/controller controller_utils.go
// and controller_ref_manager.go). Each case names the rule and the upstream function its
// expectation was read from; none was derived by running this library.

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
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// D-8, DIFF-3, SYNC-3: the events carry the reason, type and message that podsShouldBeOnNode and
// syncDaemonSet pass to the event recorder.
func TestReviewEventMessagesAreUpstreams(t *testing.T) {
	t.Parallel()
	res, err := daemonset.Plan(newDS(), nodes(2), []*v1.Pod{
		pod("f", "n0", phase(v1.PodFailed)),
		pod("s", "n1", phase(v1.PodSucceeded)),
	}, opts())
	require.NoError(t, err)
	want := []daemonset.Event{
		{Type: v1.EventTypeWarning, Reason: daemonset.ReasonFailedDaemonPod, Pod: "default/f", Node: "n0",
			Message: "Found failed daemon pod default/f on node n0, will try to kill it"},
		{Type: v1.EventTypeNormal, Reason: daemonset.ReasonSucceededDaemonPod, Pod: "default/s", Node: "n1",
			Message: "Found succeeded daemon pod default/s on node n1, will try to delete it"},
	}
	if diff := cmp.Diff(want, res.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	all := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })
	res, err = daemonset.Plan(all, nodes(1), nil, opts())
	require.NoError(t, err)
	want = []daemonset.Event{{Type: v1.EventTypeWarning, Reason: daemonset.ReasonSelectingAll,
		Message: "This daemon set is selecting all pods. A non-empty selector is required."}}
	if diff := cmp.Diff(want, res.Events); diff != "" {
		t.Errorf("SYNC-3 events (-want +got):\n%s", diff)
	}
}

// STAT-8, STAT-9: storeDaemonSetStatus writes nothing when the seven counters equal the stored
// ones and the stored observedGeneration is at least metadata.generation; the DaemonSet then
// keeps its stored observedGeneration, even one above metadata.generation. Once anything is
// written, observedGeneration becomes metadata.generation.
func TestReviewSTAT9ObservedGenerationWhenNothingIsWritten(t *testing.T) {
	t.Parallel()
	stored := func(observed int64, desired int32) dsMod {
		return func(ds *appsv1.DaemonSet) {
			ds.Generation = 3
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed,
				DesiredNumberScheduled: desired, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1,
				NumberUnavailable: 1}
		}
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want int64
	}{
		{name: "STAT-9 counters equal and stored observedGeneration above generation: nothing written, 5 stays", ds: newDS(stored(5, 1)), want: 5},
		{name: "STAT-9 counters equal and stored observedGeneration equal to generation: 3", ds: newDS(stored(3, 1)), want: 3},
		{name: "STAT-8 counters equal but stored observedGeneration below generation: written, 3", ds: newDS(stored(2, 1)), want: 3},
		{name: "STAT-8 a counter differs: written with generation 3 even though 5 was stored", ds: newDS(stored(5, 2)), want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(1), []*v1.Pod{pod("p", "n0")}, opts())
			require.NoError(t, err)
			require.NotNil(t, res.Status)
			require.Equal(t, tt.want, res.Status.ObservedGeneration)
		})
	}
}

// POD-1: getPodsPrefix uses "<name>-" unless that prefix fails pod-name validation as a
// prefix (apimachinery NameIsDNSSubdomain with prefix true, which masks the trailing dash by
// dropping the last two characters and appending "a"); then the bare name. Only a name that API
// validation rejects (VAL-22: planned as stored) can take the fallback.
func TestReviewPOD1GenerateNameFallback(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, ds, want string }{
		{name: "POD-1 a valid name gets the dash", ds: "foo", want: "foo-"},
		{name: "POD-1 a one-character name gets the dash", ds: "a", want: "a-"},
		{name: "POD-1 an upper-case name fails as a prefix: the bare name", ds: "Foo", want: "Foo"},
		{name: "POD-1 an underscore fails as a prefix: the bare name", ds: "foo_bar", want: "foo_bar"},
		{name: "POD-1 a name ending in a dot passes once its last character is masked: the dash", ds: "foo.", want: "foo.-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := newDS(func(ds *appsv1.DaemonSet) { ds.Name = tt.ds })
			res, err := daemonset.Plan(ds, nodes(1), nil, opts())
			require.NoError(t, err)
			require.Len(t, res.Create, 1)
			require.Equal(t, tt.want, res.Create[0].Pod.GenerateName)
			p, _ := daemonset.Compile(ds, opts())
			require.Equal(t, tt.want, p.NewPod("n0").GenerateName)
		})
	}
}

// Review point (c): a snapshot no informer cache can hold (nil entries, two nodes or two pods
// with one name) is an error for Plan and for PlanCluster alike.
func TestReviewInconsistentSnapshotIsAnErrorEverywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		nodes []*v1.Node
		pods  []*v1.Pod
	}{
		{name: "two nodes with one name", nodes: []*v1.Node{node("n0"), node("n0")}},
		{name: "a nil node", nodes: []*v1.Node{node("n0"), nil}},
		{name: "two pods with one namespace/name", nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0"), pod("p", "n1")}},
		{name: "a nil pod", nodes: nodes(1), pods: []*v1.Pod{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := daemonset.Plan(newDS(), tt.nodes, tt.pods, opts())
			require.Error(t, err)
			_, errCluster := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS()}, Nodes: tt.nodes, Pods: tt.pods}, opts())
			require.Error(t, errCluster)
			require.Equal(t, err.Error(), errCluster.Error())
		})
	}
	_, err := daemonset.PlanCluster(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{newDS(), nil}}, opts())
	require.Error(t, err)
}

// Review points (d), (f): FilterPodsByOwner looks pods up by the index key
// namespace/kind/name/uid of their first controller reference (apiVersion is not part of it) and
// only in the DaemonSet's namespace; ClaimObject then compares the uid.
func TestReviewOWNControllerReferenceKeys(t *testing.T) {
	t.Parallel()
	ref := func(apiVersion, kind, name, uid string) podMod {
		return owners(metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: ptr(true)})
	}
	runScenarios(t, []scenario{
		{name: "OWN-2 (d) a controller reference of apiVersion extensions/v1beta1, kind DaemonSet, same name and uid is this DaemonSet's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("extensions/v1beta1", "DaemonSet", "foo", "uid-foo"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "OWN-2 (d) nor does an unknown group matter",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("example.com/v9", "DaemonSet", "foo", "uid-foo"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "OWN-1 kind is compared exactly: daemonset in lower case is someone else's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("apps/v1", "daemonset", "foo", "uid-foo"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "OWN-1 the name is part of the key: same uid under another name is someone else's",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("apps/v1", "DaemonSet", "bar", "uid-foo"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "OWN-3 (d) a non-matching pod under the extensions/v1beta1 reference is released",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", ref("extensions/v1beta1", "DaemonSet", "foo", "uid-foo"), podLabels(map[string]string{"app": "x"}))},
			want: withRelease(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "p")},
		{name: "OWN-1 (f) a pod in another namespace with this DaemonSet's controller reference is invisible: not claimed, released, deleted or counted",
			nodes: nodes(2), pods: []*v1.Pod{
				pod("p", "n0", namespace("other")),
				pod("q", "n1", namespace("other"), podLabels(map[string]string{"app": "x"})),
				pod("r", "", namespace("other"), unscheduledFor("gone")),
			},
			want: sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "OWN-4 (f) an orphan in another namespace is not adopted",
			nodes: nodes(1), pods: []*v1.Pod{pod("p", "n0", namespace("other"), orphan)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
	})
}

func withRelease(s summary, names ...string) summary { s.Release = names; return s }

// Review point (e), STAT-10, D-10, D-11: under every skip no status is written, so the plan
// has none and observedGeneration is not raised.
func TestReviewSkippedWritesNoStatus(t *testing.T) {
	t.Parallel()
	collide := newDS(surgeDS, func(ds *appsv1.DaemonSet) { ds.Generation = 7 })
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		revisions []*appsv1.ControllerRevision
		skip      daemonset.Skip
	}{
		{name: "SYNC-3 selecting all", skip: daemonset.SkipSelectingAll,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.Spec.Selector = &metav1.LabelSelector{} })},
		{name: "SYNC-4 being deleted", skip: daemonset.SkipBeingDeleted,
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Generation = 7; ds.DeletionTimestamp = ptr(metav1.Unix(5, 0)) })},
		{name: "SYNC-5 invalid selector", skip: daemonset.SkipInvalidSelector,
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Generation = 7
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bad"}}}
			})},
		{name: "UPD-21 hash collision", skip: daemonset.SkipHashCollision, ds: collide,
			revisions: []*appsv1.ControllerRevision{revisionFor(t, other, hashOf(collide), 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := daemonset.Compile(tt.ds, opts())
			res := p.Plan(daemonset.Snapshot{Nodes: nodes(2), Pods: []*v1.Pod{pod("p", "n0", orphan)}, Revisions: tt.revisions})
			require.Equal(t, tt.skip, res.Skipped)
			require.Nil(t, res.Status)
			require.Empty(t, res.RevisionHash)
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
			require.Empty(t, res.Adopt)
		})
	}
}

// Review point (a), UPD-4: the rolling step's map holds every node of getNodesToDaemonPods (listed
// nodes that should not run but hold pods, and names missing from the node list whose pods are
// bound there), plus an empty entry per desired node without pods.
func TestReviewUPD4RollingMapKeys(t *testing.T) {
	t.Parallel()
	noSurge := func(mu int) dsMod { return rolling(ios(mu), ios(0)) }
	old := func(p *v1.Pod) { oldHash(p); ready(p) }
	runScenarios(t, []scenario{
		{name: "UPD-4 UPD-8 an available old pod on a NoSchedule-tainted node (continue, not desired) is an update candidate",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old)},
			want: sum(nil, list("b:UpdateOldCandidate"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 an available old pod bound to a missing node is an update candidate too; one of the two goes, the first by node name (D-1)",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", old)},
			want: sum(nil, list("c:UpdateOldCandidate~"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 with maxUnavailable 2 both go",
			ds: newDS(noSurge(2)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", old)},
			want: sum(nil, list("b:UpdateOldCandidate", "c:UpdateOldCandidate"), st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-8 a missing node holding only a terminating bound pod is an entry with no pod: it spends the budget",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("c", "gone", terminating)},
			want: sum(nil, nil, st(1, 1, 1, 1, 1, 1, 0))},
		{name: "UPD-4 UPD-11 with surge an old pod bound to a missing node fails the step (nodeLister.Get)",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("a", "n0", ready), pod("c", "gone", old)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "UPD-2 DIFF-8 an unscheduled pod aimed at a missing node is deleted by the base diff, so the step does not run",
			ds: newDS(noSurge(1)), nodes: []*v1.Node{node("n0"), node("n1", noSchedule)},
			pods: []*v1.Pod{pod("a", "n0", ready), pod("b", "n1", old), pod("u", "", unscheduledFor("gone"), old)},
			want: sum(nil, list("u:UnscheduledOnMissingNode"), st(1, 1, 1, 1, 1, 1, 0))},
	})
}

// ---- a literal model of one upstream sync, as a differential oracle ----
//
// syncModel follows the v1.36.3 functions step by step, in their own structure rather than the
// library's (getDaemonPods with FilterPodsByOwner and ClaimPods, getNodesToDaemonPods,
// podsShouldBeOnNode, getUnscheduledPodsWithoutNode, rollingUpdate with
// updatedDesiredNodeCounts and findUpdatedPodsOnNode, updateDaemonSetStatus). Node eligibility
// is taken from Planner.Eligibility (checked on its own elsewhere). Where upstream iterates a
// Go map or an informer set, the model iterates in name order, which is the library's D-1
// choice, so that the two must agree exactly.
type modelPlan struct {
	creates, deletes, adopts, releases []string
	events                             []string
	status                             [7]int32
	rollingErr                         bool
}

func syncModel(p *daemonset.Planner, nodes []*v1.Node, pods []*v1.Pod, hash string, now time.Time, burst int) modelPlan {
	ds := p.DaemonSet()
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
	for _, name := range slices.Sorted(maps.Keys(m)) {
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
		keys := slices.Sorted(maps.Keys(m))
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
						return out.withStatus(nodes, m, elig, less, ready, available, updated)
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
	return out.withStatus(nodes, nodeToPods(), elig, less, ready, available, updated)
}

// withStatus is updateDaemonSetStatus's counting.
func (out modelPlan) withStatus(nodes []*v1.Node, m map[string][]*v1.Pod, elig func(*v1.Node) (bool, bool),
	less func(a, b *v1.Pod) int, ready, available, updated func(*v1.Pod) bool) modelPlan {
	var s [7]int32
	for _, n := range nodes {
		run, _ := elig(n)
		ps := m[n.Name]
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
		ps = slices.Clone(ps)
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
	return out
}

func TestReviewDifferentialAgainstUpstreamModel(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	for seed := uint64(0); seed < 4000; seed++ {
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
		p, _ := daemonset.Compile(ds, daemonset.Options{Now: now, BurstLimit: burst})
		hash := daemonset.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		want := syncModel(p, ns, pods, hash, now, burst)
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

func compiled(ds *appsv1.DaemonSet, now time.Time) *daemonset.Planner {
	p, _ := daemonset.Compile(ds, daemonset.Options{Now: now})
	return p
}

// revisionModel is constructHistory (controlledHistories with ClaimControllerRevisions, the
// label fix-up, Match, dedupCurHistories, snapshot with its AlreadyExists path) reduced to what
// the plan needs: the hash of the current revision, or a collision. Among current revisions of
// equal number upstream keeps the last listed; the model takes the smallest name (D-1).
func revisionModel(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, patch []byte) (hash string, collision bool) {
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		panic(err)
	}
	var current []*appsv1.ControllerRevision
	for _, h := range revs {
		if h.Namespace != ds.Namespace {
			continue // the lister is namespaced
		}
		match := sel.Matches(k8slabels.Set(h.Labels))
		if c := metav1.GetControllerOf(h); c != nil {
			if c.UID != ds.UID || !match {
				continue
			}
		} else if !match || h.DeletionTimestamp != nil {
			continue
		}
		if _, ok := h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			h = h.DeepCopy()
			h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h.Name
		}
		if string(h.Data.Raw) == string(patch) {
			current = append(current, h)
		}
	}
	if len(current) == 0 {
		fresh := daemonset.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		for _, h := range revs {
			if h.Namespace == ds.Namespace && h.Name == ds.Name+"-"+fresh {
				if string(h.Data.Raw) != string(patch) {
					return "", true
				}
				return h.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], false
			}
		}
		return fresh, false
	}
	keep := current[0]
	for _, h := range current[1:] {
		if h.Revision > keep.Revision || (h.Revision == keep.Revision && h.Name < keep.Name) {
			keep = h
		}
	}
	return keep.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], false
}

// UPD-14, UPD-15, UPD-16, UPD-21, OWN-12, D-6, D-10: the current hash (or the collision) chosen by
// Plan agrees with the constructHistory model on random sets of ControllerRevisions.
func TestReviewDifferentialRevisions(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	ds := newDS()
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	patch, err := daemonset.RevisionPatch(ds)
	require.NoError(t, err)
	fresh := hashOf(ds)
	for seed := uint64(0); seed < 3000; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var revs []*appsv1.ControllerRevision
		used := map[string]bool{}
		for i := r.IntN(5); i > 0; i-- {
			name := []string{"foo-" + fresh, "foo-h1", "foo-h2", "foo-h3"}[r.IntN(4)]
			nsName := []string{"default", "default", "default", "other"}[r.IntN(4)]
			if used[nsName+"/"+name] {
				continue
			}
			used[nsName+"/"+name] = true
			src := ds
			if r.IntN(3) == 0 {
				src = other
			}
			rev := revisionFor(t, src, "x", int64(r.IntN(4)))
			rev.Name, rev.Namespace = name, nsName
			switch r.IntN(5) {
			case 0:
				delete(rev.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
			case 1:
				rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = ""
			case 2:
				rev.Labels["app"] = "x" // the selector no longer matches: released, or not adopted
			default:
				rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = []string{"ha", "hb", fresh}[r.IntN(3)]
			}
			switch r.IntN(4) {
			case 0:
				rev.OwnerReferences = nil
			case 1:
				rev.OwnerReferences = []metav1.OwnerReference{ownedBy("DaemonSet", "bar", "uid-bar", true)}
			}
			if r.IntN(6) == 0 {
				rev.DeletionTimestamp = ptr(metav1.Unix(5, 0))
			}
			revs = append(revs, rev)
		}
		wantHash, wantCollision := revisionModel(ds, revs, patch)
		res := compiled(ds, now).Plan(daemonset.Snapshot{Nodes: nodes(1), Revisions: revs})
		gotCollision := res.Skipped == daemonset.SkipHashCollision
		require.Equal(t, wantCollision, gotCollision, "seed %d: collision", seed)
		if !wantCollision {
			require.Equal(t, wantHash, res.RevisionHash, "seed %d: hash", seed)
		}
	}
}

// upstreamPodModel builds the pod syncNodes submits for node, step by step as upstream does:
// util.CreatePodTemplate (deep copy, AddOrUpdateDaemonPodTolerations, labels made non-nil,
// pod-template-generation when the annotation parses, the hash label when non-empty),
// util.ReplaceDaemonSetPodNodeNameNodeAffinity on a copy, then controller.GetPodFromTemplate
// (fresh label and annotation sets, a finalizers copy, generateName, the controller reference,
// a deep copy of the spec). The namespace is set as D-3 says.
func upstreamPodModel(ds *appsv1.DaemonSet, hash, node string) *v1.Pod {
	tmpl := ds.Spec.Template.DeepCopy()
	addOrUpdate := func(spec *v1.PodSpec, tol v1.Toleration) {
		var out []v1.Toleration
		updated := false
		for i := range spec.Tolerations {
			if tol.MatchToleration(&spec.Tolerations[i]) {
				out = append(out, tol)
				updated = true
				continue
			}
			out = append(out, spec.Tolerations[i])
		}
		if !updated {
			out = append(out, tol)
		}
		spec.Tolerations = out
	}
	for _, d := range daemonDefaults(tmpl.Spec.HostNetwork) {
		addOrUpdate(&tmpl.Spec, d)
	}
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	if a, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		if g, err := strconv.ParseInt(a, 10, 64); err == nil {
			tmpl.Labels["pod-template-generation"] = fmt.Sprint(g)
		}
	}
	if hash != "" {
		tmpl.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	req := v1.NodeSelectorRequirement{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}
	sel := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req}}}}
	switch a := tmpl.Spec.Affinity; {
	case a == nil:
		tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	case a.NodeAffinity == nil:
		a.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	case a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	default:
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req}}}
	}
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for k, v := range tmpl.Annotations {
		annotations[k] = v
	}
	finalizers := make([]string, len(tmpl.Finalizers))
	copy(finalizers, tmpl.Finalizers)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Labels: labels, Annotations: annotations, Finalizers: finalizers, GenerateName: ds.Name + "-",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
	}}
	pod.Spec = *tmpl.Spec.DeepCopy()
	pod.Namespace = ds.Namespace
	return pod
}

// POD-1..POD-8, DEFTOL-1..3: every created pod equals, field by field (nil and empty told apart),
// the object upstream builds, on 1,000 random templates.
func TestReviewDifferentialCreatedPod(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	for seed := uint64(0); seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		ds := newDS()
		tmpl := &ds.Spec.Template
		switch r.IntN(3) {
		case 0:
			tmpl.Labels["extra"] = "x"
		case 1:
			tmpl.Labels[daemonset.LabelTemplateGeneration] = "9"
		}
		switch r.IntN(3) {
		case 0:
			tmpl.Annotations = map[string]string{}
		case 1:
			tmpl.Annotations = map[string]string{"a": "b"}
		}
		switch r.IntN(3) {
		case 0:
			tmpl.Finalizers = []string{}
		case 1:
			tmpl.Finalizers = []string{"example.com/f"}
		}
		tmpl.Name, tmpl.Namespace, tmpl.GenerateName = []string{"", "tmpl"}[r.IntN(2)], []string{"", "elsewhere"}[r.IntN(2)], []string{"", "g-"}[r.IntN(2)]
		tmpl.Spec.HostNetwork = r.IntN(2) == 0
		tmpl.Spec.NodeName = []string{"", "", "n0"}[r.IntN(3)]
		var tols []v1.Toleration
		for i := r.IntN(4); i > 0; i-- {
			tols = append(tols, []v1.Toleration{
				{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](30)},
				{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
				{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
				{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoSchedule},
				{Operator: v1.TolerationOpExists},
			}[r.IntN(5)])
		}
		if r.IntN(3) > 0 {
			tmpl.Spec.Tolerations = tols
		} else if r.IntN(2) == 0 {
			tmpl.Spec.Tolerations = []v1.Toleration{}
		}
		switch r.IntN(6) {
		case 1:
			tmpl.Spec.Affinity = &v1.Affinity{}
		case 2:
			tmpl.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{}, NodeAffinity: &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: term(expr("zone", v1.NodeSelectorOpIn, "a"))}}}}
		case 3, 4:
			tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{term(expr("zone", v1.NodeSelectorOpDoesNotExist)), fieldTerm(expr("metadata.name", v1.NodeSelectorOpNotIn, "zz"))}}}}
		case 5:
			tmpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}}
		}
		switch r.IntN(4) {
		case 0:
			ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: []string{"3", "+4", "007", "x", ""}[r.IntN(5)]}
		case 1:
			ds.Status.CollisionCount = ptr[int32](int32(r.IntN(3)))
		}
		ns := []*v1.Node{node("n0"), node("n1")}
		planner := compiled(ds, now)
		res := planner.Plan(daemonset.Snapshot{Nodes: ns})
		hash := hashOf(ds)
		require.Equal(t, hash, res.RevisionHash, "seed %d", seed)
		want := 0
		for _, n := range ns {
			if planner.Eligibility(n).ShouldRun {
				want++
			}
		}
		require.Len(t, res.Create, want, "seed %d", seed)
		for _, c := range res.Create {
			if diff := cmp.Diff(upstreamPodModel(ds, hash, c.Node), c.Pod); diff != "" {
				t.Fatalf("seed %d: pod for %s differs from upstream's (-upstream +plan):\n%s", seed, c.Node, diff)
			}
		}
	}
}

// Review point (b), SYNC-2, UPD-21, D-2, D-10: constructHistory fails before getDaemonPods, so a
// DaemonSet whose sync stops on a hash collision adopts nothing; in a cluster-wide plan an orphan
// both select goes to the younger DaemonSet, without a conflict, even though the colliding one is
// older.
func TestReviewSYNC2CollidingDaemonSetAdoptsNothingClusterWide(t *testing.T) {
	t.Parallel()
	older := newDS(func(ds *appsv1.DaemonSet) { ds.CreationTimestamp = metav1.Unix(1, 0) })
	younger := newDS(func(ds *appsv1.DaemonSet) {
		ds.Name, ds.UID, ds.CreationTimestamp = "bar", "uid-bar", metav1.Unix(2, 0)
	})
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "other" })
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{older, younger},
		Nodes:      nodes(1),
		Pods:       []*v1.Pod{pod("o", "n0", orphan)},
		Revisions:  []*appsv1.ControllerRevision{revisionFor(t, other, hashOf(older), 1)},
	}
	got, err := daemonset.PlanCluster(s, opts())
	require.NoError(t, err)
	require.Len(t, got.DaemonSets, 2)
	bar, foo := got.DaemonSets[0], got.DaemonSets[1]
	require.Equal(t, daemonset.SkipHashCollision, foo.Skipped)
	require.Empty(t, foo.Adopt)
	require.Empty(t, foo.Conflicts)
	require.Empty(t, bar.Skipped)
	require.Equal(t, []daemonset.PodRef{{Namespace: "default", Name: "o"}}, bar.Adopt)
	require.Empty(t, bar.Conflicts)
	require.Empty(t, bar.Create)
}
