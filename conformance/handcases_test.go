package conformance

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type handCase struct {
	name, description, profile, source string
	rules                              []string
	burst                              int
	snapshot                           daemonset.Snapshot
}

const handSource = "hand-written; expectations checked by hand against pkg/controller/daemon of Kubernetes v1.36.3 (TestHandCasesHoldWhatWasChecked)"

func handDS(mods ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 1,
		CreationTimestamp: metav1.NewTime(epoch.Add(-time.Hour))}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}
	ds.Spec.Template.Labels = map[string]string{"app": "d"}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "img:2"}}
	ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	for _, m := range mods {
		m(ds)
	}
	return ds
}

func rolling(maxUnavailable, maxSurge int) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		mu, ms := intstr.FromInt32(int32(maxUnavailable)), intstr.FromInt32(int32(maxSurge))
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms}}
	}
}

func handNodes(names ...string) []*v1.Node {
	var out []*v1.Node
	for _, n := range names {
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"pool": "on"}}})
	}
	return out
}

// handPod is a Running, long-Ready pod of ds on node with the given hash; adopted pods have no
// owner.
func handPod(name, node, hash string, phase v1.PodPhase, controlled bool) *v1.Pod {
	yes := true
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(epoch.Add(-30 * time.Minute)),
		Labels: map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: hash}}}
	if controlled {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds-uid", Controller: &yes}}
	}
	p.Spec.NodeName = node
	p.Status.Phase = phase
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(epoch.Add(-20 * time.Minute))}}
	return p
}

func handCases() []handCase {
	placementNodes := handNodes("a-plain", "b-tainted", "c-tolerated", "d-windows")
	placementNodes[1].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}
	placementNodes[2].Spec.Taints = []v1.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: v1.TaintEffectNoSchedule}}
	placementNodes[3].Labels["pool"] = "off"
	placed := func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "on"} }

	whatIfNodes := append(handNodes("a-plain"), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "hypothetical-new", Labels: map[string]string{"pool": "on"}}})
	whatIfDS := handDS(placed)
	hash := daemonset.ComputeHash(&whatIfDS.Spec.Template, nil)

	failedDS := handDS()
	rollDS := handDS(rolling(2, 0))
	rollHash := daemonset.ComputeHash(&rollDS.Spec.Template, nil)
	surgeDS := handDS(rolling(0, 2))
	surgeHash := daemonset.ComputeHash(&surgeDS.Spec.Template, nil)

	empty := handDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })

	return []handCase{
		{name: "placement-selector-and-taints", profile: "placement", source: handSource,
			rules:       []string{"ELIG-3", "NSEL-1", "TAINT-1", "DEFTOL-1"},
			description: "A fresh DaemonSet with a nodeSelector: the plain node and the cordoned one (the default toleration of node.kubernetes.io/unschedulable) get a pod; the tainted node and the node outside the pool do not.",
			snapshot:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(placed)}, Nodes: placementNodes}},
		{name: "what-if-hypothetical-node", profile: "what-if", source: handSource, rules: []string{"ELIG-3", "DIFF-2"},
			description: "A running DaemonSet and a node added for a what-if question: only the new node gets a pod.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{whatIfDS}, Nodes: whatIfNodes,
				Pods: []*v1.Pod{handPod("d-a", "a-plain", hash, v1.PodRunning, true)}}},
		{name: "diff-17-controlled-failed-before-adopted", profile: "diff", source: handSource, rules: []string{"DIFF-17", "OWN-4", "D-1"},
			description: "Two controlled Failed pods and one orphan Failed pod on one node: the sync deletes exactly one of the two controlled ones (either), never the adopted one, and adopts the orphan.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{failedDS}, Nodes: handNodes("n1"),
				Pods: []*v1.Pod{handPod("f1", "n1", "x", v1.PodFailed, true), handPod("f2", "n1", "x", v1.PodFailed, true), handPod("f0-orphan", "n1", "x", v1.PodFailed, false)}}},
		{name: "upd-9-two-of-four", profile: "rolling", source: handSource, rules: []string{"UPD-8", "UPD-9", "D-1"},
			description: "maxUnavailable 2, no surge, four nodes each with one available old pod: any two of the four old pods go.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{rollDS}, Nodes: handNodes("n1", "n2", "n3", "n4"),
				Pods: []*v1.Pod{handPod("o1", "n1", "old", v1.PodRunning, true), handPod("o2", "n2", "old", v1.PodRunning, true),
					handPod("o3", "n3", "old", v1.PodRunning, true), handPod("o4", "n4", "old", v1.PodRunning, true)}}},
		{name: "upd-23-surge-one-of-three", profile: "rolling", source: handSource, rules: []string{"UPD-11", "UPD-23", "D-1", "DIFF-6"},
			description: "maxSurge 2, three nodes each with one available old pod and one node whose surge pod is not Ready yet (it uses one unit of the budget): one of the three nodes gets a surge pod.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{surgeDS}, Nodes: handNodes("n1", "n2", "n3", "n4"),
				Pods: []*v1.Pod{handPod("o1", "n1", "old", v1.PodRunning, true), handPod("o2", "n2", "old", v1.PodRunning, true),
					handPod("o3", "n3", "old", v1.PodRunning, true), handPod("o4", "n4", "old", v1.PodRunning, true),
					unready(handPod("s4", "n4", surgeHash, v1.PodRunning, true))}}},
		{name: "diff-10-burst-cap-cuts-creates", profile: "diff", source: handSource, burst: 2, rules: []string{"DIFF-2", "DIFF-10", "D-1"},
			description: "A fresh DaemonSet on five nodes under a burst cap of 2: any two nodes get a pod in this sync.",
			snapshot:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS()}, Nodes: handNodes("n1", "n2", "n3", "n4", "n5")}},
		{name: "sync-3-selecting-all", profile: "status", source: handSource, rules: []string{"SYNC-3"},
			description: "An empty selector: the sync does nothing, not even a status write.",
			snapshot:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{empty}, Nodes: handNodes("n1")}},
		{name: "status-counters", profile: "status", source: handSource, rules: []string{"STAT-2", "STAT-3", "STAT-5", "STAT-6"},
			description: "One node with an available updated pod, one with an unready pod: desired 2, current 2, ready 1, available 1, unavailable 1.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(rolling(1, 0))}, Nodes: handNodes("n1", "n2"),
				Pods: []*v1.Pod{handPod("p1", "n1", rollHash, v1.PodRunning, true), unready(handPod("p2", "n2", rollHash, v1.PodRunning, true))}}},
	}
}

func unready(p *v1.Pod) *v1.Pod {
	p.Status.Conditions[0].Status = v1.ConditionFalse
	return p
}

// TestHandCasesHoldWhatWasChecked asserts, for the hand-written cases, the facts checked by hand
// against upstream, so that a regenerated corpus cannot drift from them.
func TestHandCasesHoldWhatWasChecked(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	orders := func(name string) *daemonset.Orders { return byName[name].Expected[0].Orders }
	keys := func(cl daemonset.ActionClass) []string { return candidateKeys(cl) }

	if o := orders("placement-selector-and-taints"); len(o.Creates) != 1 || !equal(keys(o.Creates[0]), "a-plain", "c-tolerated") {
		t.Errorf("placement: creates %+v, want a-plain and c-tolerated", o.Creates)
	}
	if o := orders("what-if-hypothetical-node"); len(o.Creates) != 1 || !equal(keys(o.Creates[0]), "hypothetical-new") {
		t.Errorf("what-if: creates %+v", o.Creates)
	}
	o := orders("diff-17-controlled-failed-before-adopted")
	if len(o.Deletes) != 1 || len(o.Deletes[0].Groups) != 1 || len(o.Deletes[0].Groups[0].Parts) != 1 ||
		len(o.Deletes[0].Groups[0].Parts[0].OneOf) != 2 || o.Deletes[0].Groups[0].Parts[0].OneOf[0].Name != "f1" || o.Deletes[0].Groups[0].Parts[0].OneOf[1].Name != "f2" {
		t.Errorf("DIFF-17: deletes %+v, want one of f1, f2", o.Deletes)
	}
	if o := orders("upd-9-two-of-four"); len(o.Deletes) != 1 || o.Deletes[0].Rule != "UPD-9" || o.Deletes[0].Take != 2 || len(o.Deletes[0].Groups) != 4 {
		t.Errorf("UPD-9: deletes %+v, want 2 of 4", o.Deletes)
	}
	o = orders("upd-23-surge-one-of-three")
	if len(o.Creates) != 1 || o.Creates[0].Rule != "UPD-23" || o.Creates[0].Take != 1 || !equal(keys(o.Creates[0]), "n1", "n2", "n3") {
		t.Errorf("UPD-23: creates %+v, want 1 of n1..n3", o.Creates)
	}
	if len(o.Deletes) != 0 {
		t.Errorf("UPD-23: deletes %+v, want none", o.Deletes)
	}
	if c := byName["diff-10-burst-cap-cuts-creates"]; c.BurstLimit != 2 || len(c.Expected[0].Orders.Creates[0].Groups) != 5 {
		t.Errorf("DIFF-10: %+v", c.Expected[0].Orders)
	}
	if e := byName["sync-3-selecting-all"].Expected[0]; e.Skipped != daemonset.SkipSelectingAll || e.Status != nil {
		t.Errorf("SYNC-3: %+v", e)
	}
	if st := byName["status-counters"].Expected[0].Status; st.DesiredNumberScheduled != 2 || st.CurrentNumberScheduled != 2 ||
		st.NumberReady != 1 || st.NumberAvailable != 1 || st.NumberUnavailable != 1 {
		t.Errorf("status: %+v", st)
	}
}

func equal(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
