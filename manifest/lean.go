package manifest

import (
	"hash/maphash"
	"maps"
	"reflect"
	"sync"
	"time"
	"unique"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Lean reading ([Options.Lean], D-16). A kubectl dump's nodes and pods are mostly what no
// reader of the snapshot looks at: managedFields, a node's images, addresses and nodeInfo, a
// pod's volumes, tolerations, images, environment, probes and container statuses. Lean reading
// trims every Node and Pod as it is decoded to the fields keepPod and keepNode set, so that the
// rest becomes garbage at once and the snapshot holds a fraction of the object; the strings
// that repeat from object to object (namespaces, label keys and values, owner references,
// conditions, taints, node names) are interned.
//
// What is kept is what every reader of a lean snapshot reads, which the daemonsched command
// limits to plan (internal/cli: lean):
//   - the plan (daemonset.Snapshot.Plan and its Planner: ownership, target node, readiness and
//     availability, survivor order, whether a deleted pod goes at once: finalizers and the
//     grace period) and explain's Planner.Explain (the pods a DaemonSet controls on a node);
//   - rollout.Progress, which plan's table asks who holds a waiting rollout's update budget:
//     the scheduler's verdict on a pending daemon pod (package schedule: each container's
//     requests and limits, restart policy and rules, ports and volume mounts; the pod's
//     overhead, pod-level resources, priority, priority class, preemption policy, hostNetwork
//     and hostUsers; the node's allocatable and declared features; SCHED-1 to SCHED-4), a
//     container's waiting reason (only the statuses that wait are kept, with their reason),
//     and a node's Ready condition;
//   - this package's Latest, HandWritten and the uid defaults (D-5).
//
// managedFields, which only HandWritten (whether there are any) and Latest (their latest time)
// read, become one entry holding the latest time. Of the conditions (a kubelet posts five of a
// pod and five of a node) those of the types read are kept: a pod's Ready and PodScheduled, a
// node's Ready (keepConditions). Everything else is dropped, new fields of a newer k8s.io/api
// included. TestLeanKeepsWhatThePlanReads fills the dropped fields at random and requires the
// same plans, Progress reports, explanations and Latest; TestLeanClassifiesEveryField fails
// when k8s.io/api gains a field nobody has classified; internal/cli's
// TestLeanCommandsPrintTheSame runs every command that reads lean both ways.

// leanObject trims a Node or a Pod in place to what lean reading keeps; other objects are left
// as they are. The kept fields are built aside and copied over, so no second object is
// allocated and what is dropped becomes garbage.
func leanObject(obj typedObject) {
	switch o := obj.(type) {
	case *v1.Pod:
		var kept v1.Pod
		keepPod(&kept, o)
		*o = kept
	case *v1.Node:
		var kept v1.Node
		keepNode(&kept, o)
		*o = kept
	}
}

// keepPod sets, in dst, the fields of src that lean reading keeps, interned; dst's other fields
// are left as they are (the property test fills them at random).
func keepPod(dst, src *v1.Pod) {
	dst.TypeMeta = keepTypeMeta(src.TypeMeta)
	m, s := &dst.ObjectMeta, &src.ObjectMeta
	m.Name, m.Namespace, m.UID, m.ResourceVersion = s.Name, intern(s.Namespace), s.UID, s.ResourceVersion
	m.CreationTimestamp, m.DeletionTimestamp = s.CreationTimestamp, s.DeletionTimestamp
	m.Labels = internMap(s.Labels)
	m.OwnerReferences = keepOwners(s.OwnerReferences)
	m.ManagedFields = latestManagedTime(s.ManagedFields)
	// Whether the API server removes a deleted pod at once (STAT-16, UPD-22).
	m.Finalizers = keepEach(s.Finalizers, intern)
	dst.Spec.TerminationGracePeriodSeconds = src.Spec.TerminationGracePeriodSeconds
	dst.Spec.NodeName = intern(src.Spec.NodeName)
	dst.Spec.Affinity = nil
	if a := src.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		dst.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: keepNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution),
		}}
	}
	// What rollout.Progress reads beside the plan: the scheduler's verdict (SCHED-*) and the
	// containers' waiting reasons.
	dst.Spec.Containers = keepEach(src.Spec.Containers, keptContainer)
	dst.Spec.InitContainers = keepEach(src.Spec.InitContainers, keptContainer)
	dst.Spec.EphemeralContainers = keepEach(src.Spec.EphemeralContainers, func(c v1.EphemeralContainer) v1.EphemeralContainer {
		var kept v1.EphemeralContainer
		keepContainer((*v1.Container)(&kept.EphemeralContainerCommon), (*v1.Container)(&c.EphemeralContainerCommon))
		return kept
	})
	dst.Spec.Overhead, dst.Spec.Resources = src.Spec.Overhead, src.Spec.Resources
	dst.Spec.Priority, dst.Spec.PriorityClassName, dst.Spec.PreemptionPolicy = src.Spec.Priority, intern(src.Spec.PriorityClassName), src.Spec.PreemptionPolicy
	dst.Spec.HostNetwork, dst.Spec.HostUsers = src.Spec.HostNetwork, src.Spec.HostUsers
	dst.Status.ContainerStatuses = keepWaiting(src.Status.ContainerStatuses)
	dst.Status.InitContainerStatuses = keepWaiting(src.Status.InitContainerStatuses)
	dst.Status.Phase = v1.PodPhase(intern(string(src.Status.Phase)))
	dst.Status.StartTime = src.Status.StartTime
	dst.Status.Conditions = nil
	dst.Status.Conditions = keepConditions(src.Status.Conditions, latestPod(time.Time{}, dst),
		func(c *v1.PodCondition) bool { return c.Type == v1.PodReady || c.Type == v1.PodScheduled },
		func(c *v1.PodCondition) time.Time { return c.LastTransitionTime.Time },
		func(c v1.PodCondition) v1.PodCondition {
			c.Type = v1.PodConditionType(intern(string(c.Type)))
			c.Status = v1.ConditionStatus(intern(string(c.Status)))
			c.Reason, c.Message = intern(c.Reason), intern(c.Message)
			return c
		})
}

// keepContainer sets, in dst, what lean reading keeps of a container: what the scheduler reads
// (package schedule; fleet.PodRequests and fleet.PodHostPorts): its requests and limits, its
// restart policy and rules (a sidecar's requests, SCHED-1; RestartAllContainers, SCHED-3), its
// ports (SCHED-2) and volume mounts (bindMountOptions, SCHED-3). dst's other fields are left as
// they are.
func keepContainer(dst, src *v1.Container) {
	dst.Resources.Limits, dst.Resources.Requests = src.Resources.Limits, src.Resources.Requests
	dst.RestartPolicy, dst.RestartPolicyRules = src.RestartPolicy, src.RestartPolicyRules
	dst.Ports, dst.VolumeMounts = src.Ports, src.VolumeMounts
}

// keptContainer is keepContainer into a new container.
func keptContainer(c v1.Container) v1.Container {
	var kept v1.Container
	keepContainer(&kept, &c)
	return kept
}

// keepWaiting returns the statuses of containers that wait, each with only its waiting state
// (rollout.Progress names a reason a pod does not recover from); nil when none waits. Nothing
// reads the order of the others or anything else of them.
func keepWaiting(statuses []v1.ContainerStatus) []v1.ContainerStatus {
	var out []v1.ContainerStatus
	for _, st := range statuses {
		if w := st.State.Waiting; w != nil {
			out = append(out, v1.ContainerStatus{State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: intern(w.Reason)}}})
		}
	}
	return out
}

// keepNode sets, in dst, the fields of src that lean reading keeps, interned.
func keepNode(dst, src *v1.Node) {
	dst.TypeMeta = keepTypeMeta(src.TypeMeta)
	m, s := &dst.ObjectMeta, &src.ObjectMeta
	m.Name, m.UID, m.ResourceVersion = intern(s.Name), s.UID, s.ResourceVersion
	m.CreationTimestamp = s.CreationTimestamp
	m.Labels = internMap(s.Labels)
	m.ManagedFields = latestManagedTime(s.ManagedFields)
	dst.Spec.Taints = keepEach(src.Spec.Taints, func(t v1.Taint) v1.Taint {
		t.Key, t.Value = intern(t.Key), intern(t.Value)
		t.Effect = v1.TaintEffect(intern(string(t.Effect)))
		return t
	})
	dst.Status.Allocatable, dst.Status.DeclaredFeatures = src.Status.Allocatable, src.Status.DeclaredFeatures
	dst.Status.Conditions = nil
	dst.Status.Conditions = keepConditions(src.Status.Conditions, latestNode(time.Time{}, dst),
		func(c *v1.NodeCondition) bool { return c.Type == v1.NodeReady },
		func(c *v1.NodeCondition) time.Time { return later(c.LastTransitionTime.Time, c.LastHeartbeatTime) },
		func(c v1.NodeCondition) v1.NodeCondition {
			c.Type = v1.NodeConditionType(intern(string(c.Type)))
			c.Status = v1.ConditionStatus(intern(string(c.Status)))
			c.Reason, c.Message = intern(c.Reason), intern(c.Message)
			return c
		})
}

// keepConditions returns the conditions lean reading keeps, f applied to each, in their order:
// those of the types read (read), and, of the others, the one whose time is the latest if it is
// later than carried (the latest time the kept object carries elsewhere) and every kept
// condition's, so that Latest is unchanged; nil for nil. Every reader looks a condition up by
// its type (the first of it), so a condition of a type nobody reads changes no answer, and
// dropping the others changes none either.
func keepConditions[C any](conds []C, carried time.Time, read func(*C) bool, timeOf func(*C) time.Time, f func(C) C) []C {
	if conds == nil {
		return nil
	}
	n, extra := 0, -1
	var dropped time.Time
	for i := range conds {
		t := timeOf(&conds[i])
		if read(&conds[i]) {
			n++
			carried = maxTime(carried, t)
		} else if extra < 0 || t.After(dropped) {
			dropped, extra = t, i
		}
	}
	if extra >= 0 && dropped.After(carried) {
		n++
	} else {
		extra = -1
	}
	out := make([]C, 0, n)
	for i := range conds {
		if i == extra || read(&conds[i]) {
			out = append(out, f(conds[i]))
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func keepTypeMeta(t metav1.TypeMeta) metav1.TypeMeta {
	return metav1.TypeMeta{Kind: intern(t.Kind), APIVersion: intern(t.APIVersion)}
}

// keepOwners returns the owner references, their strings interned (a DaemonSet's name and uid
// repeat on every pod it owns).
func keepOwners(refs []metav1.OwnerReference) []metav1.OwnerReference {
	return keepEach(refs, func(r metav1.OwnerReference) metav1.OwnerReference {
		r.APIVersion, r.Kind, r.Name = intern(r.APIVersion), intern(r.Kind), intern(r.Name)
		r.UID = types.UID(intern(string(r.UID)))
		return r
	})
}

// keepNodeSelector returns a copy of a required node selector, its strings interned (a daemon
// pod's selector names its node, whose name the node and its hostname label hold too).
func keepNodeSelector(ns *v1.NodeSelector) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: keepEach(ns.NodeSelectorTerms, func(t v1.NodeSelectorTerm) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchExpressions: keepRequirements(t.MatchExpressions), MatchFields: keepRequirements(t.MatchFields)}
	})}
}

func keepRequirements(rs []v1.NodeSelectorRequirement) []v1.NodeSelectorRequirement {
	return keepEach(rs, func(r v1.NodeSelectorRequirement) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: intern(r.Key), Operator: v1.NodeSelectorOperator(intern(string(r.Operator))),
			Values: keepEach(r.Values, intern)}
	})
}

// keepEach returns a new slice of f applied to each element of s; nil for nil, so that an empty
// list stays empty and a missing one missing.
func keepEach[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// latestManagedTime returns managedFields as lean reading keeps them: nil when there are none,
// else one entry holding only the latest time of any (nil when none has one). HandWritten reads
// whether there are any, Latest their latest time; nothing reads the rest.
func latestManagedTime(fields []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	if len(fields) == 0 {
		return nil
	}
	var latest *metav1.Time
	for _, f := range fields {
		if f.Time != nil && (latest == nil || f.Time.After(latest.Time)) {
			latest = f.Time
		}
	}
	return []metav1.ManagedFieldsEntry{{Time: latest}}
}

// internMap returns a copy of m, its keys and values interned; nil for nil, and an empty map for
// an empty one.
func internMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[intern(k)] = intern(v)
	}
	return out
}

// intern returns the one copy of s that every lean object shares (the standard library's
// unique package: safe on every worker, and a string no object holds any more is freed).
func intern(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// sharedLabels hands out, during one lean read, one map for every set of pod labels equal from
// pod to pod: a DaemonSet's pods carry its template's labels, its revision's hash and its
// generation, the same on every pod of a revision (so do a ReplicaSet's). On a realistic dump
// that is 336 bytes a pod (the map and its one group of eight slots), 1.4 MB of 5,000 nodes'
// pods. Pods of one read then share their label maps: a lean snapshot is read, not written
// (Options.Lean). It is safe for concurrent use.
type sharedLabels struct {
	seed maphash.Seed
	mu   sync.Mutex
	sets map[uint64]map[string]string // by the sum of its pairs' hashes, which needs no order
}

func newSharedLabels() *sharedLabels {
	return &sharedLabels{seed: maphash.MakeSeed(), sets: map[uint64]map[string]string{}}
}

// share returns the map equal to m handed out before, else m, which it hands out from then on.
func (s *sharedLabels) share(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	var sum uint64
	var h maphash.Hash
	h.SetSeed(s.seed)
	for k, v := range m {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.sets[sum]; ok {
		if maps.Equal(prev, m) {
			return prev
		}
		return m // another set of the same sum (rare): not shared
	}
	s.sets[sum] = m
	return m
}

// sharedSpecs hands out, during one lean read, one copy of what lean reading keeps of pods'
// containers and nodes' allocatable when it is equal from object to object: the pods of one
// controller's revision have the same containers, and the nodes of one pool the same
// allocatable. Kept, they made a snapshot of a realistic dump 0.8x its YAML where 0.46x held
// every other field (TestLeanKeepsWhatThePlanReads). Like labels, they are read, not written
// (Options.Lean). It is safe for concurrent use.
type sharedSpecs struct {
	mu sync.Mutex
	// pods holds, by controller, the containers of the last pod read that it controls.
	pods map[types.UID]podContainers
	// allocatable holds the last distinct allocatables handed out, the latest first.
	allocatable [8]v1.ResourceList
}

type podContainers struct{ containers, init []v1.Container }

// sharePod gives p the containers of the pod of its controller read before it when they are
// equal, and keeps p's for the next one otherwise.
func (s *sharedSpecs) sharePod(p *v1.Pod) {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil || len(p.Spec.Containers) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.pods[ref.UID]
	if ok && reflect.DeepEqual(prev.containers, p.Spec.Containers) && reflect.DeepEqual(prev.init, p.Spec.InitContainers) {
		p.Spec.Containers, p.Spec.InitContainers = prev.containers, prev.init
		return
	}
	if s.pods == nil {
		s.pods = map[types.UID]podContainers{}
	}
	s.pods[ref.UID] = podContainers{p.Spec.Containers, p.Spec.InitContainers}
}

// shareAllocatable gives n an allocatable handed out before when one is equal to its own.
func (s *sharedSpecs) shareAllocatable(n *v1.Node) {
	if len(n.Status.Allocatable) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, a := range s.allocatable {
		if a != nil && reflect.DeepEqual(a, n.Status.Allocatable) {
			n.Status.Allocatable = a
			copy(s.allocatable[1:i+1], s.allocatable[:i])
			s.allocatable[0] = a
			return
		}
	}
	copy(s.allocatable[1:], s.allocatable[:len(s.allocatable)-1])
	s.allocatable[0] = n.Status.Allocatable
}
