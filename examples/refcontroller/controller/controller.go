// Package controller is a reference DaemonSet controller built on client-go and the daemonsched
// library: a drop-in for kube-controller-manager's DaemonSet controller
// (--controllers=*,-daemonset). Every decision comes from daemonset.Planner.Plan; this package
// only watches, queues, and sends the plan's writes in the order the v1.36 controller sends them.
package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// BurstReplicas caps the creates and the deletes of one sync, as kube-controller-manager does.
const BurstReplicas = 250

// Options configure a Controller. The zero value is kube-controller-manager's configuration.
type Options struct {
	// Workers is the number of DaemonSets synced at once (--concurrent-daemonset-syncs); 0 means 2.
	Workers int
	// Recorder receives the events; nil records them through the API server as
	// "daemonset-controller", as kube-controller-manager does.
	Recorder record.EventRecorder
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Trace, when set, receives every sync that planned, when it ends: what it planned from
	// and what it found after the base diff. Tests compare the controller with a model of the
	// sync with it (the live story). It is called from the workers, concurrently for
	// different DaemonSets.
	Trace func(SyncTrace)
	// Version is the Kubernetes release whose DaemonSet controller this one stands in for
	// (main reads the API server's): every plan uses its rules (daemonset.Options.Version), and
	// from 1.36 a sync waits until the caches show the controller's own last writes
	// (StaleControllerConsistencyDaemonSet, beta and on by default from 1.36; SYNC-7). The zero
	// Version is the library's default, the newest supported release.
	Version daemonset.Version
	// FeatureGates are kube-controller-manager's --feature-gates over Version's defaults, for
	// the gates that change a decision: every plan uses them, and
	// StaleControllerConsistencyDaemonSet decides the wait for the controller's own writes.
	FeatureGates daemonset.FeatureGates
}

// SyncTrace is what one sync planned from, for comparing the controller's writes with a model.
type SyncTrace struct {
	Key       string
	DaemonSet *appsv1.DaemonSet // as cached when the sync started
	// Start is the caches when the sync started; Now and Backoff the plan's clock and
	// failed-pod back-off. Pending is true for a sync planned with Planner.PlanPending.
	Start   daemonset.Snapshot
	Now     time.Time
	Backoff []daemonset.BackoffEntry
	Pending bool
	// Rechecked is true when the base diff wrote pods and the sync checked its expectations
	// again before the rolling step; Observed is the answer, Mid the caches it asked (the
	// sync's nodes, the pods and revisions then), and Rolled is true when the rolling step
	// then acted in the same sync.
	Rechecked, Observed, Rolled bool
	Mid                         daemonset.Snapshot
	// Begin and End bound the sync in time: every request it sent lies between them.
	Begin, End time.Time
}

// Controller is the reference DaemonSet controller. Build it with New, then Run it.
type Controller struct {
	client   kubernetes.Interface
	dsLister appslisters.DaemonSetLister
	pods     corelisters.PodLister
	nodes    corelisters.NodeLister
	revs     appslisters.ControllerRevisionLister
	podInf   cache.SharedIndexInformer
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
	events   record.EventBroadcaster // nil when Options.Recorder is given
	workers  int
	now      func() time.Time
	trace    func(SyncTrace)
	version  daemonset.Version // zero: the library's default release
	gates    daemonset.FeatureGates
	// waitOwnWrites is StaleControllerConsistencyDaemonSet: a sync waits for the caches to
	// show the controller's own writes (caughtUp). The gate exists, on, from 1.36.
	waitOwnWrites bool

	mu      sync.Mutex
	state   map[string]*dsState      // per DaemonSet key: expectations and writes not yet observed
	backoff []daemonset.BackoffEntry // failed-pod back-off of every DaemonSet (DIFF-12)
}

// New wires a Controller to the DaemonSet, Pod, Node and ControllerRevision informers of factory.
// Start the factory after New (or let Run start it).
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, opts Options) *Controller {
	c := &Controller{
		client:  client,
		workers: opts.Workers,
		now:     opts.Now,
		trace:   opts.Trace,
		version: opts.Version,
		gates:   opts.FeatureGates,
		state:   map[string]*dsState{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "daemonset"}),
	}
	if c.workers <= 0 {
		c.workers = 2
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.waitOwnWrites = daemonset.Options{Version: c.version, FeatureGates: c.gates}.Enabled(daemonset.GateStaleControllerConsistencyDaemonSet)
	c.recorder = opts.Recorder
	if c.recorder == nil {
		c.events = record.NewBroadcaster()
		c.recorder = c.events.NewRecorder(scheme.Scheme, v1.EventSource{Component: "daemonset-controller"})
	}

	dsInf := factory.Apps().V1().DaemonSets()
	podInf := factory.Core().V1().Pods()
	nodeInf := factory.Core().V1().Nodes()
	revInf := factory.Apps().V1().ControllerRevisions()
	c.dsLister, c.pods, c.nodes, c.revs = dsInf.Lister(), podInf.Lister(), nodeInf.Lister(), revInf.Lister()
	c.podInf = podInf.Informer()
	c.synced = []cache.InformerSynced{dsInf.Informer().HasSynced, podInf.Informer().HasSynced,
		nodeInf.Informer().HasSynced, revInf.Informer().HasSynced}

	handle := func(inf cache.SharedIndexInformer, h cache.ResourceEventHandlerFuncs) {
		if _, err := inf.AddEventHandler(h); err != nil {
			utilruntime.HandleError(err)
		}
	}
	handle(dsInf.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueObject,
		UpdateFunc: func(_, cur any) { c.enqueueObject(cur) },
		DeleteFunc: c.enqueueObject,
	})
	handle(podInf.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podChanged(nil, obj) },
		UpdateFunc: c.podChanged,
		DeleteFunc: c.podDeleted,
	})
	handle(nodeInf.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueueAll() },
		UpdateFunc: c.nodeChanged,
		DeleteFunc: func(any) { c.enqueueAll() },
	})
	handle(revInf.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.revisionChanged(nil, obj) },
		UpdateFunc: c.revisionChanged,
		DeleteFunc: func(obj any) { c.revisionChanged(nil, obj) },
	})
	return c
}

// Run starts the informers of factory, waits for their caches, and runs the workers until ctx
// is done.
func (c *Controller) Run(ctx context.Context, factory informers.SharedInformerFactory) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if c.events != nil {
		c.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
		defer c.events.Shutdown()
	}
	factory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
		return fmt.Errorf("daemonset controller: caches did not sync")
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

func (c *Controller) worker(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		after, err := c.Sync(ctx, key)
		switch {
		case errors.Is(err, errNotObserved):
			// Not a failure: the informers are a few events behind the last writes.
			logger(ctx).V(4).Info("Waiting for the caches", "daemonset", key)
			c.queue.AddRateLimited(key)
		case err != nil:
			utilruntime.HandleErrorWithContext(ctx, err, "Syncing DaemonSet", "key", key)
			c.queue.AddRateLimited(key)
		default:
			c.queue.Forget(key)
			if after > 0 {
				c.queue.AddAfter(key, after)
			}
		}
		c.queue.Done(key)
	}
}

func (c *Controller) enqueueObject(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// enqueueAll queues every DaemonSet: a node event can change the eligibility of any of them.
func (c *Controller) enqueueAll() {
	dss, err := c.dsLister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, ds := range dss {
		c.enqueueObject(ds)
	}
}

// nodeChanged ignores node updates that change neither labels nor taints, the only node fields
// eligibility reads besides the name.
func (c *Controller) nodeChanged(old, cur any) {
	o, ok1 := old.(*v1.Node)
	n, ok2 := cur.(*v1.Node)
	if ok1 && ok2 && apiequality.Semantic.DeepEqual(o.Labels, n.Labels) &&
		apiequality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints) {
		return
	}
	c.enqueueAll()
}

// podChanged is the add and update handler of pods (upstream's addPod and updatePod). It queues
// the DaemonSet controlling the pod, the previous controller when the reference changed, or, for
// an orphan, every DaemonSet whose selector matches it. A pod that turns ready is queued again
// after minReadySeconds (plus a second), when it becomes available. A pod that is terminating,
// whether it arrives so or an update sets its deletionTimestamp, goes the way of a delete
// (podTerminating), as upstream's handlers send it to deletePod: the DaemonSet should replace
// it now, not once its kubelet has removed it.
func (c *Controller) podChanged(old, cur any) {
	pod := asPod(cur)
	if pod == nil {
		return
	}
	var oldPod *v1.Pod
	if old != nil {
		oldPod = asPod(old)
		if oldPod != nil && oldPod.ResourceVersion == pod.ResourceVersion {
			return
		}
	}
	if pod.DeletionTimestamp != nil {
		// Upstream's addPod counts no creation for a pod that arrives terminating; its
		// updatePod counts the creation at the add event that showed the pod live.
		c.podTerminating(pod, oldPod != nil && oldPod.DeletionTimestamp == nil)
		return
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if oldPod != nil {
		if oldRef := metav1.GetControllerOfNoCopy(oldPod); oldRef != nil && !reflect.DeepEqual(oldRef, ref) {
			if ds := c.resolve(oldPod.Namespace, oldRef); ds != nil {
				c.enqueueObject(ds)
			}
		}
	}
	if ref != nil {
		ds := c.resolve(pod.Namespace, ref)
		if ds == nil {
			return
		}
		c.seenEarly(ds, pod.UID, earlyLive)
		c.enqueueObject(ds)
		if after := c.version.PodUpdateRequeue(ds, oldPod, pod); after > 0 {
			key, _ := cache.MetaNamespaceKeyFunc(ds)
			c.queue.AddAfter(key, after)
		}
		return
	}
	if oldPod != nil && reflect.DeepEqual(oldPod.Labels, pod.Labels) {
		return // an orphan's other fields do not change who may adopt it
	}
	c.enqueueSelecting(pod.Namespace, pod.Labels)
}

// podDeleted is the delete handler of pods (upstream's deletePod): see podTerminating. A pod
// still awaited as created when it goes was live in the caches until then (one that arrived
// terminating is no longer awaited), so upstream's add event counted it.
func (c *Controller) podDeleted(obj any) {
	if pod := asPod(obj); pod != nil {
		c.podTerminating(pod, true)
	}
}

// podTerminating is upstream's deletePod, for a pod that is gone or terminating: the caches no
// longer show it live, so Expectations.Observed no longer counts it as created (SYNC-9). When it
// is one the controller created and its expectations still wait for, it is awaited no more, and
// when counted (upstream's addPod saw it live and counted its creation) the creates still
// expected go down by one, as upstream's counter went down at that add event. It queues the
// DaemonSet controlling the pod; an orphan queues nothing, as upstream's deletePod queues
// nothing for one, nor does the pod's previous controller.
func (c *Controller) podTerminating(pod *v1.Pod, counted bool) {
	c.mu.Lock()
	for _, st := range c.state {
		if st.created[pod.UID] {
			delete(st.created, pod.UID)
			if counted && st.exp != nil {
				st.exp.Creates--
			}
		}
	}
	c.mu.Unlock()
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ds := c.resolve(pod.Namespace, ref); ds != nil {
			if counted {
				c.seenEarly(ds, pod.UID, earlyGone)
			}
			c.enqueueObject(ds)
		}
	}
}

// seenEarly records what the caches showed of a pod of ds while a sync's creates are in flight
// and before the pod's own create has returned (dsState.early): live, or gone after it was seen
// live. Upstream counts a creation at the add event, whether or not its create call has
// returned; the sync settles the count when the create does.
func (c *Controller) seenEarly(ds *appsv1.DaemonSet, uid types.UID, seen earlySeen) {
	key, err := cache.MetaNamespaceKeyFunc(ds)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[key]
	if st == nil || st.early == nil || st.created[uid] {
		return
	}
	switch {
	case seen == earlyLive:
		st.early[uid] = earlyLive
	case st.early[uid] == earlyLive:
		st.early[uid] = earlyGone
	}
}

// revisionChanged queues the owner of a ControllerRevision, or for an orphan every DaemonSet
// whose selector matches it.
func (c *Controller) revisionChanged(old, cur any) {
	rev, ok := cur.(*appsv1.ControllerRevision)
	if !ok {
		if t, isTomb := cur.(cache.DeletedFinalStateUnknown); isTomb {
			rev, ok = t.Obj.(*appsv1.ControllerRevision)
		}
		if !ok {
			return
		}
	}
	if o, isRev := old.(*appsv1.ControllerRevision); isRev {
		if oldRef := metav1.GetControllerOfNoCopy(o); oldRef != nil {
			if ds := c.resolve(o.Namespace, oldRef); ds != nil {
				c.enqueueObject(ds)
			}
		}
	}
	if ref := metav1.GetControllerOfNoCopy(rev); ref != nil {
		if ds := c.resolve(rev.Namespace, ref); ds != nil {
			c.enqueueObject(ds)
		}
		return
	}
	c.enqueueSelecting(rev.Namespace, rev.Labels)
}

func (c *Controller) enqueueSelecting(namespace string, objLabels map[string]string) {
	dss, err := c.dsLister.DaemonSets(namespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, ds := range dss {
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(objLabels)) {
			continue
		}
		c.enqueueObject(ds)
	}
}

// resolve returns the DaemonSet a controller reference names, if it is in the cache with that uid.
func (c *Controller) resolve(namespace string, ref *metav1.OwnerReference) *appsv1.DaemonSet {
	if ref.Kind != "DaemonSet" {
		return nil
	}
	ds, err := c.dsLister.DaemonSets(namespace).Get(ref.Name)
	if err != nil || ds.UID != ref.UID {
		return nil
	}
	return ds
}

func asPod(obj any) *v1.Pod {
	switch o := obj.(type) {
	case *v1.Pod:
		return o
	case cache.DeletedFinalStateUnknown:
		p, _ := o.Obj.(*v1.Pod)
		return p
	}
	return nil
}

func logger(ctx context.Context) klog.Logger { return klog.FromContext(ctx) }
