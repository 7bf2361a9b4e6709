package daemonset

import (
	"fmt"
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
	// GatePodLevelResources keeps a pod's and a template's spec.resources and lets defaulting,
	// LimitRanger and the scheduler read them (ADM-8, VER-11): alpha and off in 1.33, beta and on
	// from 1.34.
	GatePodLevelResources Gate = "PodLevelResources"
	// GateImageVolume keeps a template's image volumes and defaults their pull policy (VER-10):
	// beta and off in 1.33 and 1.34, on in 1.35, GA and locked on from 1.36.
	GateImageVolume Gate = "ImageVolume"

	// GateDynamicResourceAllocation keeps spec.resourceClaims and the containers' resources.claims: beta and off in 1.33, GA from 1.34, locked from 1.35 (VER-11).
	GateDynamicResourceAllocation Gate = "DynamicResourceAllocation"
	// GateClusterTrustBundleProjection keeps projected clusterTrustBundle sources: beta and off until 1.36, GA and on in 1.37 (VER-11).
	GateClusterTrustBundleProjection Gate = "ClusterTrustBundleProjection"
	// GateContainerStopSignals keeps the containers' lifecycle.stopSignal: alpha and off in 1.33 to 1.37 (VER-11).
	GateContainerStopSignals Gate = "ContainerStopSignals"
	// GateContainerRestartRules keeps the containers' restartPolicy (but an init container's Always) and restartPolicyRules: alpha and off in 1.34, beta and on from 1.35 (VER-11).
	GateContainerRestartRules Gate = "ContainerRestartRules"
	// GateEnvFiles keeps env valueFrom.fileKeyRef: alpha and off in 1.34, beta and on from 1.35 (VER-11).
	GateEnvFiles Gate = "EnvFiles"
	// GateHostnameOverride keeps spec.hostnameOverride: alpha and off in 1.34, beta and on in 1.35 and 1.36, GA and locked in 1.37 (VER-11).
	GateHostnameOverride Gate = "HostnameOverride"
	// GatePodCertificateRequest keeps projected podCertificate sources: off until 1.36, GA and on in 1.37 (VER-11).
	GatePodCertificateRequest Gate = "PodCertificateRequest"
	// GateGenericWorkload keeps spec.workloadRef in 1.35 and spec.schedulingGroup, which
	// replaced it, in 1.36 and 1.37: off in 1.35 to 1.37 (VER-11).
	GateGenericWorkload Gate = "GenericWorkload"
	// GateAtomicWriteVolumeUserFields keeps the defaultUser and user fields of secret, configMap, downwardAPI and projected volumes: alpha and off in 1.37 (VER-11).
	GateAtomicWriteVolumeUserFields Gate = "AtomicWriteVolumeUserFields"
	// GateEmptyDirVolumeMode keeps emptyDir.mode: alpha and off in 1.37 (VER-11).
	GateEmptyDirVolumeMode Gate = "EmptyDirVolumeMode"
	// GateEvictionRequestAPI keeps spec.evictionResponders: alpha and off in 1.37 (VER-11).
	GateEvictionRequestAPI Gate = "EvictionRequestAPI"
	// GateGRPCContainerProbeTLS keeps the probes' grpc.mode: alpha and off in 1.37 (VER-11).
	GateGRPCContainerProbeTLS Gate = "GRPCContainerProbeTLS"
	// GateH2CContainerProbe keeps the probes' and lifecycle handlers' httpGet.protocol: alpha and off in 1.37 (VER-11).
	GateH2CContainerProbe Gate = "H2CContainerProbe"
	// GateVolumeBindMountOptions keeps the volume mounts' bindMountOptions: alpha and off in 1.37 (VER-11).
	GateVolumeBindMountOptions Gate = "VolumeBindMountOptions"
)

// gateReleases is the lifecycle of every gate the library models, read from
// pkg/features/kube_features.go of each supported release: the first supported release that
// knows it, the first whose default is on (zero: off in every supported release), and the
// first that locks it to that default, as a GA gate with LockToDefault (zero: never), where
// kube-apiserver refuses to set it otherwise.
var gateReleases = [...]struct {
	gate   Gate
	since  Version
	onFrom Version
	locked Version
}{
	{GateAtomicWriteVolumeUserFields, Version{1, 37, 0}, Version{}, Version{}},
	{GateClusterTrustBundleProjection, Version{1, 33, 0}, Version{1, 37, 0}, Version{}},
	{GateContainerRestartRules, Version{1, 34, 0}, Version{1, 35, 0}, Version{}},
	{GateContainerStopSignals, Version{1, 33, 0}, Version{}, Version{}},
	{GateDynamicResourceAllocation, Version{1, 33, 0}, Version{1, 34, 0}, Version{1, 35, 0}},
	{GateEmptyDirVolumeMode, Version{1, 37, 0}, Version{}, Version{}},
	{GateEnvFiles, Version{1, 34, 0}, Version{1, 35, 0}, Version{}},
	{GateEvictionRequestAPI, Version{1, 37, 0}, Version{}, Version{}},
	{GateGRPCContainerProbeTLS, Version{1, 37, 0}, Version{}, Version{}},
	{GateGenericWorkload, Version{1, 35, 0}, Version{}, Version{}},
	{GateH2CContainerProbe, Version{1, 37, 0}, Version{}, Version{}},
	{GateHostnameOverride, Version{1, 34, 0}, Version{1, 35, 0}, Version{1, 37, 0}},
	{GateImageVolume, Version{1, 33, 0}, Version{1, 35, 0}, Version{1, 36, 0}},
	{GatePodCertificateRequest, Version{1, 34, 0}, Version{1, 37, 0}, Version{}},
	{GatePodLevelResources, Version{1, 33, 0}, Version{1, 34, 0}, Version{}},
	{GateStaleControllerConsistencyDaemonSet, Version{1, 36, 0}, Version{1, 36, 0}, Version{}},
	{GateTaintTolerationComparisonOperators, Version{1, 35, 0}, Version{}, Version{}},
	{GateVolumeBindMountOptions, Version{1, 37, 0}, Version{}, Version{}},
}

// from reports whether release v is w or later; never for a zero w.
func (v Version) from(w Version) bool { return !w.IsZero() && v.Compare(w) >= 0 }

// Gates returns the gates release v knows, sorted by name; none for the zero Version.
func (v Version) Gates() []Gate {
	var out []Gate
	for _, g := range gateReleases {
		if !v.IsZero() && v.from(g.since) {
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
			known = !v.IsZero() && v.from(r.since)
			return known && v.from(r.onFrom), known
		}
	}
	return false, false
}

// gateLocked reports whether release v locks gate g to its default.
func (v Version) gateLocked(g Gate) bool {
	for _, r := range gateReleases {
		if r.gate == g {
			return !v.IsZero() && v.from(r.locked)
		}
	}
	return false
}

// FeatureGates sets feature gates over the release's defaults, as kube-controller-manager's
// and kube-apiserver's --feature-gates do: a gate present in the map is on or off as its
// value says, a gate absent keeps the release's default. nil sets nothing.
type FeatureGates map[Gate]bool

// Enabled reports whether gate g is on for the release the options select (VER-5): its
// setting in FeatureGates, else the release's default. A gate the release does not know is
// off, and a gate it locks (GA) keeps its default whatever FeatureGates says; setting either
// is refused by [Options.CheckFeatureGates].
func (o Options) Enabled(g Gate) bool {
	v := o.release()
	def, known := v.GateDefault(g)
	if !known {
		return false
	}
	if on, set := o.FeatureGates[g]; set && !v.gateLocked(g) {
		return on
	}
	return def
}

// CheckFeatureGates returns, for each gate of FeatureGates (in name order) that the release
// the options select does not know (VER-5), a NotSupported error at fldPath.Key(gate) listing
// the gates it knows, and for each it locks to its default (a GA gate, which kube-apiserver
// refuses to set otherwise) set otherwise, a Forbidden error there; nil when all may be set.
// [Options.Check] panics with them: callers that take gates from users call this first, with
// the path the gates came from.
func (o Options) CheckFeatureGates(fldPath *field.Path) field.ErrorList {
	v := o.release()
	var errs field.ErrorList
	for _, g := range slices.Sorted(maps.Keys(o.FeatureGates)) {
		def, known := v.GateDefault(g)
		if !known {
			errs = append(errs, field.NotSupported(fldPath.Key(string(g)), g, v.Gates()))
			continue
		}
		if v.gateLocked(g) && o.FeatureGates[g] != def {
			errs = append(errs, field.Forbidden(fldPath.Key(string(g)), fmt.Sprintf("locked to %t in Kubernetes %s (GA): it cannot be set to %t", def, v, !def)))
		}
	}
	return errs
}
