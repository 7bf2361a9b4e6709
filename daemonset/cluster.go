package daemonset

import (
	"cmp"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Plan plans every DaemonSet of s, giving each contested pod to at most one (D-2, D-12).
// The DaemonSets are visited oldest creationTimestamp first, then by namespace/name, as a
// controller working through its queue would: an orphan goes to the first DaemonSet that would
// adopt it (same namespace, selector matching, sync not skipped), and a pod a DaemonSet releases
// in this pass (its labels no longer match) is an orphan for those visited after it, so the
// first of them whose selector matches adopts it and plans with it as its own. Every later
// DaemonSet whose selector matches a pod adopted so reports it in Result.Conflicts.
// ControllerRevisions are shared the same way, before the pods, as each sync claims its history
// first: an orphan revision goes to the first DaemonSet in that order that would adopt it (same
// namespace, selector matching, sync not skipped; a sync that then meets a hash collision has
// claimed its revisions already), the DaemonSets after it see it as another controller's, and a
// revision a DaemonSet releases is an orphan for those visited after it. No conflict is reported
// for a revision. The error
// reports an inconsistent snapshot. It panics on misuse (zero opts.Now, negative
// opts.Workers).
func (s Snapshot) Plan(opts Options) (*ClusterResult, error) {
	opts.Check()
	if errs := s.Check(); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	planners, ccs := clusterPlanners(s, opts)
	out := &ClusterResult{DaemonSets: make([]*Result, 0, len(planners))}
	for i, p := range planners {
		out.DaemonSets = append(out.DaemonSets, p.plan(s, ccs[i], syncActs, nil))
	}
	return out, nil
}

// clusterClaims is how a cluster-wide plan shares contested pods with one DaemonSet (D-2). A
// nil *clusterClaims, the plan of one DaemonSet alone, shares nothing.
type clusterClaims struct {
	// lost are orphans (or pods released before this DaemonSet's turn) that the selector
	// matches but an earlier DaemonSet adopts, with that DaemonSet's namespace/name.
	lost map[*v1.Pod]string
	// gained are pods an earlier DaemonSet releases and this one adopts.
	gained map[*v1.Pod]bool
	// revLost are orphan (or released) revisions the selector matches that an earlier
	// DaemonSet adopts; revGained are those an earlier DaemonSet releases and this one adopts.
	revLost, revGained map[*appsv1.ControllerRevision]bool
}

// classifyRevision is classifyRevision with the cluster-wide sharing of revisions (D-2): one
// an earlier DaemonSet adopts is another controller's, one it releases is an orphan.
func (c *clusterClaims) classifyRevision(ds *appsv1.DaemonSet, r *appsv1.ControllerRevision, sel *selector.Selector) claimKind {
	if c != nil {
		switch {
		case c.revGained[r]:
			return claimAdopt
		case c.revLost[r]:
			return claimIgnore
		}
	}
	return classifyRevision(ds, r, sel)
}

// adoptsOrphanRevision reports whether p would adopt r if r had no controller (OWN-12).
func (p *Planner) adoptsOrphanRevision(r *appsv1.ControllerRevision) bool {
	return r.Namespace == p.ds.Namespace && r.DeletionTimestamp == nil && p.sel.Matches(r.Labels)
}

func (c *clusterClaims) lostTo(pod *v1.Pod) (string, bool) {
	if c == nil {
		return "", false
	}
	w, ok := c.lost[pod]
	return w, ok
}

// classify is p.classify with the pods an earlier DaemonSet released counted as orphans this
// DaemonSet would adopt: gained or, if lost, reported as a conflict.
func (c *clusterClaims) classify(p *Planner, pod *v1.Pod) claimKind {
	if c != nil {
		if _, lost := c.lost[pod]; lost || c.gained[pod] {
			return claimAdopt
		}
	}
	return p.classify(pod)
}

// adoptsOrphan reports whether p would adopt pod if pod had no controller (OWN-4).
func (p *Planner) adoptsOrphan(pod *v1.Pod) bool {
	return pod.Namespace == p.ds.Namespace && pod.DeletionTimestamp == nil && p.sel.Matches(pod.Labels)
}

// clusterPlanners compiles every DaemonSet of s, sorted by namespace/name, and says how each
// shares contested pods (D-2).
func clusterPlanners(s Snapshot, opts Options) ([]*Planner, []*clusterClaims) {
	dss := slices.Clone(s.DaemonSets)
	slices.SortFunc(dss, compareAge)
	planners := make([]*Planner, len(dss))
	syncing := make([]*Planner, 0, len(dss)) // the syncs that are not skipped, in D-2 order
	for i, ds := range dss {
		planners[i], _ = Compile(ds, opts)
		if planners[i].skip == "" {
			syncing = append(syncing, planners[i])
		}
	}
	ccOf := map[*Planner]*clusterClaims{}
	of := func(p *Planner) *clusterClaims {
		c := ccOf[p]
		if c == nil {
			c = &clusterClaims{lost: map[*v1.Pod]string{}, gained: map[*v1.Pod]bool{},
				revLost: map[*appsv1.ControllerRevision]bool{}, revGained: map[*appsv1.ControllerRevision]bool{}}
			ccOf[p] = c
		}
		return c
	}
	// Revisions first: every sync that is not skipped claims its history (a hash collision
	// stops it only after that), and which revisions it claims decides the collision.
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		orphan := metav1.GetControllerOfNoCopy(r) == nil
		released, won := false, false
		for _, p := range syncing {
			if !orphan {
				if classifyRevision(p.ds, r, p.sel) == claimRelease {
					orphan, released = true, true
				}
				continue
			}
			if !p.adoptsOrphanRevision(r) {
				continue
			}
			switch {
			case !won:
				won = true
				if released {
					of(p).revGained[r] = true
				}
			default:
				of(p).revLost[r] = true
			}
		}
	}
	claiming := make([]*Planner, 0, len(syncing)) // the syncs that claim pods, in D-2 order
	for _, p := range syncing {
		if !p.revision(s.Revisions, ccOf[p]).collision {
			claiming = append(claiming, p)
		}
	}
	for _, pod := range s.Pods {
		if pod == nil {
			continue
		}
		// Walk the queue: the pod is an orphan from the start, or from the DaemonSet that
		// releases it on; the first DaemonSet after that which would adopt it does, and every
		// later one that would loses it.
		orphan := metav1.GetControllerOfNoCopy(pod) == nil
		released := false
		var winner *Planner
		for _, p := range claiming {
			if !orphan {
				if p.classify(pod) == claimRelease {
					orphan, released = true, true
				}
				continue
			}
			if !p.adoptsOrphan(pod) {
				continue
			}
			switch {
			case winner == nil:
				winner = p
				if released {
					of(p).gained[pod] = true
				}
			default:
				of(p).lost[pod] = winner.ds.Namespace + "/" + winner.ds.Name
			}
		}
	}
	// The plans come out in namespace/name order, as ClusterResult lists them.
	slices.SortFunc(planners, func(a, b *Planner) int {
		return compareNames(a.ds.Namespace, a.ds.Name, b.ds.Namespace, b.ds.Name)
	})
	ccs := make([]*clusterClaims, len(planners))
	for i, p := range planners {
		ccs[i] = ccOf[p]
	}
	return planners, ccs
}

// compareAge orders DaemonSets by D-2 priority: older creationTimestamp first, then
// namespace/name.
func compareAge(a, b *appsv1.DaemonSet) int {
	return cmp.Or(a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time),
		strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}
