package upstreamtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeports"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/schedule"
)

// TestFitAgainstUpstream runs package schedule's Fit and the linked release's scheduler's
// NodeResourcesFit, NodePorts and NodeDeclaredFeatures filters and the default preemption's
// SelectVictimsOnNode on the same random nodes and pods (SCHED-1 to SCHED-4): the shortfalls
// with their numbers, whether the ports and features pass, and whether preemption makes room
// and with which victims, in order. The pods are defaulted as the API server stores them.
//
// The scheduler's feature defaults, its plugin types, NodeDeclaredFeatures (new in 1.35) and its
// SelectVictimsOnNode differ by release: the shim files (shim_newest_test.go for the newest,
// shim_older_test.go for 1.35 and 1.36, shim_since135_test.go and shim_before135_test.go on
// either side of 1.35) hold them, and the plan is Compiled at the linked release.
func TestFitAgainstUpstream(t *testing.T) {
	schedmetrics.Register()     // the scheduling queue records into the scheduler's metrics
	logger := klog.Background() // at verbosity 0: the plugins' V(5) lines stay quiet
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	fitArgs := &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated,
		Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}}
	fitPl, err := noderesources.NewFit(ctx, fitArgs, nil, schedFeatures)
	if err != nil {
		t.Fatal(err)
	}
	portsPl, err := nodeports.New(ctx, nil, nil, schedFeatures)
	if err != nil {
		t.Fatal(err)
	}
	ndfRegister, ndfFit, err := nodeDeclaredFeatures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	informerFactory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	nominator := internalqueue.NewSchedulingQueue(nil, informerFactory)
	// newFramework returns a framework with the three filters over a snapshot of one node and
	// its pods, and the default preemption on it.
	newFramework := func(node *v1.Node, pods []*v1.Pod) (framework.Framework, *defaultpreemption.DefaultPreemption) {
		fw, err := tf.NewFramework(ctx, append([]tf.RegisterPluginFunc{
			tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
			tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
			tf.RegisterPluginAsExtensions(nodeports.Name, fixedPlugin(portsPl), "PreFilter", "Filter"),
			tf.RegisterPluginAsExtensions(noderesources.Name, fixedPlugin(fitPl), "PreFilter", "Filter"),
		}, ndfRegister...), "", append(snapshotOptions(node, pods),
			frameworkruntime.WithInformerFactory(informerFactory),
			frameworkruntime.WithPodNominator(nominator),
			frameworkruntime.WithLogger(logger),
		)...)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := newPreemption(ctx, &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, fw)
		if err != nil {
			t.Fatal(err)
		}
		return fw, pre
	}
	r := rand.New(rand.NewPCG(24, 2026))
	preempted, refused := 0, 0
	for i := range 1500 {
		node, pods, pod := randomScheduleCase(r)
		got := schedule.Compile(pod, schedule.Options{Version: release}).Fit(node, pods)

		// The scheduler's cache holds no terminal pod (SCHED-6).
		cached := slices.DeleteFunc(slices.Clone(pods), func(p *v1.Pod) bool { return p.Status.Phase == v1.PodSucceeded })
		nodeInfo := framework.NewNodeInfo(cached...)
		nodeInfo.SetNode(node)
		fw, pre := newFramework(node, cached)
		state := framework.NewCycleState()
		_, preStatus, _ := fw.RunPreFilterPlugins(ctx, state, pod)
		if !preStatus.IsSuccess() && !preStatus.IsSkip() {
			t.Fatalf("case %d: PreFilter: %v", i, preStatus)
		}

		// NodeResourcesFit, with its numbers.
		want := fitsResources(pod, nodeInfo)
		var wantShort, gotShort []string
		for _, ir := range want {
			wantShort = append(wantShort, fmt.Sprintf("%s %d/%d/%d %v", ir.ResourceName, ir.Requested, ir.Used, ir.Capacity, unresolvableOf(ir)))
		}
		for _, in := range got.Insufficient {
			wantUnits := func(q resource.Quantity) int64 {
				if in.Resource == v1.ResourceCPU {
					return q.MilliValue()
				}
				return q.Value()
			}
			gotShort = append(gotShort, fmt.Sprintf("%s %d/%d/%d %v", in.Resource, wantUnits(in.Requested), wantUnits(in.Used), wantUnits(in.Allocatable), in.Unresolvable && insufficientHasUnresolvable))
		}
		slices.Sort(wantShort)
		slices.Sort(gotShort)
		if !slices.Equal(wantShort, gotShort) {
			t.Errorf("case %d: NodeResourcesFit: upstream %q, schedule %q\npod %+v", i, wantShort, gotShort, pod.Spec)
		}
		// NodePorts.
		if w, g := nodeports.Fits(pod, nodeInfo), len(got.PortConflicts) == 0; w != g {
			t.Errorf("case %d: NodePorts: upstream fits %v, schedule %v (%v)", i, w, g, got.PortConflicts)
		}
		// NodeDeclaredFeatures.
		ndfFits := ndfFit(state, pod, nodeInfo)
		if g := len(got.MissingFeatures) == 0; ndfFits != g {
			t.Errorf("case %d: NodeDeclaredFeatures: upstream fits %v, schedule %v (%v)", i, ndfFits, g, got.MissingFeatures)
		}

		// The default preemption on this node, when the filters refuse.
		status := fw.RunFilterPlugins(ctx, state, pod, nodeInfo)
		if status.IsSuccess() != got.Fits() {
			t.Fatalf("case %d: upstream filters say %v, schedule fits %v", i, status, got.Fits())
		}
		if status.IsSuccess() {
			continue
		}
		refused++
		wantPossible, wantVictims := false, []string(nil)
		eligible, _ := pre.PodEligibleToPreemptOthers(ctx, pod, nil)
		if eligible && status.Code().String() != "UnschedulableAndUnresolvable" {
			if victims, ok := selectVictims(ctx, pre, state, pod, nodeInfo); ok {
				wantPossible = true
				for _, v := range victims {
					wantVictims = append(wantVictims, v.Name)
				}
			}
		}
		var gotVictims []string
		for _, v := range got.Preemption.Victims {
			gotVictims = append(gotVictims, v.Name)
		}
		if wantPossible != got.Preemption.Possible || !slices.Equal(wantVictims, gotVictims) {
			t.Errorf("case %d: preemption: upstream %v %q, schedule %v %q (%s)", i, wantPossible, wantVictims, got.Preemption.Possible, gotVictims, got.Preemption.Reason)
		}
		if wantPossible {
			preempted++
		}
	}
	t.Logf("%d cases refused by a filter, %d of them with room made by preemption", refused, preempted)
	if refused < 300 || preempted < 100 {
		t.Errorf("the generator is too tame: %d refused, %d preempted", refused, preempted)
	}
}

var (
	schedCPU    = []string{"100m", "250m", "500m", "1", "1500m"}
	schedMemory = []string{"64Mi", "256Mi", "512Mi", "1Gi"}
	schedPorts  = []int32{80, 9100}
	schedPrios  = []*int32{nil, ptr.To[int32](0), ptr.To[int32](100), ptr.To[int32](1000)}
)

// randomScheduleCase returns a node, the pods bound to it and a pod to place there, all defaulted
// as the API server stores them.
func randomScheduleCase(r *rand.Rand) (*v1.Node, []*v1.Pod, *v1.Pod) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	// One node in eight reports no allocatable: upstream allows it no pod, "Too many pods" (SCHED-1).
	if r.IntN(8) != 0 {
		node.Status.Allocatable = v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse([]string{"1", "2", "4"}[r.IntN(3)]),
			v1.ResourceMemory: resource.MustParse([]string{"1Gi", "2Gi", "4Gi"}[r.IntN(3)]),
			v1.ResourcePods:   resource.MustParse([]string{"2", "4", "110"}[r.IntN(3)]),
		}
		if r.IntN(2) == 0 {
			node.Status.Allocatable["example.com/gpu"] = resource.MustParse([]string{"0", "1", "2"}[r.IntN(3)])
		}
	}
	for _, f := range []string{schedule.FeatureRestartAllContainers, schedule.FeatureUserNamespacesHostNetwork, schedule.FeatureVolumeBindMountOptions} {
		if r.IntN(2) == 0 {
			declareFeature(node, f)
		}
	}
	var pods []*v1.Pod
	for j := range r.IntN(5) {
		p := randomSchedulePod(r, fmt.Sprintf("p%d", j))
		p.Spec.NodeName = node.Name
		p.Spec.Priority = schedPrios[r.IntN(len(schedPrios))]
		// Distinct start times: upstream's order of equal ones, and of pods without one (each
		// "now" when compared), is not fixed (D-17).
		p.Status.StartTime = &metav1.Time{Time: time.Date(2026, 1, 1, 0, r.IntN(1000)*10+j, 0, 0, time.UTC)}
		// No two pods of the node hold one host port: the scheduler's set of used ports
		// forgets a port held twice as soon as one of the two is set aside.
		if slices.ContainsFunc(pods, func(q *v1.Pod) bool { return portsClash(p, q) }) {
			for c := range p.Spec.Containers {
				p.Spec.Containers[c].Ports = nil
			}
			for c := range p.Spec.InitContainers {
				p.Spec.InitContainers[c].Ports = nil
			}
		}
		if r.IntN(8) == 0 {
			p.Status.Phase = v1.PodSucceeded
		}
		pods = append(pods, p)
	}
	pod := randomSchedulePod(r, "agent")
	pod.Spec.Priority = []*int32{ptr.To[int32](0), ptr.To[int32](100), ptr.To[int32](500), ptr.To[int32](2000)}[r.IntN(4)]
	if r.IntN(8) == 0 {
		pod.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
	}
	if r.IntN(6) == 0 {
		restartAllContainersOn(&pod.Spec.Containers[0])
	}
	if r.IntN(6) == 0 {
		pod.Spec.HostNetwork, pod.Spec.HostUsers = true, ptr.To(false)
	}
	if r.IntN(6) == 0 {
		if len(pod.Spec.InitContainers) > 0 && r.IntN(2) == 0 {
			bindMountOptionsOn(&pod.Spec.InitContainers[0])
		} else {
			bindMountOptionsOn(&pod.Spec.Containers[0])
		}
	}
	corev1.SetObjectDefaults_Pod(pod)
	return node, pods, pod
}

func randomSchedulePod(r *rand.Rand, name string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Status: v1.PodStatus{Phase: v1.PodRunning}}
	container := func(n string) v1.Container {
		c := v1.Container{Name: n, Image: "x"}
		req := v1.ResourceList{}
		if r.IntN(4) > 0 {
			req[v1.ResourceCPU] = resource.MustParse(schedCPU[r.IntN(len(schedCPU))])
		}
		if r.IntN(3) > 0 {
			req[v1.ResourceMemory] = resource.MustParse(schedMemory[r.IntN(len(schedMemory))])
		}
		if r.IntN(6) == 0 {
			req["example.com/gpu"] = resource.MustParse("1")
		}
		if len(req) > 0 {
			c.Resources.Requests = req
		}
		if r.IntN(4) == 0 {
			port := v1.ContainerPort{ContainerPort: 8080, HostPort: schedPorts[r.IntN(len(schedPorts))]}
			if r.IntN(3) == 0 {
				port.Protocol = v1.ProtocolUDP
			}
			if r.IntN(3) == 0 {
				port.HostIP = "10.0.0.1"
			}
			c.Ports = []v1.ContainerPort{port}
		}
		return c
	}
	p.Spec.Containers = []v1.Container{container("main")}
	if r.IntN(3) == 0 {
		p.Spec.Containers = append(p.Spec.Containers, container("second"))
	}
	if r.IntN(4) == 0 {
		ic := container("init")
		if r.IntN(2) == 0 {
			ic.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
		}
		p.Spec.InitContainers = []v1.Container{ic}
	}
	if r.IntN(6) == 0 {
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m")}
	}
	if r.IntN(6) == 0 {
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(schedCPU[r.IntN(len(schedCPU))])}}
	}
	return p
}

// portsClash reports whether two pods claim a conflicting host port.
func portsClash(a, b *v1.Pod) bool {
	for _, pa := range fleet.PodHostPorts(&a.Spec) {
		if slices.ContainsFunc(fleet.PodHostPorts(&b.Spec), pa.Conflicts) {
			return true
		}
	}
	return false
}
