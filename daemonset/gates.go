package daemonset

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Gate names a Kubernetes feature gate that changes a decision the library models. Each
// release knows some gates, each with its default (VER-5); [Options.FeatureGates] sets them.
type Gate string

const (
	// GateTaintTolerationComparisonOperators enables the Lt and Gt toleration operators
	// (TAINT-10): known from 1.35, alpha and off by default in 1.35 to 1.37.
	GateTaintTolerationComparisonOperators Gate = "TaintTolerationComparisonOperators"
	// GateStaleControllerConsistencyDaemonSet makes the controller skip a sync until its caches
	// have observed its own last writes (VER-6): known from 1.36, beta and on by default in 1.36
	// and 1.37. It decides no action of one sync; the sync models of rollout and the reference
	// controller ask it through [Options.Enabled].
	GateStaleControllerConsistencyDaemonSet Gate = "StaleControllerConsistencyDaemonSet"
)

// gateReleases lists, for every gate the library models, the first release that knows it and
// its default there and in every later supported release (pkg/features: kube_features.go of
// each release; none of the gates listed here changed its default between 1.33 and 1.37;
// PodLevelResources and ImageVolume did, and are modelled by release: ADM-8, VER-10).
var gateReleases = [...]struct {
	gate         Gate
	since        Version
	defaultValue bool
}{
	{GateStaleControllerConsistencyDaemonSet, Version{1, 36, 0}, true},
	{GateTaintTolerationComparisonOperators, Version{1, 35, 0}, false},
}

// Gates returns the gates release v knows, sorted by name; none for the zero Version.
func (v Version) Gates() []Gate {
	var out []Gate
	for _, g := range gateReleases {
		if !v.IsZero() && v.Compare(g.since) >= 0 {
			out = append(out, g.gate)
		}
	}
	slices.Sort(out)
	return out
}

// GateDefault returns release v's default of gate g, and whether v knows g at all.
func (v Version) GateDefault(g Gate) (enabled, known bool) {
	for _, r := range gateReleases {
		if r.gate == g {
			known = !v.IsZero() && v.Compare(r.since) >= 0
			return known && r.defaultValue, known
		}
	}
	return false, false
}

// FeatureGates sets feature gates over the release's defaults, as kube-controller-manager's
// and kube-apiserver's --feature-gates do: a gate present in the map is on or off as its
// value says, a gate absent keeps the release's default. nil sets nothing.
type FeatureGates map[Gate]bool

// Enabled reports whether gate g is on for the release the options select (VER-5): its
// setting in FeatureGates, else the release's default. A gate the release does not know is
// off; setting one is refused by [Options.CheckFeatureGates].
func (o Options) Enabled(g Gate) bool {
	v := o.release()
	def, known := v.GateDefault(g)
	if !known {
		return false
	}
	if on, set := o.FeatureGates[g]; set {
		return on
	}
	return def
}

// CheckFeatureGates returns, for each gate of FeatureGates (in name order) that the release
// the options select does not know (VER-5), a NotSupported error at fldPath.Key(gate) listing
// the gates it knows; nil when it knows them all. [Options.Check] panics with them: callers
// that take gates from users call this first, with the path the gates came from.
func (o Options) CheckFeatureGates(fldPath *field.Path) field.ErrorList {
	v := o.release()
	var errs field.ErrorList
	for _, g := range slices.Sorted(maps.Keys(o.FeatureGates)) {
		if _, known := v.GateDefault(g); !known {
			errs = append(errs, field.NotSupported(fldPath.Key(string(g)), g, v.Gates()))
		}
	}
	return errs
}
