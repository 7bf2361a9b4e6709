package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// checkWrites compares the write-ready parts of a candidate that gives them: statusWrite
// (STAT-9, STAT-14), backoff (DIFF-12) and requeueAfter (SYNC-8). The contract makes them
// optional, so leaving one out is not a mismatch; a Go candidate's nil statusWrite and zero
// requeueAfter read as "not given". Naming a wrong value is.
func checkWrites(key string, w *Expected, g *daemonset.Result, status *appsv1.DaemonSetStatus, recounted bool) []Mismatch {
	var out []Mismatch
	if g.StatusWrite != nil {
		switch {
		case recounted:
			// The candidate's deletions recount the status (STAT-16); whether upstream writes
			// it (STAT-9) turns on the stored counters, which Expected does not keep: a write,
			// when given, must be the recounted status.
			want := status.DeepCopy()
			if w.StatusWrite != nil {
				want.ObservedGeneration = w.StatusWrite.ObservedGeneration
			}
			if d := cmp.Diff(want, g.StatusWrite); d != "" {
				out = append(out, Mismatch{DaemonSet: key, Action: "statusWrite", Rule: "STAT-14",
					Message: "the status written differs", Diff: d})
			}
		case w.StatusWrite == nil && w.Skipped != "":
			out = append(out, Mismatch{DaemonSet: key, Action: "statusWrite", Rule: "STAT-10",
				Message: "a status write, want none: the sync does nothing"})
		case w.StatusWrite == nil:
			out = append(out, Mismatch{DaemonSet: key, Action: "statusWrite", Rule: "STAT-9",
				Message: "a status write, want none: the counters and observedGeneration are already stored"})
		default:
			if d := cmp.Diff(w.StatusWrite, g.StatusWrite); d != "" {
				out = append(out, Mismatch{DaemonSet: key, Action: "statusWrite", Rule: "STAT-14",
					Message: "the status written differs", Diff: d})
			}
		}
	}
	if g.Backoff != nil {
		if d := cmp.Diff(toSeconds(w.Backoff), toSeconds(g.Backoff)); d != "" {
			out = append(out, Mismatch{DaemonSet: key, Action: "backoff", Rule: "DIFF-12",
				Message: "the failed-pod back-off after the sync differs", Diff: d})
		}
	}
	// A recounted status may move the minReadySeconds requeue (STAT-15), which Expected
	// cannot separate from the back-off's: not compared then.
	if !recounted && g.RequeueAfter.Duration != 0 && g.RequeueAfter != w.RequeueAfter {
		want := "none"
		if w.RequeueAfter.Duration != 0 {
			want = w.RequeueAfter.Duration.String()
		}
		out = append(out, Mismatch{DaemonSet: key, Action: "requeueAfter", Rule: "SYNC-8",
			Message: fmt.Sprintf("requeue after %v, want %s", g.RequeueAfter.Duration, want)})
	}
	return out
}

// toSeconds returns a copy of entries with each last time cut to whole seconds, the precision
// the JSON contract carries it at (metav1.Time): a plan made at a --now with a fraction of a
// second must conform once written and read back.
func toSeconds(entries []daemonset.BackoffEntry) []daemonset.BackoffEntry {
	out := slices.Clone(entries)
	for i := range out {
		out[i].Last = metav1.NewTime(out[i].Last.Truncate(time.Second))
	}
	return out
}

func uidMismatch(key, action, object string, got, want types.UID) Mismatch {
	return Mismatch{DaemonSet: key, Action: action, Object: object, Rule: "OWN-15",
		Message: fmt.Sprintf("pod %s has uid %q in the snapshot, the candidate names %q", object, want, got)}
}
