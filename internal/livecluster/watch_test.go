package livecluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apimachinery/pkg/watch"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// verbs counts the requests of a fake clientset by verb and resource ("list pods").
type verbs struct {
	mu sync.Mutex
	n  map[string]int
}

func (v *verbs) count(a k8stesting.Action) (bool, runtime.Object, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n[a.GetVerb()+" "+a.GetResource().Resource]++
	return false, nil, nil // counted; the tracker answers
}

func (v *verbs) get(s string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.n[s]
}

// names is the namespace/name of every object of kind in a state's List.
func names(t *testing.T, d *cli.Dump, kind string) []string {
	t.Helper()
	var list struct {
		Items []struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(d.Data, &list))
	out := []string{}
	for _, it := range list.Items {
		if it.Kind == kind {
			out = append(out, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
	}
	return out
}

// rollout status --watch lists each kind once and then lives on watch events: every change
// (a pod created, updated, deleted) comes as a new state without another list; only a watch
// whose resourceVersion expired (410 Gone) lists its kind again, and the state is right after.
func TestWatchListsOnceAndAppliesEvents(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "agent"}}
	other := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "other"}}
	cs := fake.NewClientset(node, ds, other)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "36", GitVersion: "v1.36.3"}
	v := &verbs{n: map[string]int{}}
	cs.PrependReactor("*", "*", v.count)
	// The first watch of pods is told its resourceVersion expired, as a server that compacted
	// its history says it.
	var expireOnce sync.Once
	cs.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		v.count(a)
		if a.GetResource().Resource != "pods" {
			return false, nil, nil
		}
		handled := false
		var w *watch.FakeWatcher
		expireOnce.Do(func() {
			handled = true
			w = watch.NewFakeWithChanSize(1, false)
			w.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
		})
		return handled, w, nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := make(chan *cli.Dump)
	done := make(chan error, 1)
	r := &reader{cs: cs, name: "the fake cluster", pageSize: 500}
	go func() { done <- watchState(ctx, r, cli.Question{Namespace: "infra"}, states, testTiming) }()
	next := func(what string) *cli.Dump {
		t.Helper()
		select {
		case d := <-states:
			return d
		case err := <-done:
			t.Fatalf("waiting for %s: the watch ended: %v", what, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("waiting for %s: no state in 10 s", what)
		}
		return nil
	}
	// until reads states until cond holds of one.
	until := func(what string, cond func(*cli.Dump) bool) *cli.Dump {
		t.Helper()
		for {
			if d := next(what); cond(d) {
				return d
			}
		}
	}

	first := next("the first state")
	require.Equal(t, "1.36.3", first.Version.String())
	require.Equal(t, []string{"infra/agent"}, names(t, first, "DaemonSet"), "the question's namespace alone")
	require.Equal(t, []string{"/worker-1"}, names(t, first, "Node"))
	// Every kind watched (pods twice: the expired watch, then the one from the new list).
	require.Eventually(t, func() bool { return v.get("watch pods") == 2 && v.get("watch daemonsets") == 1 }, 10*time.Second, time.Millisecond)

	pods := cs.CoreV1().Pods("infra")
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "agent-x"}, Spec: v1.PodSpec{NodeName: "worker-1"}}
	_, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	until("the pod created", func(d *cli.Dump) bool { return len(names(t, d, "Pod")) == 1 })

	pod.Status.Phase = v1.PodRunning
	_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	updated := until("the pod updated", func(d *cli.Dump) bool {
		var list struct {
			Items []v1.Pod `json:"items"`
		}
		require.NoError(t, json.Unmarshal(d.Data, &list))
		for _, p := range list.Items {
			if p.Kind == "Pod" && p.Status.Phase == v1.PodRunning {
				return true
			}
		}
		return false
	})
	require.Equal(t, []string{"infra/agent-x"}, names(t, updated, "Pod"))

	require.NoError(t, pods.Delete(ctx, "agent-x", metav1.DeleteOptions{}))
	until("the pod deleted", func(d *cli.Dump) bool { return len(names(t, d, "Pod")) == 0 })

	_, err = cs.AppsV1().DaemonSets("ops").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "unseen"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.AppsV1().DaemonSets("infra").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "second"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	last := until("the DaemonSet created", func(d *cli.Dump) bool { return len(names(t, d, "DaemonSet")) == 2 })
	require.Equal(t, []string{"infra/agent", "infra/second"}, names(t, last, "DaemonSet"), "sorted, of the namespace alone")

	// One list of each kind, and a second of pods for the expired watch alone.
	for verb, want := range map[string]int{"list nodes": 1, "list daemonsets": 1, "list controllerrevisions": 1, "list pods": 2} {
		require.Equal(t, want, v.get(verb), verb)
	}
	cancel()
	require.NoError(t, <-done)
}

// A watch the server refuses ends Watch with the error, as a refused list ends Read.
func TestWatchRefusedSaysSo(t *testing.T) {
	cs := fake.NewClientset()
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "36"}
	cs.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(v1.Resource("pods"), "", nil)
	})
	states := make(chan *cli.Dump, 10)
	err := watchState(context.Background(), &reader{cs: cs, name: "the fake cluster"}, cli.Question{Namespace: "infra"}, states, testTiming)
	require.ErrorContains(t, err, "the fake cluster: forbidden: cannot watch pods in namespace infra")
}

// testTiming is defaultWatchTiming made fast: a test's burst settles in a millisecond.
var testTiming = watchTiming{settle: time.Millisecond, backoff: time.Millisecond, maxBackoff: 4 * time.Millisecond, short: time.Second}

// fakeCluster is a fake clientset holding one node and one DaemonSet of infra, at 1.36.3,
// whose requests v counts.
func fakeCluster(v *verbs) *fake.Clientset {
	cs := fake.NewClientset(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "agent"}})
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "36", GitVersion: "v1.36.3"}
	cs.PrependReactor("*", "*", v.count)
	return cs
}

// watchAnswer is how the fake cluster answers one watch: with w, or refusing it with err.
type watchAnswer struct {
	w   watch.Interface
	err error
}

// scriptWatches has the first watches of pods answered by answers, in order, each counted in
// v; the tracker's own watch answers the ones after.
func scriptWatches(cs *fake.Clientset, v *verbs, answers ...watchAnswer) {
	var mu sync.Mutex
	calls := 0
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		v.count(a)
		mu.Lock()
		defer mu.Unlock()
		if calls == len(answers) {
			return false, nil, nil
		}
		calls++
		return true, answers[calls-1].w, answers[calls-1].err
	})
}

// errorEvent is a watch whose one event is an error with status.
func errorEvent(status *metav1.Status) watch.Interface {
	w := watch.NewFakeWithChanSize(1, false)
	w.Error(status)
	return w
}

// A server (or a proxy before it) that closes every watch at once is not asked again in a
// tight loop: each restart waits a delay that doubles up to its cap, as client-go's reflector
// backs off, and the kind is watched again from where it was, not listed again.
func TestWatchBacksOffAServerThatKeepsClosing(t *testing.T) {
	v := &verbs{n: map[string]int{}}
	cs := fakeCluster(v)
	var mu sync.Mutex
	var at []time.Time
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		w := watch.NewFake()
		w.Stop() // closed at once, with no event
		return true, w, nil
	})
	timing := watchTiming{settle: time.Millisecond, backoff: 20 * time.Millisecond, maxBackoff: 80 * time.Millisecond, short: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	states := make(chan *cli.Dump, 100)
	done := make(chan error, 1)
	go func() {
		done <- watchState(ctx, &reader{cs: cs, name: "the fake cluster"}, cli.Question{Namespace: "infra"}, states, timing)
	}()
	time.Sleep(600 * time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	mu.Lock()
	defer mu.Unlock()
	// 20+40+80+80+... ms: about 9 watches in 600 ms, where a tight loop opens thousands.
	require.GreaterOrEqual(t, len(at), 4)
	require.LessOrEqual(t, len(at), 12, "watches opened in 600 ms")
	want := timing.backoff
	for k := 1; k < len(at); k++ {
		require.GreaterOrEqual(t, at[k].Sub(at[k-1]), want, "delay before watch %d", k+1)
		want = min(2*want, timing.maxBackoff)
	}
	require.Equal(t, 1, v.get("list pods"), "watched again from its resourceVersion, not listed again")
}

// A watch from a resourceVersion the server has not reached yet ("too large resource
// version": an API server behind the one that answered the list) lists the kind again, whether
// the server refuses the watch with it or sends it as the watch's error event, and the watch
// goes on; before, it ended the run with exit 1.
func TestWatchTooLargeResourceVersionListsAgain(t *testing.T) {
	v := &verbs{n: map[string]int{}}
	cs := fakeCluster(v)
	tooLarge := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 504, Reason: metav1.StatusReasonTimeout,
		Message: "Too large resource version: 12, current: 10",
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}}}}
	scriptWatches(cs, v,
		watchAnswer{err: tooLarge},                      // refused with it
		watchAnswer{w: errorEvent(&tooLarge.ErrStatus)}) // sent as the watch's error event
	w := startWatch(cs)
	defer w.cancel()
	require.Eventually(t, func() bool { return v.get("watch pods") == 3 }, 10*time.Second, time.Millisecond)
	require.Equal(t, 3, v.get("list pods"), "listed again after each")
	w.createdPodArrives(t, cs)
}

// An error the server sends as a watch event ends that watch, not the run, as in client-go's
// reflector: a 429 watches again from where it was, after the backoff, and any other error (an
// internal error here) lists the kind again; the events after it are applied. Before, both
// ended the run with exit 1.
func TestWatchErrorEventsRestartTheWatch(t *testing.T) {
	v := &verbs{n: map[string]int{}}
	cs := fakeCluster(v)
	scriptWatches(cs, v,
		watchAnswer{w: errorEvent(&apierrors.NewTooManyRequests("slow down", 1).ErrStatus)},
		watchAnswer{w: errorEvent(&apierrors.NewInternalError(errors.New("etcd leader changed")).ErrStatus)})
	w := startWatch(cs)
	defer w.cancel()
	require.Eventually(t, func() bool { return v.get("watch pods") == 3 }, 10*time.Second, time.Millisecond)
	require.Equal(t, 2, v.get("list pods"), "the 429 watched again; the internal error listed again")
	w.createdPodArrives(t, cs)
}

// running is a watchState of the fake cluster's infra namespace, started by startWatch.
type running struct {
	ctx    context.Context
	cancel context.CancelFunc
	states chan *cli.Dump
	done   chan error
}

// startWatch runs watchState on cs (the infra namespace, testTiming) until cancelled.
func startWatch(cs *fake.Clientset) *running {
	ctx, cancel := context.WithCancel(context.Background())
	w := &running{ctx: ctx, cancel: cancel, states: make(chan *cli.Dump, 100), done: make(chan error, 1)}
	go func() {
		w.done <- watchState(ctx, &reader{cs: cs, name: "the fake cluster"}, cli.Question{Namespace: "infra"}, w.states, testTiming)
	}()
	return w
}

// createdPodArrives creates a pod in infra and requires a state holding it, then a clean end
// once cancelled: the watch went on after what the test made it get past.
func (w *running) createdPodArrives(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	_, err := cs.CoreV1().Pods("infra").Create(w.ctx, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "agent-x"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for {
		select {
		case d := <-w.states:
			if len(names(t, d, "Pod")) == 1 {
				w.cancel()
				require.NoError(t, <-w.done)
				return
			}
		case err := <-w.done:
			t.Fatalf("the watch ended: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the pod created never came")
		}
	}
}
