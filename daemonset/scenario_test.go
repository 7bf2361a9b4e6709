package daemonset_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The scenario checklist (SCN-01..SCN-70, SCN-99..SCN-107) and the Surprises, run through
// daemonset.Plan with the checklist's conventions: DS foo in namespace default, selector and
// template labels app=d, strategy OnDelete unless said, nodes untainted and unlabelled, pods
// controlled by the DS with the current hash, Running, not Ready; now = 1000.

var now1000 = time.Unix(1000, 0).UTC()

func opts() daemonset.Options { return daemonset.Options{Now: now1000} }

// ---- builders ----

type dsMod func(*appsv1.DaemonSet)

func newDS(mods ...dsMod) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default", UID: "uid-foo", Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec: v1.PodSpec{
					RestartPolicy: v1.RestartPolicyAlways,
					Containers:    []v1.Container{{Name: "c", Image: "img"}},
				},
			},
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			RevisionHistoryLimit: ptr[int32](10),
		},
	}
	for _, m := range mods {
		m(ds)
	}
	return ds
}

func ptr[T any](v T) *T { return &v }

func rolling(mu, ms *intstr.IntOrString) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
			Type:          appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: mu, MaxSurge: ms},
		}
	}
}

func ios(i int) *intstr.IntOrString      { v := intstr.FromInt32(int32(i)); return &v }
func iostr(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }

var surgeDS = rolling(ios(0), ios(1))

func nodeSelector(kv ...string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			ds.Spec.Template.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func requiredTerms(terms ...v1.NodeSelectorTerm) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
}

func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func term(exprs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: exprs}
}

func fieldTerm(fields ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchFields: fields}
}

func tolerations(tols ...v1.Toleration) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Tolerations = tols }
}

type nodeMod func(*v1.Node)

func node(name string, mods ...nodeMod) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, m := range mods {
		m(n)
	}
	return n
}

func nodes(k int) []*v1.Node {
	out := make([]*v1.Node, k)
	for i := range out {
		out[i] = node(fmt.Sprintf("n%d", i))
	}
	return out
}

func labels(kv ...string) nodeMod {
	return func(n *v1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func taint(key, value string, effect v1.TaintEffect) nodeMod {
	return func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	}
}

type podMod func(*v1.Pod)

// pod is a daemon pod of the default DS bound to nodeName, with the current hash of newDS()
// (callers with another template use hashOf), phase Running, not Ready.
func pod(name, nodeName string, mods ...podMod) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			Labels:            map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: defaultHash()},
			OwnerReferences:   []metav1.OwnerReference{ownedBy("DaemonSet", "foo", "uid-foo", true)},
			CreationTimestamp: metav1.Unix(1, 0),
		},
		Spec:   v1.PodSpec{NodeName: nodeName},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func ownedBy(kind, name string, uid types.UID, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr(controller)}
}

// defaultHash is the current hash of newDS(), computed once: hashing dumps the whole template.
var defaultHash = sync.OnceValue(func() string { return hashOf(newDS()) })

func hashOf(ds *appsv1.DaemonSet) string {
	return daemonset.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

func phase(ph v1.PodPhase) podMod { return func(p *v1.Pod) { p.Status.Phase = ph } }
func created(sec int64) podMod    { return func(p *v1.Pod) { p.CreationTimestamp = metav1.Unix(sec, 0) } }
func terminating(p *v1.Pod)       { p.DeletionTimestamp = ptr(metav1.Unix(500, 0)) }
func hashLabel(h string) podMod {
	return func(p *v1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h }
}
func oldHash(p *v1.Pod)                    { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "old" }
func podLabels(l map[string]string) podMod { return func(p *v1.Pod) { p.Labels = l } }
func orphan(p *v1.Pod)                     { p.OwnerReferences = nil }
func owners(refs ...metav1.OwnerReference) podMod {
	return func(p *v1.Pod) { p.OwnerReferences = refs }
}
func namespace(ns string) podMod { return func(p *v1.Pod) { p.Namespace = ns } }

// readyAt makes the pod Ready=True with lastTransitionTime sec (0: unset).
func readyAt(sec int64) podMod {
	return func(p *v1.Pod) {
		c := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
		if sec != 0 {
			c.LastTransitionTime = metav1.Unix(sec, 0)
		}
		p.Status.Conditions = append(p.Status.Conditions, c)
	}
}

var ready = readyAt(1)

// unscheduledFor drops spec.nodeName and aims the pod at target through required affinity,
// as the controller's own pods are before scheduling (OWN-9).
func unscheduledFor(target string) podMod {
	return func(p *v1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				fieldTerm(expr("metadata.name", v1.NodeSelectorOpIn, target)),
			}},
		}}
	}
}

// ---- plan summary ----

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

func (sc scenario) run(t *testing.T) *daemonset.Result {
	t.Helper()
	o := opts()
	if sc.opts != nil {
		o = *sc.opts
	}
	ds := sc.ds
	if ds == nil {
		ds = newDS()
	}
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

func withNodeName(name string) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = name }
}

func tol(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect) v1.Toleration {
	return v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

func numberedNodes(prefix string, k int) []*v1.Node {
	out := make([]*v1.Node, k)
	for i := range out {
		out[i] = node(fmt.Sprintf("%s%03d", prefix, i))
	}
	return out
}

func sortedNames(prefix string, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	slices.Sort(out)
	return out
}

var _ = resource.MustParse

func scenarios() []scenario {
	noneStatus := st(0, 0, 0, 0, 0, 0, 0)
	hostNet := func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }
	gateOn := daemonset.Options{Now: now1000, TolerationComparisonOperators: true}
	capped := daemonset.Options{Now: now1000, BurstLimit: 250}
	minReady := func(s int32) dsMod { return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = s } }
	failedEvent := func(pods ...string) []string {
		out := []string{}
		for _, p := range pods {
			out = append(out, "FailedDaemonPod default/"+p)
		}
		return out
	}
	withEvents := func(s summary, events ...string) summary { s.Events = events; return s }
	withAdopt := func(s summary, names ...string) summary { s.Adopt = names; return s }
	withRelease := func(s summary, names ...string) summary { s.Release = names; return s }
	skipped := func(rule daemonset.Skip, events ...string) summary {
		s := sum(nil, nil, nil)
		s.Skipped = rule
		s.Events = orEmpty(events)
		return s
	}

	var (
		bigNodes      = numberedNodes("n", 300)
		missingPods   []*v1.Pod
		missingDelete []string
	)
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("u%03d", i)
		missingPods = append(missingPods, pod(name, "", unscheduledFor(fmt.Sprintf("m%03d", i))))
		if i < 250 {
			missingDelete = append(missingDelete, name+":UnscheduledOnMissingNode~")
		}
	}
	var firstCapped []string
	for _, n := range sortedNames("n", 300)[:250] {
		firstCapped = append(firstCapped, n+"~")
	}

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
				node("n1", func(n *v1.Node) { n.DeletionTimestamp = ptr(metav1.Unix(10, 0)) }),
			},
			want: sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2))},
		{name: "SCN-20 ELIG-7 resources are not considered", surprises: []int{8},
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100")}
			}),
			nodes: []*v1.Node{node("n0", func(n *v1.Node) { n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")} })},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},

		// Taints and tolerations.
		{name: "SCN-21 TAINT-4 an untolerated NoSchedule taint blocks new pods",
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-22 ELIG-4 STAT-4 a NoSchedule taint keeps the existing pod, counted misscheduled", surprises: []int{9},
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule))}, pods: []*v1.Pod{pod("p0", "n0")},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-23 TAINT-5 DIFF-4 an untolerated NoExecute taint evicts the pod",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))}, pods: []*v1.Pod{pod("p0", "n0")},
			want: sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-24 TAINT-6 PreferNoSchedule is ignored",
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectPreferNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-25 TAINT-6 an unknown effect is ignored",
			nodes: []*v1.Node{node("n0", taint("k", "v", "Bogus"))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-26 TAINT-1 an empty-key Exists toleration tolerates every taint",
			ds:    newDS(tolerations(v1.Toleration{Operator: v1.TolerationOpExists})),
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoExecute), taint("x", "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-27 TAINT-1 an Equal toleration with another value does not tolerate: no create, existing kept",
			ds:    newDS(tolerations(tol("k", "", "w", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule)), node("n1", taint("k", "v", v1.TaintEffectNoSchedule))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-28 TAINT-1 a NoSchedule toleration does not tolerate NoExecute: delete existing",
			ds:    newDS(tolerations(tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule))),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute)), node("n1", taint("k", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-29 TAINT-7 tolerationSeconds is ignored: a 1s NoExecute toleration fully tolerates", surprises: []int{10},
			ds:    newDS(tolerations(v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](1)})),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-30 TAINT-1 D-7 a Gt toleration tolerates nothing with the gate off",
			ds:    newDS(tolerations(tol("k", "Gt", "1", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "5", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-30 TAINT-10 D-7 a Gt toleration tolerates a larger value with the gate on",
			ds:    newDS(tolerations(tol("k", "Gt", "1", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "5", v1.TaintEffectNoSchedule))}, opts: &gateOn,
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-31 DEFTOL-7 the cordon taint is tolerated by default", surprises: []int{6},
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-32 DEFTOL-5 not-ready NoExecute is tolerated, not-ready NoSchedule blocks new pods but keeps old ones", surprises: []int{7},
			nodes: []*v1.Node{
				node("n0", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoExecute)),
				node("n1", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)),
				node("n2", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)),
			},
			pods: []*v1.Pod{pod("p1", "n1")},
			want: sum(list("n0"), nil, st(1, 0, 1, 0, 0, 0, 1))},
		{name: "SCN-33 DEFTOL-1 network-unavailable blocks a pod without hostNetwork",
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-33 DEFTOL-1 network-unavailable is tolerated with hostNetwork", ds: newDS(hostNet),
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-34 DEFTOL-5 out-of-service NoExecute is not defaulted: the pod is deleted",
			nodes: []*v1.Node{node("n0", taint("node.kubernetes.io/out-of-service", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},

		// Failed, succeeded, terminating, duplicates, missing nodes.
		{name: "SCN-40 DIFF-5 STAT-3 a lone failed pod is deleted now and replaced only later", surprises: []int{1},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: withEvents(sum(nil, list("p0:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("p0")...)},
		{name: "SCN-41 DIFF-6 with surge a lone failed pod is deleted and replaced in one sync", surprises: []int{1},
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: withEvents(sum(list("n0"), list("p0:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("p0")...)},
		{name: "SCN-42 DIFF-3 DIFF-5 the failed pod and all but the oldest running pod go",
			nodes: nodes(1), pods: []*v1.Pod{pod("f", "n0", phase(v1.PodFailed)), pod("r10", "n0", created(10)), pod("r20", "n0", created(20)), pod("r30", "n0", created(30))},
			want: withEvents(sum(nil, list("f:FailedPod", "r20:DuplicatePod", "r30:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("f")...)},
		{name: "SCN-43 DIFF-3 a lone succeeded pod is deleted with a Normal event, no create", surprises: []int{1},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodSucceeded))},
			want: withEvents(sum(nil, list("p0:SucceededPod"), st(1, 1, 0, 0, 1, 0, 1)), "SucceededDaemonPod default/p0")},
		{name: "SCN-44 OWN-10 a terminating succeeded pod is invisible: the node gets a create", surprises: []int{5},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodSucceeded), terminating)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-45 DIFF-3 STAT-3 a terminating running pod blocks creation and counts as current, ready, available", surprises: []int{4},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", ready, terminating)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-46 DIFF-6 with surge a terminating pod does not block the create",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", ready, terminating)},
			want: sum(list("n0"), nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-47 DIFF-7 equal timestamps keep the smallest name",
			nodes: nodes(1), pods: []*v1.Pod{pod("zeta", "n0"), pod("alpha", "n0"), pod("mid", "n0")},
			want: sum(nil, list("mid:DuplicatePod", "zeta:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-48 DIFF-7 an older pending pod beats a newer running ready one", surprises: []int{2},
			nodes: nodes(1), pods: []*v1.Pod{pod("old", "n0", created(1), phase(v1.PodPending)), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("new:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-49 DIFF-7 STAT-5 a scheduled pod beats an older unscheduled ready one", surprises: []int{2},
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"), created(1), ready), pod("s", "n0", created(2))},
			want: sum(nil, list("u:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-50 STAT-5 a failed oldest pod hides a ready younger one", surprises: []int{3},
			nodes: nodes(1), pods: []*v1.Pod{pod("f", "n0", created(10), phase(v1.PodFailed)), pod("r", "n0", created(20), ready)},
			want: withEvents(sum(nil, list("f:FailedPod"), st(1, 1, 0, 0, 1, 0, 1)), failedEvent("f")...)},
		{name: "SCN-51 DIFF-8 an unscheduled pod aimed at a missing node is deleted", surprises: []int{20},
			nodes: nodes(1), pods: []*v1.Pod{pod("u9", "", unscheduledFor("n9")), pod("u0", "", unscheduledFor("n0"))},
			want: sum(nil, list("u9:UnscheduledOnMissingNode"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-52 DIFF-8 a terminating unscheduled pod aimed at a missing node is deleted again", surprises: []int{4, 20},
			nodes: nodes(1), pods: []*v1.Pod{pod("u9", "", unscheduledFor("n9"), terminating)},
			want: sum(list("n0"), list("u9:UnscheduledOnMissingNode"), st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-53 DIFF-8 STAT-7 a bound pod on a missing node is left alone and counted nowhere", surprises: []int{20},
			nodes: nodes(1), pods: []*v1.Pod{pod("s9", "n9"), pod("p0", "n0")},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "SCN-54 OWN-9 an owned pod without a target node is ignored",
			nodes: nodes(1), pods: []*v1.Pod{pod("x", "")},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-55 DIFF-4 a failed pod on a NoExecute node is deleted as ineligible without event",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))}, pods: []*v1.Pod{pod("p0", "n0", phase(v1.PodFailed))},
			want: sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},

		// Ownership.
		{name: "SCN-56 OWN-4 a matching orphan is adopted and fills its node",
			nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: withAdopt(sum(list("n1"), nil, st(2, 1, 0, 0, 1, 0, 2)), "o0")},
		{name: "SCN-57 OWN-4 a terminating orphan is not adopted", surprises: []int{19},
			nodes: nodes(1), pods: []*v1.Pod{pod("o0", "n0", orphan, terminating)},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-58 OWN-3 an owned pod whose labels no longer match is released and replaced",
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", podLabels(map[string]string{"app": "other"}))},
			want: withRelease(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "p0")},
		{name: "SCN-59 OWN-1 a pod controlled by another DaemonSet is invisible",
			nodes: nodes(1), pods: []*v1.Pod{pod("b0", "n0", owners(ownedBy("DaemonSet", "bar", "uid-bar", true)))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-60 OWN-1 a controller reference with the DaemonSet's uid but kind ReplicaSet is invisible", surprises: []int{18},
			nodes: nodes(1), pods: []*v1.Pod{pod("r0", "n0", owners(ownedBy("ReplicaSet", "foo", "uid-foo", true)))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-61 OWN-1 a matching orphan in another namespace is invisible",
			nodes: nodes(1), pods: []*v1.Pod{pod("o0", "n0", orphan, namespace("other"))},
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-62 OWN-6 a non-controller reference to the DaemonSet leaves an orphan, which is adopted", surprises: []int{18},
			nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", owners(ownedBy("DaemonSet", "foo", "uid-foo", false)))},
			want: withAdopt(sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1)), "p0")},
		{name: "SCN-63 OWN-5 OWN-9 an orphan without a target node is adopted and otherwise ignored", surprises: []int{19},
			nodes: nodes(1), pods: []*v1.Pod{pod("o", "", orphan)},
			want: withAdopt(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "o")},
		{name: "SCN-64 SYNC-4 D-9 a DaemonSet being deleted gets nothing, not even status",
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.DeletionTimestamp = ptr(metav1.Unix(5, 0)) }), nodes: nodes(2),
			want: skipped(daemonset.SkipBeingDeleted)},
		{name: "SCN-65 SYNC-3 D-8 D-9 the empty selector {} does nothing but warn",
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }), nodes: nodes(2),
			pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: skipped(daemonset.SkipSelectingAll, "SelectingAll")},
		{name: "SCN-66 SYNC-3 SEL-2 matchLabels {} bypasses the guard and adopts every orphan", surprises: []int{16},
			ds:    newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}} }),
			nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan, podLabels(map[string]string{"x": "y"}))},
			want: withAdopt(sum(list("n1"), nil, st(2, 1, 0, 0, 0, 0, 2)), "o0")},
		{name: "SCN-67 SEL-1 a nil selector releases every owned pod", surprises: []int{16},
			ds: newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }), nodes: nodes(2), pods: []*v1.Pod{pod("p0", "n0")},
			want: withRelease(sum(list("n0", "n1"), nil, st(2, 0, 0, 0, 0, 0, 2)), "p0")},
		{name: "SCN-68 SEL-6 SYNC-5 D-9 an unconvertible selector stops the whole sync", surprises: []int{15},
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Gt", Values: []string{"1"}}}}
			}), nodes: nodes(2), pods: []*v1.Pod{pod("o0", "n0", orphan)},
			want: skipped(daemonset.SkipInvalidSelector)},

		// Burst.
		{name: "SCN-69 DIFF-10 D-1 the cap keeps the first 250 creates by node name, marked", nodes: bigNodes, opts: &capped,
			want: sum(firstCapped, nil, st(300, 0, 0, 0, 0, 0, 300))},
		{name: "SCN-69 DIFF-10 uncapped, every create is reported", nodes: bigNodes,
			want: sum(sortedNames("n", 300), nil, st(300, 0, 0, 0, 0, 0, 300))},
		{name: "SCN-70 DIFF-10 D-1 creates and deletes are capped separately", nodes: nodes(1), pods: missingPods, opts: &capped,
			want: sum(list("n0"), missingDelete, st(1, 0, 0, 0, 0, 0, 1))},

		// Status and time.
		{name: "SCN-99 UPD-12 one second before minReadySeconds elapse the pod is ready, not available",
			ds: newDS(minReady(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Now: time.Unix(109, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 0, 1))},
		{name: "SCN-99 UPD-12 availability is inclusive at the boundary", surprises: []int{33},
			ds: newDS(minReady(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Now: time.Unix(110, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-99 UPD-12 after the boundary the pod stays available",
			ds: newDS(minReady(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Now: time.Unix(111, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-100 UPD-12 a ready pod without lastTransitionTime is never available with minReadySeconds", surprises: []int{33},
			ds: newDS(minReady(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(0))},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 0, 1))},
		{name: "SCN-101 STAT-5 during a surge the older old pod makes the node not updated",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("o", "n0", oldHash, created(1), ready), pod("n", "n0", created(2))},
			want: sum(nil, nil, st(1, 1, 0, 1, 0, 1, 0))},
		{name: "SCN-103 STAT-4 NoSchedule and NoExecute nodes both count as misscheduled",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoSchedule)), node("n1", taint("k", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0"), pod("p1", "n1")},
			want:  sum(nil, list("p1:NodeNotEligible"), st(0, 0, 2, 0, 0, 0, 0))},

		// Surprises of the rolling update, through the whole plan.
		{name: "Surprise-21 SCN-71 UPD-2 a non-empty base diff blocks the rolling update",
			surprises: []int{21}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready)},
			want: sum(list("n2"), nil, st(3, 2, 0, 2, 0, 2, 1))},
		{name: "Surprise-22 SCN-77 UPD-5 maxUnavailable 1% of 3 rounds up to one deletion",
			surprises: []int{22}, ds: newDS(rolling(iostr("1%"), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-22 SCN-78 UPD-6 maxUnavailable 0 with maxSurge 0 behaves like 1",
			surprises: []int{22}, ds: newDS(rolling(ios(0), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-23 SCN-75 UPD-8 unavailable old pods go without spending the budget",
			surprises: []int{23}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash), pod("p1", "n1", oldHash), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldUnavailable", "p1:UpdateOldUnavailable"), st(3, 3, 0, 1, 0, 1, 2))},
		{name: "Surprise-23 SCN-76 UPD-8 a node holding only a terminating pod spends the budget",
			surprises: []int{23}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready, terminating), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want: sum(nil, nil, st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-24 SCN-72 UPD-9 D-1 which available old pod goes is a marked deterministic choice",
			surprises: []int{24}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(3),
			pods: []*v1.Pod{pod("p2", "n2", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p0", "n0", oldHash, ready)},
			want: sum(nil, list("p0:UpdateOldCandidate~"), st(3, 3, 0, 3, 0, 3, 0))},
		{name: "Surprise-25 SCN-83 UPD-10 an old pod on a NoSchedule node is a deletion candidate",
			surprises: []int{25, 9}, ds: newDS(rolling(ios(1), ios(0))),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoSchedule)), node("n1"), node("n2")},
			pods:  []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready)},
			want:  sum(nil, list("p0:UpdateOldCandidate~"), st(2, 2, 1, 2, 0, 2, 0))},
		{name: "Surprise-26 SCN-96 UPD-11 SYNC-6 with surge an old pod on a missing node fails the step, status stays",
			surprises: []int{26}, ds: newDS(rolling(ios(0), ios(1))), nodes: nodes(1),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p9", "n9", oldHash, ready)},
			want: sum(nil, nil, st(1, 1, 0, 1, 0, 1, 0))},
		{name: "Surprise-26 SCN-84 UPD-10 without surge the old pod on a missing node is just a candidate",
			surprises: []int{26}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(2),
			pods: []*v1.Pod{pod("p9", "n9", oldHash, ready), pod("p0", "n0", ready), pod("p1", "n1", ready)},
			want: sum(nil, list("p9:UpdateOldCandidate"), st(2, 2, 0, 2, 2, 2, 0))},
		{name: "Surprise-27 SCN-98 UPD-7 maxUnavailable and maxSurge both set runs the surge algorithm",
			surprises: []int{27}, ds: newDS(rolling(ios(2), ios(1))), nodes: nodes(4),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready), pod("p2", "n2", oldHash, ready), pod("p3", "n3", oldHash, ready)},
			want: sum(list("n0~"), nil, st(4, 4, 0, 4, 0, 4, 0))},
		{name: "Surprise-28 SCN-81 UPD-3 a matching pod-template-generation makes an old-hash pod updated",
			surprises: []int{28}, ds: newDS(rolling(ios(1), ios(0)), func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
			}), nodes: nodes(1),
			pods: []*v1.Pod{pod("p0", "n0", oldHash, ready, func(p *v1.Pod) { p.Labels[daemonset.LabelTemplateGeneration] = "3" })},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "Surprise-28 DIFF-6 the surge duplicate rule reads the hash only, not the generation",
			surprises: []int{28}, ds: newDS(surgeDS, func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
			}), nodes: nodes(1),
			pods: []*v1.Pod{
				pod("a", "n0", oldHash, created(1), ready, func(p *v1.Pod) { p.Labels[daemonset.LabelTemplateGeneration] = "3" }),
				pod("b", "n0", oldHash, created(2), ready, func(p *v1.Pod) { p.Labels[daemonset.LabelTemplateGeneration] = "3" }),
			},
			want: sum(nil, list("b:DuplicatePod"), st(1, 1, 0, 1, 1, 1, 0))},
		{name: "Surprise-31 SCN-85 UPD-24 dropping surge mid-rollout deletes the newer, updated pod",
			surprises: []int{31}, ds: newDS(rolling(ios(1), ios(0))), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1), ready), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("new:DuplicatePod"), st(1, 1, 0, 1, 0, 1, 0))},
		{name: "SCN-89 DIFF-6 with surge an available new pod replaces the old one in the base diff",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1), ready), pod("new", "n0", created(2), ready)},
			want: sum(nil, list("old:SurgeNewAvailable"), st(1, 1, 0, 1, 0, 1, 0))},
		{name: "SCN-90 DIFF-6 with surge an old pod that is not ready goes at once",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("old", "n0", oldHash, created(1)), pod("new", "n0", created(2))},
			want: sum(nil, list("old:SurgeOldNotReady"), st(1, 1, 0, 0, 0, 0, 1))},
		{name: "SCN-97 DIFF-6 extra old and new pods go, the oldest of each kind stay",
			ds: newDS(surgeDS), nodes: nodes(1),
			pods: []*v1.Pod{pod("o1", "n0", oldHash, created(1), ready), pod("o2", "n0", oldHash, created(2), ready),
				pod("n3", "n0", created(3)), pod("n4", "n0", created(4))},
			want: sum(nil, list("n4:DuplicatePod", "o2:DuplicatePod"), st(1, 1, 0, 1, 0, 1, 0))},
	}
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t)
		})
	}
}

// TestSurprisesCovered keeps the promise that each of the 34 Surprises has a test: the
// scenario table above, or the named test for those about the created pod, validation and
// the hash.
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
