package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/schedule"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// binder asks package schedule whether the scheduler would bind the daemon pods a plan creates,
// and those that exist unbound (SCHED-*), on one snapshot: the pods indexed by node and the
// priority classes they show are computed once.
type binder struct {
	byNode map[string][]*v1.Pod
	opts   schedule.Options
}

func newBinder(s daemonset.Snapshot, opts daemonset.Options) *binder {
	return &binder{byNode: schedule.PodsByNode(s.Pods),
		opts: schedule.Options{Version: opts.Version, FeatureGates: opts.FeatureGates, PriorityClasses: schedule.PriorityClassesOf(s.Pods)}}
}

// lines says, one line each, why the scheduler would leave Pending on node the pod this sync
// creates there for ds, and each unbound pod of ds targeting node; none when they would bind.
func (b *binder) lines(p *daemonset.Planner, ds *appsv1.DaemonSet, node *v1.Node, plan *daemonset.ClusterResult, pods []*v1.Pod) []string {
	var out []string
	if createsOn(plan, ds, node.Name) {
		if v := schedule.Compile(p.NewPod(node.Name), b.opts).Fit(node, b.byNode[node.Name]); !v.Fits() {
			out = append(out, "created, but the scheduler would leave it Pending: "+printable.Escape(v.String()))
		}
	}
	for _, pod := range podsOnNode(p.Version(), ds, node.Name, pods) {
		if !unboundPending(pod) {
			continue
		}
		if v := schedule.Compile(pod, b.opts).Fit(node, b.byNode[node.Name]); !v.Fits() {
			out = append(out, fmt.Sprintf("%s/%s is Pending, and the scheduler would leave it so: %s", q(pod.Namespace), q(pod.Name), printable.Escape(v.String())))
		}
	}
	return out
}

// createsOn reports whether the plan of ds creates a pod on nodeName.
func createsOn(plan *daemonset.ClusterResult, ds *appsv1.DaemonSet, nodeName string) bool {
	for _, r := range plan.DaemonSets {
		if r.Namespace != ds.Namespace || r.Name != ds.Name {
			continue
		}
		for _, c := range r.Create {
			if c.Node == nodeName {
				return true
			}
		}
	}
	return false
}

// bindVerdict is the scheduler's verdict on one daemon pod, in plan -o json|yaml's `scheduler`
// list (--scheduler; SCHED-7): the pod the plan creates on a node, or a pod of the DaemonSet
// that exists unbound and Pending. The shortfalls, conflicts, features and preemption are
// package schedule's [schedule.Verdict].
type bindVerdict struct {
	// Namespace and Name are the DaemonSet's.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node"`
	// Pod is the existing pod judged, namespace/name; absent for the pod the plan creates.
	Pod string `json:"pod,omitempty"`
	// Binds is true when every filter lets the pod bind.
	Binds bool `json:"binds"`
	// Filters are the filters that refuse it, in the order the scheduler runs them.
	Filters          []schedule.Filter       `json:"filters,omitempty"`
	ResourcesUnknown bool                    `json:"resourcesUnknown,omitempty"`
	Insufficient     []schedule.Insufficient `json:"insufficient,omitempty"`
	PortConflicts    []schedule.PortConflict `json:"portConflicts,omitempty"`
	MissingFeatures  []string                `json:"missingFeatures,omitempty"`
	Preemption       *schedule.Preemption    `json:"preemption,omitempty"`
	// Message is the verdict in one line, as explain prints it; absent when the pod binds.
	Message string `json:"message,omitempty"`
}

// planVerdicts is the scheduler's verdict on every pod the plans of cluster create and on every
// unbound Pending pod of their DaemonSets (a skipped sync's too) whose target node is in s
// (SCHED-7), by DaemonSet (the plans' order), then node, the created pod before existing ones,
// then pod name. The pods a node is to take are bound one after another, as the scheduler
// binds them (schedule.FitEach: higher priority first; at equal priority the Pending pods,
// queued before this sync, by creation, then the created ones in the plans' order), each beside
// the pods bound there and those bound before it. Nothing is modified; the library's plans do
// not carry it.
func planVerdicts(s daemonset.Snapshot, cluster *daemonset.ClusterResult, opts daemonset.Options) []bindVerdict {
	b := newBinder(s, opts)
	nodes := make(map[string]*v1.Node, len(s.Nodes))
	for _, n := range s.Nodes {
		if n != nil {
			nodes[n.Name] = n
		}
	}
	var unbound []*v1.Pod // usually few: every DaemonSet looks at these alone
	for _, pod := range s.Pods {
		if pod != nil && unboundPending(pod) {
			unbound = append(unbound, pod)
		}
	}
	// One entry per pod to judge, in the output's order; pod is what the scheduler binds.
	type entry struct {
		v   bindVerdict
		pod *v1.Pod
	}
	var out []entry
	for _, r := range cluster.DaemonSets {
		if r == nil {
			continue
		}
		i := slices.IndexFunc(s.DaemonSets, func(ds *appsv1.DaemonSet) bool {
			return ds != nil && ds.Namespace == r.Namespace && ds.Name == r.Name
		})
		if i < 0 {
			continue
		}
		ds := s.DaemonSets[i]
		var these []entry
		var p *daemonset.Planner // a skipped sync, or one that does not compile, creates nothing
		if len(r.Create) > 0 {
			if q, errs := daemonset.Compile(ds, opts); len(errs) == 0 {
				p = q
			}
		}
		for _, c := range r.Create {
			if node := nodes[c.Node]; p != nil && node != nil {
				these = append(these, entry{bindVerdict{Namespace: r.Namespace, Name: r.Name, Node: node.Name}, p.NewPod(node.Name)})
			}
		}
		for _, pod := range unbound {
			if !opts.Version.IsControlledBy(pod, ds) || slices.ContainsFunc(r.Delete, func(d daemonset.Deletion) bool {
				return d.Namespace == pod.Namespace && d.Name == pod.Name
			}) {
				continue // another DaemonSet's, or one this sync deletes: not queued for the node
			}
			target, _ := affinity.TargetNodeName(pod)
			if node := nodes[target]; node != nil {
				these = append(these, entry{bindVerdict{Namespace: r.Namespace, Name: r.Name, Node: node.Name, Pod: pod.Namespace + "/" + pod.Name}, pod})
			}
		}
		slices.SortStableFunc(these, func(a, b entry) int {
			return cmp.Or(strings.Compare(a.v.Node, b.v.Node), strings.Compare(a.v.Pod, b.v.Pod))
		})
		out = append(out, these...)
	}
	// The scheduler's queue for each node: the Pending pods first, by creation, then the
	// created ones in the plans' order (the order out holds them in).
	queues := map[string][]int{}
	for i, e := range out {
		queues[e.v.Node] = append(queues[e.v.Node], i)
	}
	verdicts := make([]bindVerdict, len(out))
	for name, queue := range queues {
		slices.SortStableFunc(queue, func(a, b int) int {
			pa, pb := out[a].v.Pod != "", out[b].v.Pod != ""
			if pa != pb {
				if pa {
					return -1
				}
				return 1
			}
			if !pa {
				return 0
			}
			return cmp.Or(out[a].pod.CreationTimestamp.Compare(out[b].pod.CreationTimestamp.Time), strings.Compare(out[a].v.Pod, out[b].v.Pod))
		})
		pods := make([]*v1.Pod, len(queue))
		for k, i := range queue {
			pods[k] = out[i].pod
		}
		for k, v := range schedule.FitEach(pods, nodes[name], b.byNode[name], b.opts) {
			e := out[queue[k]].v
			e.Binds, e.Filters, e.ResourcesUnknown, e.Insufficient, e.PortConflicts = v.Fits(), v.Filters(), v.ResourcesUnknown, v.Insufficient, v.PortConflicts
			e.MissingFeatures, e.Preemption, e.Message = v.MissingFeatures, v.Preemption, v.String()
			verdicts[queue[k]] = e
		}
	}
	return verdicts
}

// unboundPending reports whether the scheduler still has pod to bind: no spec.nodeName, not
// being deleted, and Pending (or without a phase yet).
func unboundPending(pod *v1.Pod) bool {
	return pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil && (pod.Status.Phase == "" || pod.Status.Phase == v1.PodPending)
}

// renderUnbindable is plan -o wide's last section: the pods the plan creates that the scheduler
// would leave Pending, one line each with the filter and the numbers; nothing when all bind.
func renderUnbindable(w io.Writer, s daemonset.Snapshot, plan *daemonset.ClusterResult, opts daemonset.Options) {
	var lines []string
	for _, v := range planVerdicts(s, plan, opts) {
		if v.Pod == "" && !v.Binds {
			lines = append(lines, fmt.Sprintf("  %s/%s on %s: %s", q(v.Namespace), q(v.Name), q(v.Node), printable.Escape(v.Message)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCreated, but the scheduler would leave %s Pending:\n", count(len(lines), "pod"))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
