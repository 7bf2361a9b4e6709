//go:build live

package live

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/examples/refcontroller/controller"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	ns       = "story"
	dsName   = "agent"
	nodeKey  = "story.daemonsched.io/daemon"
	startN   = 50
	joinN    = 5
	stepWait = 2 * time.Minute
)

// writeLog counts the controller's writes (POST, PUT, PATCH, DELETE) and keeps those the API
// server rejected.
type writeLog struct {
	mu       sync.Mutex
	total    map[string]int
	rejected []string
}

func (w *writeLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if req.Method == http.MethodGet {
			return resp, err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.total[req.Method]++
		switch {
		case err != nil:
			w.rejected = append(w.rejected, fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err))
		case resp.StatusCode >= 300:
			w.rejected = append(w.rejected, fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, resp.Status))
		}
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// stepWindow is when one step of the story ran, from its act to its convergence.
type stepWindow struct {
	name       string
	start, end time.Time
}

// story drives the cluster: its own client for the test's writes and reads, the controller
// in-process on another client whose writes are counted, and the test kubelet.
type story struct {
	t       *testing.T
	ctx     context.Context
	client  kubernetes.Interface
	kubelet *Kubelet
	writes  *writeLog
	timings []string
	steps   []stepWindow
	// revisions are the ControllerRevisions the DaemonSet should have after the current step,
	// oldest first: name and revision number.
	revisions []string
}

func TestStory(t *testing.T) {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	s := &story{t: t, ctx: ctx, client: kubernetes.NewForConfigOrDie(cfg), writes: &writeLog{total: map[string]int{}}}
	ctlCfg := rest.CopyConfig(cfg)
	// The controller's own rate limit, kube-controller-manager's default (--kube-api-qps,
	// --kube-api-burst).
	ctlCfg.QPS, ctlCfg.Burst = 20, 30
	pods := &podWriteLog{}
	ctlCfg.Wrap(s.writes.wrap)
	ctlCfg.Wrap(pods.wrap)
	ctlClient := kubernetes.NewForConfigOrDie(rest.AddUserAgent(ctlCfg, "daemonsched-refcontroller"))
	factory := informers.NewSharedInformerFactory(ctlClient, 0)
	traces := &traceLog{}
	ctl := controller.New(ctlClient, factory, controller.Options{Workers: 2, Trace: traces.add, Version: storyRelease})
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx, factory) }()
	stop := sync.OnceFunc(func() { cancel(); <-done })
	defer stop()
	if s.kubelet, err = StartKubelet(ctx, s.client, KubeletOptions{}); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()

	s.step("create: DaemonSet on 50 nodes", func() {
		s.must(s.client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
		for i := range startN {
			s.addNode(i)
		}
		s.must(s.client.AppsV1().DaemonSets(ns).Create(ctx, newDaemonSet(), metav1.CreateOptions{}))
		s.revisions = []string{s.currentRevisionName() + " 1"}
	})
	s.step("join: 5 nodes", func() {
		for i := startN; i < startN+joinN; i++ {
			s.addNode(i)
		}
	})
	s.step("leave: 5 nodes", func() {
		for i := startN; i < startN+joinN; i++ {
			s.mustErr(s.client.CoreV1().Nodes().Delete(ctx, nodeName(i), metav1.DeleteOptions{}))
		}
	})
	var keptUID types.UID
	s.step("NoSchedule taint on node-00 (its pod stays)", func() {
		keptUID = s.podOn(nodeName(0)).UID
		s.taint(0, v1.TaintEffectNoSchedule)
	})
	if p := s.podOn(nodeName(0)); p == nil || p.UID != keptUID {
		t.Errorf("the NoSchedule taint replaced or removed node-00's pod")
	}
	s.step("NoExecute taint on node-01 (its pod goes)", func() { s.taint(1, v1.TaintEffectNoExecute) })
	s.step("relabel node-02 out of the nodeSelector", func() {
		s.updateNode(2, func(n *v1.Node) { delete(n.Labels, nodeKey) })
	})
	s.step("failed pod on node-03 (deleted, recreated)", func() {
		s.mustErr(s.kubelet.Fail(ctx, s.podOn(nodeName(3))))
	})
	s.step("failed again at once (held by back-off)", func() {
		s.mustErr(s.kubelet.Fail(ctx, s.podOn(nodeName(3))))
	})
	if d := s.kubelet.Deletions(nodeName(3)); len(d) != 2 {
		t.Errorf("node-03 saw %d pod deletions, want 2", len(d))
	} else if gap := d[1].Sub(d[0]); gap < time.Second {
		t.Errorf("the second failed pod was deleted %v after the first, want at least the 1 s back-off", gap)
	} else {
		s.timings = append(s.timings, fmt.Sprintf("  back-off: second failed pod deleted %v after the first", gap.Round(time.Millisecond)))
	}
	s.step("rollout with maxUnavailable 5", func() {
		s.updateDaemonSet(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Image = "story/agent:2"
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(5)), MaxSurge: ptr(intstr.FromInt32(0))}
		})
		s.revisions = append(s.revisions, s.currentRevisionName()+" 2")
	})
	s.step("rollout with maxSurge 5", func() {
		s.updateDaemonSet(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Image = "story/agent:3"
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromInt32(5))}
		})
		// revisionHistoryLimit 1: the first revision, which no pod uses any more, goes.
		s.revisions = append(s.revisions[1:], s.currentRevisionName()+" 3")
	})

	stop()
	s.compareWithModel(pods, traces)
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	t.Logf("story: %v in all", time.Since(begin).Round(time.Millisecond))
	for _, line := range s.timings {
		t.Log(line)
	}
	t.Logf("controller writes: %v; rejected: %d", s.writes.total, len(s.writes.rejected))
	for _, r := range s.writes.rejected {
		t.Errorf("rejected write: %s", r)
	}
}

// step acts, then waits (bounded) until the cluster has converged and records the time.
func (s *story) step(name string, act func()) {
	s.t.Helper()
	start := time.Now()
	act()
	var why string
	for deadline := time.Now().Add(stepWait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if why = s.converged(); why == "" {
			s.steps = append(s.steps, stepWindow{name, start, time.Now()})
			s.timings = append(s.timings, fmt.Sprintf("  %-45s converged in %v", name, time.Since(start).Round(time.Millisecond)))
			return
		}
	}
	s.t.Fatalf("%s: not converged after %v: %s", name, stepWait, why)
}

func (s *story) must(_ any, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}

func (s *story) mustErr(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}

func nodeName(i int) string { return fmt.Sprintf("node-%02d", i) }

func (s *story) addNode(i int) {
	s.must(s.client.CoreV1().Nodes().Create(s.ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: nodeName(i), Labels: map[string]string{nodeKey: "yes", v1.LabelHostname: nodeName(i)}}}, metav1.CreateOptions{}))
}

func (s *story) updateNode(i int, mod func(*v1.Node)) {
	n, err := s.client.CoreV1().Nodes().Get(s.ctx, nodeName(i), metav1.GetOptions{})
	s.mustErr(err)
	mod(n)
	s.must(s.client.CoreV1().Nodes().Update(s.ctx, n, metav1.UpdateOptions{}))
}

func (s *story) taint(i int, effect v1.TaintEffect) {
	s.updateNode(i, func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "story.daemonsched.io/" + strings.ToLower(string(effect)), Effect: effect})
	})
}

func (s *story) updateDaemonSet(mod func(*appsv1.DaemonSet)) {
	ds, err := s.client.AppsV1().DaemonSets(ns).Get(s.ctx, dsName, metav1.GetOptions{})
	s.mustErr(err)
	mod(ds)
	s.must(s.client.AppsV1().DaemonSets(ns).Update(s.ctx, ds, metav1.UpdateOptions{}))
}

// podOn returns the DaemonSet's pod bound to node, if any.
func (s *story) podOn(node string) *v1.Pod {
	pods, err := s.client.CoreV1().Pods(ns).List(s.ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	s.mustErr(err)
	if len(pods.Items) != 1 {
		s.t.Fatalf("%d pods on %s, want 1", len(pods.Items), node)
	}
	return &pods.Items[0]
}

func newDaemonSet() *appsv1.DaemonSet {
	labels := map[string]string{"app": dsName}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: dsName, Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			RevisionHistoryLimit: ptr(int32(1)),
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					NodeSelector:  map[string]string{nodeKey: "yes"},
					RestartPolicy: v1.RestartPolicyAlways,
					Containers:    []v1.Container{{Name: "agent", Image: "story/agent:1"}},
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// compareWithModel compares the controller's syncs with rollout.Simulate's SyncObserved model
// (ROLL-7) and fails on a difference that is not an informer race (see compareWithModel in
// model_test.go); it logs the acting syncs of each step.
func (s *story) compareWithModel(pods *podWriteLog, traces *traceLog) {
	pods.mu.Lock()
	writes, bad := slices.Clone(pods.writes), slices.Clone(pods.bad)
	pods.mu.Unlock()
	traces.mu.Lock()
	trs := slices.Clone(traces.traces)
	traces.mu.Unlock()
	for _, b := range bad {
		s.t.Errorf("unreadable pod write: %s", b)
	}
	r := compareWithModel(trs, writes)
	s.t.Logf("model (SyncObserved, ROLL-7): %d syncs, %d acting; %d as the model, %d informer behind the base diff "+
		"(the model's alternative), %d caches moved on; %d differences", r.syncs, r.acting, r.matched, r.unseen, r.moved, len(r.diffs))
	for _, w := range s.steps {
		n := 0
		for _, at := range r.actingAt {
			if !at.Before(w.start) && !at.After(w.end) {
				n++
			}
		}
		s.t.Logf("  %-45s %d acting syncs", w.name, n)
	}
	for _, d := range r.diffs {
		s.t.Errorf("not the model: %s", d)
	}
}
