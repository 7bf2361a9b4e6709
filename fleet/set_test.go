package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// setOracle computes each DaemonSet's pod requests with component-helpers, once per Set.
func setOracle(s *fleet.Set) []v1.ResourceList {
	out := make([]v1.ResourceList, s.Len())
	for i := range out {
		spec := s.Planner(i).DaemonSet().Spec.Template.Spec
		out[i] = resourcehelper.PodRequests(&v1.Pod{Spec: *reqDefaulted(&spec)}, resourcehelper.PodResourcesOptions{})
	}
	return out
}

// setCheckNode compares everything a NodeDecision says with the single-DaemonSet path and the
// upstream request helper.
func setCheckNode(t *testing.T, s *fleet.Set, oracle []v1.ResourceList, node *v1.Node, got *fleet.NodeDecision) {
	t.Helper()
	wantRequests := v1.ResourceList{}
	var wantPorts []fleet.HostPort
	var wantRun []int
	for i := range s.Len() {
		p := s.Planner(i)
		want := p.Eligibility(node)
		if g := got.Eligibility(i); !eligEqual(want, g) {
			diff := cmp.Diff(want, g)
			t.Fatalf("node %s, DaemonSet %s: Set decision differs from Planner.Eligibility (-planner +set):\n%s\nnode: %v %v", node.Name, p.DaemonSet().Name, diff, node.Labels, node.Spec.Taints)
		}
		if !want.ShouldRun {
			continue
		}
		wantRun = append(wantRun, i)
		spec := p.DaemonSet().Spec.Template.Spec
		for name, q := range oracle[i] {
			cur := wantRequests[name]
			cur.Add(q)
			wantRequests[name] = cur
		}
		wantPorts = append(wantPorts, fleet.PodHostPorts(&spec)...)
	}
	if diff := cmp.Diff(wantRun, got.ShouldRun(), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("node %s: ShouldRun() mismatch (-want +got):\n%s", node.Name, diff)
	}
	gotRequests := got.Requests(nil)
	if !reqEqual(wantRequests, gotRequests) {
		t.Fatalf("node %s: Requests() = %s, want %s", node.Name, reqString(gotRequests), reqString(wantRequests))
	}
	for name, q := range wantRequests {
		g, ok := got.Request(name)
		require.True(t, ok, "Request(%s)", name)
		require.Zero(t, q.Cmp(g), "Request(%s) = %s, want %s", name, g.String(), q.String())
	}
	if diff := cmp.Diff(wantPorts, got.HostPorts(), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("node %s: HostPorts() mismatch (-want +got):\n%s", node.Name, diff)
	}
}

// TestDecideNodeAgreesWithPlanner is the property test of the node-centric form: on random
// snapshots, every decision equals (*Planner).Eligibility (ELIG-1..6), the requests equal the
// sum of component-helpers PodRequests over the DaemonSets that should run, and the ports the
// concatenation of PodHostPorts. Hypothetical nodes without a name are included (AFF-10).
func TestDecideNodeAgreesWithPlanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 6 {
		dss, nodes := setSnapshot(r, 100, 40)
		before := make([]*appsv1.DaemonSet, len(dss))
		for i, ds := range dss {
			before[i] = ds.DeepCopy()
		}
		s, _ := fleet.Compile(dss, setNow)
		require.NotNil(t, s)
		oracle := setOracle(s)
		var got fleet.NodeDecision // reused across nodes, as callers should
		for _, node := range nodes {
			if r.IntN(10) == 0 {
				node = node.DeepCopy()
				node.Name = ""
			}
			nodeBefore := node.DeepCopy()
			s.DecideNode(node, &got)
			setCheckNode(t, s, oracle, node, &got)
			if diff := cmp.Diff(nodeBefore, node); diff != "" {
				t.Fatalf("Set.DecideNode modified the node (-before +after):\n%s", diff)
			}
		}
		if diff := cmp.Diff(before, dss); diff != "" {
			t.Fatalf("Compile modified the DaemonSets (-before +after):\n%s", diff)
		}
	}
}

// TestSetAgreesWithUpstreamController checks the Set's two booleans against the v1.36
// controller's NodeShouldRunDaemonPod rebuilt from component-helpers
// (scalebench.UpstreamShouldRun) on random snapshots: the second oracle, independent of Planner.
func TestSetAgreesWithUpstreamController(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	logger := klog.Background()
	for range 4 {
		dss, nodes := setSnapshot(r, 100, 40)
		s, _ := fleet.Compile(dss, setNow)
		var got fleet.NodeDecision
		for _, node := range nodes {
			s.DecideNode(node, &got)
			for i := range s.Len() {
				run, cont := scalebench.UpstreamShouldRun(logger, s.Planner(i).DaemonSet(), node)
				e := got.Eligibility(i)
				if e.ShouldRun != run || e.ShouldContinueRunning != cont {
					t.Fatalf("node %s, DaemonSet %s: Set says (%v, %v), upstream (%v, %v)\nnode: %v %v\nds: %s",
						node.Name, s.Planner(i).DaemonSet().Name, e.ShouldRun, e.ShouldContinueRunning, run, cont,
						node.Labels, node.Spec.Taints, s.Planner(i).DaemonSet().Spec.Template.Spec.String())
				}
			}
		}
	}
}

// TestDecideNodeTaintBeyondTheCellIndex: a decision cell stores the index of its untolerated taint
// in 13 bits; a node whose untolerated taints sit beyond that (thousands of tolerated taints
// first) is decided again when read, and still says what Planner.Eligibility says, for the
// NoSchedule and the NoExecute answer.
func TestDecideNodeTaintBeyondTheCellIndex(t *testing.T) {
	t.Parallel()
	dss := workload.DaemonSets(1, 20)
	s, errs := fleet.Compile(dss, setNow)
	require.Empty(t, errs)
	oracle := setOracle(s)
	var got fleet.NodeDecision
	for _, last := range []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute} {
		node := workload.Nodes(1, 1)[0].DeepCopy()
		node.Spec.Taints = nil
		for i := range 9000 {
			// Tolerated by every DaemonSet: PreferNoSchedule never blocks (TAINT-6).
			node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: fmt.Sprintf("soft-%d", i), Effect: v1.TaintEffectPreferNoSchedule})
		}
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "far-away", Value: "x", Effect: last})
		s.DecideNode(node, &got)
		setCheckNode(t, s, oracle, node, &got)
	}
}

// TestSetManyDistinctNodes: more distinct label projections and taint lists than one
// NodeDecision remembers (its memo starts again when full) still give Planner's decisions,
// also for nodes seen before the memo restarted.
func TestSetManyDistinctNodes(t *testing.T) {
	t.Parallel()
	team := workload.ReferenceDaemonSet()
	team.Name = "team"
	team.Spec.Template.Spec.NodeSelector = map[string]string{workload.LabelTeam: "t-7"}
	team.Spec.Template.Spec.Affinity = nil
	gpu := workload.ReferenceDaemonSet()
	gpu.Name = "gpu"
	gpu.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "k-3", Operator: v1.TolerationOpExists}}
	s, errs := fleet.Compile([]*appsv1.DaemonSet{team, gpu, workload.ReferenceDaemonSet()}, setNow)
	require.Empty(t, errs)
	nodes := workload.Nodes(2, 5000)
	for i, n := range nodes {
		n.Labels[workload.LabelTeam] = fmt.Sprintf("t-%d", i%4500)
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: fmt.Sprintf("k-%d", i%4700), Effect: v1.TaintEffectNoSchedule})
	}
	var got fleet.NodeDecision
	for pass := range 2 {
		for _, node := range nodes {
			s.DecideNode(node, &got)
			for i := range s.Len() {
				if want, g := s.Planner(i).Eligibility(node), got.Eligibility(i); !eligEqual(want, g) {
					t.Fatalf("pass %d, node %s, DaemonSet %d (-planner +set):\n%s", pass, node.Name, i, cmp.Diff(want, g))
				}
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	a := workload.ReferenceDaemonSet()
	b := workload.ReferenceDaemonSet()
	b.Name = "other"
	tests := []struct {
		name     string
		dss      []*appsv1.DaemonSet
		wantErrs field.ErrorList
	}{
		{
			name:     "a nil DaemonSet makes the set inconsistent",
			dss:      []*appsv1.DaemonSet{a, nil},
			wantErrs: field.ErrorList{field.Required(field.NewPath("daemonSets").Index(1), "")},
		},
		{
			name:     "two DaemonSets with one namespace and name make the set inconsistent",
			dss:      []*appsv1.DaemonSet{a, b, a.DeepCopy()},
			wantErrs: field.ErrorList{field.Duplicate(field.NewPath("daemonSets").Index(2), "kube-system/node-agent")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, errs := fleet.Compile(tt.dss, setNow)
			require.Nil(t, s)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
		})
	}
}

// TestCompileMisusePanics: misused Options are a programming error, even for an empty set,
// which compiles no DaemonSet that would catch them.
func TestCompileMisusePanics(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "daemonset: negative Options.Workers", func() { _, _ = fleet.Compile(nil, withWorkers(-1)) })
	require.PanicsWithValue(t, "daemonset: Options.Now is zero", func() { _, _ = fleet.Compile(nil, daemonset.Options{}) })
}

// TestCompileValidationErrorsAreRooted: validation errors are Compile's, rooted at the input
// position of their DaemonSet, and the Set is still built (D-4).
func TestCompileValidationErrorsAreRooted(t *testing.T) {
	t.Parallel()
	good := workload.ReferenceDaemonSet()
	bad := workload.ReferenceDaemonSet()
	bad.Name = "a-bad-one"
	bad.Spec.Template.Spec.Tolerations = append(bad.Spec.Template.Spec.Tolerations, v1.Toleration{Key: "k", Operator: "Bogus"})
	bad.Spec.Selector = nil
	_, compileErrs := daemonset.Compile(bad, setNow)
	require.NotEmpty(t, compileErrs)
	var want field.ErrorList
	for _, e := range compileErrs {
		c := *e
		c.Field = "daemonSets[1]." + c.Field
		want = append(want, &c)
	}
	s, errs := fleet.Compile([]*appsv1.DaemonSet{good, bad}, setNow)
	require.NotNil(t, s)
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, want, errs)
	// Ordered by namespace and name: a-bad-one sorts first.
	require.Equal(t, "a-bad-one", s.Planner(0).DaemonSet().Name)
	i, ok := s.Index("kube-system", "node-agent")
	require.True(t, ok)
	require.Equal(t, 1, i)
}

// TestSetHypotheticalNode: a node without a name, as an autoscaler imagines it, fails a
// template spec.nodeName (ELIG-2) but passes matchFields (AFF-10), exactly as upstream.
func TestSetHypotheticalNode(t *testing.T) {
	t.Parallel()
	pinned := workload.ReferenceDaemonSet()
	pinned.Name = "pinned"
	pinned.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-1"}}},
		}}},
	}}
	bound := workload.ReferenceDaemonSet()
	bound.Name = "bound"
	bound.Spec.Template.Spec.Affinity = nil
	bound.Spec.Template.Spec.NodeName = "node-1"
	s, errs := fleet.Compile([]*appsv1.DaemonSet{pinned, bound}, setNow)
	require.Empty(t, errs)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{workload.LabelOS: "linux"}}}
	var got fleet.NodeDecision
	s.DecideNode(node, &got)
	i, _ := s.Index("kube-system", "bound")
	require.Equal(t, daemonset.ReasonNodeNameMismatch, got.Eligibility(i).Reason)
	i, _ = s.Index("kube-system", "pinned")
	require.True(t, got.Eligibility(i).ShouldRun)
}

// TestDecideNodeAllocatesNothing: with a reused NodeDecision the node-centric query allocates
// nothing, for the reference workload.
func TestDecideNodeAllocatesNothing(t *testing.T) {
	s, _ := fleet.Compile(workload.DaemonSets(1, 200), setNow)
	nodes := workload.Nodes(1, 64)
	var nd fleet.NodeDecision
	for _, n := range nodes {
		s.DecideNode(n, &nd) // grow the buffers
	}
	k := 0
	allocs := testing.AllocsPerRun(200, func() {
		s.DecideNode(nodes[k%len(nodes)], &nd)
		k++
	})
	require.Zero(t, allocs)
	list := nd.Requests(nil)
	allocs = testing.AllocsPerRun(100, func() {
		s.DecideNode(nodes[k%len(nodes)], &nd)
		list = nd.Requests(list)
		k++
	})
	require.Zero(t, allocs)
}

// TestDecideNodeReferenceWorkload: the figures of a hypothetical node of pool general-a against
// the 200 reference DaemonSets (the README's example before it became one a reader can paste).
func TestDecideNodeReferenceWorkload(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	set, errs := fleet.Compile(workload.DaemonSets(1, 200), setNow)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	// A node an autoscaler considers adding to pool general-a: labels and taints, no name yet.
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			workload.LabelOS: "linux", workload.LabelOSBeta: "linux",
			workload.LabelArch: "amd64", workload.LabelArchBeta: "amd64",
			workload.LabelZone: "us-east-1a", workload.LabelZoneBeta: "us-east-1a", workload.LabelRegion: "us-east-1",
			workload.LabelInstanceType: "m5.xlarge", workload.LabelNodeGroup: "general-a",
			workload.LabelCapacityType: "on-demand", workload.LabelTier: "general", workload.LabelDisk: "ssd",
			workload.LabelCores: "4", workload.LabelTeam: "platform",
		}},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoExecute}}},
	}
	var d fleet.NodeDecision // reuse it for the next node: no allocation then
	set.DecideNode(node, &d)
	cpu, _ := d.Request(v1.ResourceCPU)
	memory, _ := d.Request(v1.ResourceMemory)
	fmt.Fprintf(&out, "%d of %d DaemonSets run, requesting cpu %s, memory %s, %d host ports\n",
		len(d.ShouldRun()), set.Len(), cpu.String(), memory.String(), len(d.HostPorts()))
	count := map[daemonset.Reason]int{}
	for i := range set.Len() {
		count[d.Eligibility(i).Reason]++
	}
	for _, r := range []daemonset.Reason{daemonset.ReasonNodeSelectorMismatch, daemonset.ReasonNodeAffinityMismatch,
		daemonset.ReasonNodeNameMismatch, daemonset.ReasonTaintNotTolerated, daemonset.ReasonNoExecuteTaintNotTolerated} {
		fmt.Fprintf(&out, "%s: %d\n", r, count[r])
	}
	require.Equal(t, `47 of 200 DaemonSets run, requesting cpu 10245m, memory 15Gi, 17 host ports
NodeSelectorMismatch: 54
NodeAffinityMismatch: 46
NodeNameMismatch: 1
TaintNotTolerated: 0
NoExecuteTaintNotTolerated: 52
`, out.String())
}
