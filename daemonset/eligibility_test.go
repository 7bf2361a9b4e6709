package daemonset_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/workload"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
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
