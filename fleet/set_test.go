package fleet_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

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

var setNow = daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}

// withWorkers is setNow with Options.Workers, which Set.Decide shares the nodes among.
func withWorkers(workers int) daemonset.Options {
	o := setNow
	o.Workers = workers
	return o
}

// setLabelValues are the values random nodes and DaemonSets draw label values from, so that
// requirements match often enough to exercise every branch.
var setLabelValues = map[string][]string{
	workload.LabelOS:           {"linux", "windows", ""},
	workload.LabelArch:         {"amd64", "arm64"},
	workload.LabelArchBeta:     {"amd64", "arm64"},
	workload.LabelZone:         {"us-east-1a", "us-east-1b", "eu-west-1a"},
	workload.LabelInstanceType: {"m5.large", "m5.xlarge"},
	workload.LabelCores:        {"2", "16", "016", "abc", "-3"},
	workload.LabelTeam:         {"web", "data"},
	workload.LabelControlPlane: {"", "true"},
	"metadata.name":            {"node-000001"},
	"example.com/unreferenced": {"a", "b"},
}

func setKeys() []string {
	keys := make([]string, 0, len(setLabelValues))
	for k := range setLabelValues {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func setPick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// setTaintMenu holds ordinary and odd taints: an empty and an unknown effect (TAINT-6), a
// timeAdded (TAINT-7), keys the default daemon tolerations cover (DEFTOL-1) and keys they
// do not (DEFTOL-5).
var setTaintMenu = func() []v1.Taint {
	added := metav1.NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	return []v1.Taint{
		{Key: workload.LabelControlPlane, Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoExecute},
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoExecute},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute, TimeAdded: &added},
		{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule},
		{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule},
		{Key: "example.com/spot", Value: "true", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute},
		{Key: "example.com/empty-effect"},
		{Key: "example.com/odd", Value: "5", Effect: "Bogus"},
		{Key: "example.com/limit", Value: "7", Effect: v1.TaintEffectNoSchedule},
	}
}()

// setMutateNode changes a copy of node at random: labels set, removed or added, taints redrawn
// (duplicates included), spec.unschedulable toggled, which must change nothing by itself
// (ELIG-7, TAINT-11).
func setMutateNode(r *rand.Rand, node *v1.Node) *v1.Node {
	out := node.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	keys := setKeys()
	for range 1 + r.IntN(3) {
		k := setPick(r, keys)
		switch r.IntN(3) {
		case 0:
			delete(out.Labels, k)
		default:
			out.Labels[k] = setPick(r, setLabelValues[k])
		}
	}
	if r.IntN(2) == 0 {
		out.Spec.Taints = nil
		for range r.IntN(4) {
			out.Spec.Taints = append(out.Spec.Taints, setPick(r, setTaintMenu))
		}
	}
	if r.IntN(4) == 0 {
		out.Spec.Unschedulable = !out.Spec.Unschedulable
	}
	return out
}

// setRandomRequirement draws a node selector requirement, sometimes malformed (AFF-8).
func setRandomRequirement(r *rand.Rand) v1.NodeSelectorRequirement {
	k := setPick(r, setKeys())
	ops := []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt, "in"}
	op := setPick(r, ops)
	var values []string
	switch op {
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		values = []string{setPick(r, []string{"8", "16", "x"})}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if r.IntN(8) == 0 {
			values = []string{"x"}
		}
	default:
		for range r.IntN(3) + 1 {
			values = append(values, setPick(r, setLabelValues[k]))
		}
	}
	return v1.NodeSelectorRequirement{Key: k, Operator: op, Values: values}
}

// setRandomDaemonSet draws a DaemonSet with random placement, tolerations, containers and
// hostNetwork, named ns/name.
func setRandomDaemonSet(r *rand.Rand, name string, nodeNames []string) *appsv1.DaemonSet {
	ds := workload.ReferenceDaemonSet()
	ds.Name = name
	spec := &ds.Spec.Template.Spec
	spec.NodeSelector, spec.Affinity, spec.Tolerations = nil, nil, nil
	keys := setKeys()
	for range r.IntN(3) {
		if spec.NodeSelector == nil {
			spec.NodeSelector = map[string]string{}
		}
		k := setPick(r, keys)
		spec.NodeSelector[k] = setPick(r, setLabelValues[k])
	}
	if r.IntN(3) > 0 {
		req := &v1.NodeSelector{}
		for range r.IntN(4) { // zero terms match no node (AFF-2)
			var term v1.NodeSelectorTerm
			for range r.IntN(3) {
				term.MatchExpressions = append(term.MatchExpressions, setRandomRequirement(r))
			}
			if r.IntN(5) == 0 && len(nodeNames) > 0 {
				op := setPick(r, []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn})
				key := setPick(r, []string{"metadata.name", "metadata.name", "metadata.uid"})
				term.MatchFields = append(term.MatchFields, v1.NodeSelectorRequirement{Key: key, Operator: op, Values: []string{setPick(r, nodeNames)}})
			}
			req.NodeSelectorTerms = append(req.NodeSelectorTerms, term)
		}
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req}}
	}
	if r.IntN(20) == 0 && len(nodeNames) > 0 {
		spec.NodeName = setPick(r, nodeNames)
	}
	for range r.IntN(4) {
		t := setPick(r, setTaintMenu)
		tol := v1.Toleration{Key: t.Key, Value: t.Value, Effect: t.Effect,
			Operator: setPick(r, []v1.TolerationOperator{v1.TolerationOpExists, v1.TolerationOpEqual, "", "Gt"})}
		if r.IntN(4) == 0 {
			tol.Effect = ""
		}
		if r.IntN(8) == 0 {
			tol.Key = ""
		}
		spec.Tolerations = append(spec.Tolerations, tol)
	}
	spec.HostNetwork = r.IntN(3) == 0
	s := reqRandomPodSpec(r)
	spec.Containers, spec.InitContainers, spec.Overhead, spec.Resources = s.Containers, s.InitContainers, s.Overhead, s.Resources
	return ds
}

// setSnapshot is a random snapshot: reference nodes, some mutated, and a mix of generated and
// random DaemonSets, in random order.
func setSnapshot(r *rand.Rand, nodes, daemonSets int) ([]*appsv1.DaemonSet, []*v1.Node) {
	ns := workload.Nodes(r.Int64(), nodes)
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = n.Name
	}
	for i := range ns {
		if r.IntN(3) == 0 {
			ns[i] = setMutateNode(r, ns[i])
		}
	}
	dss := workload.DaemonSets(r.Int64(), daemonSets/2)
	for i := len(dss); i < daemonSets; i++ {
		dss = append(dss, setRandomDaemonSet(r, fmt.Sprintf("random-%03d", i), names))
	}
	r.Shuffle(len(dss), func(i, j int) { dss[i], dss[j] = dss[j], dss[i] })
	return dss, ns
}

// eligEqual is cmp.Equal for Eligibility values, without reflection: the property tests compare
// millions of them. cmp.Diff still reports any difference.
func eligEqual(a, b daemonset.Eligibility) bool {
	return a.ShouldRun == b.ShouldRun && a.ShouldContinueRunning == b.ShouldContinueRunning && a.Reason == b.Reason &&
		a.Taint.Key == b.Taint.Key && a.Taint.Value == b.Taint.Value && a.Taint.Effect == b.Taint.Effect &&
		a.Taint.TimeAdded.Equal(b.Taint.TimeAdded)
}

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

// TestSetNodeAgreesWithPlanner is the property test of the node-centric form: on random
// snapshots, every decision equals (*Planner).Eligibility (ELIG-1..6), the requests equal the
// sum of component-helpers PodRequests over the DaemonSets that should run, and the ports the
// concatenation of PodHostPorts. Hypothetical nodes without a name are included (AFF-10).
func TestSetNodeAgreesWithPlanner(t *testing.T) {
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
				t.Fatalf("Set.Node modified the node (-before +after):\n%s", diff)
			}
		}
		if diff := cmp.Diff(before, dss); diff != "" {
			t.Fatalf("NewSet modified the DaemonSets (-before +after):\n%s", diff)
		}
	}
}

// TestDecideAgreesWithPlanner is the property test of the cluster-wide form, with and without
// workers: the same matrix either way, each cell equal to (*Planner).Eligibility, and per-row
// NodeDecisions equal to Set.Node.
func TestDecideAgreesWithPlanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		dss, nodes := setSnapshot(r, 200, 30)
		s, _ := fleet.Compile(dss, setNow)
		oracle := setOracle(s)
		nodesBefore := make([]*v1.Node, len(nodes))
		for i, n := range nodes {
			nodesBefore[i] = n.DeepCopy()
		}
		serial, errs := s.Decide(nodes)
		require.Empty(t, errs)
		s7, _ := fleet.Compile(dss, withWorkers(7))
		parallel, errs := s7.Decide(nodes)
		require.Empty(t, errs)
		require.Equal(t, len(nodes), serial.Rows())
		var nd fleet.NodeDecision
		for row, node := range nodes {
			require.Same(t, node, serial.NodeAt(row))
			got, ok := serial.Row(node.Name)
			require.True(t, ok)
			require.Equal(t, row, got)
			for i := range s.Len() {
				want := s.Planner(i).Eligibility(node)
				if g := serial.Eligibility(row, i); !eligEqual(want, g) {
					t.Fatalf("Decide: node %s DaemonSet %d (-planner +decide):\n%s", node.Name, i, cmp.Diff(want, g))
				}
				if g := parallel.Eligibility(row, i); !eligEqual(want, g) {
					t.Fatalf("Decide with workers: node %s DaemonSet %d (-planner +decide):\n%s", node.Name, i, cmp.Diff(want, g))
				}
			}
			serial.DecisionAt(row, &nd)
			setCheckNode(t, s, oracle, node, &nd)
		}
		for i := range s.Len() {
			run, cont := 0, 0
			for _, node := range nodes {
				e := s.Planner(i).Eligibility(node)
				if e.ShouldRun {
					run++
				}
				if e.ShouldContinueRunning {
					cont++
				}
			}
			gotRun, gotCont := serial.Count(i)
			require.Equal(t, [2]int{run, cont}, [2]int{gotRun, gotCont}, "Count(%d)", i)
		}
		if diff := cmp.Diff(nodesBefore, nodes); diff != "" {
			t.Fatalf("Decide modified the nodes (-before +after):\n%s", diff)
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

// TestSetManyDistinctNodes: more distinct label projections and taint lists than one
// NodeDecision remembers (its memo starts again when full) still give Planner's decisions,
// also for nodes seen before the memo restarted.
// TestSetNodeTaintBeyondTheCellIndex: a decision cell stores the index of its untolerated taint
// in 13 bits; a node whose untolerated taints sit beyond that (thousands of tolerated taints
// first) is decided again when read, and still says what Planner.Eligibility says, for the
// NoSchedule and the NoExecute answer.
func TestSetNodeTaintBeyondTheCellIndex(t *testing.T) {
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
			// Tolerated by every DaemonSet: PreferNoSchedule never blocks (TAINT-4).
			node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: fmt.Sprintf("soft-%d", i), Effect: v1.TaintEffectPreferNoSchedule})
		}
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "far-away", Value: "x", Effect: last})
		s.DecideNode(node, &got)
		setCheckNode(t, s, oracle, node, &got)
	}
}

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

func TestNewSetErrors(t *testing.T) {
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

// TestNewSetValidationErrorsAreRooted: validation errors are Compile's, rooted at the input
// position of their DaemonSet, and the Set is still built (D-4).
func TestNewSetValidationErrorsAreRooted(t *testing.T) {
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

func TestDecideErrors(t *testing.T) {
	t.Parallel()
	s, errs := fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, setNow)
	require.Empty(t, errs)
	nodes := workload.Nodes(1, 3)
	dup := nodes[0].DeepCopy()
	d, errs := s.Decide([]*v1.Node{nodes[0], nil, nodes[1], dup})
	require.Nil(t, d)
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, field.ErrorList{
		field.Required(field.NewPath("nodes").Index(1), ""),
		field.Duplicate(field.NewPath("nodes").Index(3).Child("metadata", "name"), nodes[0].Name),
	}, errs)
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

// TestSetNodeAllocatesNothing: with a reused NodeDecision the node-centric query allocates
// nothing, for the reference workload.
func TestSetNodeAllocatesNothing(t *testing.T) {
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

func ExampleSet_DecideNode() {
	opts := daemonset.Options{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	set, errs := fleet.Compile(workload.DaemonSets(1, 200), opts)
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
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
	fmt.Printf("%d of %d DaemonSets run, requesting cpu %s, memory %s, %d host ports\n",
		len(d.ShouldRun()), set.Len(), cpu.String(), memory.String(), len(d.HostPorts()))
	count := map[daemonset.Reason]int{}
	for i := range set.Len() {
		count[d.Eligibility(i).Reason]++
	}
	for _, r := range []daemonset.Reason{daemonset.ReasonNodeSelectorMismatch, daemonset.ReasonNodeAffinityMismatch,
		daemonset.ReasonNodeNameMismatch, daemonset.ReasonTaintNotTolerated, daemonset.ReasonNoExecuteTaintNotTolerated} {
		fmt.Printf("%s: %d\n", r, count[r])
	}
	// Output:
	// 47 of 200 DaemonSets run, requesting cpu 10245m, memory 15Gi, 17 host ports
	// NodeSelectorMismatch: 54
	// NodeAffinityMismatch: 46
	// NodeNameMismatch: 1
	// TaintNotTolerated: 0
	// NoExecuteTaintNotTolerated: 52
}

// FuzzSetAgreesWithPlanner draws a random snapshot from the fuzzed seed and checks every Set,
// Decide and UpdateNode decision against (*Planner).Eligibility.
func FuzzSetAgreesWithPlanner(f *testing.F) {
	f.Add(uint64(0), uint64(0)) // the first snapshot of the default stream
	f.Add(uint64(1), uint64(2)) // TestSetNodeAgreesWithPlanner's stream
	f.Add(uint64(7), uint64(8)) // TestIncrementalAgreesWithPlanner's stream
	f.Add(uint64(1<<63), uint64(12345))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		dss, nodes := setSnapshot(r, 20, 12)
		s, _ := fleet.Compile(dss, withWorkers(3))
		d, errs := s.Decide(nodes)
		require.Empty(t, errs)
		var nd fleet.NodeDecision
		for row, node := range nodes {
			s.DecideNode(node, &nd)
			changed := setMutateNode(r, node)
			changes := d.UpdateNode(changed, nil)
			k := 0
			for i := range s.Len() {
				want := s.Planner(i).Eligibility(node)
				if g := nd.Eligibility(i); !eligEqual(want, g) {
					t.Fatalf("Set.Node: node %s DaemonSet %d (-planner +set):\n%s", node.Name, i, cmp.Diff(want, g))
				}
				after := s.Planner(i).Eligibility(changed)
				if g := d.Eligibility(row, i); !eligEqual(after, g) {
					t.Fatalf("UpdateNode: node %s DaemonSet %d (-planner +decisions):\n%s", node.Name, i, cmp.Diff(after, g))
				}
				if !eligEqual(want, after) {
					require.Less(t, k, len(changes))
					require.Equal(t, i, changes[k].DaemonSet)
					k++
				}
			}
			require.Len(t, changes, k)
		}
	})
}

func TestEmptySetAndSnapshot(t *testing.T) {
	t.Parallel()
	s, errs := fleet.Compile(nil, withWorkers(4))
	require.Empty(t, errs)
	require.Equal(t, 0, s.Len())
	var nd fleet.NodeDecision
	s.DecideNode(workload.Nodes(1, 1)[0], &nd)
	require.Empty(t, nd.ShouldRun())
	require.Empty(t, nd.Requests(nil))
	d, errs := s.Decide(workload.Nodes(1, 5))
	require.Empty(t, errs)
	require.Equal(t, 5, d.Rows())
	require.Empty(t, d.UpdateNode(workload.Node(1, 99), nil))

	s, _ = fleet.Compile([]*appsv1.DaemonSet{workload.ReferenceDaemonSet()}, withWorkers(4))
	d, errs = s.Decide(nil)
	require.Empty(t, errs)
	require.Equal(t, 0, d.Rows())
	changes := d.UpdateNode(workload.Node(1, 7), nil)
	require.Len(t, changes, 1, "an added node gets a decision for every DaemonSet")
	require.True(t, eligEqual(daemonset.Eligibility{}, changes[0].Before), "no decision before the node existed")
}
