package upstreamtest

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
)

var (
	trajectories    = flag.Int("trajectories", 40, "how many random clusters TestTrajectoriesAgainstUpstream drives")
	trajectorySeed  = flag.Uint64("trajectory-seed", 1, "the seed of TestTrajectoriesAgainstUpstream's clusters and kubelet")
	trajectorySyncs = flag.Int("trajectory-syncs", 60, "the most syncs TestTrajectoriesAgainstUpstream runs per trajectory")
	trajectoryDump  = flag.String("trajectory-dump", "", "a directory where TestTrajectoriesAgainstUpstream writes the snapshot of each mismatching sync, as a v1 List")
)

const (
	trajNS       = "ns"
	burstLimit   = 250 // the controller's BurstReplicas
	startDelay   = 3 * time.Second
	bindDelay    = time.Second
	rejectDelay  = 2 * time.Second
	podGCDelay   = 5 * time.Second
	lastEventAt  = 22 // the last sync a node event may happen at
	changeLatest = 3  // the template changes before one of the first syncs
)

// world is the cluster a trajectory drives: what the API server holds, plus the kubelet's
// and the scheduler's state that is not in the objects.
type world struct {
	ds     *appsv1.DaemonSet
	nodes  []*v1.Node
	pods   []*v1.Pod
	revs   []*appsv1.ControllerRevision
	broken string               // the node whose kubelet rejects every pod it is given
	goneAt map[string]time.Time // nodes that left the cluster, and when
	named  map[string]int       // pods created per target node, for generated names
}

func (w *world) node(name string) *v1.Node {
	for _, n := range w.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func (w *world) objects() []runtime.Object {
	out := []runtime.Object{w.ds.DeepCopy()}
	for _, n := range w.nodes {
		out = append(out, n.DeepCopy())
	}
	for _, p := range w.pods {
		out = append(out, p.DeepCopy())
	}
	for _, r := range w.revs {
		out = append(out, r.DeepCopy())
	}
	return out
}

func (w *world) snapshot() daemonset.Snapshot {
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{w.ds}, Nodes: w.nodes, Pods: w.pods, Revisions: w.revs}
}

var (
	notReadyTaint      = v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
	unschedulableTaint = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
	dedicatedTaint     = v1.Taint{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}
	maintTaint         = v1.Taint{Key: "maint", Effect: v1.TaintEffectNoExecute}
	preferTaint        = v1.Taint{Key: "spot", Effect: v1.TaintEffectPreferNoSchedule}
)

// randomNode draws a node: labels the DaemonSets select on, user taints, cordoned, NotReady.
func randomNode(r *rand.Rand, name string, now time.Time) *v1.Node {
	os := "linux"
	if r.IntN(5) == 0 {
		os = "windows"
	}
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1",
		Labels: map[string]string{"kubernetes.io/hostname": name, "os": os, "zone": []string{"a", "b"}[r.IntN(2)]}},
		Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
	for _, t := range []struct {
		taint v1.Taint
		odds  int
	}{{dedicatedTaint, 5}, {maintTaint, 8}, {preferTaint, 8}} {
		if r.IntN(t.odds) == 0 {
			n.Spec.Taints = append(n.Spec.Taints, t.taint)
		}
	}
	if r.IntN(8) == 0 {
		n.Spec.Unschedulable = true
		n.Spec.Taints = append(n.Spec.Taints, unschedulableTaint)
	}
	if r.IntN(8) == 0 {
		makeNotReady(n, now)
	}
	return n
}

// makeNotReady turns n's Ready condition False and taints it not-ready. Every node of a
// trajectory has a Ready condition (randomNode, makeNotReady, the "ready" event), so the
// kubelet model reads it with nodehealth.RunsPods, rollout's reading, which agrees there with
// pkg/util/node IsNodeReady (they differ only on a node without the condition).
func makeNotReady(n *v1.Node, now time.Time) {
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
	t := notReadyTaint
	t.TimeAdded = &metav1.Time{Time: now}
	n.Spec.Taints = append(n.Spec.Taints, t)
}

func randomIntOrPercent(r *rand.Rand, ints []int32, percents []string) *intstr.IntOrString {
	if r.IntN(3) == 0 {
		v := intstr.FromString(percents[r.IntN(len(percents))])
		return &v
	}
	v := intstr.FromInt32(ints[r.IntN(len(ints))])
	return &v
}

// trajectoryDaemonSet draws the DaemonSet before the template change, as the API server
// stores it: defaulted, with its template generation annotation.
func trajectoryDaemonSet(r *rand.Rand) *appsv1.DaemonSet {
	labels := map[string]string{"app": "d"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: trajNS, Name: "d", UID: "uid-d", Generation: 1, ResourceVersion: "1",
			Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "1"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "img:v1"}},
					TerminationGracePeriodSeconds: new([]int64{0, 2, 5, 30}[r.IntN(4)])}},
			MinReadySeconds: []int32{0, 0, 3, 8}[r.IntN(4)],
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1},
	}
	spec := &ds.Spec.Template.Spec
	if r.IntN(3) == 0 {
		spec.NodeSelector = map[string]string{"os": "linux"}
	}
	if r.IntN(4) == 0 {
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	}
	if r.IntN(2) == 0 {
		spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	if r.IntN(3) == 0 {
		spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "maint", Operator: v1.TolerationOpExists})
	}
	switch r.IntN(5) {
	case 0:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	default:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{
				MaxUnavailable: randomIntOrPercent(r, []int32{0, 1, 1, 2, 3}, []string{"20%", "50%", "100%"}),
				MaxSurge:       randomIntOrPercent(r, []int32{0, 0, 1, 2}, []string{"0%", "30%", "50%"}),
			}}
	}
	if r.IntN(3) == 0 {
		ds.Spec.RevisionHistoryLimit = new(int32(r.IntN(3)))
	}
	return release.WithTemplateDefaults(daemonset.WithDefaults(ds))
}

// changeTemplate is the template change a trajectory rolls out: a new image and, sometimes, new
// scheduling constraints. The API server raises the generation and the template generation.
func changeTemplate(r *rand.Rand, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	ds = ds.DeepCopy()
	spec := &ds.Spec.Template.Spec
	spec.Containers[0].Image = fmt.Sprintf("img:v%d", ds.Generation+1)
	if r.IntN(4) == 0 {
		if spec.NodeSelector == nil {
			spec.NodeSelector = map[string]string{"os": "linux"}
		} else {
			spec.NodeSelector = nil
		}
	}
	if r.IntN(4) == 0 {
		i := slices.IndexFunc(spec.Tolerations, func(t v1.Toleration) bool { return t.Key == "maint" })
		if i >= 0 {
			spec.Tolerations = slices.Delete(spec.Tolerations, i, i+1)
		} else {
			spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "maint", Operator: v1.TolerationOpExists})
		}
	}
	ds.Generation++
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = fmt.Sprint(ds.Generation)
	return release.WithTemplateDefaults(ds)
}

// runningPod is a daemon pod of tmpl the controller created on node at created, bound and
// ready since startDelay later.
func runningPod(tmpl *appsv1.DaemonSet, node, name string, created time.Time) *v1.Pod {
	p, _ := daemonset.Compile(tmpl, daemonset.Options{Version: release, Now: created})
	pod := p.NewPod(node)
	pod.Name, pod.UID, pod.ResourceVersion = name, types.UID("uid-"+name), "1"
	pod.CreationTimestamp = metav1.Time{Time: created}
	pod.Spec.NodeName = node
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue,
		LastTransitionTime: metav1.Time{Time: created.Add(startDelay)}}}}
	return pod
}

func setReady(p *v1.Pod, ready bool, now time.Time) {
	status := v1.ConditionFalse
	if ready {
		status = v1.ConditionTrue
	}
	for i, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			if c.Status != status {
				p.Status.Conditions[i] = v1.PodCondition{Type: v1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: now}}
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: now}})
}

func podReady(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// randomWorld draws a cluster running ds (at template v1, some pods of an older v0) at now.
func randomWorld(r *rand.Rand, now time.Time) *world {
	w := &world{ds: trajectoryDaemonSet(r), goneAt: map[string]time.Time{}, named: map[string]int{}}
	older := w.ds.DeepCopy()
	older.Spec.Template.Spec.Containers[0].Image = "img:v0"
	older.Annotations[appsv1.DeprecatedTemplateGeneration] = "0"
	for i, d := range []*appsv1.DaemonSet{older, w.ds} {
		h := release.ComputeHash(&d.Spec.Template, nil)
		rev, err := release.NewRevision(d, h, int64(i+1))
		if err != nil {
			panic(err)
		}
		rev.UID, rev.ResourceVersion = types.UID("uid-"+rev.Name), "1"
		rev.CreationTimestamp = metav1.Time{Time: now.Add(time.Duration(i-3) * time.Hour)}
		w.revs = append(w.revs, rev)
	}
	for i := range 2 + r.IntN(3+r.IntN(8)) {
		w.nodes = append(w.nodes, randomNode(r, fmt.Sprintf("n%d", i), now.Add(-time.Minute)))
	}
	if r.IntN(3) == 0 {
		w.broken = w.nodes[r.IntN(len(w.nodes))].Name
	}
	seq := 0
	add := func(tmpl *appsv1.DaemonSet, node string, age time.Duration) *v1.Pod {
		seq++
		p := runningPod(tmpl, node, fmt.Sprintf("d-old%d", seq), now.Add(-age))
		w.pods = append(w.pods, p)
		return p
	}
	for _, n := range w.nodes {
		var pods []*v1.Pod
		switch r.IntN(10) {
		case 0, 1, 2, 3, 4:
			pods = append(pods, add(w.ds, n.Name, time.Hour))
		case 5:
			pods = append(pods, add(older, n.Name, 2*time.Hour))
		case 6:
		case 7: // a Failed pod, sometimes next to a running one
			f := add(w.ds, n.Name, time.Hour)
			f.Status.Phase = v1.PodFailed
			setReady(f, false, now.Add(-time.Minute))
			if r.IntN(2) == 0 {
				pods = append(pods, add(w.ds, n.Name, 30*time.Minute))
			}
		case 8: // two running pods: the younger is a duplicate
			pods = append(pods, add(w.ds, n.Name, time.Hour), add(older, n.Name, 30*time.Minute))
		case 9: // an orphan the controller adopts
			pods = append(pods, add(w.ds, n.Name, time.Hour))
			pods[0].OwnerReferences = nil
			// Deleted at once or gracefully: upstream's status pass claims the cached orphan
			// again, and one this sync adopted and the API server removed at once is not found
			// and not counted (STAT-16).
			switch r.IntN(3) {
			case 0:
				pods[0].Spec.TerminationGracePeriodSeconds = new(int64(30))
			case 1:
				pods[0].Spec.TerminationGracePeriodSeconds = nil
			default:
				pods[0].Status.Phase = v1.PodFailed
				setReady(pods[0], false, now.Add(-time.Minute))
			}
		}
		if !nodehealth.RunsPods(n) {
			for _, p := range pods {
				setReady(p, false, now.Add(-time.Minute))
			}
		}
	}
	if r.IntN(4) == 0 { // pending, aimed at a node that is gone: the controller deletes it
		p := add(w.ds, "gone", time.Hour)
		p.Spec.NodeName, p.Status = "", v1.PodStatus{Phase: v1.PodPending}
	}
	if r.IntN(4) == 0 { // bound to a node that is gone: pod GC's
		add(older, "gone", time.Hour)
		w.goneAt["gone"] = now.Add(-time.Second)
	}
	if r.IntN(5) == 0 { // another controller's pod with the same labels
		p := add(w.ds, w.nodes[0].Name, time.Hour)
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "uid-rs", Controller: &yes}}
	}
	if r.IntN(5) == 0 { // owned, but the selector no longer matches: released
		p := add(w.ds, w.nodes[len(w.nodes)-1].Name, time.Hour)
		p.Labels["app"] = "other"
	}
	return w
}

// targetNode is the node a daemon pod is for: its node, or the one its node affinity names.
func targetNode(p *v1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && f.Operator == v1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// toleratesSchedule says whether the scheduler may bind p to n as far as taints go.
func toleratesSchedule(p *v1.Pod, n *v1.Node) bool {
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect == v1.TaintEffectPreferNoSchedule {
			continue
		}
		if !slices.ContainsFunc(p.Spec.Tolerations, func(tol v1.Toleration) bool { return tolerates(&tol, t) }) {
			return false
		}
	}
	return true
}

// kubeletStep moves the pods on at now, deterministically but for r's occasional failures:
// the scheduler binds a pending pod bindDelay after its creation to its node when that exists
// and its taints allow; a bound pod starts and becomes ready startDelay after its creation on a
// Ready node, or fails rejectDelay after it on the broken node; a running pod fails now and
// then; a node that is not Ready has its pods marked not ready and finishes no deletion; a
// terminating pod goes when its grace period is over; pod GC removes the pods of a node gone
// for podGCDelay. It returns whether anything changed.
func (w *world) kubeletStep(r *rand.Rand, now time.Time) bool {
	changed := false
	var kept []*v1.Pod
	for _, p := range w.pods {
		created := p.CreationTimestamp.Time
		n := w.node(targetNode(p))
		if n == nil && p.Spec.NodeName != "" {
			if gone, ok := w.goneAt[p.Spec.NodeName]; ok && !now.Before(gone.Add(podGCDelay)) {
				changed = true
				continue
			}
			kept = append(kept, p)
			continue
		}
		switch {
		case n == nil:
		case p.DeletionTimestamp != nil:
			grace := time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
			if nodehealth.RunsPods(n) && !now.Before(p.DeletionTimestamp.Add(grace)) {
				changed = true
				continue
			}
		case p.Spec.NodeName == "":
			if !now.Before(created.Add(bindDelay)) && toleratesSchedule(p, n) {
				p.Spec.NodeName = n.Name
				changed = true
			}
		case p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded:
		case !nodehealth.RunsPods(n):
			if podReady(p) {
				setReady(p, false, now)
				changed = true
			}
		case n.Name == w.broken && p.Status.Phase != v1.PodRunning:
			if !now.Before(created.Add(rejectDelay)) {
				p.Status.Phase = v1.PodFailed
				p.Status.Reason = "OutOfcpu"
				changed = true
			}
		case p.Status.Phase != v1.PodRunning:
			if !now.Before(created.Add(startDelay)) {
				p.Status.Phase = v1.PodRunning
				setReady(p, true, now)
				changed = true
			}
		case r.IntN(60) == 0: // the daemon exits, now and then with success
			p.Status.Phase = v1.PodFailed
			if r.IntN(4) == 0 {
				p.Status.Phase = v1.PodSucceeded
			}
			setReady(p, false, now)
			changed = true
		}
		kept = append(kept, p)
	}
	w.pods = kept
	return changed
}

// nodeEvent changes the nodes at the fixed syncs 6, 10, 14, 18 and 22 (each only in some
// trajectories): a node joins, one gets a user taint, one goes NotReady, one leaves, one
// NotReady comes back.
func (w *world) nodeEvent(r *rand.Rand, sync int, now time.Time) string {
	if r.IntN(2) == 0 || len(w.nodes) < 2 {
		return ""
	}
	i := r.IntN(len(w.nodes))
	n := w.nodes[i].DeepCopy()
	switch sync {
	case 6:
		name := fmt.Sprintf("n-join%d", sync)
		w.nodes = append(w.nodes, randomNode(r, name, now))
		return "join " + name
	case 10:
		t := []v1.Taint{dedicatedTaint, maintTaint}[r.IntN(2)]
		if slices.ContainsFunc(n.Spec.Taints, func(o v1.Taint) bool { return o.Key == t.Key }) {
			return ""
		}
		n.Spec.Taints = append(n.Spec.Taints, t)
		w.nodes[i] = n
		return "taint " + n.Name + " " + t.ToString()
	case 14:
		if !nodehealth.RunsPods(n) {
			return ""
		}
		makeNotReady(n, now)
		w.nodes[i] = n
		return "notready " + n.Name
	case 18:
		w.nodes = slices.Delete(w.nodes, i, i+1)
		w.goneAt[n.Name] = now
		return "leave " + n.Name
	case lastEventAt:
		if nodehealth.RunsPods(n) {
			return ""
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t v1.Taint) bool { return t.Key == v1.TaintNodeNotReady })
		w.nodes[i] = n
		return "ready " + n.Name
	}
	return ""
}

// upstreamWrites are the writes of one upstream sync, read from its actions.
type upstreamWrites struct {
	create    map[string]*v1.Pod // by target node
	delete    []string
	adopt     []string
	release   []string
	status    *appsv1.DaemonSetStatus
	revisions revisionActions
	writes    int
	creates   int
}

func writesOfSync(t *testing.T, actions []clienttesting.Action, revs []*appsv1.ControllerRevision) upstreamWrites {
	out := upstreamWrites{create: map[string]*v1.Pod{}, revisions: revisionActionsOf(t, actions, revs)}
	for _, a := range actions {
		switch a.GetVerb() {
		case "create", "update", "delete", "patch":
			out.writes++
		}
		switch {
		case a.Matches("create", "pods"):
			p := a.(clienttesting.CreateAction).GetObject().(*v1.Pod)
			out.create[targetNode(p)] = p
			out.creates++
		case a.Matches("delete", "pods"):
			out.delete = append(out.delete, a.(clienttesting.DeleteAction).GetName())
		case a.Matches("patch", "pods"):
			p := a.(clienttesting.PatchAction)
			if p.GetPatchType() != types.StrategicMergePatchType {
				continue
			}
			if strings.Contains(string(p.GetPatch()), `"$patch":"delete"`) {
				out.release = append(out.release, p.GetName())
			} else {
				out.adopt = append(out.adopt, p.GetName())
			}
		case a.Matches("update", "daemonsets") && a.GetSubresource() == "status":
			out.status = &a.(clienttesting.UpdateAction).GetObject().(*appsv1.DaemonSet).Status
		}
	}
	// Each claim of the sync (manage, the rolling step, the status) adopts or releases again
	// what the caches still show unchanged: one adoption or release each.
	slices.Sort(out.delete)
	out.adopt = slices.Compact(slices.Sorted(slices.Values(out.adopt)))
	out.release = slices.Compact(slices.Sorted(slices.Values(out.release)))
	return out
}

// readBack is the world after upstream's writes: what the fake API server holds, with the
// uid and creation time the API server would have given the objects created.
func (w *world) readBack(t *testing.T, client *fake.Clientset, now time.Time) {
	t.Helper()
	tr := client.Tracker()
	obj, err := tr.Get(appsv1.SchemeGroupVersion.WithResource("daemonsets"), trajNS, w.ds.Name)
	if err != nil {
		t.Fatal(err)
	}
	w.ds = obj.(*appsv1.DaemonSet)
	list, err := tr.List(v1.SchemeGroupVersion.WithResource("pods"), v1.SchemeGroupVersion.WithKind("Pod"), trajNS, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.pods = nil
	for i := range list.(*v1.PodList).Items {
		p := &list.(*v1.PodList).Items[i]
		if p.UID == "" {
			p.UID, p.CreationTimestamp = types.UID("uid-"+p.Name), metav1.Time{Time: now}
		}
		w.pods = append(w.pods, p)
	}
	sort.Slice(w.pods, func(i, j int) bool { return w.pods[i].Name < w.pods[j].Name })
	list, err = tr.List(appsv1.SchemeGroupVersion.WithResource("controllerrevisions"), appsv1.SchemeGroupVersion.WithKind("ControllerRevision"), trajNS, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.revs = nil
	for i := range list.(*appsv1.ControllerRevisionList).Items {
		r := &list.(*appsv1.ControllerRevisionList).Items[i]
		if r.UID == "" {
			r.UID, r.CreationTimestamp = types.UID("uid-"+r.Name), metav1.Time{Time: now}
		}
		w.revs = append(w.revs, r)
	}
	sort.Slice(w.revs, func(i, j int) bool { return w.revs[i].Name < w.revs[j].Name })
}

// trajectoryStats counts what TestTrajectoriesAgainstUpstream compared.
type trajectoryStats struct {
	trajectories, syncs, exact, byConformance, withBackoff, complete, steady, bounded         int
	creates, deletes, adopts, releases, revisionWrites, failedDeletes, requeues, rollingActed int
}

// compareSync runs one sync of both sides on w at now and compares them; when they agree, w
// moves on by upstream's writes. It returns upstream's writes and whether they agreed. backoff is upstream's back-off, state the library's; state is
// returned as it is after the sync.
func compareSync(t *testing.T, w *world, now time.Time, backoff *flowcontrol.Backoff, state []daemonset.BackoffEntry,
	st *trajectoryStats, where string) (upstreamWrites, []daemonset.BackoffEntry, bool) {
	t.Helper()
	objs := w.objects()
	client := fakeAPIServer(objs, now, func(p *v1.Pod) string {
		node := targetNode(p)
		w.named[node]++
		return fmt.Sprintf("%s%s-%d", p.GenerateName, node, w.named[node])
	})
	requeue, _ := syncUpstream(t, client, objs, w.ds, backoff)
	backoff.GC()
	up := writesOfSync(t, client.Actions(), w.revs)

	snap := w.snapshot()
	p, _ := daemonset.Compile(w.ds, daemonset.Options{Version: release, Now: now, BurstLimit: burstLimit, Backoff: state})
	res := p.Plan(snap)
	st.syncs++

	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// Deterministic: adoptions, releases, revision writes, the status written, the requeue.
	var libAdopt, libRelease, libDelete []string
	for _, a := range res.Adopt {
		libAdopt = append(libAdopt, a.Name)
	}
	for _, a := range res.Release {
		libRelease = append(libRelease, a.Name)
	}
	for _, d := range res.Delete {
		libDelete = append(libDelete, d.Name)
	}
	if !slices.Equal(up.adopt, libAdopt) || !slices.Equal(up.release, libRelease) {
		fail("adopt %v release %v, upstream adopt %v release %v", libAdopt, libRelease, up.adopt, up.release)
	}
	if d := cmp.Diff(up.revisions, writesOf(res.Revisions)); d != "" {
		fail("revision writes differ (-upstream +plan):\n%s", d)
	}
	if d := cmp.Diff(up.status, res.StatusWrite); d != "" {
		fail("status write differs (-upstream +plan):\n%s", d)
	}
	if requeue != res.RequeueAfter.Duration {
		fail("requeue after %v, upstream %v", res.RequeueAfter.Duration, requeue)
	}

	// Creates and deletes: the same, or upstream's choice is one the library accepts.
	same := len(up.create) == len(res.Create) && up.creates == len(up.create) && slices.Equal(up.delete, libDelete)
	for _, c := range res.Create {
		u, ok := up.create[c.Node]
		if !ok {
			same = false
			break
		}
		if d := conformance.ComparePods(c.Pod, u); d != "" {
			fail("created pod on %s differs (-plan +upstream):\n%s", c.Node, d)
		}
	}
	backoffInForce := slices.ContainsFunc(state, func(e daemonset.BackoffEntry) bool {
		return e.DaemonSetUID == w.ds.UID && e.Generation == w.ds.Status.ObservedGeneration
	})
	if backoffInForce {
		st.withBackoff++
	}
	if same {
		st.exact++
	} else {
		st.byConformance++
		cand := &daemonset.Result{Namespace: w.ds.Namespace, Name: w.ds.Name, Status: res.Status}
		if up.status != nil {
			cand.Status = up.status
		}
		for node, pod := range up.create {
			cand.Create = append(cand.Create, daemonset.Creation{Node: node, Pod: pod})
		}
		for _, name := range up.delete {
			cand.Delete = append(cand.Delete, daemonset.Deletion{Namespace: trajNS, Name: name})
		}
		for _, name := range up.adopt {
			cand.Adopt = append(cand.Adopt, daemonset.ObjectRef{Namespace: trajNS, Name: name})
		}
		for _, name := range up.release {
			cand.Release = append(cand.Release, daemonset.ObjectRef{Namespace: trajNS, Name: name})
		}
		// The back-off in force, if any, is the controller's at this sync (DIFF-12).
		copts := conformance.Options{Version: release, Now: now, BurstLimit: burstLimit, Backoff: state}
		ms, err := conformance.Check(snap, []*daemonset.Result{cand}, copts)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			fail("conformance rejects upstream's writes (plan creates on %v, deletes %v): %s%s", nodesOf(res.Create), libDelete, m, indent(m.Diff))
		}
	}

	// The back-off after the sync, entry by entry, both ways.
	state = daemonset.UpdateBackoff(state, res, now)
	keys := map[string]time.Duration{}
	for _, e := range state {
		keys[fmt.Sprintf("%s/%d/%s", e.DaemonSetUID, e.Generation, e.Node)] = e.Delay.Duration
	}
	var names []string
	for _, n := range w.nodes {
		names = append(names, n.Name)
	}
	for g := int64(0); g <= w.ds.Generation; g++ {
		for _, n := range names {
			k := fmt.Sprintf("%s/%d/%s", w.ds.UID, g, n)
			if got := backoff.Get(k); got != keys[k] {
				fail("back-off %s is %v, upstream %v", k, keys[k], got)
			}
		}
	}

	st.creates += up.creates
	st.deletes += len(up.delete)
	st.adopts += len(up.adopt)
	st.releases += len(up.release)
	if len(up.revisions.Create)+len(up.revisions.Update)+len(up.revisions.Delete) > 0 {
		st.revisionWrites++
	}
	if requeue > 0 {
		st.requeues++
	}
	if res.RollingUpdate != nil && res.RollingUpdate.Acted && len(res.Create)+len(res.Delete) > 0 {
		st.rollingActed++
	}
	for _, d := range res.Delete {
		if d.Reason == daemonset.ReasonFailedPod {
			st.failedDeletes++
			break
		}
	}
	if len(problems) > 0 {
		t.Errorf("%s: %d mismatch(es) with upstream:\n%s\nsnapshot:\n%s", where, len(problems), strings.Join(problems, "\n"), describeWorld(w, now))
		dumpSnapshot(t, w, where)
		return up, state, false
	}
	w.readBack(t, client, now)
	return up, state, true
}

func nodesOf(cs []daemonset.Creation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Node)
	}
	return out
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "\n\t" + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n\t")
}

// describeWorld renders w compactly, for a mismatch's report.
func describeWorld(w *world, now time.Time) string {
	var b strings.Builder
	ds := w.ds
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	fmt.Fprintf(&b, "  now %s; ds gen %d observed %d templateGeneration %s strategy %s", now.Format(time.TimeOnly), ds.Generation,
		ds.Status.ObservedGeneration, ds.Annotations[appsv1.DeprecatedTemplateGeneration], ds.Spec.UpdateStrategy.Type)
	if ru != nil {
		fmt.Fprintf(&b, " maxUnavailable %v maxSurge %v", ru.MaxUnavailable, ru.MaxSurge)
	}
	fmt.Fprintf(&b, " minReady %d hash %s nodeSelector %v tolerations %d\n", ds.Spec.MinReadySeconds,
		release.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount), ds.Spec.Template.Spec.NodeSelector, len(ds.Spec.Template.Spec.Tolerations))
	for _, n := range w.nodes {
		var taints []string
		for _, t := range n.Spec.Taints {
			taints = append(taints, t.ToString())
		}
		fmt.Fprintf(&b, "  node %s labels %v taints %v ready %v\n", n.Name, n.Labels, taints, nodehealth.RunsPods(n))
	}
	for _, p := range w.pods {
		owner := "orphan"
		if ref := metav1.GetControllerOf(p); ref != nil {
			owner = ref.Kind + "/" + ref.Name
		}
		fmt.Fprintf(&b, "  pod %s node %q->%s app=%s hash=%s gen=%s %s owner %s created %s ready %v", p.Name, p.Spec.NodeName, targetNode(p),
			p.Labels["app"], p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey], p.Status.Phase,
			owner, p.CreationTimestamp.Format(time.TimeOnly), podReady(p))
		if podReady(p) {
			for _, c := range p.Status.Conditions {
				if c.Type == v1.PodReady {
					fmt.Fprintf(&b, " since %s", c.LastTransitionTime.Format(time.TimeOnly))
				}
			}
		}
		if p.DeletionTimestamp != nil {
			fmt.Fprintf(&b, " deleting since %s", p.DeletionTimestamp.Format(time.TimeOnly))
		}
		b.WriteString("\n")
	}
	for _, r := range w.revs {
		fmt.Fprintf(&b, "  revision %s rev %d hash %s\n", r.Name, r.Revision, r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	}
	return b.String()
}

// dumpSnapshot writes w as a v1 List (daemonsched plan -f reads it) when -trajectory-dump is set.
func dumpSnapshot(t *testing.T, w *world, where string) {
	if *trajectoryDump == "" {
		return
	}
	list := &v1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	add := func(o runtime.Object, gvk string) {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		av, kind, _ := strings.Cut(gvk, " ")
		m["apiVersion"], m["kind"] = av, kind
		b, _ = json.Marshal(m)
		list.Items = append(list.Items, runtime.RawExtension{Raw: b})
	}
	add(w.ds, "apps/v1 DaemonSet")
	for _, n := range w.nodes {
		add(n, "v1 Node")
	}
	for _, p := range w.pods {
		add(p, "v1 Pod")
	}
	for _, r := range w.revs {
		add(r, "apps/v1 ControllerRevision")
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*trajectoryDump, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(*trajectoryDump, strings.NewReplacer(" ", "-", "/", "-").Replace(where)+".json")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot written to %s", name)
}

// TestTrajectoriesAgainstUpstream drives random clusters through a template change, sync after
// sync, with v1.36.3's syncDaemonSet (a fresh controller each sync, so its expectations are
// satisfied, SYNC-9, and one flowcontrol.Backoff carried across them, DIFF-12) and compares
// the library's plan of every sync's snapshot with upstream's writes: adoptions, releases,
// revision writes (UPD-14, UPD-22), the status written (STAT-9, STAT-14), the requeue (SYNC-8)
// and the back-off after the sync exactly; creates and deletes exactly, or, where upstream picks
// among interchangeable candidates (UPD-9, UPD-23, DIFF-17), by the library's conformance
// check. The world then moves on by upstream's writes, a kubelet and scheduler model and node
// events (join, taint, NotReady, leave), until the rollout is complete, the cluster steady or
// the bound reached.
func TestTrajectoriesAgainstUpstream(t *testing.T) {
	// The controller logs at info level whenever both budgets are 0 (UPD-5); thousands of
	// syncs would bury the report.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	n, maxSyncs := *trajectories, *trajectorySyncs
	if testing.Short() {
		n = 10
	}
	var st trajectoryStats
	for i := range n {
		driveTrajectory(t, i, maxSyncs, &st) // a mismatch ends its trajectory, not the test
	}
	t.Logf("%d trajectories, %d syncs compared (%d identical, %d accepted by conformance as upstream's choice; %d with a back-off entry of the observed generation); "+
		"%d rollouts complete, %d steady, %d stopped at %d syncs; upstream wrote %d creates, %d deletes, %d adoptions, %d releases, "+
		"revisions in %d syncs; %d syncs deleted a Failed pod, %d requeued, %d rolling steps acted",
		st.trajectories, st.syncs, st.exact, st.byConformance, st.withBackoff, st.complete, st.steady, st.bounded, maxSyncs,
		st.creates, st.deletes, st.adopts, st.releases, st.revisionWrites, st.failedDeletes, st.requeues, st.rollingActed)
	if st.byConformance == 0 || st.withBackoff == 0 || st.complete == 0 || st.failedDeletes == 0 || st.rollingActed == 0 {
		t.Errorf("the generator misses a kind of sync: %+v", st)
	}
}

// driveTrajectory runs trajectory i; it returns false at its first mismatching sync.
func driveTrajectory(t *testing.T, i, maxSyncs int, st *trajectoryStats) bool {
	t.Helper()
	r := rand.New(rand.NewPCG(*trajectorySeed, uint64(i)))
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	clock := testingclock.NewFakeClock(now)
	backoff := flowcontrol.NewFakeBackOff(time.Second, 15*time.Minute, clock)
	var state []daemonset.BackoffEntry
	w := randomWorld(r, now)
	changeAt := r.IntN(changeLatest)
	againAt := -1 // sometimes a second change interrupts the rollout of the first
	if r.IntN(4) == 0 {
		againAt = 6 + r.IntN(8)
	}
	rollback := r.IntN(2) == 0 // and sometimes it goes back to the template before the first
	before := w.ds.Spec.Template
	st.trajectories++
	quiet := 0
	for sync := 0; ; sync++ {
		if sync == changeAt || sync == againAt {
			w.ds = changeTemplate(r, w.ds)
			if sync == againAt && rollback {
				w.ds.Spec.Template = *before.DeepCopy()
			}
		}
		clock.SetTime(now)
		up, next, ok := compareSync(t, w, now, backoff, state, st, fmt.Sprintf("trajectory %d sync %d", i, sync))
		if !ok {
			return false
		}
		state = next
		step := time.Duration(1+r.IntN(3)) * time.Second
		if r.IntN(10) == 0 {
			step = 15 * time.Second
		}
		now = now.Add(step)
		changed := w.kubeletStep(r, now)
		if sync >= 6 && sync <= lastEventAt && sync%4 == 2 {
			if e := w.nodeEvent(r, sync, now); e != "" {
				changed = true
			}
		}
		s := w.ds.Status
		if sync > lastEventAt && up.writes == 0 && s.ObservedGeneration == w.ds.Generation && s.NumberMisscheduled == 0 &&
			s.UpdatedNumberScheduled == s.DesiredNumberScheduled && s.NumberAvailable == s.DesiredNumberScheduled && s.CurrentNumberScheduled == s.DesiredNumberScheduled {
			st.complete++
			return true
		}
		if up.writes == 0 && !changed {
			quiet++
		} else {
			quiet = 0
		}
		if sync > lastEventAt && quiet >= 8 {
			st.steady++
			return true
		}
		if sync+1 >= maxSyncs {
			st.bounded++
			return true
		}
	}
}
