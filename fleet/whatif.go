package fleet

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonsched/daemonsched/daemonset"
)

// Config says how a [WhatIf] admits and sizes daemon pods.
type Config struct {
	// Admission is the cluster's LimitRanges and RuntimeClasses; nil admits every pod
	// unchanged (ADM-1).
	Admission *Admission
	// Resolver, when set, sizes each DaemonSet's pod per node (WHATIF-4); nil counts the
	// admitted template's requests on every node.
	Resolver RequestResolver
}

// RequestResolver sizes a daemon pod for one node, for callers whose pods are not all alike:
// per-node-group vertical autoscaler recommendations, say (WHATIF-4). It returns the requests
// the pod of ds counts on a node with labels (for a node template, its known labels), given the
// admitted template's requests. It is called only for DaemonSets whose pod runs, or may run,
// there; it must not modify its arguments and must be safe for concurrent use if the WhatIf is
// shared. A type with a method of this signature passes it as a method value.
type RequestResolver func(ds *appsv1.DaemonSet, labels map[string]string, admitted v1.ResourceList) v1.ResourceList

// WhatIf answers, for a node or a node template, which daemon pods would run there as the API
// server would admit them and what they would request (WHATIF-1). Build one with
// [Set.WhatIf]; it is immutable and safe for concurrent use.
type WhatIf struct {
	set      *Set // a copy of the Set whose requests are the admitted pods'
	pods     []AdmittedPod
	pending  [][]labelEquals // per DaemonSet: the RuntimeClass nodeSelector, sorted by key
	adjusted []int           // the DaemonSets admission rejects or gives a nodeSelector
	resolver RequestResolver
	tmplOnce sync.Once
	tmpl     *templateIndex // the compiled placements for templates, built on first use
}

type labelEquals struct{ key, value string }

// WhatIf admits one daemon pod of each DaemonSet of s through cfg.Admission (ADM-1), at the
// release and feature gates of the DaemonSet's Planner ([Admission.AdmitWith]), and returns what answers the what-if questions with those pods. s is not modified.
func (s *Set) WhatIf(cfg Config) *WhatIf {
	n := s.Len()
	w := &WhatIf{pods: make([]AdmittedPod, n), pending: make([][]labelEquals, n), resolver: cfg.Resolver}
	derived := *s
	derived.requests = make([]v1.ResourceList, n)
	for i, p := range s.planners {
		ds := p.DaemonSet()
		pod := cfg.Admission.admit(p.Version(), p.Enabled(daemonset.GatePodLevelResources), ds.Namespace, &ds.Spec.Template.Spec)
		w.pods[i] = pod
		derived.requests[i] = pod.Requests
		for k, v := range pod.SchedulingSelector {
			w.pending[i] = append(w.pending[i], labelEquals{k, v})
		}
		slices.SortFunc(w.pending[i], func(a, b labelEquals) int { return compareNames(a.key, a.value, b.key, b.value) })
		if pod.Rejection != nil || len(w.pending[i]) > 0 {
			w.adjusted = append(w.adjusted, i)
		}
	}
	derived.res = newResourceTable(derived.requests)
	w.set = &derived
	return w
}

// Set returns the Set the WhatIf answers for; its Requests are the admitted pods'.
func (w *WhatIf) Set() *Set { return w.set }

// Pod returns the admitted pod of the i-th DaemonSet. Its fields must not be modified.
func (w *WhatIf) Pod(i int) AdmittedPod { return w.pods[i] }

// Answer is a three-valued what-if answer (WHATIF-2).
type Answer uint8

const (
	// Runs: the daemon pod is created, admitted and scheduled on the node (on every node the
	// template can become).
	Runs Answer = iota
	// DoesNotRun: it is not, on the node (on any node the template can become).
	DoesNotRun
	// Depends: on some nodes the template can become it runs, on others not.
	Depends
)

func (a Answer) String() string {
	switch a {
	case Runs:
		return "Runs"
	case DoesNotRun:
		return "DoesNotRun"
	case Depends:
		return "Depends"
	}
	return fmt.Sprintf("Answer(%d)", uint8(a))
}

// MarshalText renders the answer as its name.
func (a Answer) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// Reason says why a daemon pod does not run, or may not run: one of daemonset's eligibility
// reasons (ELIG-2..ELIG-6) or one of the admission reasons below.
type Reason string

const (
	// ReasonAdmissionRejected: the controller would create the pod, the API server refuses it
	// (ADM-4, ADM-5); Verdict.Rejection says which plugin and why.
	ReasonAdmissionRejected Reason = "AdmissionRejected"
	// ReasonRuntimeClassNodeSelectorMismatch: the controller would create the pod, admission
	// adds its RuntimeClass's nodeSelector, which the node does not satisfy, so the pod stays
	// pending (ADM-6).
	ReasonRuntimeClassNodeSelectorMismatch Reason = "RuntimeClassNodeSelectorMismatch"
)

// Verdict is the answer for one DaemonSet on a node or node template.
type Verdict struct {
	Answer Answer `json:"answer"`
	// Reason is empty when the pod runs; for Depends, it is why it does not run on the nodes
	// where it does not.
	Reason Reason `json:"reason,omitempty"`
	// Taint is the untolerated taint of the two taint reasons. For a template it points into
	// the Template's taints, and DependsOn may be shared between verdicts: neither may be
	// modified.
	Taint *v1.Taint `json:"taint,omitempty"`
	// Rejection is set with ReasonAdmissionRejected.
	Rejection *Rejection `json:"rejection,omitempty"`
	// DependsOn lists, for Depends, the label keys whose value decides, sorted
	// ("metadata.name" for the node's name).
	DependsOn []string `json:"dependsOn,omitempty"`
}

// Decision is what a WhatIf decides for one concrete node. Reuse one across calls of
// [WhatIf.DecideNode]: without a Resolver, a warm call allocates nothing. The zero value is
// ready to use; a Decision is not safe for concurrent use.
type Decision struct {
	w        *WhatIf
	nd       NodeDecision
	labels   map[string]string
	resolved v1.ResourceList // totals when a Resolver is set
}

// DecideNode decides node for every DaemonSet (WHATIF-1): the controller's decision
// ([Set.DecideNode]), then admission: a pod that admission refuses does not run, nor does one
// whose RuntimeClass nodeSelector the node lacks. The totals count the pods that run. node is
// not modified nor kept.
func (w *WhatIf) DecideNode(node *v1.Node, into *Decision) {
	into.w = w
	d := &into.nd
	d.reset(w.set, node.Spec.Taints)
	w.set.decide(node, d.cells, &d.sc)
	for _, i := range w.adjusted {
		if d.cells[i] != cellRun {
			continue
		}
		if w.pods[i].Rejection != nil {
			d.cells[i] = cellRejected
		} else if !hasLabels(node.Labels, w.pending[i]) {
			d.cells[i] = cellPending
		}
	}
	d.summarize()
	into.labels = node.Labels
	if w.resolver != nil {
		into.resolve()
	}
	into.labels = nil
}

func hasLabels(labels map[string]string, want []labelEquals) bool {
	for _, l := range want {
		if v, ok := labels[l.key]; !ok || v != l.value {
			return false
		}
	}
	return true
}

// resolve sums the resolver's requests of the pods that run.
func (d *Decision) resolve() {
	if d.resolved == nil {
		d.resolved = v1.ResourceList{}
	}
	clear(d.resolved)
	for _, i := range d.nd.run {
		addList(d.resolved, d.w.resolver(d.w.set.planners[i].DaemonSet(), d.labels, d.w.pods[i].Requests))
	}
}

// Eligibility returns the controller's decision for the i-th DaemonSet, equal to
// [daemonset.Planner.Eligibility] on the node: admission does not change it.
func (d *Decision) Eligibility(i int) daemonset.Eligibility { return d.nd.Eligibility(i) }

// Verdict returns the answer for the i-th DaemonSet: Runs or DoesNotRun, and why.
func (d *Decision) Verdict(i int) Verdict {
	switch d.nd.cells[i].code() {
	case cellRun:
		return Verdict{Answer: Runs}
	case cellRejected:
		return Verdict{Answer: DoesNotRun, Reason: ReasonAdmissionRejected, Rejection: d.w.pods[i].Rejection}
	case cellPending:
		return Verdict{Answer: DoesNotRun, Reason: ReasonRuntimeClassNodeSelectorMismatch}
	}
	e := d.nd.Eligibility(i)
	v := Verdict{Answer: DoesNotRun, Reason: Reason(e.Reason)}
	if e.Reason == daemonset.ReasonTaintNotTolerated || e.Reason == daemonset.ReasonNoExecuteTaintNotTolerated {
		t := e.Taint
		v.Taint = &t
	}
	return v
}

// Runs returns the indices, ascending, of the DaemonSets whose pod runs on the node. The slice
// is owned by d and valid until d is reused.
func (d *Decision) Runs() []int { return d.nd.run }

// Request returns the total request of resource name by the pods that run, and whether any of
// them names it.
func (d *Decision) Request(name v1.ResourceName) (resource.Quantity, bool) {
	if d.w.resolver != nil {
		q, ok := d.resolved[name]
		return q.DeepCopy(), ok
	}
	return d.nd.Request(name)
}

// Requests stores in into, after clearing it, the total requests of the pods that run, and
// returns it; a nil into allocates a new list.
func (d *Decision) Requests(into v1.ResourceList) v1.ResourceList {
	if d.w.resolver == nil {
		return d.nd.Requests(into)
	}
	if into == nil {
		into = v1.ResourceList{}
	}
	clear(into)
	for name, q := range d.resolved {
		into[name] = q.DeepCopy()
	}
	return into
}

// HostPorts returns the host ports the pods that run claim, as [NodeDecision.HostPorts].
func (d *Decision) HostPorts() []HostPort { return d.nd.HostPorts() }

// String renders the verdict as JSON, for tests and logs.
func (v Verdict) String() string {
	b, _ := json.Marshal(v)
	return string(b)
}
