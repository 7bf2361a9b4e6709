package daemonset

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// expectationsTimeout is how long the v1.36 controller waits for its creates and deletes to
// be observed before it plans the DaemonSet anyway (SYNC-9).
const expectationsTimeout = 5 * time.Minute

// Expectations are the creates and deletes of one plan that a controller must see in its
// caches before it plans the same DaemonSet again (SYNC-9): planning earlier would create a
// second pod on a node whose first one the cache does not show yet, or delete again. Build them
// with [Result.Expectations] when the plan's writes are sent, lower them as writes fail, and ask
// [Expectations.Observed] with each later snapshot.
//
// Creates counts the pods still to be seen: a controller subtracts each create the API server
// refused (upstream does not for a namespace being terminated, and waits for the timeout
// then), and each create it did not send at all (upstream's slow start stops after a failed
// batch). Deletes lists the pods whose deletion is still to be seen: a controller removes
// those whose delete failed, a 404 included.
type Expectations struct {
	Namespace string
	// DaemonSet is the name of the DaemonSet, DaemonSetUID its uid (from the plan's created
	// pods or the snapshot's DaemonSets; empty when the plan creates nothing, or when neither
	// tells it, see Result.Expectations).
	DaemonSet    string
	DaemonSetUID types.UID
	Creates      int
	Deletes      []ObjectRef
	// At is the plan's Options.Now, from which the 5 minutes of [Expectations.Expired] run.
	At time.Time

	// known are the pods of the planning snapshot the DaemonSet controls or adopts: a pod
	// under its control that is not among them was created since.
	known map[podIdentity]bool
}

type podIdentity struct {
	name string
	uid  types.UID
}

// Expectations returns the expectations of res, the plan of one sync made on s (at now, its
// Options.Now): the creates and deletes it lists, which are, as upstream counts them, the
// actions of the base diff or of the rolling-update step after the burst cap (DIFF-10). res
// and s are not modified. A skipped plan (res.Skipped), and a nil res, expect nothing. So
// does a Pending plan ([Planner.PlanPending]), which sends no create or delete: upstream
// leaves its expectations as they are in that sync, and a controller keeps the ones the sync
// waited for rather than replacing them with these.
//
// The DaemonSet's uid, which tells the created pods, is read from the first created pod with
// a controller reference; a plan decoded from another implementation may carry no pod (a nil
// Creation.Pod counts as a create all the same), and then the uid is that of the DaemonSet of
// res's namespace and name in s.DaemonSets. Without either, no pod can be told as created:
// Observed stays false while creates are expected, and Expired ends the wait.
func (res *Result) Expectations(s Snapshot, now time.Time) Expectations {
	if res == nil {
		return Expectations{At: now}
	}
	e := Expectations{Namespace: res.Namespace, DaemonSet: res.Name, Creates: len(res.Create), At: now}
	for _, d := range res.Delete {
		e.Deletes = append(e.Deletes, ObjectRef{Namespace: d.Namespace, Name: d.Name, UID: d.UID})
	}
	if e.Creates == 0 {
		return e
	}
	for _, c := range res.Create {
		if c.Pod == nil {
			continue
		}
		if ref := controllerOf(c.Pod); ref != nil {
			e.DaemonSetUID = ref.UID
			break
		}
	}
	if e.DaemonSetUID == "" {
		for _, ds := range s.DaemonSets {
			if ds != nil && ds.Namespace == res.Namespace && ds.Name == res.Name {
				e.DaemonSetUID = ds.UID
				break
			}
		}
	}
	if e.DaemonSetUID == "" {
		// Nothing tells the created pods: none is counted (see above).
		e.known = map[podIdentity]bool{}
		return e
	}
	e.known = map[podIdentity]bool{}
	for _, pod := range s.Pods {
		if pod != nil && e.controls(pod) {
			e.known[podIdentity{pod.Name, pod.UID}] = true
		}
	}
	for _, a := range res.Adopt {
		e.known[podIdentity{a.Name, a.UID}] = true
	}
	return e
}

// controls reports whether pod is under the control of the expectations' DaemonSet: same
// namespace, a controller reference of kind DaemonSet with its name and uid.
func (e *Expectations) controls(pod *v1.Pod) bool {
	if pod.Namespace != e.Namespace {
		return false
	}
	ref := controllerOf(pod)
	return ref != nil && ref.Kind == "DaemonSet" && ref.Name == e.DaemonSet && ref.UID == e.DaemonSetUID
}

// Observed reports whether s, a later snapshot of the controller's caches, shows every create
// and delete still expected (SYNC-9). It is at least as strict as upstream's counters: where
// they count events, it waits for the specific pods. A create is seen as a pod under the
// DaemonSet's control that the planning snapshot did not hold and that is not being deleted
// (upstream counts such a pod's add event; a pod that first appears already terminating is
// counted by upstream as a deletion, not a create, and is not counted here). A delete is seen as
// that very pod's absence (by namespace and name, or a pod of that name with another uid) or its
// deletionTimestamp, where upstream counts the deletion event of any pod of the DaemonSet,
// including a pod that appears already terminating. So whenever Observed is true upstream's
// counters are satisfied too, and Observed may stay false where upstream goes on: a created pod
// that is already terminating in s, or one created and deleted again before s was taken (which
// upstream's events count). [Expectations.Expired] then ends the wait, as upstream's timeout
// does.
func (e Expectations) Observed(s Snapshot) bool {
	type nsName struct{ namespace, name string }
	pending := make(map[nsName]types.UID, len(e.Deletes))
	for _, d := range e.Deletes {
		pending[nsName{d.Namespace, d.Name}] = d.UID
	}
	created := 0
	for _, pod := range s.Pods {
		if pod == nil {
			continue
		}
		if e.Creates > 0 && e.DaemonSetUID != "" && pod.DeletionTimestamp == nil && e.controls(pod) && !e.known[podIdentity{pod.Name, pod.UID}] {
			created++
		}
		uid, ok := pending[nsName{pod.Namespace, pod.Name}]
		// The pod of an expected delete is still listed: observed only when it is being
		// deleted or is another pod of the same name.
		if ok && pod.DeletionTimestamp == nil && (uid == "" || uid == pod.UID) {
			return false
		}
	}
	return created >= e.Creates
}

// Expired reports whether upstream would stop waiting at now: its expectations are treated as
// satisfied 5 minutes (expectationsTimeout) after they were set.
func (e Expectations) Expired(now time.Time) bool { return now.Sub(e.At) > expectationsTimeout }
