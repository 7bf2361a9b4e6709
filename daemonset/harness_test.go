package daemonset_test

// The harness of the scenario tables (SCN-*, Surprise-*) and of the rule tables: a plan is
// reduced to a summary and compared, and every case checks that no input was modified.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// summary is a Result reduced to what the checklist states. An action chosen among
// interchangeable candidates (D-1) carries a trailing "~".
type summary struct {
	Skipped daemonset.Skip
	Create  []string // node
	Delete  []string // pod name:Reason
	Adopt   []string
	Release []string
	Status  *[7]int32 // desired/current/misscheduled/ready/updated/available/unavailable
	Events  []string  // Reason pod
}

func summarize(r *daemonset.Result) summary {
	s := summary{Skipped: r.Skipped, Create: []string{}, Delete: []string{}, Adopt: []string{}, Release: []string{}, Events: []string{}}
	for _, c := range r.Create {
		s.Create = append(s.Create, c.Node+tilde(c.Interchangeable))
	}
	for _, d := range r.Delete {
		s.Delete = append(s.Delete, d.Name+":"+string(d.Reason)+tilde(d.Interchangeable))
	}
	for _, a := range r.Adopt {
		s.Adopt = append(s.Adopt, a.Name)
	}
	for _, a := range r.Release {
		s.Release = append(s.Release, a.Name)
	}
	for _, e := range r.Events {
		s.Events = append(s.Events, strings.TrimSpace(string(e.Reason)+" "+e.Pod))
	}
	if st := r.Status; st != nil {
		s.Status = &[7]int32{st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled,
			st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable}
	}
	return s
}

func tilde(b bool) string {
	if b {
		return "~"
	}
	return ""
}

func st(d, c, m, r, u, a, un int32) *[7]int32 { return &[7]int32{d, c, m, r, u, a, un} }

// sum builds an expected summary; nil lists mean empty.
func sum(create, del []string, status *[7]int32) summary {
	return summary{Create: orEmpty(create), Delete: orEmpty(del), Adopt: []string{}, Release: []string{}, Events: []string{}, Status: status}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func list(s ...string) []string { return s }

func withEvents(s summary, events ...string) summary { s.Events = events; return s }

func withAdopt(s summary, names ...string) summary { s.Adopt = names; return s }

func withRelease(s summary, names ...string) summary { s.Release = names; return s }

func skipped(rule daemonset.Skip, events ...string) summary {
	s := sum(nil, nil, nil)
	s.Skipped = rule
	s.Events = orEmpty(events)
	return s
}

func failedEvent(pods ...string) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, "FailedDaemonPod default/"+p)
	}
	return out
}

// The scenario tables (SCN-*, Surprise-*) live with their rule family; scenarios() gathers
// them for TestSurprisesCovered. These are their shared values.
var (
	noneStatus = st(0, 0, 0, 0, 0, 0, 0)
	gateOn     = daemonset.Options{Version: v1363, Now: now1000, FeatureGates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}}
	capped250  = daemonset.Options{Version: v1363, Now: now1000, BurstLimit: 250}
	uncapped   = daemonset.Options{Version: v1363, Now: now1000, BurstLimit: daemonset.NoBurstLimit}
)

var _ = resource.MustParse

type scenario struct {
	name string
	// surprises lists the numbers of the Surprises section this case demonstrates.
	surprises []int
	ds        *appsv1.DaemonSet
	nodes     []*v1.Node
	pods      []*v1.Pod
	revisions []*appsv1.ControllerRevision
	opts      *daemonset.Options
	want      summary
}

// setup returns the scenario's DaemonSet and options: newDS() and opts() when it names none.
func (sc scenario) setup() (*appsv1.DaemonSet, daemonset.Options) {
	o := opts()
	if sc.opts != nil {
		o = *sc.opts
	}
	ds := sc.ds
	if ds == nil {
		ds = newDS()
	}
	return ds, o
}

func (sc scenario) run(t *testing.T) *daemonset.Result {
	t.Helper()
	ds, o := sc.setup()
	dsCopy := ds.DeepCopy()
	nodesCopy := deepNodes(sc.nodes)
	podsCopy := deepPods(sc.pods)
	var got *daemonset.Result
	if sc.revisions == nil {
		var err error
		got, err = daemonset.Plan(ds, sc.nodes, sc.pods, o)
		require.NoError(t, err)
	} else {
		p, _ := daemonset.Compile(ds, o)
		got = p.Plan(daemonset.Snapshot{Nodes: sc.nodes, Pods: sc.pods, Revisions: sc.revisions})
	}
	if diff := cmp.Diff(sc.want, summarize(got)); diff != "" {
		t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
	}
	requireUnmutated(t, dsCopy, ds, nodesCopy, sc.nodes, podsCopy, sc.pods)
	return got
}

func runScenarios(t *testing.T, tests []scenario) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t)
		})
	}
}

func deepNodes(in []*v1.Node) []*v1.Node {
	if in == nil {
		return nil
	}
	out := make([]*v1.Node, len(in))
	for i, n := range in {
		out[i] = n.DeepCopy()
	}
	return out
}

func deepPods(in []*v1.Pod) []*v1.Pod {
	if in == nil {
		return nil
	}
	out := make([]*v1.Pod, len(in))
	for i, p := range in {
		out[i] = p.DeepCopy()
	}
	return out
}

func requireUnmutated(t *testing.T, dsWant, dsGot *appsv1.DaemonSet, nodesWant, nodesGot []*v1.Node, podsWant, podsGot []*v1.Pod) {
	t.Helper()
	if diff := cmp.Diff(dsWant, dsGot); diff != "" {
		t.Errorf("DaemonSet mutated (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(nodesWant, nodesGot); diff != "" {
		t.Errorf("nodes mutated (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(podsWant, podsGot); diff != "" {
		t.Errorf("pods mutated (-before +after):\n%s", diff)
	}
}

// scenarios is every scenario table.
func scenarios() []scenario {
	return slices.Concat(eligibilityScenarios(), tolerationScenarios(), diffScenarios(), ownershipScenarios(),
		syncScenarios(), statusScenarios(), rollingUpdateScenarios())
}

// TestSurprisesCovered keeps the promise that each of the 34 Surprises has a test: the
// scenario tables of each rule family, or the named test for those about the created pod,
// validation and the hash.
func TestSurprisesCovered(t *testing.T) {
	t.Parallel()
	covered := map[int]string{
		11: "TestNewPodSCN38DefaultTolerations",
		12: "TestNewPodSCN37RequiredTermsReplaced",
		17: "TestPlanSurprise17NilSelectorInvalid",
		29: "TestRevisionSCN104MatchingRevisionLabel",
		30: "TestRevisionSCN105CollisionCount",
		32: "TestStatusSurprise32ObservedGenerationAfterFailedStep",
	}
	for _, sc := range scenarios() {
		for _, n := range sc.surprises {
			covered[n] = sc.name
		}
	}
	for n := 1; n <= 34; n++ {
		require.Contains(t, covered, n, "Surprise %d has no test", n)
	}
}

// rtPlan plans one sync of ds on the snapshot through Compile and (*Planner).Plan, and checks
// that no input was modified.
func rtPlan(t *testing.T, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs ...*appsv1.ControllerRevision) *daemonset.Result {
	t.Helper()
	return rtPlanWith(t, opts(), ds, nodes, pods, revs...)
}

func rtPlanWith(t *testing.T, opts daemonset.Options, ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs ...*appsv1.ControllerRevision) *daemonset.Result {
	t.Helper()
	s := daemonset.Snapshot{Nodes: nodes, Pods: pods, Revisions: revs}
	require.Empty(t, s.Check())
	before := rtCopy(ds, s)
	p, _ := daemonset.Compile(ds, opts)
	res := p.Plan(s)
	require.NotNil(t, res)
	rtRequireUnchanged(t, before, ds, s)
	return res
}

type rtInputs struct {
	ds   *appsv1.DaemonSet
	dss  []*appsv1.DaemonSet
	nds  []*v1.Node
	pods []*v1.Pod
	revs []*appsv1.ControllerRevision
}

func rtCopy(ds *appsv1.DaemonSet, s daemonset.Snapshot) rtInputs {
	c := rtInputs{}
	if ds != nil {
		c.ds = ds.DeepCopy()
	}
	for _, d := range s.DaemonSets {
		c.dss = append(c.dss, d.DeepCopy())
	}
	for _, n := range s.Nodes {
		c.nds = append(c.nds, n.DeepCopy())
	}
	for _, p := range s.Pods {
		c.pods = append(c.pods, p.DeepCopy())
	}
	for _, r := range s.Revisions {
		c.revs = append(c.revs, r.DeepCopy())
	}
	return c
}

func rtRequireUnchanged(t *testing.T, before rtInputs, ds *appsv1.DaemonSet, s daemonset.Snapshot) {
	t.Helper()
	after := rtCopy(ds, s)
	if d := cmp.Diff(before, after, cmp.AllowUnexported(rtInputs{})); d != "" {
		t.Fatalf("inputs were modified (-before +after):\n%s", d)
	}
}

func rtCreateNodes(res *daemonset.Result) []string {
	out := []string{}
	for _, c := range res.Create {
		out = append(out, c.Node)
	}
	return out
}

// rtDeletes lists the deletions as "name@node:reason".
func rtDeletes(res *daemonset.Result) []string {
	out := []string{}
	for _, d := range res.Delete {
		out = append(out, fmt.Sprintf("%s@%s:%s", d.Name, d.Node, d.Reason))
	}
	return out
}

func rtRefs(refs []daemonset.ObjectRef) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.Namespace+"/"+r.Name)
	}
	return out
}

// rtCounts is the seven status counters in STAT order: desired, current, misscheduled, ready,
// available, unavailable, updated.
type rtCounts [7]int32

func rtStatus(t *testing.T, res *daemonset.Result) rtCounts {
	t.Helper()
	require.NotNil(t, res.Status)
	s := res.Status
	return rtCounts{s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberMisscheduled,
		s.NumberReady, s.NumberAvailable, s.NumberUnavailable, s.UpdatedNumberScheduled}
}

type rtCase struct {
	name string
	run  func(t *testing.T)
}

func rtRun(t *testing.T, cases []rtCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}
