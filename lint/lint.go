package lint

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
	"github.com/daemonsched/daemonsched/schedule"
	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Options are the inputs of [Lint] that are not API objects.
type Options struct {
	// Plan are the options the DaemonSets are compiled and planned with; Plan.Now is required,
	// as for daemonset.Compile.
	Plan daemonset.Options
	// DaemonSets are the "namespace/name" keys of the DaemonSets to lint; nil means every
	// DaemonSet of the snapshot. The others are still read, as the neighbours LINT-5 compares
	// with. The slice is only read.
	DaemonSets []string
}

// Finding is one problem of one DaemonSet.
type Finding struct {
	// Rule is the rule's ID (LINT-1, ...) and Name its CamelCase name, both stable.
	Rule     string   `json:"rule"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// Namespace and DaemonSet name the DaemonSet the finding is about.
	Namespace string `json:"namespace"`
	DaemonSet string `json:"daemonSet"`
	// Field is the path of the field to change, rooted at the DaemonSet
	// (spec.updateStrategy.rollingUpdate.maxSurge).
	Field   string `json:"field"`
	Message string `json:"message"`
	// Nodes are the nodes concerned, sorted; empty for a rule about the spec alone.
	Nodes []string `json:"nodes,omitempty"`
}

// Lint checks the DaemonSets of s that opts selects and returns their findings, sorted by
// namespace, DaemonSet, rule number, field and message; an empty, non-nil slice when there is
// none. The rules that need a cluster (Rule.NeedsCluster) run only when s holds nodes: without
// them s is a set of manifests, not a cluster. Pods count only for LINT-7 (what is free on a
// node) and, with revisions, for the plan LINT-2 reads its budget from.
//
// A DaemonSet that does not compile is an error naming it and its field problems (the first
// 100, then how many more); the others
// are still linted, and their findings returned with the error. s is not modified.
func Lint(s daemonset.Snapshot, opts Options) ([]Finding, error) {
	opts.Plan.Check()
	want := map[string]bool{}
	for _, k := range opts.DaemonSets {
		want[k] = true
	}
	l := linter{s: s, out: []Finding{}, opts: opts}
	var errs []error
	for _, ds := range s.DaemonSets {
		if opts.DaemonSets != nil && !want[ds.Namespace+"/"+ds.Name] {
			continue
		}
		p, ferrs := daemonset.Compile(ds, opts.Plan)
		if len(ferrs) > 0 {
			errs = append(errs, fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, errlist.Aggregate(ferrs)))
			continue
		}
		l.daemonSet(p)
	}
	slices.SortFunc(l.out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.DaemonSet, b.DaemonSet),
			cmp.Compare(ruleNumber(a.Rule), ruleNumber(b.Rule)), cmp.Compare(a.Field, b.Field), cmp.Compare(a.Message, b.Message))
	})
	return l.out, errors.Join(errs...)
}

// ruleNumber is the number of a rule ID, after its dash.
func ruleNumber(id string) int {
	_, n, _ := strings.Cut(id, "-")
	i, _ := strconv.Atoi(n)
	return i
}

// linter is one call of Lint: the snapshot, the findings so far and what is indexed lazily.
type linter struct {
	s   daemonset.Snapshot
	out []Finding
	// podsByNode are the non-terminal pods bound to each node, built on first use (LINT-2,
	// LINT-7).
	podsByNode map[string][]*v1.Pod
	// classes are the priority classes the pods show the values of, learnt on first use.
	classes map[string]int32
	opts    Options
}

var (
	specPath     = field.NewPath("spec")
	podSpecPath  = specPath.Child("template", "spec")
	rollingPath  = specPath.Child("updateStrategy", "rollingUpdate")
	placementFor = map[daemonset.Reason]*field.Path{
		daemonset.ReasonNodeNameMismatch:     podSpecPath.Child("nodeName"),
		daemonset.ReasonNodeSelectorMismatch: podSpecPath.Child("nodeSelector"),
		daemonset.ReasonNodeAffinityMismatch: podSpecPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"),
	}
)

func (l *linter) add(ds *appsv1.DaemonSet, id string, fldPath *field.Path, nodes []string, format string, args ...any) {
	r := rule(id)
	slices.Sort(nodes)
	l.out = append(l.out, Finding{Rule: r.ID, Name: r.Name, Severity: r.Severity, Namespace: ds.Namespace, DaemonSet: ds.Name,
		Field: fldPath.String(), Message: fmt.Sprintf(format, args...), Nodes: nodes})
}

func (l *linter) daemonSet(p *daemonset.Planner) {
	ds := p.DaemonSet()
	l.hostPortWithSurge(ds)
	l.overlappingSelector(ds)
	if n := ds.Spec.RevisionHistoryLimit; n != nil && *n == 0 {
		l.add(ds, RuleNoRevisionHistory, specPath.Child("revisionHistoryLimit"), nil,
			"revisionHistoryLimit is 0: the controller keeps no old revision, so there is nothing to roll back to")
	}
	if len(l.s.Nodes) == 0 {
		return
	}
	// One pass over the nodes with the controller's decision for each (ELIG-1, ELIG-6).
	var eligible, staying []*v1.Node
	placed := 0
	untolerated := map[v1.Taint][]string{}
	misplaced := map[daemonset.Reason][]string{}
	for _, node := range l.s.Nodes {
		e := p.Eligibility(node)
		switch e.Reason {
		case "":
			eligible = append(eligible, node)
			placed++
		case daemonset.ReasonTaintNotTolerated, daemonset.ReasonNoExecuteTaintNotTolerated:
			untolerated[e.Taint] = append(untolerated[e.Taint], node.Name)
			placed++
			if e.ShouldContinueRunning {
				staying = append(staying, node)
			}
		case daemonset.ReasonNodeNameMismatch, daemonset.ReasonNodeSelectorMismatch, daemonset.ReasonNodeAffinityMismatch:
			misplaced[e.Reason] = append(misplaced[e.Reason], node.Name)
		default:
			placed++
		}
	}
	for _, t := range slices.SortedFunc(maps.Keys(untolerated), compareTaints) {
		nodes := untolerated[t]
		l.add(ds, RuleTaintNotTolerated, podSpecPath.Child("tolerations"), nodes,
			"taint %s, which the pod does not tolerate, keeps it off %s the placement selects", t.ToString(), countNodes(len(nodes)))
	}
	if placed == 0 {
		for _, reason := range slices.Sorted(maps.Keys(misplaced)) {
			nodes := misplaced[reason]
			l.add(ds, RulePlacementMatchesNoNode, placementFor[reason], nodes,
				"matches none of the %d nodes (%s on %d): the DaemonSet runs no pod", len(l.s.Nodes), reason, len(nodes))
		}
	}
	l.budgetUsedByDownNodes(p, eligible, staying)
	l.requests(ds, eligible)
}

// compareTaints orders taints by key, value, then effect.
func compareTaints(a, b v1.Taint) int {
	return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value), cmp.Compare(a.Effect, b.Effect))
}

func countNodes(n int) string {
	if n == 1 {
		return "1 node"
	}
	return strconv.Itoa(n) + " nodes"
}

// hostPortWithSurge is LINT-1. A maxSurge that resolves above 0 against one node surges on
// every cluster with a node to run on (percentages round up, UPD-5).
func (l *linter) hostPortWithSurge(ds *appsv1.DaemonSet) {
	st := ds.Spec.UpdateStrategy
	if st.Type != appsv1.RollingUpdateDaemonSetStrategyType || st.RollingUpdate == nil || st.RollingUpdate.MaxSurge == nil {
		return
	}
	if n, err := intstr.GetScaledValueFromIntOrPercent(st.RollingUpdate.MaxSurge, 1, true); err != nil || n <= 0 {
		return
	}
	ports := fleet.PodHostPorts(&ds.Spec.Template.Spec)
	if len(ports) == 0 {
		return
	}
	names := make([]string, len(ports))
	for i, hp := range ports {
		names[i] = fmt.Sprintf("%d/%s", hp.Port, hp.Protocol)
	}
	l.add(ds, RuleHostPortWithSurge, rollingPath.Child("maxSurge"), nil,
		"maxSurge %s with host port %s: the surge pod cannot bind beside the old pod, which holds the port, and the rollout stalls on the first node (use maxSurge 0 and maxUnavailable)",
		st.RollingUpdate.MaxSurge.String(), strings.Join(names, ", "))
}

// overlappingSelector is LINT-5: ds's selector matches the pod template of another DaemonSet of
// its namespace, so the orphans and revisions of either go to whichever sync comes first (D-2).
func (l *linter) overlappingSelector(ds *appsv1.DaemonSet) {
	sel, errs := selector.Compile(ds.Spec.Selector, nil)
	if len(errs) > 0 {
		return // Compile of the DaemonSet has refused it already.
	}
	for _, other := range l.s.DaemonSets {
		if other == ds || other.Namespace != ds.Namespace || other.Name == ds.Name {
			continue
		}
		if sel.Matches(other.Spec.Template.Labels) {
			l.add(ds, RuleOverlappingSelector, specPath.Child("selector"), nil,
				"matches the pod template labels of DaemonSet %s/%s: orphaned pods and revisions of either go to whichever the controller syncs first (D-2)", other.Namespace, other.Name)
		}
	}
}

// budgetUsedByDownNodes is LINT-2: with the non-surge algorithm (UPD-8), each target node that
// is down keeps its pod unavailable and holds one unit of maxUnavailable, so once they hold it
// all no healthy node is updated. The target nodes are those the rolling step walks: the
// eligible ones, and those staying (a NoSchedule taint keeps new pods off, such as the not-ready
// taint of a NotReady node, but a running pod may stay) that hold a pod of ds. The budget is the
// plan's own resolution (UPD-5, UPD-6). A surging update is left out: its budget is held
// differently (UPD-11).
func (l *linter) budgetUsedByDownNodes(p *daemonset.Planner, eligible, staying []*v1.Node) {
	ds := p.DaemonSet()
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return
	}
	target := slices.Clip(eligible)
	for _, node := range staying {
		if slices.ContainsFunc(l.pods(node.Name), func(pod *v1.Pod) bool { return l.opts.Plan.Version.IsControlledBy(pod, ds) }) {
			target = append(target, node)
		}
	}
	var down []string
	kinds := map[string]int{}
	for _, node := range target {
		if kind := downKind(node); kind != "" {
			down = append(down, node.Name)
			kinds[kind]++
		}
	}
	if len(down) == 0 {
		return
	}
	res := p.Plan(l.s)
	ru := res.RollingUpdate
	if ru == nil || ru.BudgetError != "" || ru.MaxSurge != 0 || ru.MaxUnavailable > len(down) {
		return
	}
	var parts []string
	for _, kind := range []string{"NotReady", "unreachable"} {
		if n := kinds[kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, kind))
		}
	}
	desired := 0
	if res.Status != nil {
		desired = int(res.Status.DesiredNumberScheduled)
	}
	l.add(ds, RuleBudgetUsedByDownNodes, rollingPath.Child("maxUnavailable"), down,
		"maxUnavailable resolves to %d of %d desired, and %d of the %d target nodes %s down now (%s): %s up the budget and the rollout deadlocks before it updates a healthy node",
		ru.MaxUnavailable, desired, len(down), len(target), agree(len(down), "is", "are"), strings.Join(parts, ", "), agree(len(down), "its pod uses", "their pods use"))
}

// downKind says why a node's daemon pod is unavailable however long one waits, from
// nodehealth.Down: "NotReady" (its Ready condition is False) or "unreachable" (Unknown, or
// the unreachable taint); "" when neither holds. A node without a Ready condition (a
// hand-written one) is not counted down, nor is a cordoned one: the daemon pod tolerates
// node.kubernetes.io/unschedulable (DEFTOL), so the rolling update replaces its pod like any
// other.
func downKind(node *v1.Node) string {
	switch nodehealth.Down(node) {
	case v1.ConditionFalse:
		return "NotReady"
	case v1.ConditionUnknown:
		return "unreachable"
	}
	return ""
}

// requests is LINT-6, LINT-7, LINT-11 and LINT-12: what the scheduler's filters (package
// schedule) say of the pod on each eligible node, with the node's other non-terminal pods (the
// DaemonSet's own, which the new pod replaces, left out). A node that reports no allocatable (a
// hand-written one) is skipped by the resource rules (LINT-6, LINT-7), though the scheduler
// would refuse every pod there (SCHED-1).
func (l *linter) requests(ds *appsv1.DaemonSet, eligible []*v1.Node) {
	spec := &ds.Spec.Template.Spec
	pod := schedule.Compile(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ds.Namespace}, Spec: *spec},
		schedule.Options{Version: l.opts.Plan.Version, FeatureGates: l.opts.Plan.FeatureGates, PriorityClasses: l.priorityClasses()})
	tooBig := map[v1.ResourceName][]*v1.Node{}
	tooBigQ := map[v1.ResourceName]resource.Quantity{}
	var noRoom []string
	var firstNoRoom string
	ports := map[fleet.HostPort][]string{}
	firstHolder := map[fleet.HostPort]string{}
	missing := map[string][]string{}
	for _, node := range eligible {
		var others []*v1.Pod
		for _, q := range l.pods(node.Name) {
			if !l.opts.Plan.Version.IsControlledBy(q, ds) {
				others = append(others, q)
			}
		}
		v := pod.Fit(node, others)
		if v.ResourcesUnknown {
			// The scheduler allows no pod on such a node (SCHED-1), but a hand-written node's
			// missing status is not the spec's to fix: LINT-6 and LINT-7 skip it.
			v.Insufficient, v.Preemption = nil, nil
		}
		unresolvable := false
		for _, in := range v.Insufficient {
			if in.Unresolvable {
				tooBig[in.Resource] = append(tooBig[in.Resource], node)
				tooBigQ[in.Resource] = in.Requested
				unresolvable = true
			}
		}
		for _, c := range v.PortConflicts {
			if _, ok := firstHolder[c.Port]; !ok {
				firstHolder[c.Port] = fmt.Sprintf("pod %s/%s on %s", c.Namespace, c.Name, node.Name)
			}
			ports[c.Port] = append(ports[c.Port], node.Name)
		}
		for _, f := range v.MissingFeatures {
			missing[f] = append(missing[f], node.Name)
		}
		if unresolvable || spec.PriorityClassName != "" || (v.Preemption != nil && v.Preemption.Possible) {
			continue
		}
		for _, in := range v.Insufficient {
			if in.Resource == v1.ResourcePods {
				continue // LINT-7 is about requests; a full pod count is not the spec's to fix
			}
			if noRoom == nil {
				free := in.Free()
				firstNoRoom = fmt.Sprintf("%s requests %s, %s free of %s on %s", in.Resource, in.Requested.String(), free.String(), in.Allocatable.String(), node.Name)
			}
			noRoom = append(noRoom, node.Name)
			break
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tooBig)) {
		nodes := tooBig[name]
		smallest := slices.MinFunc(nodes, func(a, b *v1.Node) int {
			qa, qb := a.Status.Allocatable[name], b.Status.Allocatable[name]
			return cmp.Or(qa.Cmp(qb), cmp.Compare(a.Name, b.Name))
		})
		a, q := smallest.Status.Allocatable[name], tooBigQ[name]
		if a.IsZero() {
			a = *resource.NewQuantity(0, resource.DecimalSI)
		}
		nodeNames := make([]string, len(nodes))
		for i, n := range nodes {
			nodeNames[i] = n.Name
		}
		l.add(ds, RuleRequestsExceedAllocatable, requestPath(spec, name), nodeNames,
			"the pod requests %s %s, more than %d of the %d eligible nodes can ever allocate (smallest: %s, %s): the pod stays Pending there",
			name, q.String(), len(nodes), len(eligible), smallest.Name, a.String())
	}
	if len(noRoom) > 0 {
		l.add(ds, RuleNoPriorityClass, podSpecPath.Child("priorityClassName"), noRoom,
			"no priorityClassName, and the pod does not fit beside the pods already on %s (%s): it stays Pending until they go, as nothing preempts for it",
			countNodes(len(noRoom)), firstNoRoom)
	}
	for _, hp := range slices.SortedFunc(maps.Keys(ports), compareHostPorts) {
		nodes := ports[hp]
		l.add(ds, RuleHostPortInUse, hostPortPath(spec, hp), nodes,
			"host port %d/%s is held by another pod on %s (%s): the scheduler leaves the pod Pending there until it goes",
			hp.Port, hp.Protocol, countNodes(len(nodes)), firstHolder[hp])
	}
	for _, f := range slices.Sorted(maps.Keys(missing)) {
		nodes := missing[f]
		l.add(ds, RuleNodeFeatureMissing, featurePath(spec, f), nodes,
			"the pod needs node feature %s, which %s %s not declare (status.declaredFeatures): the scheduler leaves the pod Pending there",
			f, countNodes(len(nodes)), agree(len(nodes), "does", "do"))
	}
}

// priorityClasses are the priority classes the snapshot's pods show the values of, learnt once.
func (l *linter) priorityClasses() map[string]int32 {
	if l.classes == nil {
		l.classes = schedule.PriorityClassesOf(l.s.Pods)
	}
	return l.classes
}

func compareHostPorts(a, b fleet.HostPort) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.IP, b.IP))
}

// hostPortPath is the first container port claiming hp (sidecars, then containers, as
// fleet.PodHostPorts reads them), or the pod spec.
func hostPortPath(spec *v1.PodSpec, hp fleet.HostPort) *field.Path {
	for _, group := range []struct {
		path       string
		containers []v1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i, c := range group.containers {
			for j, p := range c.Ports {
				port := p.HostPort
				if port == 0 && spec.HostNetwork {
					port = p.ContainerPort
				}
				if port == hp.Port && cmp.Or(p.Protocol, v1.ProtocolTCP) == hp.Protocol {
					return podSpecPath.Child(group.path).Index(i).Child("ports").Index(j).Child("hostPort")
				}
			}
		}
	}
	return podSpecPath
}

// featurePath is the first field that makes the pod need feature f (SCHED-3), as package
// schedule infers it, or the pod spec for a feature schedule does not know.
func featurePath(spec *v1.PodSpec, f string) *field.Path {
	if p := schedule.FeatureField(spec, f, podSpecPath); p != nil {
		return p
	}
	return podSpecPath
}

// agree picks the singular or the plural form for n.
func agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pods returns the non-terminal pods bound to node, indexing every node's on first use.
func (l *linter) pods(node string) []*v1.Pod {
	if l.podsByNode == nil {
		l.podsByNode = map[string][]*v1.Pod{}
		for _, pod := range l.s.Pods {
			if pod.Spec.NodeName == "" || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
				continue
			}
			l.podsByNode[pod.Spec.NodeName] = append(l.podsByNode[pod.Spec.NodeName], pod)
		}
	}
	return l.podsByNode[node]
}

// requestPath is where the request for name is set: the pod-level requests when they name it,
// else the container (regular, then init) that requests the most of it, else the pod spec
// (a limit defaulting the request, the overhead).
func requestPath(spec *v1.PodSpec, name v1.ResourceName) *field.Path {
	if spec.Resources != nil {
		if _, ok := spec.Resources.Requests[name]; ok {
			return podSpecPath.Child("resources", "requests").Key(string(name))
		}
	}
	var best *field.Path
	var most resource.Quantity
	for _, group := range []struct {
		path       string
		containers []v1.Container
	}{{"containers", spec.Containers}, {"initContainers", spec.InitContainers}} {
		for i, c := range group.containers {
			q, ok := c.Resources.Requests[name]
			if !ok {
				continue
			}
			if best == nil || q.Cmp(most) > 0 {
				best, most = podSpecPath.Child(group.path).Index(i).Child("resources", "requests").Key(string(name)), q
			}
		}
	}
	if best == nil {
		return podSpecPath
	}
	return best
}
