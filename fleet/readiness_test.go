package fleet_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// readyCluster draws DaemonSets, half labelled critical, and pods on random nodes: current or
// of an old revision, ready or not, some terminating, some duplicated.
func readyCluster(r *rand.Rand) daemonset.Snapshot {
	dss := workload.DaemonSets(r.Int64(), 6)
	nodes := workload.Nodes(r.Int64(), 12)
	var pods []*v1.Pod
	for k, ds := range dss {
		if k%2 == 0 {
			ds.Labels = map[string]string{"critical": "true"}
		}
		hash := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		var on []*v1.Node
		for _, n := range nodes {
			if r.IntN(3) > 0 {
				on = append(on, n)
			}
		}
		for _, p := range workload.Pods(ds, on, hash) {
			switch r.IntN(6) {
			case 0:
				p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "old"
				delete(p.Labels, extensionsv1beta1.DaemonSetTemplateGenerationKey)
			case 1:
				p.Status.Conditions[0].Status = v1.ConditionFalse
			case 2:
				now := metav1.Now()
				p.DeletionTimestamp = &now
			case 3:
				dup := p.DeepCopy()
				dup.Name += "-dup"
				pods = append(pods, dup)
			}
			pods = append(pods, p)
		}
	}
	return daemonset.Snapshot{DaemonSets: dss, Nodes: nodes, Pods: pods}
}

// TestNodeReadinessAgreesWithThePlan is WHATIF-5's property: a node is ready exactly when no
// selected DaemonSet the controller would run there lacks a ready, current pod that the sync
// keeps, and a node where the sync would create a selected DaemonSet's pod is never ready.
func TestNodeReadinessAgreesWithThePlan(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 5))
	critical := &metav1.LabelSelector{MatchLabels: map[string]string{"critical": "true"}}
	ready, notReady := 0, 0
	for range 40 {
		s := readyCluster(r)
		plan, err := s.Plan(setNow)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range s.Nodes {
			for _, sel := range []*metav1.LabelSelector{nil, critical} {
				got, err := fleet.NodeReadiness(s, node.Name, sel, setNow)
				if err != nil {
					t.Fatal(err)
				}
				// A node that is not Ready, or carries the lifecycle controller's taints, is
				// never ready, whatever its pods say.
				want := !slices.ContainsFunc(node.Spec.Taints, func(t v1.Taint) bool {
					return t.Key == v1.TaintNodeNotReady || t.Key == v1.TaintNodeUnreachable
				})
				seen := 0
				for _, ds := range s.DaemonSets {
					if sel != nil && ds.Labels["critical"] != "true" {
						continue
					}
					seen++
					res := plan.DaemonSets[slices.IndexFunc(plan.DaemonSets, func(x *daemonset.Result) bool { return x.Name == ds.Name })]
					if slices.ContainsFunc(res.Create, func(c daemonset.Creation) bool { return c.Node == node.Name }) {
						want = false
						continue
					}
					p, _ := daemonset.Compile(ds, setNow)
					if !p.Eligibility(node).ShouldRun {
						continue
					}
					good := false
					for _, pod := range s.Pods {
						if n, _ := affinity.TargetNodeName(pod); n != node.Name || !daemonset.NewestVersion().IsControlledBy(pod, ds) {
							continue
						}
						deleted := slices.ContainsFunc(res.Delete, func(d daemonset.Deletion) bool { return d.Name == pod.Name })
						if daemonset.IsPodReady(pod) && pod.DeletionTimestamp == nil && !deleted && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == res.RevisionHash {
							good = true
						}
					}
					want = want && good
				}
				if got.Ready != want || len(got.DaemonSets) != seen {
					t.Fatalf("node %s, selector %v: NodeReadiness %+v, the plan says ready=%v", node.Name, sel, got, want)
				}
				if got.Ready {
					ready++
				} else {
					notReady++
				}
			}
		}
	}
	if ready < 50 || notReady < 50 {
		t.Fatalf("only %d ready and %d not ready nodes", ready, notReady)
	}
}

func TestNodeReadinessErrors(t *testing.T) {
	s := daemonset.Snapshot{Nodes: workload.Nodes(1, 2)}
	if _, err := fleet.NodeReadiness(s, "nowhere", nil, setNow); err == nil || err.Error() != `node "nowhere" not found` {
		t.Fatalf("missing node: %v", err)
	}
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	_, err := fleet.NodeReadiness(s, s.Nodes[0].Name, bad, setNow)
	if want := `daemonSets.matchExpressions[0].operator: Invalid value: "Bogus": not a valid selector operator, must be one of In, NotIn, Exists, DoesNotExist`; err == nil || err.Error() != want {
		t.Fatalf("invalid selector: %v", err)
	}
}

// TestNodeReadinessClaims: the pods a sync adopts count as the DaemonSet's (OWN-4), so a
// ready orphan it adopts makes the node ready though no pod is controlled yet; a pod it
// releases (OWN-3) no longer counts (WHATIF-5), nor does one another DaemonSet controls or one
// in another namespace (OWN-1); a pod it controls and keeps does (OWN-2).
func TestNodeReadinessClaims(t *testing.T) {
	ds := apitest.DaemonSet()
	p, errs := daemonset.Compile(ds, setNow)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	readyPod := func(name string, mod func(*v1.Pod)) *v1.Pod {
		pod := p.NewPod("n1")
		pod.Name, pod.GenerateName = name, ""
		pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}
		mod(pod)
		return pod
	}
	orphan := readyPod("orphan", func(pod *v1.Pod) { pod.OwnerReferences = nil })
	mismatched := readyPod("mismatched", func(pod *v1.Pod) { pod.Labels = map[string]string{"app": "other"} })
	kept := readyPod("kept", func(*v1.Pod) {})
	foreign := readyPod("foreign", func(pod *v1.Pod) { pod.OwnerReferences[0].UID = "uid-other" })
	elsewhere := readyPod("elsewhere", func(pod *v1.Pod) { pod.Namespace = "other" })
	tests := []struct {
		name                 string
		pod                  *v1.Pod
		wantPod              string
		wantReady, wantBlock bool
	}{
		{"OWN-4 a ready orphan the sync adopts", orphan, "orphan", true, false},
		{"OWN-3 a ready pod the sync releases", mismatched, "", false, true},
		{"OWN-2 a ready pod the DaemonSet controls and keeps", kept, "kept", true, false},
		{"OWN-1 a ready pod another DaemonSet controls", foreign, "", false, true},
		{"OWN-1 a ready pod in another namespace", elsewhere, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{apitest.Node("n1")}, Pods: []*v1.Pod{tt.pod}}
			got, err := fleet.NodeReadiness(s, "n1", nil, setNow)
			if err != nil {
				t.Fatal(err)
			}
			r := got.DaemonSets[0]
			if got.Ready != tt.wantReady || r.Pod != tt.wantPod || r.Blocking != tt.wantBlock || !r.MustRun {
				t.Fatalf("readiness %+v, want pod %q, ready %v, blocking %v", got, tt.wantPod, tt.wantReady, tt.wantBlock)
			}
		})
	}
}

// TestNodeReadinessNodeNotReady: a node that is NotReady, unreachable (Ready Unknown) or carries
// the not-ready or unreachable taint is not ready for workloads, with the reason, though its
// daemon pod still reads ready and current (WHATIF-5); a node without a Ready condition is
// judged by its taints (WHATIF-5).
func TestNodeReadinessNodeNotReady(t *testing.T) {
	ds := apitest.DaemonSet()
	p, errs := daemonset.Compile(ds, setNow)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	pod := p.NewPod("n1")
	pod.Name, pod.GenerateName = "agent-n1", ""
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}
	cond := func(st v1.ConditionStatus, reason string) func(*v1.Node) {
		return func(n *v1.Node) {
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: st, Reason: reason}}
		}
	}
	taint := func(key string, effect v1.TaintEffect) func(*v1.Node) {
		return func(n *v1.Node) { n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Effect: effect}) }
	}
	tests := []struct {
		name string
		mods []func(*v1.Node)
		want string // NodeNotReady; "" is a ready node
	}{
		{"WHATIF-5 Ready True", []func(*v1.Node){cond(v1.ConditionTrue, "KubeletReady")}, ""},
		{"WHATIF-5 no Ready condition", nil, ""},
		{"WHATIF-5 Ready False", []func(*v1.Node){cond(v1.ConditionFalse, "KubeletNotReady")},
			"its Ready condition is False: KubeletNotReady"},
		{"WHATIF-5 Ready Unknown", []func(*v1.Node){cond(v1.ConditionUnknown, "NodeStatusUnknown")},
			"its Ready condition is Unknown (unreachable): NodeStatusUnknown"},
		{"WHATIF-5 not-ready taint alone", []func(*v1.Node){taint(v1.TaintNodeNotReady, v1.TaintEffectNoExecute)},
			"it carries the taint node.kubernetes.io/not-ready:NoExecute"},
		{"WHATIF-5 NotReady with both not-ready taints", []func(*v1.Node){cond(v1.ConditionFalse, ""),
			taint(v1.TaintNodeNotReady, v1.TaintEffectNoSchedule), taint(v1.TaintNodeNotReady, v1.TaintEffectNoExecute)},
			"its Ready condition is False; it carries the taint node.kubernetes.io/not-ready:NoSchedule; it carries the taint node.kubernetes.io/not-ready:NoExecute"},
		{"WHATIF-5 unreachable taint", []func(*v1.Node){taint(v1.TaintNodeUnreachable, v1.TaintEffectNoSchedule)},
			"it carries the taint node.kubernetes.io/unreachable:NoSchedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := apitest.Node("n1", tt.mods...)
			s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{node}, Pods: []*v1.Pod{pod}}
			before := node.DeepCopy()
			got, err := fleet.NodeReadiness(s, "n1", nil, setNow)
			if err != nil {
				t.Fatal(err)
			}
			if got.NodeNotReady != tt.want || got.Ready != (tt.want == "") {
				t.Fatalf("readiness %+v, want NodeNotReady %q", got, tt.want)
			}
			if !reflect.DeepEqual(before, node) {
				t.Fatal("the node was modified")
			}
		})
	}
}

// v1363 is the release whose hash these pods and revisions carry, as they did when the test was
// written: 1.36.3, not the default release.
var v1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()

// TestNodeReadinessOwnsAtTheRelease: which pods a DaemonSet controls is the release's rule
// (VER-4, OWN-1): a ready pod whose controller reference has the DaemonSet's uid under another
// kind and name is the DaemonSet's in 1.33.4, whose controller indexes pods by controller uid
// alone, so the node is ready with it (WHATIF-5); from 1.33.6 on it is not the DaemonSet's, whose
// sync creates a pod there, so the node is not.
func TestNodeReadinessOwnsAtTheRelease(t *testing.T) {
	ds := apitest.DaemonSet()
	for _, tt := range []struct {
		release              string
		wantPod              string
		wantReady, wantBlock bool
	}{
		{"1.33.4", "byuid", true, false},
		{"1.33.6", "", false, true},
		{"1.37.2", "", false, true},
	} {
		t.Run("VER-4 "+tt.release, func(t *testing.T) {
			opts := setNow
			var err error
			opts.Version, err = daemonset.ParseVersion(tt.release)
			if err != nil {
				t.Fatal(err)
			}
			p, errs := daemonset.Compile(ds, opts)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			pod := p.NewPod("n1")
			pod.Name, pod.GenerateName = "byuid", ""
			pod.OwnerReferences[0].Kind, pod.OwnerReferences[0].Name = "ReplicaSet", "other"
			pod.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}
			s := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*v1.Node{apitest.Node("n1")}, Pods: []*v1.Pod{pod}}
			got, err := fleet.NodeReadiness(s, "n1", nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			r := got.DaemonSets[0]
			if got.Ready != tt.wantReady || r.Pod != tt.wantPod || r.Blocking != tt.wantBlock || !r.MustRun {
				t.Fatalf("readiness %+v, want pod %q, ready %v, blocking %v", got, tt.wantPod, tt.wantReady, tt.wantBlock)
			}
		})
	}
}
