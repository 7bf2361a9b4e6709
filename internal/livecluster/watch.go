package livecluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
)

// Watch reads what q needs as Read does (every node, the DaemonSets and, unless q.NoPods, the
// pods and ControllerRevisions; q.Node and q.Admission are Read's alone), sends it on states,
// and keeps it: each kind is listed once and watched from the resourceVersion of its list, its
// events applied to what was read, and after each burst of events the state is sent again. A
// watch the server ends goes on from the last resourceVersion seen; an expired one (410 Gone:
// the server compacted its history) or one the server has not reached yet ("too large
// resource version": a server behind the one that answered the list) lists that kind again.
// An error event ends that watch, not the run: a 429 watches again, any other lists again.
// Restarts back off as client-go's reflector does (watchBackoff); a watch closed at once with
// no event is opened again from where it was, where the reflector lists again. It returns nil
// when ctx is done, or the first error (a refused list or watch, as Read's).
func (c *Cluster) Watch(ctx context.Context, q cli.Question, states chan<- *cli.Dump) error {
	cs, name, err := c.connect()
	if err != nil {
		return err
	}
	if c.chunkSize < 0 {
		return fmt.Errorf("--chunk-size must not be negative, got %d", c.chunkSize)
	}
	return watchState(ctx, &reader{cs: cs, name: name, pageSize: c.chunkSize}, q, states, defaultWatchTiming)
}

// watchTiming paces a watch: how long it lets a burst of events arrive before it sends the
// state, and how it backs off restarts.
type watchTiming struct {
	// settle is how long a burst of events may take before the state is sent: a rollout step
	// changes many objects at once.
	settle time.Duration
	// backoff and maxBackoff are the first and the largest delay before a restart that follows
	// a failed watch; each such restart doubles the delay up to maxBackoff, and a watch that
	// delivers an event starts again from backoff.
	backoff, maxBackoff time.Duration
	// short is how long a watch must last, when it delivers no event, for its end to count as
	// the server's ordinary close rather than a failure.
	short time.Duration
}

// defaultWatchTiming is client-go's reflector's: a first delay of 800 ms doubling to 30 s, and
// a watch closed within a second with no event a failure ("very short watch"). Its reflector
// also adds up to 100% jitter and resets after 2 minutes without backing off; one plugin run
// is one client, so neither is needed, and an event reset says the server is well again.
var defaultWatchTiming = watchTiming{settle: 200 * time.Millisecond, backoff: 800 * time.Millisecond, maxBackoff: 30 * time.Second, short: time.Second}

// backoff is the delay before one kind's next restart (each kind's watch backs off alone, as
// each informer's reflector does).
type backoff struct {
	timing watchTiming
	next   time.Duration
}

// delay returns the delay before this restart and doubles the next one, up to maxBackoff.
func (b *backoff) delay() time.Duration {
	d := b.next
	if d == 0 {
		d = b.timing.backoff
	}
	b.next = min(2*d, b.timing.maxBackoff)
	return d
}

func (b *backoff) reset() { b.next = 0 }

// wait waits the next delay; false when ctx is done first.
func (b *backoff) wait(ctx context.Context) bool {
	t := time.NewTimer(b.delay())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

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
func watchState(ctx context.Context, r *reader, q cli.Question, states chan<- *cli.Dump, timing watchTiming) error {
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
			if err := keep(ctx, r.name, st, i, s, timing); err != nil {
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
			case <-time.After(timing.settle):
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

// keep lists the kind s into st.objects[i], then applies its watch events, until ctx is done
// (nil) or an error. A watch that ends is opened again from the last resourceVersion seen, at
// once after the server's ordinary close, after the backoff when it failed (closed at once
// with no event, or refused for load: 429, connection refused, also as the watch's error
// event); a resourceVersion the server no longer has (410) or does not have yet (too large),
// and any other error event, list the kind again, after the backoff.
func keep(ctx context.Context, name string, st *state, i int, s source, timing watchTiming) error {
	b := &backoff{timing: timing}
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
			end, err := follow(ctx, name, st, i, s, &rv, timing.short)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return err
			}
			if end == watchDelivered {
				b.reset()
			}
			if end == watchDelivered || end == watchClosed {
				continue
			}
			if !b.wait(ctx) {
				return nil
			}
			if end == watchRelist {
				break
			}
		}
	}
}

// watchEnd is how a watch ended, which says what comes next.
type watchEnd int

const (
	// watchDelivered: the server closed a watch that delivered an event; watch again at once.
	watchDelivered watchEnd = iota
	// watchClosed: the server closed a watch that lasted, with no event; watch again at once.
	watchClosed
	// watchFailed: closed at once with no event, or refused for load; watch again after the
	// backoff.
	watchFailed
	// watchRelist: the resourceVersion is expired (410) or too large; list again after the
	// backoff.
	watchRelist
)

// follow watches s from *rv and applies its events to st.objects[i], moving *rv on, until the
// watch ends (or ctx is done), saying how; an error it cannot get past is returned.
func follow(ctx context.Context, name string, st *state, i int, s source, rv *string, short time.Duration) (watchEnd, error) {
	start := time.Now()
	w, err := s.watch(ctx, metav1.ListOptions{ResourceVersion: *rv, AllowWatchBookmarks: true})
	if err != nil {
		switch {
		case expired(err) || tooLarge(err):
			return watchRelist, nil
		case apierrors.IsTooManyRequests(err) || utilnet.IsConnectionRefused(err):
			return watchFailed, nil
		}
		return 0, liveError(name, "watch", s.group, s.resource, s.namespace, err)
	}
	defer w.Stop()
	delivered := false
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return watchClosed, nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			switch {
			case delivered:
				return watchDelivered, nil
			case time.Since(start) < short:
				return watchFailed, nil
			}
			return watchClosed, nil
		}
		switch ev.Type {
		case watch.Error:
			// An error the server sends in the stream ends that watch, not the run, as in
			// client-go's reflector: on 429 it watches again after the backoff; on any other
			// (410, too large, an internal error) it lists again after the backoff, and a
			// lasting failure then shows as the list's error.
			if apierrors.IsTooManyRequests(apierrors.FromObject(ev.Object)) {
				return watchFailed, nil
			}
			return watchRelist, nil
		case watch.Added, watch.Modified:
			st.put(i, s.gvk, ev.Object)
		case watch.Deleted:
			st.remove(i, ev.Object)
		}
		delivered = true
		if m, ok := ev.Object.(metav1.Object); ok && m.GetResourceVersion() != "" {
			*rv = m.GetResourceVersion()
		}
	}
}

// tooLarge says whether err is a resourceVersion the server has not reached yet: the cause
// ResourceVersionTooLarge, or, from servers before 1.19, a timeout saying "Too large resource
// version" (client-go's reflector recognises both).
func tooLarge(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	return apierrors.IsTimeout(err) && strings.Contains(err.Error(), "Too large resource version")
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
