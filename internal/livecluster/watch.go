package livecluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/cli"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Watch reads what q needs as Read does (every node, the DaemonSets and, unless q.NoPods, the
// pods and ControllerRevisions; q.Node and q.Admission are Read's alone), sends it on states,
// and keeps it: each kind is listed once and watched from the resourceVersion of its list, its
// events applied to what was read, and after each burst of events the state is sent again. A
// watch the server ends goes on from the last resourceVersion seen; only an expired one (410
// Gone: the server compacted its history) lists that kind again. It returns nil when ctx is
// done, or the first error (a refused list or watch, as Read's).
func (c *Cluster) Watch(ctx context.Context, q cli.Question, states chan<- *cli.Dump) error {
	cs, name, err := c.connect()
	if err != nil {
		return err
	}
	if c.chunkSize < 0 {
		return fmt.Errorf("--chunk-size must not be negative, got %d", c.chunkSize)
	}
	return watchState(ctx, &reader{cs: cs, name: name, pageSize: c.chunkSize}, q, states, watchSettle)
}

// watchSettle is how long Watch lets a burst of events arrive before it sends the state: a
// rollout step changes many objects at once.
const watchSettle = 200 * time.Millisecond

// source is one kind a watch keeps: how to list it (every page, and the resourceVersion it was
// read at) and how to watch it from a resourceVersion.
type source struct {
	gvk                        schema.GroupVersionKind
	group, resource, namespace string
	list                       func(context.Context) ([]any, string, error)
	watch                      func(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// sources are the kinds a watch of q keeps, in the order a dump lists them.
func (r *reader) sources(q cli.Question) []source {
	ns, cs := q.Namespace, r.cs
	out := []source{
		{v1.SchemeGroupVersion.WithKind("Node"), "", "nodes", "",
			func(ctx context.Context) ([]any, string, error) {
				return listAt(ctx, r, "list", "", "nodes", "", func(ctx context.Context, o metav1.ListOptions) ([]v1.Node, metav1.ListMeta, error) {
					l, err := cs.CoreV1().Nodes().List(ctx, o)
					return listOf(l, err, func(l *v1.NodeList) ([]v1.Node, metav1.ListMeta) { return l.Items, l.ListMeta })
				})
			},
			func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return cs.CoreV1().Nodes().Watch(ctx, o)
			}},
		{appsv1.SchemeGroupVersion.WithKind("DaemonSet"), "apps", "daemonsets", ns,
			func(ctx context.Context) ([]any, string, error) {
				return listAt(ctx, r, "list", "apps", "daemonsets", ns, func(ctx context.Context, o metav1.ListOptions) ([]appsv1.DaemonSet, metav1.ListMeta, error) {
					l, err := cs.AppsV1().DaemonSets(ns).List(ctx, o)
					return listOf(l, err, func(l *appsv1.DaemonSetList) ([]appsv1.DaemonSet, metav1.ListMeta) { return l.Items, l.ListMeta })
				})
			},
			func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return cs.AppsV1().DaemonSets(ns).Watch(ctx, o)
			}},
	}
	if q.NoPods {
		return out
	}
	return append(out,
		source{appsv1.SchemeGroupVersion.WithKind("ControllerRevision"), "apps", "controllerrevisions", ns,
			func(ctx context.Context) ([]any, string, error) {
				return listAt(ctx, r, "list", "apps", "controllerrevisions", ns, func(ctx context.Context, o metav1.ListOptions) ([]appsv1.ControllerRevision, metav1.ListMeta, error) {
					l, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, o)
					return listOf(l, err, func(l *appsv1.ControllerRevisionList) ([]appsv1.ControllerRevision, metav1.ListMeta) {
						return l.Items, l.ListMeta
					})
				})
			},
			func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return cs.AppsV1().ControllerRevisions(ns).Watch(ctx, o)
			}},
		source{v1.SchemeGroupVersion.WithKind("Pod"), "", "pods", ns,
			func(ctx context.Context) ([]any, string, error) {
				return listAt(ctx, r, "list", "", "pods", ns, func(ctx context.Context, o metav1.ListOptions) ([]v1.Pod, metav1.ListMeta, error) {
					l, err := cs.CoreV1().Pods(ns).List(ctx, o)
					return listOf(l, err, func(l *v1.PodList) ([]v1.Pod, metav1.ListMeta) { return l.Items, l.ListMeta })
				})
			},
			func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return cs.CoreV1().Pods(ns).Watch(ctx, o)
			}})
}

// watchState is Watch on r's cluster, sending the state settle after the first event of a
// burst (the first state as soon as every kind is listed).
func watchState(ctx context.Context, r *reader, q cli.Question, states chan<- *cli.Dump, settle time.Duration) error {
	version, err := serverVersion(r.cs, r.name)
	if err != nil {
		return err
	}
	srcs := r.sources(q)
	st := &state{objects: make([]map[string]runtime.Object, len(srcs)), changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	errs := make(chan error, len(srcs))
	for i, s := range srcs {
		wg.Go(func() {
			if err := keep(ctx, r.name, st, i, s); err != nil {
				errs <- err
			}
		})
	}
	sent := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			return err
		case <-st.changed:
		}
		if sent {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(settle):
			}
			select { // what the burst changed is in the state about to be sent
			case <-st.changed:
			default:
			}
		}
		d, err := st.dump(r.name, version)
		if err != nil {
			return err
		}
		if d == nil {
			continue // a kind is not listed yet
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			return err
		case states <- d:
			sent = true
		}
	}
}

// keep lists the kind s into st.objects[i], then applies its watch events, listing again only
// when the resourceVersion expired, until ctx is done (nil) or an error.
func keep(ctx context.Context, name string, st *state, i int, s source) error {
	for {
		items, rv, err := s.list(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		st.replace(i, s.gvk, items)
		for {
			expired, err := follow(ctx, name, st, i, s, &rv)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return err
			}
			if expired {
				break
			}
		}
	}
}

// follow watches s from *rv and applies its events to st.objects[i], moving *rv on, until the
// watch ends: closed by the server or ctx (false: watch again from *rv), its resourceVersion
// expired (true: list again), or an error.
func follow(ctx context.Context, name string, st *state, i int, s source, rv *string) (bool, error) {
	w, err := s.watch(ctx, metav1.ListOptions{ResourceVersion: *rv, AllowWatchBookmarks: true})
	if err != nil {
		if expired(err) {
			return true, nil
		}
		return false, liveError(name, "watch", s.group, s.resource, s.namespace, err)
	}
	defer w.Stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return false, nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return false, nil
		}
		switch ev.Type {
		case watch.Error:
			err := apierrors.FromObject(ev.Object)
			if expired(err) {
				return true, nil
			}
			return false, liveError(name, "watch", s.group, s.resource, s.namespace, err)
		case watch.Added, watch.Modified:
			st.put(i, s.gvk, ev.Object)
		case watch.Deleted:
			st.remove(i, ev.Object)
		}
		if m, ok := ev.Object.(metav1.Object); ok && m.GetResourceVersion() != "" {
			*rv = m.GetResourceVersion()
		}
	}
}

// expired says whether err is a resourceVersion too old to watch from (410 Gone).
func expired(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// state is what a watch keeps: each kind's objects by namespace/name (nil until listed), and
// a signal that something changed since the last dump.
type state struct {
	mu      sync.Mutex
	objects []map[string]runtime.Object
	changed chan struct{}
}

func key(o runtime.Object) string {
	m, ok := o.(metav1.Object)
	if !ok {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}

func (st *state) signal() {
	select {
	case st.changed <- struct{}{}:
	default:
	}
}

// replace sets kind i to what a list read.
func (st *state) replace(i int, gvk schema.GroupVersionKind, items []any) {
	objs := make(map[string]runtime.Object, len(items))
	for _, it := range items {
		o := it.(runtime.Object)
		o.GetObjectKind().SetGroupVersionKind(gvk)
		objs[key(o)] = o
	}
	st.mu.Lock()
	st.objects[i] = objs
	st.mu.Unlock()
	st.signal()
}

// put adds or replaces an object of kind i that a watch event carries.
func (st *state) put(i int, gvk schema.GroupVersionKind, o runtime.Object) {
	o.GetObjectKind().SetGroupVersionKind(gvk)
	st.mu.Lock()
	st.objects[i][key(o)] = o
	st.mu.Unlock()
	st.signal()
}

// remove drops an object of kind i that a watch event deleted.
func (st *state) remove(i int, o runtime.Object) {
	st.mu.Lock()
	delete(st.objects[i], key(o))
	st.mu.Unlock()
	st.signal()
}

// dump is the state as Read returns it, each kind's objects by namespace and name, as a
// server lists them; nil while a kind is not listed yet.
func (st *state) dump(name string, version daemonset.Version) (*cli.Dump, error) {
	st.mu.Lock()
	var items []any
	for _, objs := range st.objects {
		if objs == nil {
			st.mu.Unlock()
			return nil, nil
		}
		for _, k := range slices.Sorted(maps.Keys(objs)) {
			items = append(items, objs[k])
		}
	}
	data, err := listJSON(items)
	st.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &cli.Dump{Name: name, Data: data, Version: version, At: time.Now().UTC()}, nil
}
