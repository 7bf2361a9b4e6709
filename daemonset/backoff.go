package daemonset

import (
	"cmp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The failed-pod back-off as kube-controller-manager v1.36 configures it (DIFF-12): the first
// deletion of a Failed pod on a node starts a delay of failedPodBackoffInitial, each further
// one doubles it up to failedPodBackoffMax, and an entry not renewed for twice the maximum
// expires.
const (
	failedPodBackoffInitial = time.Second
	failedPodBackoffMax     = 15 * time.Minute
)

// BackoffEntry is one failed-pod back-off in force (DIFF-12): the controller deleted a Failed
// pod of the DaemonSet whose uid is DaemonSetUID on Node at Last, and holds back the next such
// deletion there until Delay has passed since Last. The delay starts at 1 s and doubles with
// each further deletion up to 15 minutes; an entry not renewed for 30 minutes expires.
// Generation is the DaemonSet's status.observedGeneration at that sync: upstream keys the
// back-off by uid, observed generation and node, so a sync that raises observedGeneration
// starts afresh.
type BackoffEntry struct {
	DaemonSetUID types.UID       `json:"daemonSetUID"`
	Generation   int64           `json:"generation"`
	Node         string          `json:"node"`
	Delay        metav1.Duration `json:"delay"`
	Last         metav1.Time     `json:"last"`
}

// usable reports whether e can be in force at all: a positive delay and a time. Entries of
// upstream's back-off always are; anything else is bad input, treated as no entry.
func (e *BackoffEntry) usable() bool { return e.Delay.Duration > 0 && !e.Last.IsZero() }

// expired reports whether e is forgotten at now: unused for more than twice the maximum delay.
func (e *BackoffEntry) expired(now time.Time) bool {
	return now.Sub(e.Last.Time) > 2*failedPodBackoffMax
}

// live reports whether e counts at now: usable and not expired.
func (e *BackoffEntry) live(now time.Time) bool { return e.usable() && !e.expired(now) }

func compareBackoff(a, b BackoffEntry) int {
	return cmp.Or(strings.Compare(string(a.DaemonSetUID), string(b.DaemonSetUID)), cmp.Compare(a.Generation, b.Generation),
		strings.Compare(a.Node, b.Node))
}

func sameBackoffKey(a, b BackoffEntry) bool { return a.key() == b.key() }

type backoffKey struct {
	uid  types.UID
	gen  int64
	node string
}

func (e *BackoffEntry) key() backoffKey { return backoffKey{e.DaemonSetUID, e.Generation, e.Node} }

// keysOf returns the set of the entries' keys.
func keysOf(entries []BackoffEntry) map[backoffKey]bool {
	keys := make(map[backoffKey]bool, len(entries))
	for i := range entries {
		keys[entries[i].key()] = true
	}
	return keys
}

// UpdateBackoff returns the back-off state after res, the plan of one sync made with
// Options.Backoff = state at now: state with res.Backoff's entries in place of those of the
// same DaemonSet, generation and node, and without the entries that have expired at now (as
// upstream's periodic clean-up drops them), sorted by DaemonSet uid, generation and node.
// Entries that can never be in force (a delay that is not positive, no time) are dropped too.
// When state holds two entries of one key, the later one is kept, and of two equally late the
// longer delay, as the plan reads such a state. state and res are not
// modified; res may be nil (no sync, only the clean-up). A controller calls it once per sync
// and passes the result to the next plan, of any DaemonSet.
func UpdateBackoff(state []BackoffEntry, res *Result, now time.Time) []BackoffEntry {
	var updates []BackoffEntry
	if res != nil {
		updates = res.Backoff
	}
	out := make([]BackoffEntry, 0, len(state)+len(updates))
	replaced := keysOf(updates)
	for _, e := range state {
		if e.live(now) && !replaced[e.key()] {
			out = append(out, e)
		}
	}
	for _, e := range updates {
		if e.live(now) {
			out = append(out, e)
		}
	}
	return latestPerKey(out)
}

// latestPerKey sorts entries and keeps, of entries with one key, the one preferBackoff puts
// first.
func latestPerKey(entries []BackoffEntry) []BackoffEntry {
	slices.SortFunc(entries, func(a, b BackoffEntry) int {
		return cmp.Or(compareBackoff(a, b), preferBackoff(a, b))
	})
	return slices.CompactFunc(entries, sameBackoffKey)
}

// preferBackoff orders two entries of one key by which counts (negative: a): the later Last,
// then, on equal times, the longer delay, so that duplicates in any input order give one
// answer. The plan (backoffSync.index) and UpdateBackoff both choose by it.
func preferBackoff(a, b BackoffEntry) int {
	return cmp.Or(b.Last.Time.Compare(a.Last.Time), cmp.Compare(b.Delay.Duration, a.Delay.Duration))
}

// backoffSync is the back-off of one sync of one DaemonSet: the entries in force for its key
// (uid, stored observedGeneration), the deletions this sync makes and the smallest requeue
// delay they call for. Its zero value (no entries given) allocates nothing until a Failed pod
// is deleted.
type backoffSync struct {
	entries []BackoffEntry // Options.Backoff, as given
	uid     types.UID
	gen     int64
	now     time.Time

	byNode  map[string]BackoffEntry // this key's live entries, built on the first look-up
	renewed []BackoffEntry          // the entries this sync's deletions wrote, in node order
	requeue time.Duration           // smallest back-off requeue; 0: none
}

func newBackoffSync(ds *appsv1.DaemonSet, entries []BackoffEntry, now time.Time) backoffSync {
	return backoffSync{entries: entries, uid: ds.UID, gen: ds.Status.ObservedGeneration, now: now}
}

// inForce returns the live entry of node under this sync's key.
func (b *backoffSync) inForce(node string) (BackoffEntry, bool) {
	if len(b.entries) == 0 {
		return BackoffEntry{}, false
	}
	b.index()
	e, ok := b.byNode[node]
	return e, ok
}

// index builds byNode, the live entries of this sync's key by node, once.
func (b *backoffSync) index() {
	if b.byNode == nil && len(b.entries) > 0 {
		b.byNode = map[string]BackoffEntry{}
		for _, e := range b.entries {
			if e.DaemonSetUID != b.uid || e.Generation != b.gen || !e.live(b.now) {
				continue
			}
			if old, ok := b.byNode[e.Node]; ok && preferBackoff(old, e) <= 0 {
				continue
			}
			b.byNode[e.Node] = e
		}
	}
}

// held reports whether a Failed pod's deletion on node is held back at the start of the sync,
// and the entry's delay, after which upstream queues the DaemonSet again.
func (b *backoffSync) held(node string) (time.Duration, bool) {
	e, ok := b.inForce(node)
	if !ok || b.now.Sub(e.Last.Time) >= e.Delay.Duration {
		return 0, false
	}
	return e.Delay.Duration, true
}

// next records the deletion of a Failed pod on node now and returns the new delay: the
// initial one without a live entry, else twice the entry's, at most the maximum.
func (b *backoffSync) next(node string) time.Duration {
	delay := failedPodBackoffInitial
	if e, ok := b.inForce(node); ok {
		// Capped before doubling, which gives the same answer and cannot overflow.
		delay = min(2*min(e.Delay.Duration, failedPodBackoffMax), failedPodBackoffMax)
	}
	b.renewed = append(b.renewed, BackoffEntry{DaemonSetUID: b.uid, Generation: b.gen, Node: node,
		Delay: metav1.Duration{Duration: delay}, Last: metav1.NewTime(b.now)})
	return delay
}

// requeueAfter notes that upstream queues the DaemonSet again after d.
func (b *backoffSync) requeueAfter(d time.Duration) {
	if b.requeue == 0 || d < b.requeue {
		b.requeue = d
	}
}

// result returns the DaemonSet's entries after the sync (Result.Backoff): its live entries of
// every generation and node, carried, with the renewed ones in their place; nil when none.
func (b *backoffSync) result() []BackoffEntry {
	if len(b.entries) == 0 && len(b.renewed) == 0 {
		return nil
	}
	var out []BackoffEntry
	var renewed map[backoffKey]bool
	if len(b.renewed) > 0 {
		renewed = keysOf(b.renewed)
	}
	for _, e := range b.entries {
		if e.DaemonSetUID == b.uid && e.live(b.now) && !renewed[e.key()] {
			out = append(out, e)
		}
	}
	out = append(out, b.renewed...)
	if len(out) == 0 {
		return nil
	}
	return latestPerKey(out)
}

// At returns a Planner of the same DaemonSet that plans at now with backoff in force
// (Options.Now and Options.Backoff replaced), sharing everything p compiled: a controller
// compiles a DaemonSet once per change of its spec and plans each sync with that sync's clock
// and back-off. It panics on a zero now, as Compile does.
func (p *Planner) At(now time.Time, backoff []BackoffEntry) *Planner {
	q := *p
	q.opts.Now, q.opts.Backoff = now, backoff
	q.opts.Check()
	return &q
}
