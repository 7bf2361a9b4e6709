package rollout

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// backoff is the failed-pod back-off of the controller (ROLL-6): after it deletes a failed
// daemon pod on a node, it does not delete the next failed pod there until a delay has passed,
// the delay doubling from Initial up to Max with each deletion, and forgotten after 2 × Max
// without one. Keys are the DaemonSet's uid, its status.observedGeneration and the node, as
// upstream keys them. The zero value is not usable; use newBackoff.
//
// It stands in for the back-off state of the whole-sync plan until package daemonset takes it
// as an input.
type backoff struct {
	Initial, Max time.Duration
	entries      map[string]backoffEntry
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

// newBackoff returns an empty back-off; the controller's is newBackoff(time.Second,
// 15*time.Minute).
func newBackoff(initial, maxDelay time.Duration) *backoff {
	return &backoff{Initial: initial, Max: maxDelay, entries: map[string]backoffEntry{}}
}

func backoffKey(ds *appsv1.DaemonSet, node string) string {
	return string(ds.UID) + "/" + strconv.FormatInt(ds.Status.ObservedGeneration, 10) + "/" + node
}

func (b *backoff) expired(e backoffEntry, now time.Time) bool { return now.Sub(e.last) > 2*b.Max }

// InBackoff reports whether a deletion for key at now is held back, and the current delay.
func (b *backoff) InBackoff(key string, now time.Time) (bool, time.Duration) {
	e, ok := b.entries[key]
	if !ok || b.expired(e, now) {
		return false, 0
	}
	return now.Sub(e.last) < e.delay, e.delay
}

// Next records a deletion for key at now and lengthens its delay.
func (b *backoff) Next(key string, now time.Time) {
	e, ok := b.entries[key]
	if !ok || b.expired(e, now) {
		e.delay = b.Initial
	} else {
		e.delay = min(2*e.delay, b.Max)
	}
	e.last = now
	b.entries[key] = e
}
