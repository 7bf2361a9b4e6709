package daemonset_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/workload"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestEligibility(t *testing.T) {
	t.Parallel()
	noSched := v1.Taint{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}
	noExec := v1.Taint{Key: "e", Effect: v1.TaintEffectNoExecute}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		node *v1.Node
		want daemonset.Eligibility
	}{
		{name: "ELIG-5 a plain node runs the daemon", ds: newDS(), node: node("n0"),
			want: daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "ELIG-2 another template nodeName excludes the node", ds: newDS(withNodeName("x")), node: node("n0"),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNodeNameMismatch}},
		{name: "ELIG-2 the template's own nodeName admits the node", ds: newDS(withNodeName("n0")), node: node("n0"),
			want: daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}},
		{name: "ELIG-3 NSEL-2 a nodeSelector mismatch excludes the node", ds: newDS(nodeSelector("os", "linux")), node: node("n0", labels("os", "windows")),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNodeSelectorMismatch}},
		{name: "ELIG-3 AFF-3 an affinity mismatch excludes the node", ds: newDS(requiredTerms(term(expr("zone", v1.NodeSelectorOpIn, "a")))), node: node("n0"),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNodeAffinityMismatch}},
		{name: "ELIG-6 nodeName is checked before placement", ds: newDS(withNodeName("x"), nodeSelector("os", "linux")), node: node("n0"),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNodeNameMismatch}},
		{name: "ELIG-6 placement is checked before taints", ds: newDS(nodeSelector("os", "linux")), node: node("n0", taint("e", "", v1.TaintEffectNoExecute)),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNodeSelectorMismatch}},
		{name: "ELIG-4 a NoSchedule taint lets existing pods continue", ds: newDS(), node: node("n0", taint("k", "v", v1.TaintEffectNoSchedule)),
			want: daemonset.Eligibility{ShouldContinueRunning: true, Reason: daemonset.ReasonTaintNotTolerated, Taint: noSched}},
		{name: "TAINT-5 a NoExecute taint evicts", ds: newDS(), node: node("n0", taint("e", "", v1.TaintEffectNoExecute)),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNoExecuteTaintNotTolerated, Taint: noExec}},
		{name: "TAINT-5 a NoExecute taint after a NoSchedule one still evicts and is the one reported", ds: newDS(),
			node: node("n0", taint("k", "v", v1.TaintEffectNoSchedule), taint("e", "", v1.TaintEffectNoExecute)),
			want: daemonset.Eligibility{Reason: daemonset.ReasonNoExecuteTaintNotTolerated, Taint: noExec}},
		{name: "TAINT-9 the first untolerated taint in node order is reported", ds: newDS(),
			node: node("n0", taint("k", "v", v1.TaintEffectNoSchedule), taint("k2", "", v1.TaintEffectNoSchedule)),
			want: daemonset.Eligibility{ShouldContinueRunning: true, Reason: daemonset.ReasonTaintNotTolerated, Taint: noSched}},
		{name: "TAINT-8 default tolerations take part in eligibility", ds: newDS(),
			node: node("n0", taint(v1.TaintNodeUnreachable, "", v1.TaintEffectNoExecute), taint(v1.TaintNodeDiskPressure, "", v1.TaintEffectNoSchedule)),
			want: daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.ds.DeepCopy()
			nodeBefore := tt.node.DeepCopy()
			p, _ := daemonset.Compile(tt.ds, opts())
			got := p.Eligibility(tt.node)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Eligibility() mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, got, p.Explain(tt.node).Eligibility)
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("DaemonSet mutated:\n%s", diff)
			}
			if diff := cmp.Diff(nodeBefore, tt.node); diff != "" {
				t.Errorf("node mutated:\n%s", diff)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	termsPath := "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		node     *v1.Node
		want     daemonset.Explanation
		wantText string
	}{
		{name: "an eligible node says so", ds: newDS(), node: node("n0"),
			want:     daemonset.Explanation{Eligibility: daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}, Node: "n0"},
			wantText: "node n0 should run the daemon pod."},
		{name: "ELIG-2 names the template's nodeName", ds: newDS(withNodeName("x")), node: node("n0"),
			want:     daemonset.Explanation{Eligibility: daemonset.Eligibility{Reason: daemonset.ReasonNodeNameMismatch}, Node: "n0", TemplateNodeName: "x"},
			wantText: "node n0 should not run the daemon pod (NodeNameMismatch).\nThe template's spec.nodeName is \"x\"."},
		{name: "NSEL-2 names the first failing key in key order and the node's value", ds: newDS(nodeSelector("b", "1", "a", "1")), node: node("n0", labels("a", "2")),
			want: daemonset.Explanation{Eligibility: daemonset.Eligibility{Reason: daemonset.ReasonNodeSelectorMismatch}, Node: "n0",
				Placement: &affinity.Explanation{Outcome: affinity.NodeSelectorMismatch, NodeSelector: affinity.LabelMismatch{Key: "a", Want: "1", Value: "2", Present: true}}},
			wantText: "node n0 should not run the daemon pod (NodeSelectorMismatch).\nNode label a is \"2\", but spec.nodeSelector requires a=\"1\"."},
		{name: "AFF-15 names, per term, the failing requirement and the node's value",
			ds: newDS(requiredTerms(
				term(expr("zone", v1.NodeSelectorOpIn, "a"), expr("disk", v1.NodeSelectorOpIn, "ssd")),
				v1.NodeSelectorTerm{},
				fieldTerm(expr("metadata.name", v1.NodeSelectorOpIn, "x")),
			)),
			node: node("n0", labels("zone", "a")),
			want: daemonset.Explanation{Eligibility: daemonset.Eligibility{Reason: daemonset.ReasonNodeAffinityMismatch}, Node: "n0",
				Placement: &affinity.Explanation{Outcome: affinity.AffinityMismatch, Terms: []affinity.TermExplanation{
					{Index: 0, Failed: affinity.FailedRequirement{Path: termsPath + "[0].matchExpressions[1]", Key: "disk", Operator: v1.NodeSelectorOpIn, Values: []string{"ssd"}}},
					{Index: 1, Empty: true},
					{Index: 2, Failed: affinity.FailedRequirement{Path: termsPath + "[2].matchFields[0]", Field: true, Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
						Values: []string{"x"}, Value: "n0", Present: true}},
				}}},
			wantText: "node n0 should not run the daemon pod (NodeAffinityMismatch).\n" +
				"No required node affinity term matches the node.\n" +
				"Term 0: node label disk is absent, which does not satisfy disk In [\"ssd\"].\n" +
				"Term 1: empty, so it matches no node.\n" +
				"Term 2: node field metadata.name is \"n0\", which does not satisfy metadata.name In [\"x\"]."},
		{name: "TAINT-9 names the untolerated taint", ds: newDS(), node: node("n0", taint("k", "v", v1.TaintEffectNoSchedule)),
			want: daemonset.Explanation{Eligibility: daemonset.Eligibility{ShouldContinueRunning: true, Reason: daemonset.ReasonTaintNotTolerated,
				Taint: v1.Taint{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}}, Node: "n0"},
			wantText: "node n0 gets no new daemon pod, but an existing one may keep running (TaintNotTolerated).\nTaint k=v:NoSchedule is not tolerated."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, _ := daemonset.Compile(tt.ds, opts())
			got := p.Explain(tt.node)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Explain() mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, tt.wantText, got.String())
		})
	}
}

func TestEligibilityRules(t *testing.T) {
	h := hashOf(rtDS())
	rtRun(t, []rtCase{
		{"ELIG-8 eligibility ignores status, strategy, minReadySeconds, annotations and the clock", func(t *testing.T) {
			nodes := []*v1.Node{node("a"), node("b", withTaints(dedicatedNoSchedule)), node("c", withTaints(dedicatedNoExecute))}
			base, _ := daemonset.Compile(rtDS(), opts())
			want := []daemonset.Eligibility{}
			for _, n := range nodes {
				want = append(want, base.Eligibility(n))
			}
			require.Equal(t, []bool{true, false, false}, []bool{want[0].ShouldRun, want[1].ShouldRun, want[2].ShouldRun})
			require.Equal(t, []bool{true, true, false}, []bool{want[0].ShouldContinueRunning, want[1].ShouldContinueRunning, want[2].ShouldContinueRunning})
			variants := []*appsv1.DaemonSet{
				rtDS(rolling(ios(2), ios(0))), rtDS(rolling(ios(0), ios(3))), rtDS(minReadySeconds(60)),
				rtDS(func(ds *appsv1.DaemonSet) {
					ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 9, NumberMisscheduled: 4, ObservedGeneration: 7}
					ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "5"}
					ds.Generation = 8
				}),
			}
			for i, ds := range variants {
				p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now1000.Add(time.Duration(i+1) * time.Hour)})
				for j, n := range nodes {
					require.Equal(t, want[j], p.Eligibility(n), "variant %d node %s", i, n.Name)
				}
			}
		}},
		{"ELIG-8 pods on a node do not change whether it is desired", func(t *testing.T) {
			nodes := []*v1.Node{node("a"), node("b", withTaints(dedicatedNoSchedule)), node("c")}
			pods := []*v1.Pod{rtPod("pa", "a", h, phase(v1.PodFailed)), rtPod("pb", "b", h, readyAt(1)), rtPod("pc", "c", "old")}
			without := rtPlan(t, rtDS(), nodes, nil)
			with := rtPlan(t, rtDS(), nodes, pods)
			require.Equal(t, int32(2), without.Status.DesiredNumberScheduled)
			require.Equal(t, without.Status.DesiredNumberScheduled, with.Status.DesiredNumberScheduled)
		}},
		{"ELIG-9 a NoSchedule-tainted node keeps its pod, counts as misscheduled and is not desired", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b", withTaints(dedicatedNoSchedule))}, []*v1.Pod{rtPod("pb", "b", h)})
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Empty(t, res.Delete)
			require.Equal(t, rtCounts{1, 0, 1, 0, 0, 1, 0}, rtStatus(t, res))
		}},
		{"ELIG-9 a NoExecute-tainted node loses its pod in the base diff", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a", withTaints(dedicatedNoExecute))}, []*v1.Pod{rtPod("pa", "a", h)})
			require.Empty(t, res.Create)
			require.Equal(t, []string{"pa@a:" + string(daemonset.ReasonNodeNotEligible)}, rtDeletes(res))
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, res))
		}},
		{"ELIG-9 the surge rolling update replaces an unavailable old pod only where shouldRun holds", func(t *testing.T) {
			nodes := []*v1.Node{node("a"), node("b", withTaints(dedicatedNoSchedule))}
			pods := []*v1.Pod{rtPod("pa", "a", "old"), rtPod("pb", "b", "old")}
			res := rtPlan(t, rtDS(rolling(ios(0), ios(1))), nodes, pods)
			require.NotNil(t, res.RollingUpdate)
			require.True(t, res.RollingUpdate.Acted)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{"pb@b:" + string(daemonset.ReasonSurgeOldUnavailableIneligible)}, rtDeletes(res))
			require.Equal(t, 1, res.RollingUpdate.MaxSurge) // resolved against desired = 1
		}},
	})
}

// eligibilityScenarios are the scenarios of placement: node selector, required node affinity,
// nodeName (NSEL-*, AFF-*, ELIG-*).
func eligibilityScenarios() []scenario {
	return []scenario{
		// Eligibility and placement.
		{name: "SCN-01 DIFF-2 STAT-2 every empty eligible node gets a create", nodes: nodes(3),
			want: sum(list("n0", "n1", "n2"), nil, st(3, 0, 0, 0, 0, 0, 3))},
		{name: "SCN-02 UPD-2 default RollingUpdate gives the same creates", ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			want: sum(list("n0", "n1", "n2"), nil, st(3, 0, 0, 0, 0, 0, 3))},
		{name: "SCN-03 NSEL-2 nodeSelector disk=ssd admits only the ssd node", ds: newDS(nodeSelector("disk", "ssd")),
			nodes: []*v1.Node{node("n0", labels("disk", "ssd")), node("n1", labels("disk", "hdd")), node("n2")},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-04 NSEL-2 an empty nodeSelector value requires the label present and empty", ds: newDS(nodeSelector("gpu", "")),
			nodes: []*v1.Node{node("a", labels("gpu", "")), node("b"), node("c", labels("gpu", "x"))},
			want:  sum(list("a"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-05 AFF-3 required terms are ORed",
			ds:    newDS(requiredTerms(term(expr("zone", v1.NodeSelectorOpIn, "a")), term(expr("zone", v1.NodeSelectorOpIn, "b")))),
			nodes: []*v1.Node{node("a", labels("zone", "a")), node("b", labels("zone", "b")), node("c", labels("zone", "c"))},
			want:  sum(list("a", "b"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-06 AFF-5 matchExpressions and matchFields of one term are ANDed",
			ds: newDS(requiredTerms(v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn, "a")},
				MatchFields:      []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "n2")},
			})),
			nodes: []*v1.Node{node("n1", labels("zone", "a")), node("n2", labels("zone", "a")), node("n3", labels("zone", "b"))},
			want:  sum(list("n2"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-07 AFF-8 a term with a bad operator is dropped silently and the other term still admits", surprises: []int{13},
			ds:    newDS(requiredTerms(term(expr("zone", "Foo", "a")), term(expr("zone", v1.NodeSelectorOpIn, "b")))),
			nodes: []*v1.Node{node("a", labels("zone", "a")), node("b", labels("zone", "b"))},
			want:  sum(list("b"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-08 AFF-8 Exists with values makes the whole term unmatchable",
			ds:    newDS(requiredTerms(term(expr("zone", v1.NodeSelectorOpIn, "a"), expr("x", v1.NodeSelectorOpExists, "bad")))),
			nodes: []*v1.Node{node("n0", labels("zone", "a", "x", "1"))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-09 AFF-4 an empty term matches nothing", surprises: []int{14},
			ds: newDS(requiredTerms(v1.NodeSelectorTerm{})), nodes: nodes(2),
			want: sum(nil, nil, noneStatus)},
		{name: "SCN-09 AFF-2 a required selector with zero terms matches nothing",
			ds: newDS(requiredTerms()), nodes: nodes(2),
			want: sum(nil, nil, noneStatus)},
		{name: "SCN-10 AFF-7 Gt compares node label integers, leading zeros accepted, non-numbers fail", surprises: []int{13},
			ds: newDS(requiredTerms(term(expr("cpus", v1.NodeSelectorOpGt, "8")))),
			nodes: []*v1.Node{node("c16", labels("cpus", "16")), node("c8", labels("cpus", "8")), node("cabc", labels("cpus", "abc")),
				node("cmissing"), node("c016", labels("cpus", "016"))},
			want: sum(list("c016", "c16"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-11 AFF-7 AFF-8 Lt with a non-integer value admits no node",
			ds: newDS(requiredTerms(term(expr("cpus", v1.NodeSelectorOpLt, "x")))), nodes: []*v1.Node{node("n0", labels("cpus", "1"))},
			want: sum(nil, nil, noneStatus)},
		{name: "SCN-12 AFF-9 matchFields metadata.name NotIn excludes that node",
			ds: newDS(requiredTerms(fieldTerm(expr("metadata.name", v1.NodeSelectorOpNotIn, "n0")))), nodes: nodes(3),
			want: sum(list("n1", "n2"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-13 AFF-9 an unknown matchFields key reads as empty so In [\"\"] matches every node", surprises: []int{14},
			ds: newDS(requiredTerms(fieldTerm(expr("metadata.uid", v1.NodeSelectorOpIn, "")))), nodes: nodes(3),
			want: sum(list("n0", "n1", "n2"), nil, st(3, 0, 0, 0, 0, 0, 3))},
		{name: "SCN-14 AFF-11 matchExpressions on metadata.name test a label, not the node name", surprises: []int{34},
			ds: newDS(requiredTerms(term(expr("metadata.name", v1.NodeSelectorOpIn, "n0")))), nodes: nodes(3),
			want: sum(nil, nil, noneStatus)},
		{name: "SCN-15 AFF-13 preferred terms alone constrain nothing",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: term(expr("zone", v1.NodeSelectorOpIn, "a"))}},
				}}
			}), nodes: nodes(2),
			want: sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-16 AFF-12 nodeSelector and required affinity must both hold",
			ds:    newDS(nodeSelector("disk", "ssd"), requiredTerms(term(expr("zone", v1.NodeSelectorOpIn, "a")))),
			nodes: []*v1.Node{node("sa", labels("disk", "ssd", "zone", "a")), node("sb", labels("disk", "ssd", "zone", "b")), node("ha", labels("disk", "hdd", "zone", "a"))},
			want:  sum(list("sa"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-17 ELIG-2 template nodeName moves the daemon: create there, delete elsewhere",
			ds: newDS(withNodeName("n1")), nodes: nodes(2), pods: []*v1.Pod{pod("p0", "n0")},
			want: sum(list("n1"), list("p0:NodeNotEligible"), st(1, 0, 1, 0, 0, 0, 1))},
		{name: "SCN-18 ELIG-2 template nodeName of an absent node admits nothing",
			ds: newDS(withNodeName("n9")), nodes: nodes(2),
			want: sum(nil, nil, noneStatus)},
		{name: "SCN-19 ELIG-7 NotReady, cordoned and deleting nodes still get daemon pods", surprises: []int{6, 8},
			nodes: []*v1.Node{
				node("n0", func(n *v1.Node) {
					n.Spec.Unschedulable = true
					n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
				}),
				node("n1", func(n *v1.Node) { n.DeletionTimestamp = ptr.To(metav1.Unix(10, 0)) }),
			},
			want: sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-20 ELIG-7 resources are not considered", surprises: []int{8},
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100")}
			}),
			nodes: []*v1.Node{node("n0", func(n *v1.Node) { n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")} })},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
	}
}

func TestEligibilityScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, eligibilityScenarios())
}

// BenchmarkEligibilityByCategory measures Eligibility hot (one node repeated) for one node of
// each kind the reference workload holds: the reason and the number of taints. The share of the
// first 1,000 reference nodes that fall in each kind is reported as %nodes, so that the median
// over nodes (issue 6) can be read off the table.
//
//	go test -run '^$' -bench 'EligibilityByCategory' -count 3 ./daemonset
func BenchmarkEligibilityByCategory(b *testing.B) {
	p, _ := daemonset.Compile(workload.ReferenceDaemonSet(), setNow)
	nodes := workload.Nodes(1, 1000)
	type category struct {
		name  string
		node  *v1.Node
		count int
	}
	var cats []*category
	byName := map[string]*category{}
	for _, n := range nodes {
		e := p.Eligibility(n)
		reason := string(e.Reason)
		if reason == "" {
			reason = "Eligible"
		}
		name := fmt.Sprintf("%s/taints=%d", reason, len(n.Spec.Taints))
		c := byName[name]
		if c == nil {
			c = &category{name: name, node: n}
			byName[name] = c
			cats = append(cats, c)
		}
		c.count++
	}
	slices.SortFunc(cats, func(a, b *category) int { return strings.Compare(a.name, b.name) })
	for _, c := range cats {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			run := 0
			for b.Loop() {
				if p.Eligibility(c.node).ShouldRun {
					run++
				}
			}
			eligibilitySinkInt = run
			b.ReportMetric(100*float64(c.count)/float64(len(nodes)), "%nodes")
		})
	}
}

var eligibilitySinkInt int

// TestEligibilityWithUntolerated: the one statement of how untolerated taints become an
// Eligibility, as Planner.Eligibility and package fleet's memo use it.
func TestEligibilityWithUntolerated(t *testing.T) {
	t.Parallel()
	ts := []v1.Taint{
		{Key: "a", Effect: v1.TaintEffectNoSchedule},
		{Key: "b", Effect: v1.TaintEffectNoExecute},
	}
	eligible := daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}
	mismatch := daemonset.Eligibility{Reason: daemonset.ReasonNodeSelectorMismatch}
	tests := []struct {
		name                string
		placed              daemonset.Eligibility
		placement, eviction int
		want                daemonset.Eligibility
	}{
		{"no untolerated taint keeps the placement's answer (ELIG-4)", eligible, -1, -1, eligible},
		{"a placement mismatch is the answer whatever the taints (ELIG-3)", mismatch, 0, 1, mismatch},
		{"an untolerated NoSchedule taint blocks new pods, the running one stays (ELIG-4)", eligible, 0, -1,
			daemonset.Eligibility{ShouldContinueRunning: true, Reason: daemonset.ReasonTaintNotTolerated, Taint: ts[0]}},
		{"an untolerated NoExecute taint after a NoSchedule one evicts, and is the evidence (TAINT-5)", eligible, 0, 1,
			daemonset.Eligibility{Reason: daemonset.ReasonNoExecuteTaintNotTolerated, Taint: ts[1]}},
		{"a first untolerated taint that is NoExecute evicts (TAINT-5)", eligible, 1, 1,
			daemonset.Eligibility{Reason: daemonset.ReasonNoExecuteTaintNotTolerated, Taint: ts[1]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := slices.Clone(ts)
			got := tt.placed.WithUntolerated(ts, tt.placement, tt.eviction)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WithUntolerated() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, ts); diff != "" {
				t.Errorf("WithUntolerated mutated its taints (-before +after):\n%s", diff)
			}
		})
	}
}
