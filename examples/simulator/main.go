// Command simulator runs the DaemonSet controller in a loop over an in-memory cluster: nodes
// join, leave, get relabelled and tainted, the template changes, and after each change the
// simulator applies one plan per sync until the DaemonSet has caught up. A capacity planner or a
// test harness can drive a cluster this way without an API server.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/rollout"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "simulator:", err)
		os.Exit(1)
	}
}

// cluster is the simulated API server's state.
type cluster struct {
	now   time.Time
	ds    *appsv1.DaemonSet
	nodes []*v1.Node
	pods  []*v1.Pod
}

// change is one thing that happens to the cluster.
type change struct {
	what  string
	apply func(c *cluster)
}

func run(w io.Writer) error {
	c := newCluster()
	for _, ch := range changes() {
		ch.apply(c)
		fmt.Fprintf(w, "%s: %s\n", c.now.Format("15:04"), ch.what)
		err := c.settle(func(sync int, res *daemonset.Result) {
			fmt.Fprintf(w, "  sync %d: %s\n", sync, summary(res))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func newCluster() *cluster {
	return &cluster{now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), ds: agentDaemonSet()}
}

// changes is the story the simulator plays.
func changes() []change {
	return []change{
		{"three workers and the DaemonSet are created", func(c *cluster) {
			c.addNode("worker-1", map[string]string{"role": "worker"})
			c.addNode("worker-2", map[string]string{"role": "worker"})
			c.addNode("worker-3", map[string]string{"role": "worker"})
		}},
		{"worker-4 joins", func(c *cluster) { c.addNode("worker-4", map[string]string{"role": "worker"}) }},
		{"worker-2 leaves (the pod garbage collector removes its pods)", func(c *cluster) { c.removeNode("worker-2") }},
		{"worker-3 is relabelled role=batch", func(c *cluster) { c.node("worker-3").Labels["role"] = "batch" }},
		{"worker-1 is tainted maintenance=true:NoExecute", func(c *cluster) {
			n := c.node("worker-1")
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "maintenance", Value: "true", Effect: v1.TaintEffectNoExecute})
		}},
		{"worker-1's maintenance ends and worker-3 is relabelled role=worker", func(c *cluster) {
			c.node("worker-1").Spec.Taints = nil
			c.node("worker-3").Labels["role"] = "worker"
		}},
		{"the template moves to agent:1.1 (rolling update, maxUnavailable 1)", func(c *cluster) {
			c.ds.Spec.Template.Spec.Containers[0].Image = "registry.example.com/agent:1.1"
			c.ds.Generation++
			c.ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(c.ds.Generation, 10)
		}},
	}
}

// settle syncs until a plan has nothing to do, a minute apart, calling report after each sync.
func (c *cluster) settle(report func(sync int, res *daemonset.Result)) error {
	for sync := 1; sync <= 20; sync++ {
		res, err := c.sync()
		if err != nil {
			return err
		}
		report(sync, res)
		c.now = c.now.Add(time.Minute)
		if len(res.Create) == 0 && len(res.Delete) == 0 && len(res.Adopt) == 0 && len(res.Release) == 0 {
			return nil
		}
	}
	return fmt.Errorf("no steady state after 20 syncs")
}

// sync plans one sync and applies it with rollout.Apply: the API server names and binds the
// created pods, deleted pods go at once (no grace period in this story), and the kubelet
// reports every new pod Ready at once.
func (c *cluster) sync() (*daemonset.Result, error) {
	res, err := daemonset.Plan(c.ds, c.nodes, c.pods, daemonset.Options{Now: c.now})
	if err != nil {
		return nil, err
	}
	next, err := rollout.Apply(daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{c.ds}, Nodes: c.nodes, Pods: c.pods}, res,
		rollout.ApplyOptions{Now: c.now})
	if err != nil {
		return nil, err
	}
	if next, err = rollout.Reap(next, c.now.Add(time.Hour)); err != nil {
		return nil, err
	}
	c.ds, c.pods = next.DaemonSets[0], next.Pods
	for i, p := range c.pods {
		if p.Status.Phase == v1.PodPending && p.Spec.NodeName != "" {
			p = p.DeepCopy()
			p.Status = v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{
				Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(c.now),
			}}}
			c.pods[i] = p
		}
	}
	return res, nil
}

// summary says what one plan does, on one line.
func summary(res *daemonset.Result) string {
	var parts []string
	for _, cr := range res.Create {
		parts = append(parts, "create on "+cr.Node)
	}
	for _, d := range res.Delete {
		parts = append(parts, fmt.Sprintf("delete %s on %s (%s)", d.Name, d.Node, d.Reason))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	s := res.Status
	return fmt.Sprintf("%s | desired %d, current %d, up-to-date %d, available %d",
		strings.Join(parts, ", "), s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.UpdatedNumberScheduled, s.NumberAvailable)
}

func (c *cluster) addNode(name string, labels map[string]string) {
	c.nodes = append(c.nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, UID: types.UID("node-" + name), Labels: labels, CreationTimestamp: metav1.NewTime(c.now),
	}})
}

func (c *cluster) removeNode(name string) {
	c.nodes = slices.DeleteFunc(c.nodes, func(n *v1.Node) bool { return n.Name == name })
	c.pods = slices.DeleteFunc(c.pods, func(p *v1.Pod) bool { return p.Spec.NodeName == name })
}

func (c *cluster) node(name string) *v1.Node {
	for _, n := range c.nodes {
		if n.Name == name {
			return n
		}
	}
	panic("simulator: no node " + name)
}

// agentDaemonSet is a node agent for worker nodes, as the API server stores it.
func agentDaemonSet() *appsv1.DaemonSet {
	one := intstr.FromInt32(1)
	zero := intstr.FromInt32(0)
	limit := int32(10)
	labels := map[string]string{"app": "agent"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: "agent", Namespace: "kube-system", UID: "7e57ab1e-0000-4000-8000-000000000001", Generation: 1,
			Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "1"},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					NodeSelector: map[string]string{"role": "worker"},
					Containers:   []v1.Container{{Name: "agent", Image: "registry.example.com/agent:1.0"}},
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero},
			},
			RevisionHistoryLimit: &limit,
		},
	}
}
