package upstreamtest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// fakeAPIServer returns a fake clientset holding objs whose pod writes behave as the API
// server's where the controller depends on it: a pod created with generateName only gets the
// name podName gives it (the fake tracker would refuse it), and a delete removes a pod at once
// only when it is not bound, is terminal or has no grace period (0 or unset); otherwise the pod
// stays, terminating from now for its grace period (pod strategy CheckGracefulDelete).
// The reactors run under the clientset's lock, so podName needs none of its own.
func fakeAPIServer(objs []runtime.Object, now time.Time, podName func(*v1.Pod) string) *fake.Clientset {
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.CreateAction).GetObject().(*v1.Pod)
		if p.Name == "" {
			p.Name = podName(p)
		}
		return false, nil, nil
	})
	client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteAction)
		obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), d.GetNamespace(), d.GetName())
		if err != nil {
			return false, nil, nil
		}
		p := obj.(*v1.Pod).DeepCopy()
		grace := p.Spec.TerminationGracePeriodSeconds
		if p.Spec.NodeName == "" || p.Status.Phase == v1.PodFailed || p.Status.Phase == v1.PodSucceeded || grace == nil || *grace == 0 {
			return false, nil, nil
		}
		if p.DeletionTimestamp != nil { // a second delete changes nothing here
			return true, nil, nil
		}
		p.DeletionTimestamp = &metav1.Time{Time: now}
		p.DeletionGracePeriodSeconds = new(*grace)
		return true, nil, client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), p, p.Namespace)
	})
	return client
}

// snapshotClient returns copies of one snapshot's objects and a fakeAPIServer holding them,
// whose created pods are named generateName and a serial number.
func snapshotClient(ds *appsv1.DaemonSet, nodes []*v1.Node, pods []*v1.Pod, revs []*appsv1.ControllerRevision, now time.Time) ([]runtime.Object, *fake.Clientset) {
	objs := []runtime.Object{ds.DeepCopy()}
	for _, n := range nodes {
		objs = append(objs, n.DeepCopy())
	}
	for _, p := range pods {
		objs = append(objs, p.DeepCopy())
	}
	for _, r := range revs {
		objs = append(objs, r.DeepCopy())
	}
	created := 0
	return objs, fakeAPIServer(objs, now, func(p *v1.Pod) string {
		created++
		return fmt.Sprintf("%s%d", p.GenerateName, created)
	})
}

// recordingQueue stands in for the controller's work queue: it records the delays the sync
// asks to be queued again after (enqueueDaemonSetAfter) and passes everything else on.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	mu    sync.Mutex
	after []time.Duration
}

func (q *recordingQueue) AddAfter(item string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.after = append(q.after, d)
}

// requeueAfter is the delay the DaemonSet is queued again after: the smallest one asked for,
// since a delaying queue keeps the earliest time of a key; 0 when none was asked for.
func (q *recordingQueue) requeueAfter() time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out time.Duration
	for i, d := range q.after {
		if i == 0 || d < out {
			out = d
		}
	}
	return out
}

// field returns the controller's unexported field name, settable.
func field(dsc *daemon.DaemonSetsController, name string) reflect.Value {
	f := reflect.ValueOf(dsc).Elem().FieldByName(name)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// syncUpstream runs one syncDaemonSet of a fresh v1.36.3 controller on ds: its caches hold
// exactly objs (which client must hold too), so its expectations are satisfied, and its
// failed-pod back-off is backoff, whose clock is the sync's. It returns the requeue delay the
// sync asked for (0: none) and the sync's error (a collision is one; its writes still count).
// The writes are client's actions. Each prepare, if any, runs on the controller just before
// the sync (to raise its expectations, say).
func syncUpstream(t *testing.T, client *fake.Clientset, objs []runtime.Object, ds *appsv1.DaemonSet, backoff *flowcontrol.Backoff, prepare ...func(*daemon.DaemonSetsController)) (time.Duration, error) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(client, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dsc, err := daemon.NewDaemonSetsController(ctx, factory.Apps().V1().DaemonSets(), factory.Apps().V1().ControllerRevisions(),
		factory.Core().V1().Pods(), factory.Core().V1().Nodes(), client, backoff)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *appsv1.DaemonSet:
			err = factory.Apps().V1().DaemonSets().Informer().GetIndexer().Add(o)
		case *v1.Node:
			err = factory.Core().V1().Nodes().Informer().GetIndexer().Add(o)
		case *v1.Pod:
			err = factory.Core().V1().Pods().Informer().GetIndexer().Add(o)
		case *appsv1.ControllerRevision:
			err = factory.Apps().V1().ControllerRevisions().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	client.ClearActions()
	queue := field(dsc, "queue")
	rec := &recordingQueue{TypedRateLimitingInterface: queue.Interface().(workqueue.TypedRateLimitingInterface[string])}
	queue.Set(reflect.ValueOf(rec))
	// The queues' goroutines run until they are shut down.
	defer rec.ShutDown()
	defer field(dsc, "nodeUpdateQueue").Interface().(workqueue.TypedRateLimitingInterface[string]).ShutDown()
	for _, f := range prepare {
		f(dsc)
	}
	// syncDaemonSet is not exported; the controller calls it through its syncHandler field.
	sync := field(dsc, "syncHandler").Interface().(func(context.Context, string) error)
	err = sync(ctx, ds.Namespace+"/"+ds.Name)
	return rec.requeueAfter(), err
}
