//go:build live

package live

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/examples/refcontroller/controller"
	"github.com/daemonsched/daemonsched/rollout"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// podWrite is one pod create or delete the controller sent and the API server accepted, as
// its HTTP log shows it.
type podWrite struct {
	at     time.Time
	create bool
	node   string // of a create: the node its affinity names
	name   string // of a delete
}

// podWriteLog records the controller's accepted pod creates and deletes from its requests.
type podWriteLog struct {
	mu     sync.Mutex
	writes []podWrite
	bad    []string // requests it could not read
}

func (l *podWriteLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		var w podWrite
		path := req.URL.Path
		switch {
		case req.Method == http.MethodPost && strings.HasSuffix(path, "/pods"):
			w.create = true
			if req.Body != nil {
				body, err := io.ReadAll(req.Body)
				req.Body.Close()
				req.Body = io.NopCloser(bytes.NewReader(body))
				obj, _, derr := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
				pod, ok := obj.(*v1.Pod)
				if err != nil || derr != nil || !ok {
					l.mu.Lock()
					l.bad = append(l.bad, fmt.Sprintf("POST %s: %v %v", path, err, derr))
					l.mu.Unlock()
				} else {
					w.node = targetNode(pod)
				}
			}
		case req.Method == http.MethodDelete && strings.Contains(path, "/pods/"):
			w.name = path[strings.LastIndex(path, "/")+1:]
		default:
			return rt.RoundTrip(req)
		}
		w.at = time.Now()
		resp, err := rt.RoundTrip(req)
		if err == nil && resp.StatusCode < 300 {
			l.mu.Lock()
			l.writes = append(l.writes, w)
			l.mu.Unlock()
		}
		return resp, err
	})
}

// traceLog keeps the controller's sync traces.
type traceLog struct {
	mu     sync.Mutex
	traces []controller.SyncTrace
}

func (l *traceLog) add(tr controller.SyncTrace) {
	l.mu.Lock()
	l.traces = append(l.traces, tr)
	l.mu.Unlock()
}

// podWrites are the pod writes of one sync: the nodes created on and the pods deleted, sorted.
type podWrites struct{ creates, deletes []string }

func writesOf(plans ...*daemonset.Result) podWrites {
	var w podWrites
	for _, res := range plans {
		for _, c := range res.Create {
			w.creates = append(w.creates, c.Node)
		}
		for _, d := range res.Delete {
			w.deletes = append(w.deletes, d.Name)
		}
	}
	slices.Sort(w.creates)
	slices.Sort(w.deletes)
	return w
}

func (w podWrites) equal(o podWrites) bool {
	return slices.Equal(w.creates, o.creates) && slices.Equal(w.deletes, o.deletes)
}

func (w podWrites) empty() bool { return len(w.creates)+len(w.deletes) == 0 }

func (w podWrites) String() string {
	return fmt.Sprintf("create on [%s], delete [%s]", strings.Join(w.creates, " "), strings.Join(w.deletes, " "))
}

// modelStep is rollout.Simulate's SyncObserved model of one sync (ROLL-7) on the caches the
// sync started from: the base diff and, when it acted, the rolling-update step planned on the
// state rollout.Apply leaves after it (observed). unobserved is the alternative where the
// informer has not seen the base diff's writes: the base diff alone. after is that state.
type modelStep struct {
	observed, unobserved podWrites
	after                daemonset.Snapshot
	planner              *daemonset.Planner
	base                 *daemonset.Result
}

func model(tr controller.SyncTrace) (modelStep, error) {
	p, _ := daemonset.Compile(tr.DaemonSet, daemonset.Options{Version: storyRelease, Now: tr.Now, BurstLimit: controller.BurstReplicas, Backoff: tr.Backoff})
	m := modelStep{planner: p}
	if tr.Pending {
		m.base = p.PlanPending(tr.Start)
		m.observed = writesOf(m.base)
		m.unobserved = m.observed
		return m, nil
	}
	m.base = p.Plan(tr.Start)
	m.observed = writesOf(m.base)
	m.unobserved = m.observed
	ru := m.base.RollingUpdate
	if m.base.Skipped != "" || ru == nil || ru.Reason != daemonset.RollingReasonBaseDiffNotEmpty || m.observed.empty() {
		return m, nil
	}
	start := tr.Start
	start.DaemonSets = []*appsv1.DaemonSet{tr.DaemonSet}
	after, err := rollout.Apply(start, m.base, rollout.ApplyOptions{Now: tr.Now})
	if err != nil {
		return m, err
	}
	m.after = after
	if res2 := p.Plan(after); res2.RollingUpdate != nil && res2.RollingUpdate.Acted {
		m.observed = writesOf(m.base, res2)
	}
	return m, nil
}

// podStates sums up, node by node, the DaemonSet's pods of s as the rolling step reads them:
// revision, readiness, terminating. Two snapshots with equal sums differ only in what the
// rolling step does not look at (names, uids, timestamps).
func podStates(ds *appsv1.DaemonSet, s daemonset.Snapshot) map[string]string {
	byNode := map[string][]string{}
	for _, p := range s.Pods {
		if !storyRelease.IsControlledBy(p, ds) {
			continue
		}
		node := p.Spec.NodeName
		if node == "" {
			node = targetNode(p)
		}
		byNode[node] = append(byNode[node], fmt.Sprintf("%s/ready=%t/terminating=%t/%s",
			p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], daemonset.IsPodReady(p), p.DeletionTimestamp != nil, p.Status.Phase))
	}
	out := map[string]string{}
	for n, states := range byNode {
		slices.Sort(states)
		out[n] = strings.Join(states, ",")
	}
	return out
}

// modelReport is how the controller's syncs compared with the model.
type modelReport struct {
	syncs, acting, matched int
	// unseen counts the syncs that left the rolling step to the next sync because the
	// informer had not yet shown the base diff's writes when the sync checked again (the
	// model's alternative); moved those whose caches, when checked again, had also moved on
	// beyond the sync's own writes (a kubelet update arrived in between), and whose step is
	// the plan of the caches then.
	unseen, moved int
	diffs         []string
	actingAt      []time.Time // when each acting sync began
}

// compareWithModel compares every sync's pod writes, read from the HTTP log between the
// sync's start and end, with the model. A difference is an informer race when the controller's
// step is the model's alternative and the sync found the base diff's writes not yet in its
// caches (unseen), or when the caches it checked showed the writes and more, and its step is
// the plan of those caches (moved). Any other difference is a diff.
func compareWithModel(traces []controller.SyncTrace, writes []podWrite) modelReport {
	slices.SortFunc(traces, func(a, b controller.SyncTrace) int { return a.Begin.Compare(b.Begin) })
	var r modelReport
	for _, tr := range traces {
		r.syncs++
		var got podWrites
		for _, w := range writes {
			if w.at.Before(tr.Begin) || w.at.After(tr.End) {
				continue
			}
			if w.create {
				got.creates = append(got.creates, w.node)
			} else {
				got.deletes = append(got.deletes, w.name)
			}
		}
		slices.Sort(got.creates)
		slices.Sort(got.deletes)
		if !got.empty() {
			r.acting++
			r.actingAt = append(r.actingAt, tr.Begin)
		}
		m, err := model(tr)
		at := tr.Begin.Format("15:04:05.000")
		switch {
		case err != nil:
			r.diffs = append(r.diffs, fmt.Sprintf("sync at %s: the model fails: %v", at, err))
		case got.equal(m.observed):
			r.matched++
		case got.equal(m.unobserved) && tr.Rechecked && !tr.Observed:
			r.unseen++
		case tr.Observed && m.after.Pods != nil && !mapsEqual(podStates(tr.DaemonSet, m.after), podStates(tr.DaemonSet, tr.Mid)) &&
			got.equal(midStep(m, tr)):
			r.moved++
		default:
			r.diffs = append(r.diffs, fmt.Sprintf("sync at %s: sent %v; the model: %v (informer behind: %v); rechecked %t, observed %t, rolled %t",
				at, got, m.observed, m.unobserved, tr.Rechecked, tr.Observed, tr.Rolled))
		}
	}
	return r
}

// midStep is the base diff and the rolling step planned on the caches the sync checked.
func midStep(m modelStep, tr controller.SyncTrace) podWrites {
	if res2 := m.planner.Plan(tr.Mid); res2.RollingUpdate != nil && res2.RollingUpdate.Acted {
		return writesOf(m.base, res2)
	}
	return writesOf(m.base)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
