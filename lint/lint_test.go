package lint_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/lint"
)

var opts = lint.Options{Plan: daemonset.Options{Now: time.Unix(1000, 0).UTC()}}

type dsMod = func(*appsv1.DaemonSet)

func hostPort(port int32) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: port, HostPort: port}}
	}
}

func requests(kv ...string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Containers[0].Resources.Requests = list(kv...)
	}
}

func list(kv ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func allocatable(kv ...string) func(*v1.Node) {
	return func(n *v1.Node) { n.Status.Allocatable = list(kv...) }
}

func ready(status v1.ConditionStatus) func(*v1.Node) {
	return func(n *v1.Node) {
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: status}}
	}
}

func cordoned(n *v1.Node) { n.Spec.Unschedulable = true }

func named(namespace, name string, labels ...string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Namespace, ds.Name, ds.UID = namespace, name, types.UID("uid-"+name)
		l := map[string]string{}
		for i := 0; i < len(labels); i += 2 {
			l[labels[i]] = labels[i+1]
		}
		ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: l}
		ds.Spec.Template.Labels = l
	}
}

// pod is a Running pod on node, not controlled by any DaemonSet, requesting kv.
func pod(name, node string, kv ...string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: list(kv...)}}}},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
}

// ownedBy makes p a pod of ds (a controller reference with its uid).
func ownedBy(ds *appsv1.DaemonSet, p *v1.Pod) *v1.Pod {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true)}}
	p.Labels = ds.Spec.Template.Labels
	return p
}

func succeeded(p *v1.Pod) *v1.Pod {
	p.Status.Phase = v1.PodSucceeded
	return p
}

// The findings of each rule, with the messages left out (TestLintMessages reads them).
func TestLint(t *testing.T) {
	t.Parallel()
	ds := apitest.DaemonSet
	node, taint := apitest.Node, apitest.Taint
	tests := []struct {
		name string
		s    daemonset.Snapshot
		opts lint.Options
		want []lint.Finding
	}{
		{
			name: "a clean DaemonSet has no finding",
			s:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil), hostPort(9100))}, Nodes: []*v1.Node{node("a")}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-1: a host port with an integer maxSurge stalls the surge pod",
			s:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(0), apitest.Int(1)), hostPort(9100))}},
			want: []lint.Finding{{Rule: "LINT-1", Name: "HostPortWithSurge", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo", Field: "spec.updateStrategy.rollingUpdate.maxSurge"}},
		},
		{
			name: "LINT-1: a percentage maxSurge rounds up, so it surges too",
			s:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(0), apitest.Str("1%")), hostPort(9100))}},
			want: []lint.Finding{{Rule: "LINT-1", Name: "HostPortWithSurge", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo", Field: "spec.updateStrategy.rollingUpdate.maxSurge"}},
		},
		{
			name: "LINT-1: with hostNetwork every container port is a host port",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(0), apitest.Int(1)), func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.HostNetwork = true
				ds.Spec.Template.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 10250}}
			})}},
			want: []lint.Finding{{Rule: "LINT-1", Name: "HostPortWithSurge", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo", Field: "spec.updateStrategy.rollingUpdate.maxSurge"}},
		},
		{
			name: "LINT-1: maxSurge without a host port is fine",
			s:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(0), apitest.Int(1)))}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-1: OnDelete never surges",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(hostPort(9100), func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: apitest.Int(1)}
			})}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-2: one NotReady target node uses up maxUnavailable 1",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil))},
				Nodes: []*v1.Node{node("a", ready(v1.ConditionTrue)), node("b", ready(v1.ConditionFalse))}},
			want: []lint.Finding{{Rule: "LINT-2", Name: "BudgetUsedByDownNodes", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
				Field: "spec.updateStrategy.rollingUpdate.maxUnavailable", Nodes: []string{"b"}}},
		},
		{
			name: "LINT-2: a percentage is resolved against desired, rounding up, as the controller does",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Str("10%"), nil))},
				Nodes: []*v1.Node{node("a"), node("b"), node("c", ready(v1.ConditionUnknown)), node("d", cordoned)}},
			// 10% of 4 rounds up to 1; one node is down (a cordoned node is not: LINT-2).
			want: []lint.Finding{{Rule: "LINT-2", Name: "BudgetUsedByDownNodes", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
				Field: "spec.updateStrategy.rollingUpdate.maxUnavailable", Nodes: []string{"c"}}},
		},
		{
			name: "LINT-2: a cordoned node that stays Ready holds no budget (its new pod tolerates unschedulable)",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil))},
				Nodes: []*v1.Node{node("a", ready(v1.ConditionTrue)), node("b", ready(v1.ConditionTrue), cordoned)}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-2: a budget above the down nodes leaves room",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(2), nil))},
				Nodes: []*v1.Node{node("a"), node("b", ready(v1.ConditionFalse))}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-2: a node with the unreachable taint is down",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil))},
				Nodes: []*v1.Node{node("a"), node("b", taint(v1.TaintNodeUnreachable, "", v1.TaintEffectNoExecute))}},
			want: []lint.Finding{{Rule: "LINT-2", Name: "BudgetUsedByDownNodes", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
				Field: "spec.updateStrategy.rollingUpdate.maxUnavailable", Nodes: []string{"b"}}},
		},
		{
			name: "LINT-2: a down node the DaemonSet does not target holds no budget",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil), func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "x"}
			})}, Nodes: []*v1.Node{node("a", apitest.Labels("pool", "x")), node("b", ready(v1.ConditionFalse))}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-2: a NotReady node whose not-ready NoSchedule taint keeps new pods off still holds budget with a pod of the DaemonSet",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(apitest.Rolling(apitest.Int(1), nil))},
				Nodes: []*v1.Node{node("a"), node("b", ready(v1.ConditionFalse), taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)),
					node("c", ready(v1.ConditionFalse), taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule))},
				Pods: []*v1.Pod{ownedBy(ds(), pod("foo-b", "b"))}},
			want: []lint.Finding{
				{Rule: "LINT-2", Name: "BudgetUsedByDownNodes", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
					Field: "spec.updateStrategy.rollingUpdate.maxUnavailable", Nodes: []string{"b"}},
				{Rule: "LINT-3", Name: "TaintNotTolerated", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
					Field: "spec.template.spec.tolerations", Nodes: []string{"b", "c"}},
			},
		},
		{
			name: "LINT-3: a targeted node with an untolerated taint is named with the taint",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds()},
				Nodes: []*v1.Node{node("a"), node("gpu-1", taint("nvidia.com/gpu", "", v1.TaintEffectNoSchedule)), node("gpu-2", taint("nvidia.com/gpu", "", v1.TaintEffectNoSchedule))}},
			want: []lint.Finding{{Rule: "LINT-3", Name: "TaintNotTolerated", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.tolerations", Nodes: []string{"gpu-1", "gpu-2"}}},
		},
		{
			name: "LINT-3: the default daemon tolerations cover the unreachable and unschedulable taints",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds()},
				Nodes: []*v1.Node{node("a", taint(v1.TaintNodeUnreachable, "", v1.TaintEffectNoExecute), taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule))}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-3: a tainted node the nodeSelector leaves out is no finding",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "x"}
			})}, Nodes: []*v1.Node{node("a", apitest.Labels("pool", "x")), node("cp", taint("node-role.kubernetes.io/control-plane", "", v1.TaintEffectNoSchedule))}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-4: a nodeSelector no node matches",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "gpu"}
			})}, Nodes: []*v1.Node{node("a"), node("b", apitest.Labels("pool", "cpu"))}},
			want: []lint.Finding{{Rule: "LINT-4", Name: "PlacementMatchesNoNode", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.nodeSelector", Nodes: []string{"a", "b"}}},
		},
		{
			name: "LINT-4: a required affinity no node matches",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Affinity = apitest.RequiredAffinity(apitest.Term(apitest.Requirement("zone", v1.NodeSelectorOpIn, "z9")))
			})}, Nodes: []*v1.Node{node("a", apitest.Labels("zone", "z1"))}},
			want: []lint.Finding{{Rule: "LINT-4", Name: "PlacementMatchesNoNode", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", Nodes: []string{"a"}}},
		},
		{
			name: "LINT-4: placement that matches only tainted nodes is LINT-3, not LINT-4",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds()},
				Nodes: []*v1.Node{node("a", taint("dedicated", "x", v1.TaintEffectNoSchedule))}},
			want: []lint.Finding{{Rule: "LINT-3", Name: "TaintNotTolerated", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.tolerations", Nodes: []string{"a"}}},
		},
		{
			name: "LINT-4: without nodes the placement is not judged",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "gpu"}
			})}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-5: a selector matching another DaemonSet's pods of the namespace, each way",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{
				ds(named("default", "wide", "app", "agent")),
				ds(named("default", "narrow", "app", "agent", "tier", "node")),
				ds(named("other", "elsewhere", "app", "agent")),
			}},
			want: []lint.Finding{{Rule: "LINT-5", Name: "OverlappingSelector", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "wide", Field: "spec.selector"}},
		},
		{
			name: "LINT-6: requests above every eligible node's allocatable",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(requests("cpu", "4"))},
				Nodes: []*v1.Node{node("big", allocatable("cpu", "8")), node("small", allocatable("cpu", "2")), node("bare")}},
			want: []lint.Finding{{Rule: "LINT-6", Name: "RequestsExceedAllocatable", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.containers[0].resources.requests[cpu]", Nodes: []string{"small"}}},
		},
		{
			name: "LINT-6: an extended resource the node lacks cannot be allocated",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(requests("nvidia.com/gpu", "1"), func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.PriorityClassName = "p" })},
				Nodes: []*v1.Node{node("a", allocatable("cpu", "8"))}},
			want: []lint.Finding{{Rule: "LINT-6", Name: "RequestsExceedAllocatable", Severity: lint.SeverityError, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]", Nodes: []string{"a"}}},
		},
		{
			name: "LINT-7: no priority class and a node whose other pods leave too little",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(requests("cpu", "250m"))},
				Nodes: []*v1.Node{node("full", allocatable("cpu", "4")), node("empty", allocatable("cpu", "4"))},
				Pods:  []*v1.Pod{pod("web", "full", "cpu", "3880m"), succeeded(pod("done", "empty", "cpu", "4"))}},
			want: []lint.Finding{{Rule: "LINT-7", Name: "NoPriorityClass", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo",
				Field: "spec.template.spec.priorityClassName", Nodes: []string{"full"}}},
		},
		{
			name: "LINT-7: a priority class lets preemption make room",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(requests("cpu", "250m"), func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.PriorityClassName = "system-node-critical" })},
				Nodes: []*v1.Node{node("full", allocatable("cpu", "4"))},
				Pods:  []*v1.Pod{pod("web", "full", "cpu", "3880m")}},
			want: []lint.Finding{},
		},
		{
			name: "LINT-8: revisionHistoryLimit 0 leaves nothing to roll back to",
			s:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](0) })}},
			want: []lint.Finding{{Rule: "LINT-8", Name: "NoRevisionHistory", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "foo", Field: "spec.revisionHistoryLimit"}},
		},
		{
			name: "only the DaemonSets asked for are linted, the others are still neighbours",
			s: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{
				ds(named("default", "wide", "app", "agent")),
				ds(named("default", "narrow", "app", "agent", "tier", "node"), func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](0) }),
			}},
			opts: lint.Options{Plan: opts.Plan, DaemonSets: []string{"default/wide"}},
			want: []lint.Finding{{Rule: "LINT-5", Name: "OverlappingSelector", Severity: lint.SeverityWarning, Namespace: "default", DaemonSet: "wide", Field: "spec.selector"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := tt.opts
			if o.Plan.Now.IsZero() {
				o = opts
			}
			before := deepCopy(tt.s)
			got, err := lint.Lint(tt.s, o)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(lint.Finding{}, "Message")); diff != "" {
				t.Errorf("Lint() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.s); diff != "" {
				t.Errorf("Lint() modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func deepCopy(s daemonset.Snapshot) daemonset.Snapshot {
	var out daemonset.Snapshot
	for _, ds := range s.DaemonSets {
		out.DaemonSets = append(out.DaemonSets, ds.DeepCopy())
	}
	for _, n := range s.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	return out
}

// The messages give the numbers behind each finding.
func TestLintMessages(t *testing.T) {
	t.Parallel()
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{apitest.DaemonSet(apitest.Rolling(apitest.Str("10%"), nil), requests("cpu", "250m"))},
		Nodes: []*v1.Node{
			apitest.Node("a", allocatable("cpu", "4"), ready(v1.ConditionTrue)),
			apitest.Node("b", allocatable("cpu", "4"), ready(v1.ConditionFalse)),
		},
		Pods: []*v1.Pod{pod("web", "a", "cpu", "3880m")},
	}
	got, err := lint.Lint(s, opts)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "maxUnavailable resolves to 1 of 2 desired, and 1 of the 2 target nodes is down now (1 NotReady): its pod uses up the budget and the rollout deadlocks before it updates a healthy node", got[0].Message)
	require.Equal(t, "no priorityClassName, and the pod does not fit beside the pods already on 1 node (cpu requests 250m, 120m free of 4 on a): it stays Pending until they go, as nothing preempts for it", got[1].Message)
}

// The scheduler's other refusals name the port's holder and the missing feature (LINT-11,
// LINT-12, SCHED-2, SCHED-3).
func TestLintSchedulerMessages(t *testing.T) {
	t.Parallel()
	s := daemonset.Snapshot{
		DaemonSets: []*appsv1.DaemonSet{apitest.DaemonSet(hostPort(9100), func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.HostNetwork, ds.Spec.Template.Spec.HostUsers = true, ptr.To(false)
		})},
		Nodes: []*v1.Node{
			apitest.Node("a", allocatable("cpu", "4", "pods", "110"), func(n *v1.Node) {
				n.Status.DeclaredFeatures = []string{"UserNamespacesHostNetworkSupport"}
			}),
			apitest.Node("b", allocatable("cpu", "4", "pods", "110")),
		},
		Pods: []*v1.Pod{func() *v1.Pod {
			p := pod("exporter", "a")
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 9100, HostPort: 9100, Protocol: v1.ProtocolTCP}}
			return p
		}()},
	}
	got, err := lint.Lint(s, opts)
	require.NoError(t, err)
	var msgs []string
	for _, f := range got {
		msgs = append(msgs, f.Rule+" "+f.Field+" "+f.Message)
	}
	want := []string{
		"LINT-11 spec.template.spec.containers[0].ports[0].hostPort host port 9100/TCP is held by another pod on 1 node (pod default/exporter on a): the scheduler leaves the pod Pending there until it goes",
		"LINT-12 spec.template.spec.hostUsers the pod needs node feature UserNamespacesHostNetworkSupport, which 1 node does not declare (status.declaredFeatures): the scheduler leaves the pod Pending there",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("Lint() messages mismatch (-want +got):\n%s", diff)
	}
}

// LINT-12 points at the field that needs the feature, as schedule infers it (SCHED-3): the
// mount with bindMountOptions (1.37, the default), the restart rule that restarts all
// containers, hostUsers; one finding per feature.
func TestLintNodeFeaturePaths(t *testing.T) {
	t.Parallel()
	ds := apitest.DaemonSet(func(ds *appsv1.DaemonSet) {
		spec := &ds.Spec.Template.Spec
		spec.InitContainers = []v1.Container{{Name: "init", Image: "busybox", RestartPolicyRules: []v1.ContainerRestartRule{
			{Action: v1.ContainerRestartRuleActionRestartAllContainers, ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}}}
		spec.Containers[0].VolumeMounts = []v1.VolumeMount{{Name: "plain", MountPath: "/plain"},
			{Name: "data", MountPath: "/data", BindMountOptions: []string{"nosuid"}}}
	})
	before := ds.DeepCopy()
	s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds},
		Nodes: []*v1.Node{apitest.Node("a", allocatable("cpu", "4", "pods", "110"))}}
	got, err := lint.Lint(s, opts)
	require.NoError(t, err)
	var fields []string
	for _, f := range got {
		if f.Rule == lint.RuleNodeFeatureMissing {
			fields = append(fields, f.Field)
		}
	}
	want := []string{
		"spec.template.spec.containers[0].volumeMounts[1].bindMountOptions",
		"spec.template.spec.initContainers[0].restartPolicyRules[0].action",
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("LINT-12 fields mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("Lint mutated the DaemonSet (-before +after):\n%s", diff)
	}
}

// A DaemonSet that does not compile is an error naming it; the others are still linted.
func TestLintReportsDaemonSetsThatDoNotCompile(t *testing.T) {
	t.Parallel()
	bad := apitest.DaemonSet(named("default", "bad"), func(ds *appsv1.DaemonSet) {
		ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
	})
	good := apitest.DaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
	got, err := lint.Lint(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{bad, good}}, opts)
	require.ErrorContains(t, err, "DaemonSet default/bad: spec.selector.matchExpressions[0].operator")
	require.Len(t, got, 1)
	require.Equal(t, lint.RuleNoRevisionHistory, got[0].Rule)
}

// Rules lists every rule once, in ID order, and says whether it needs the nodes.
func TestRules(t *testing.T) {
	t.Parallel()
	var ids []string
	for _, r := range lint.Rules() {
		ids = append(ids, r.ID)
		require.NotEmpty(t, r.Name)
		require.NotEmpty(t, r.Summary)
	}
	require.Equal(t, []string{"LINT-1", "LINT-2", "LINT-3", "LINT-4", "LINT-5", "LINT-6", "LINT-7", "LINT-8", "LINT-11", "LINT-12"}, ids)
}

// The findings do not depend on the order of the snapshot's DaemonSets, nodes and pods, nor on
// how many workers the plans use.
func TestLintIsDeterministic(t *testing.T) {
	t.Parallel()
	s := benchCluster(300)
	want, err := lint.Lint(s, opts)
	require.NoError(t, err)
	require.NotEmpty(t, want)
	reversed := daemonset.Snapshot{
		DaemonSets: slices.Clone(s.DaemonSets), Nodes: slices.Clone(s.Nodes), Pods: slices.Clone(s.Pods),
	}
	slices.Reverse(reversed.DaemonSets)
	slices.Reverse(reversed.Nodes)
	slices.Reverse(reversed.Pods)
	o := opts
	o.Plan.Workers = 4
	got, err := lint.Lint(reversed, o)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lint() of the reversed snapshot mismatch (-want +got):\n%s", diff)
	}
}

// TestLintErrorIsBounded: a DaemonSet with thousands of field errors is one error naming the
// first errlist.Shown of them, in index order, and counting the others, rather than a message
// of every one (20,000 invalid tolerations: 7.5 MB, built in quadratic time; issue 25, F14).
func TestLintErrorIsBounded(t *testing.T) {
	t.Parallel()
	s := invalidTolerations(2000)
	before := s.DaemonSets[0].DeepCopy()
	_, err := lint.Lint(s, opts)
	require.Error(t, err)
	msg := err.Error()
	require.Less(t, len(msg), 100*1000+200, "the message is bounded")
	require.Contains(t, msg, "spec.template.spec.tolerations[0].key")
	require.Contains(t, msg, "spec.template.spec.tolerations[99].key")
	require.NotContains(t, msg, "spec.template.spec.tolerations[100].key")
	require.True(t, strings.HasSuffix(msg, ", ... and 1900 more]"), "ends with the count: %s", msg[max(0, len(msg)-100):])
	if diff := cmp.Diff(before, s.DaemonSets[0]); diff != "" {
		t.Errorf("Lint modified its input (-before +after):\n%s", diff)
	}
}
