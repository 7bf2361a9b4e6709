package live

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Kubelet stands in for the scheduler, every kubelet and the pod garbage collector of a
// cluster: it binds pending daemon pods to the node their required node affinity names,
// marks bound pods Running and Ready (or, for an image it cannot pull, leaves them Pending and
// not Ready, as a kubelet in ErrImagePull does), finishes graceful deletions, deletes pods whose
// node is gone, and fails a pod on demand. It never decides anything a DaemonSet controller
// decides. The live story and the upstream e2e specs (module live/e2e) share it.
type Kubelet struct {
	client     kubernetes.Interface
	pods       corelisters.PodLister
	nodes      corelisters.NodeLister
	queue      workqueue.TypedRateLimitingInterface[string]
	registries []string

	mu      sync.Mutex
	deleted map[string][]time.Time // node -> when its pods disappeared
}

// KubeletOptions configure a Kubelet. The zero value pulls every image.
type KubeletOptions struct {
	// Registries are the image name prefixes the kubelet can pull from ("registry.k8s.io/");
	// a pod with any other image stays Pending with ErrImagePull. Empty means every image.
	Registries []string
}

// StartKubelet starts a Kubelet on client that works until ctx ends; it returns once its
// informers have synced.
func StartKubelet(ctx context.Context, client kubernetes.Interface, o KubeletOptions) (*Kubelet, error) {
	factory := informers.NewSharedInformerFactory(client, 0)
	k := &Kubelet{
		client:     client,
		pods:       factory.Core().V1().Pods().Lister(),
		nodes:      factory.Core().V1().Nodes().Lister(),
		queue:      workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		registries: append([]string(nil), o.Registries...),
		deleted:    map[string][]time.Time{},
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			k.queue.Add(key)
		}
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, cur any) { enqueue(cur) },
		DeleteFunc: func(obj any) {
			p, ok := obj.(*v1.Pod)
			if t, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
				p, ok = t.Obj.(*v1.Pod)
			}
			if ok && p.Spec.NodeName != "" {
				k.mu.Lock()
				k.deleted[p.Spec.NodeName] = append(k.deleted[p.Spec.NodeName], time.Now())
				k.mu.Unlock()
			}
		},
	}); err != nil {
		return nil, err
	}
	if _, err := factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			// Pod GC: every pod bound to a node that is gone.
			pods, _ := k.pods.List(labels.Everything())
			for _, p := range pods {
				if p.Spec.NodeName != "" {
					if _, err := k.nodes.Get(p.Spec.NodeName); apierrors.IsNotFound(err) {
						enqueue(p)
					}
				}
			}
		},
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for range 4 {
		go wait.UntilWithContext(ctx, k.work, time.Second)
	}
	go func() { <-ctx.Done(); k.queue.ShutDown() }()
	return k, nil
}

func (k *Kubelet) work(ctx context.Context) {
	for {
		key, quit := k.queue.Get()
		if quit {
			return
		}
		if err := k.handle(ctx, key); err != nil && !apierrors.IsNotFound(err) {
			k.queue.AddRateLimited(key)
		} else {
			k.queue.Forget(key)
		}
		k.queue.Done(key)
	}
}

func (k *Kubelet) handle(ctx context.Context, key string) error {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := k.pods.Pods(ns).Get(name)
	if err != nil {
		return nil
	}
	pods := k.client.CoreV1().Pods(ns)
	gone := func() error {
		zero := int64(0)
		return pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID}})
	}
	switch {
	case pod.DeletionTimestamp != nil:
		return gone()
	case pod.Spec.NodeName == "":
		node := targetNode(pod)
		if _, err := k.nodes.Get(node); node == "" || err != nil {
			return nil // no such node: the DaemonSet controller deletes the pod (DIFF-8)
		}
		return pods.Bind(ctx, &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, UID: pod.UID},
			Target: v1.ObjectReference{Kind: "Node", Name: node}}, metav1.CreateOptions{})
	}
	if _, err := k.nodes.Get(pod.Spec.NodeName); apierrors.IsNotFound(err) {
		return gone()
	}
	if pod.Status.Phase != v1.PodPending && pod.Status.Phase != "" {
		return nil
	}
	now := metav1.Now()
	p := pod.DeepCopy()
	if image, ok := k.unpullable(pod); ok {
		if len(pod.Status.ContainerStatuses) > 0 {
			return nil // reported already
		}
		p.Status.Phase = v1.PodPending
		p.Status.StartTime = &now
		p.Status.Conditions = []v1.PodCondition{
			{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: now},
			{Type: v1.PodInitialized, Status: v1.ConditionTrue, LastTransitionTime: now},
			{Type: v1.ContainersReady, Status: v1.ConditionFalse, LastTransitionTime: now, Reason: "ContainersNotReady"},
			{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: now, Reason: "ContainersNotReady"},
		}
		for _, c := range pod.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, v1.ContainerStatus{Name: c.Name, Image: c.Image,
				State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "image " + image + " not found"}}})
		}
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	}
	p.Status.Phase = v1.PodRunning
	p.Status.StartTime = &now
	p.Status.Conditions = []v1.PodCondition{
		{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: now},
		{Type: v1.PodInitialized, Status: v1.ConditionTrue, LastTransitionTime: now},
		{Type: v1.ContainersReady, Status: v1.ConditionTrue, LastTransitionTime: now},
		{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: now},
	}
	_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}

// unpullable returns the first of pod's container images the kubelet cannot pull.
func (k *Kubelet) unpullable(pod *v1.Pod) (string, bool) {
	if len(k.registries) == 0 {
		return "", false
	}
	for _, c := range pod.Spec.Containers {
		if !slices.ContainsFunc(k.registries, func(r string) bool { return strings.HasPrefix(c.Image, r) }) {
			return c.Image, true
		}
	}
	return "", false
}

// Fail makes a running pod fail, as a kubelet reports a crashed pod with restartPolicy Never.
func (k *Kubelet) Fail(ctx context.Context, pod *v1.Pod) error {
	p := pod.DeepCopy()
	p.Status.Phase = v1.PodFailed
	for i := range p.Status.Conditions {
		if t := p.Status.Conditions[i].Type; t == v1.PodReady || t == v1.ContainersReady {
			p.Status.Conditions[i].Status = v1.ConditionFalse
			p.Status.Conditions[i].LastTransitionTime = metav1.Now()
		}
	}
	_, err := k.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}

// Deletions returns when pods bound to node disappeared.
func (k *Kubelet) Deletions(node string) []time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]time.Time(nil), k.deleted[node]...)
}

// targetNode is the node a daemon pod's required node affinity names (metadata.name In [node]).
func targetNode(pod *v1.Pod) string {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == v1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
