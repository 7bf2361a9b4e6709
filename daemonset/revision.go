package daemonset

import (
	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// ComputeHash returns the controller-revision-hash of template and collisionCount exactly as the
// v1.36 controller computes it (UPD-15).
func ComputeHash(template *v1.PodTemplateSpec, collisionCount *int32) string {
	panic("daemonset: not implemented yet")
}

// revisionOutcome is the result of choosing the current revision (UPD-14, D-6, D-10).
type revisionOutcome struct {
	hash string
	// collision is true when a revision named <ds>-<hash> exists with other data (UPD-21).
	collision bool
}

// currentRevision claims the revisions of ds (OWN-12) and returns the current hash (UPD-14;
// UPD-15 when none matches). sel is the compiled DaemonSet selector.
func currentRevision(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, sel *selector.Selector) revisionOutcome {
	panic("daemonset: not implemented yet")
}
