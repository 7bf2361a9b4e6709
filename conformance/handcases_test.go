package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type handCase struct {
	name, description, profile, source string
	rules                              []string
	burst                              int
	snapshot                           daemonset.Snapshot
	// surprises are the Surprises of the specification the case demonstrates; now, when set,
	// is the sync's clock instead of epoch.
	surprises []int
	now       time.Time
	// check asserts what was checked by hand (TestScenarioHandCasesHold); "" when it holds.
	check func(e []Expected) string
}

// handSource is the source of a hand-written case: what was checked when it was written. Each
// case's source then says whether a real controller runs it today (upstreamClause).
const handSource = "hand-written; expectations checked by hand against pkg/controller/daemon of Kubernetes v1.36.3 when written (TestHandCasesHoldWhatWasChecked keeps what was checked)"

// upstreamClause is what a hand-written case's source adds about the real controllers: the case
// is run through the controller of each release it holds at (release.sh links each minor's
// newest supported patch) by TestCorpusAgainstUpstream (VER-9).
func upstreamClause(c Case) string {
	var judged []string
	for _, v := range daemonset.SupportedVersions() {
		if ok, err := c.HoldsAt(v); err == nil && ok {
			judged = append(judged, "v"+v.String())
		}
	}
	return "; since issue 21 also run through the real controller of " + strings.Join(judged, ", ") +
		" by TestCorpusAgainstUpstream (internal/upstreamtest), which judges it unless it names the case as not expressible (VER-9)"
}

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
	hash := v1363.ComputeHash(&whatIfDS.Spec.Template, nil)

	failedDS := handDS()
	rollDS := handDS(rolling(2, 0))
	rollHash := v1363.ComputeHash(&rollDS.Spec.Template, nil)
	surgeDS := handDS(rolling(0, 2))
	surgeHash := v1363.ComputeHash(&surgeDS.Spec.Template, nil)

	empty := handDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} })

	withRevision := func(s daemonset.Snapshot) daemonset.Snapshot {
		for _, ds := range s.DaemonSets {
			cr, err := daemonset.NewRevision(ds, v1363.ComputeHash(&ds.Spec.Template, nil), 1)
			if err != nil {
				panic(err)
			}
			s.Revisions = append(s.Revisions, cr)
		}
		return s
	}
	return []handCase{
		{name: "placement-selector-and-taints", profile: "placement", source: handSource,
			rules:       []string{"ELIG-3", "NSEL-1", "TAINT-1", "DEFTOL-1"},
			description: "A fresh DaemonSet with a nodeSelector: the plain node and the cordoned one (the default toleration of node.kubernetes.io/unschedulable) get a pod; the tainted node and the node outside the pool do not.",
			snapshot:    withRevision(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(placed)}, Nodes: placementNodes})},
		{name: "placement-affinity-hostnetwork-and-near-miss-toleration", profile: "placement", source: handSource,
			rules:       []string{"AFF-3", "AFF-7", "AFF-9", "DEFTOL-1", "DEFTOL-3", "DEFTOL-6", "POD-6", "ELIG-3"},
			description: "Required node affinity of two ORed terms (cores Gt 8; metadata.name In big-1), hostNetwork (the seventh default toleration), a template toleration that nearly matches a default (kept, the default appended) and an existing preferred term (kept in the pod, the required terms replaced by the node's name).",
			snapshot:    withRevision(affinityCase())},
		{name: "placement-noexecute-evicts-noschedule-keeps", profile: "placement", source: handSource,
			rules:       []string{"ELIG-4", "TAINT-4", "TAINT-5", "DIFF-4", "STAT-4"},
			description: "A NoExecute taint the template does not tolerate removes the pod already there (DIFF-4); a NoSchedule taint only stops new pods, so the pod on that node stays and counts as misscheduled.",
			snapshot:    withRevision(taintCase())},
		{name: "placement-template-node-name", profile: "placement", source: handSource, rules: []string{"ELIG-2", "POD-6"},
			description: "A template that names a node: only that node qualifies, and the created pod is already bound to it.",
			snapshot: withRevision(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "n2" })},
				Nodes: handNodes("n1", "n2", "n3")})},
		{name: "regression-pod-1-bare-name", profile: "placement", source: "regression of a fidelity difference (docs/upstream-differences.md, POD-1); " + handSource,
			rules:       []string{"POD-1", "VAL-22"},
			description: "A DaemonSet named with an upper-case letter (which validation rejects, but which the controller plans as stored): generateName falls back to the bare name.",
			snapshot: withRevision(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) { ds.Name = "Agent" })},
				Nodes: handNodes("n1")})},
		{name: "regression-diff-8-terminal-terminating-on-missing-node", profile: "diff", source: "regression of a fidelity difference (docs/upstream-differences.md, DIFF-8); " + handSource,
			rules:       []string{"DIFF-8", "OWN-10"},
			description: "Pods aimed through affinity at a node that does not exist: the running one and the terminating running one are deleted; the terminating Failed one is not grouped at all and is left alone.",
			snapshot:    missingNodeCase()},
		{name: "regression-stat-9-observed-generation-above", profile: "status", source: "regression of a fidelity difference (docs/upstream-differences.md, STAT-9); " + handSource,
			rules:       []string{"STAT-8", "STAT-9"},
			description: "Stored counters equal the computed ones and the stored observedGeneration (5) is above metadata.generation (1): nothing is written, and the status reads observedGeneration 5.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "none"}
				ds.Status.ObservedGeneration = 5
			})}, Nodes: handNodes("n1")}},
		{name: "regression-upd-5-percent-with-leading-zero", profile: "rolling", source: "regression of a fidelity difference (docs/upstream-differences.md, UPD-5); " + handSource,
			rules:       []string{"UPD-5", "UPD-8", "UPD-9", "D-1"},
			description: "maxUnavailable \"050%\" of 3 nodes reads as 50% and rounds up to 2: any two of the three available old pods go.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) {
				mu := intstr.FromString("050%")
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu}}
			})}, Nodes: handNodes("n1", "n2", "n3"),
				Pods: []*v1.Pod{handPod("o1", "n1", "old", v1.PodRunning, true), handPod("o2", "n2", "old", v1.PodRunning, true),
					handPod("o3", "n3", "old", v1.PodRunning, true)}}},
		{name: "known-divergence-upd-10-tainted-node-loses-its-pod", profile: "rolling", source: "known divergence (testdata/known-divergences.yaml); " + handSource,
			rules:       []string{"UPD-8", "UPD-10", "ELIG-4"},
			description: "A node given an untolerated NoSchedule taint keeps its old pod until the rolling update deletes it, and no new pod follows: the update removes the daemon from that node.",
			snapshot:    taintedRolloutCase()},
		{name: "known-divergence-pod-3-create-refused-without-labels", profile: "diff", source: "known divergence (testdata/known-divergences.yaml) and regression of a fidelity difference (docs/upstream-differences.md, POD-3); " + handSource,
			rules:       []string{"POD-3", "UPD-2", "UPD-14"},
			description: "The current ControllerRevision's hash label is empty and the template has no labels: the pod would carry no label, the controller's pod control refuses it, and the sync creates nothing (nor does its rolling step run) on every sync.",
			snapshot:    noLabelCase()},
		{name: "sync-4-being-deleted", profile: "status", source: handSource, rules: []string{"SYNC-4", "STAT-10"},
			description: "A DaemonSet with a deletionTimestamp: the sync does nothing at all, even on a node without its pod.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) {
				t := metav1.NewTime(epoch.Add(-time.Minute))
				ds.DeletionTimestamp = &t
			})}, Nodes: handNodes("n1")}},
		{name: "sync-5-selector-does-not-convert", profile: "status", source: handSource, rules: []string{"SYNC-5", "SEL-6"},
			description: "A selector with an operator label selectors do not have (Gt): it does not convert, and the sync stops.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Gt", Values: []string{"1"}}}
			})}, Nodes: handNodes("n1")}},
		{name: "own-3-release-adopt-and-selector-expressions", profile: "diff", source: handSource,
			rules:       []string{"SEL-3", "SEL-5", "OWN-1", "OWN-3", "OWN-4", "OWN-6", "DIFF-2", "DIFF-5", "DIFF-7", "DIFF-15"},
			description: "A selector app=d AND tier NotIn (canary): a controlled canary pod is released, not deleted, and its node gets a new pod; a matching orphan is adopted and kept; a pod whose reference to the DaemonSet is not a controller reference is an orphan too, adopted, and then the second pod of its node, so the younger by name goes (DIFF-5, DIFF-7); a ReplicaSet's pod is left alone.",
			snapshot:    ownershipCase()},
		{name: "upd-21-hash-collision", profile: "status", source: handSource, rules: []string{"UPD-21", "UPD-14"},
			description: "A ControllerRevision named after the template's hash holds other data: the sync stops and status.collisionCount becomes 1.",
			snapshot:    collisionCase()},
		{name: "dflt-1-hand-written-update-strategy", profile: "rolling", source: handSource, rules: []string{"DFLT-1", "D-4", "UPD-8", "UPD-9", "D-1"},
			description: "A hand-written DaemonSet without an update strategy is read with the API defaults (RollingUpdate, maxUnavailable 1, maxSurge 0): one of the three available old pods goes.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{handDS(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{} })},
				Nodes: handNodes("n1", "n2", "n3"),
				Pods: []*v1.Pod{handPod("o1", "n1", "old", v1.PodRunning, true), handPod("o2", "n2", "old", v1.PodRunning, true),
					handPod("o3", "n3", "old", v1.PodRunning, true)}}},
		{name: "upd-14-duplicate-current-revisions", profile: "rolling", source: handSource,
			rules:       []string{"UPD-14", "OWN-12", "UPD-22"},
			description: "Two ControllerRevisions hold the current template (revisions 2 and 4) and an orphan revision without the hash label holds an old one: the orphan is adopted and labelled with its name, every claimed pod whose hash differs from the kept revision's (revision 4), an old pod included, is relabelled, and then the other current revision is deleted; revision 4 is already the newest, so nothing is created or renumbered.",
			snapshot:    duplicateRevisionsCase()},
		{name: "upd-22-history-cleanup", profile: "rolling", source: handSource,
			rules:       []string{"UPD-22", "UPD-14"},
			description: "revisionHistoryLimit 1 and three old revisions (1, 2, 3): two must go, oldest first, but revision 2's hash is on a running pod, so revisions 1 and 3 are deleted.",
			snapshot:    historyCleanupCase()},
		{name: "what-if-hypothetical-node", profile: "what-if", source: handSource, rules: []string{"ELIG-3", "DIFF-2"},
			description: "A running DaemonSet and a node added for a what-if question: only the new node gets a pod.",
			snapshot: withRevision(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{whatIfDS}, Nodes: whatIfNodes,
				Pods: []*v1.Pod{handPod("d-a", "a-plain", hash, v1.PodRunning, true)}})},
		{name: "diff-17-controlled-failed-before-adopted", profile: "diff", source: "regression of a fidelity difference (docs/upstream-differences.md, DIFF-17); " + handSource, rules: []string{"DIFF-17", "OWN-4", "D-1"},
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

func affinityCase() daemonset.Snapshot {
	ds := handDS(func(ds *appsv1.DaemonSet) {
		spec := &ds.Spec.Template.Spec
		spec.HostNetwork = true
		spec.Tolerations = []v1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists}}
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cores", Operator: v1.NodeSelectorOpGt, Values: []string{"8"}}}},
				{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"big-1"}}}},
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 10, Preference: v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}},
		}}
	})
	nodes := handNodes("big-1", "cores-16", "cores-4", "cores-junk")
	nodes[1].Labels["cores"] = "16"
	nodes[2].Labels["cores"] = "4"
	nodes[3].Labels["cores"] = "many"
	nodes[1].Spec.Taints = []v1.Taint{{Key: "node.kubernetes.io/network-unavailable", Effect: v1.TaintEffectNoSchedule}}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes}
}

func taintCase() daemonset.Snapshot {
	ds := handDS()
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	nodes := handNodes("evicting", "noschedule", "plain")
	nodes[0].Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoExecute}}
	nodes[1].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes, Pods: []*v1.Pod{
		handPod("e1", "evicting", hash, v1.PodRunning, true), handPod("k1", "noschedule", hash, v1.PodRunning, true)}}
}

func missingNodeCase() daemonset.Snapshot {
	aimed := func(p *v1.Pod) *v1.Pod {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"gone"}}}}}}}}
		return p
	}
	terminating := func(p *v1.Pod) *v1.Pod {
		t := metav1.NewTime(epoch.Add(-time.Minute))
		p.DeletionTimestamp = &t
		return p
	}
	ds := handDS()
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1"), Pods: []*v1.Pod{
		handPod("on-n1", "n1", hash, v1.PodRunning, true),
		aimed(handPod("m-running", "", hash, v1.PodRunning, true)),
		terminating(aimed(handPod("m-terminating", "", hash, v1.PodRunning, true))),
		terminating(aimed(handPod("m-failed-terminating", "", hash, v1.PodFailed, true))),
	}}
}

func taintedRolloutCase() daemonset.Snapshot {
	ds := handDS(rolling(1, 0))
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	nodes := handNodes("n1", "tainted")
	nodes[1].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes, Pods: []*v1.Pod{
		handPod("new-n1", "n1", hash, v1.PodRunning, true), handPod("old-tainted", "tainted", "old", v1.PodRunning, true)}}
}

func noLabelCase() daemonset.Snapshot {
	ds := handDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = nil })
	cr, err := daemonset.NewRevision(ds, "", 1)
	if err != nil {
		panic(err)
	}
	cr.Name = "ds-empty"
	cr.Labels = map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: ""}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1"), Revisions: []*appsv1.ControllerRevision{cr}}
}

func ownershipCase() daemonset.Snapshot {
	ds := handDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"canary"}}}
	})
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	canary := handPod("canary", "n1", hash, v1.PodRunning, true)
	canary.Labels["tier"] = "canary"
	no := false
	weak := handPod("weak-ref", "n3", hash, v1.PodRunning, true)
	weak.OwnerReferences[0].Controller = &no
	foreign := handPod("foreign", "n3", hash, v1.PodRunning, false)
	yes := true
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: &yes}}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1", "n2", "n3"), Pods: []*v1.Pod{
		canary, handPod("orphan", "n2", hash, v1.PodRunning, false), weak, foreign,
		handPod("keep", "n3", hash, v1.PodRunning, true)}}
}

// handRevision is a ControllerRevision of ds's template (or, with image, of that image) named
// name, numbered n, labelled with hash unless hash is "-", controlled by ds unless orphan.
func handRevision(ds *appsv1.DaemonSet, image, name, hash string, n int64, orphan bool) *appsv1.ControllerRevision {
	tmpl := ds.DeepCopy()
	if image != "" {
		tmpl.Spec.Template.Spec.Containers[0].Image = image
	}
	cr, err := daemonset.NewRevision(tmpl, hash, n)
	if err != nil {
		panic(err)
	}
	cr.Name, cr.UID = name, types.UID(name+"-uid")
	if hash == "-" {
		delete(cr.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
	}
	if orphan {
		cr.OwnerReferences = nil
	}
	return cr
}

func duplicateRevisionsCase() daemonset.Snapshot {
	ds := handDS(rolling(1, 0))
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1", "n2", "n3"),
		Pods: []*v1.Pod{handPod("p1", "n1", "cur-a", v1.PodRunning, true), handPod("p2", "n2", "cur-b", v1.PodRunning, true),
			handPod("p3", "n3", "old", v1.PodRunning, true)},
		Revisions: []*appsv1.ControllerRevision{handRevision(ds, "", "ds-cur-a", "cur-a", 2, false),
			handRevision(ds, "", "ds-cur-b", "cur-b", 4, false), handRevision(ds, "img:1", "ds-old", "-", 1, true)}}
}

func historyCleanupCase() daemonset.Snapshot {
	ds := handDS(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = new(int32(1)) })
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1", "n2"),
		Pods: []*v1.Pod{handPod("p1", "n1", hash, v1.PodRunning, true), handPod("p2", "n2", "h2", v1.PodRunning, true)},
		Revisions: []*appsv1.ControllerRevision{handRevision(ds, "img:1", "ds-h1", "h1", 1, false), handRevision(ds, "img:2-old", "ds-h2", "h2", 2, false),
			handRevision(ds, "img:3", "ds-h3", "h3", 3, false), handRevision(ds, "", "ds-"+hash, hash, 4, false)}}
}

func collisionCase() daemonset.Snapshot {
	ds := handDS()
	hash := v1363.ComputeHash(&ds.Spec.Template, nil)
	other := handDS(func(o *appsv1.DaemonSet) { o.Spec.Template.Spec.Containers[0].Image = "img:other" })
	cr, err := daemonset.NewRevision(other, hash, 1)
	if err != nil {
		panic(err)
	}
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: handNodes("n1"), Revisions: []*appsv1.ControllerRevision{cr}}
}

func unready(p *v1.Pod) *v1.Pod {
	p.Status.Conditions[0].Status = v1.ConditionFalse
	return p
}

// TestHandCasesHoldWhatWasChecked asserts, for the hand-written cases, the facts checked by hand
// against upstream, so that a regenerated corpus cannot drift from them.
func TestHandCasesHoldWhatWasChecked(t *testing.T) {
	byName := corpusByName(t)
	orders := func(name string) *orders { return byName[name].Expected[0].Orders.choices() }
	keys := func(cl actionClass) []string { return candidateKeys(cl) }

	if w := byName["upd-14-duplicate-current-revisions"].Expected[0].Revisions; w == nil || len(w.Adopt) != 1 || len(w.Update) != 1 ||
		w.Update[0].Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != "ds-old" || len(w.RelabelPods) != 2 ||
		w.RelabelPods[0].Name != "p1" || w.RelabelPods[1].Name != "p3" || w.RelabelPods[0].Hash != "cur-b" ||
		len(w.Delete) != 1 || w.Delete[0].Name != "ds-cur-a" || len(w.Create) != 0 {
		t.Errorf("UPD-14 duplicates: revisions %+v", w)
	}
	if w := byName["upd-22-history-cleanup"].Expected[0].Revisions; w == nil || len(w.Delete) != 0 || len(w.Cleanup) != 2 || w.Cleanup[0].Name != "ds-h1" || w.Cleanup[1].Name != "ds-h3" {
		t.Errorf("UPD-22: revisions %+v", w)
	}
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
	if c := byName["diff-10-burst-cap-cuts-creates"]; c.BurstLimit != 2 || len(c.Expected[0].Orders.choices().Creates[0].Groups) != 5 {
		t.Errorf("DIFF-10: %+v", c.Expected[0].Orders.choices())
	}
	if o := orders("placement-affinity-hostnetwork-and-near-miss-toleration"); len(o.Creates) != 1 || !equal(keys(o.Creates[0]), "big-1", "cores-16") {
		t.Errorf("affinity: creates %+v, want big-1 and cores-16", o.Creates)
	} else if tols := o.Creates[0].Groups[0].Parts[0].Creates[0].Pod.Spec.Tolerations; len(tols) != 8 {
		t.Errorf("affinity: %d tolerations, want the near miss and the seven defaults: %+v", len(tols), tols)
	}
	if o := orders("placement-noexecute-evicts-noschedule-keeps"); len(o.Deletes) != 1 || !equal(keys(o.Deletes[0]), "ns/e1") ||
		len(o.Creates) != 1 || !equal(keys(o.Creates[0]), "plain") {
		t.Errorf("taints: %+v", o)
	}
	if o := orders("regression-pod-1-bare-name"); o.Creates[0].Groups[0].Parts[0].Creates[0].Pod.GenerateName != "Agent" {
		t.Errorf("POD-1: %+v", o.Creates[0].Groups[0].Parts[0].Creates[0].Pod.ObjectMeta)
	}
	if o := orders("regression-diff-8-terminal-terminating-on-missing-node"); len(o.Deletes) != 1 || !equal(keys(o.Deletes[0]), "ns/m-running", "ns/m-terminating") {
		t.Errorf("DIFF-8: %+v", o.Deletes)
	}
	if st := byName["regression-stat-9-observed-generation-above"].Expected[0].Status; st.ObservedGeneration != 5 {
		t.Errorf("STAT-9: %+v", st)
	}
	if o := orders("regression-upd-5-percent-with-leading-zero"); len(o.Deletes) != 1 || o.Deletes[0].Take != 2 || len(o.Deletes[0].Groups) != 3 {
		t.Errorf("UPD-5: %+v", o.Deletes)
	}
	if o := orders("known-divergence-upd-10-tainted-node-loses-its-pod"); len(o.Deletes) != 1 || !equal(keys(o.Deletes[0]), "ns/old-tainted") || len(o.Creates) != 0 {
		t.Errorf("UPD-10: %+v", o)
	}
	if e := byName["known-divergence-pod-3-create-refused-without-labels"].Expected[0]; e.RevisionHash != "" || e.Orders.choices().Phase != "base" || len(e.Orders.choices().Creates) != 0 {
		t.Errorf("POD-3: %+v %+v", e, e.Orders.choices())
	}
	if e := byName["sync-4-being-deleted"].Expected[0]; e.Skipped != daemonset.SkipBeingDeleted || e.Status != nil {
		t.Errorf("SYNC-4: %+v", e)
	}
	if e := byName["sync-5-selector-does-not-convert"].Expected[0]; e.Skipped != daemonset.SkipInvalidSelector {
		t.Errorf("SYNC-5: %+v", e)
	}
	if e := byName["own-3-release-adopt-and-selector-expressions"].Expected[0]; !equal(refNames(e.Release), "canary") || !equal(refNames(e.Adopt), "orphan", "weak-ref") ||
		len(e.Orders.choices().Deletes) != 1 || !equal(keys(e.Orders.choices().Deletes[0]), "ns/weak-ref") || len(e.Orders.choices().Creates) != 1 || !equal(keys(e.Orders.choices().Creates[0]), "n1") {
		t.Errorf("OWN-3: %+v %+v", e, e.Orders.choices())
	}
	if e := byName["upd-21-hash-collision"].Expected[0]; e.Skipped != daemonset.SkipHashCollision || e.CollisionCount == nil || *e.CollisionCount != 1 {
		t.Errorf("UPD-21: %+v", e)
	}
	if o := orders("dflt-1-hand-written-update-strategy"); len(o.Deletes) != 1 || o.Deletes[0].Take != 1 || len(o.Deletes[0].Groups) != 3 {
		t.Errorf("DFLT-1: %+v", o)
	}
	if e := byName["sync-3-selecting-all"].Expected[0]; e.Skipped != daemonset.SkipSelectingAll || e.Status != nil {
		t.Errorf("SYNC-3: %+v", e)
	}
	if st := byName["status-counters"].Expected[0].Status; st.DesiredNumberScheduled != 2 || st.CurrentNumberScheduled != 2 ||
		st.NumberReady != 1 || st.NumberAvailable != 1 || st.NumberUnavailable != 1 {
		t.Errorf("status: %+v", st)
	}
}

func refNames(refs []daemonset.ObjectRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
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
