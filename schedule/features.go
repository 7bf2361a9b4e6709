package schedule

import (
	"reflect"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
)

// The node features a pod can need (component-helpers nodedeclaredfeatures, the features whose
// InferForScheduling can hold), by the names nodes declare them under.
const (
	FeatureRestartAllContainers      = "RestartAllContainersOnContainerExits"
	FeatureUserNamespacesHostNetwork = "UserNamespacesHostNetworkSupport"
	FeatureVolumeBindMountOptions    = "VolumeBindMountOptions"
)

// requiredFeatures is what the NodeDeclaredFeatures filter of rel requires of a node
// (SCHED-3), sorted: nothing before 1.36 (no filter before 1.35, and the NodeDeclaredFeatures
// gate is alpha and off in 1.35); from 1.36 RestartAllContainersOnContainerExits for a
// container or init container with a restart rule whose action is RestartAllContainers, and
// UserNamespacesHostNetworkSupport for hostNetwork with hostUsers false; from 1.37 also
// VolumeBindMountOptions for a volume mount of any container with bindMountOptions.
func requiredFeatures(spec *v1.PodSpec, rel daemonset.Version) []string {
	if !rel.AtLeast(1, 36, 0) {
		return nil
	}
	var out []string
	restartsAll := func(cs []v1.Container) bool {
		return slices.ContainsFunc(cs, func(c v1.Container) bool {
			return slices.ContainsFunc(c.RestartPolicyRules, func(r v1.ContainerRestartRule) bool {
				return r.Action == v1.ContainerRestartRuleActionRestartAllContainers
			})
		})
	}
	if restartsAll(spec.Containers) || restartsAll(spec.InitContainers) {
		out = append(out, FeatureRestartAllContainers)
	}
	if spec.HostNetwork && spec.HostUsers != nil && !*spec.HostUsers {
		out = append(out, FeatureUserNamespacesHostNetwork)
	}
	if rel.AtLeast(1, 37, 0) && bindMountOptionsInUse(spec) {
		out = append(out, FeatureVolumeBindMountOptions)
	}
	slices.Sort(out)
	return out
}

// bindMountOptions is VolumeMount's bindMountOptions field, found once: it is new in
// k8s.io/api v0.37 and is read by name, so that this package still builds against the older
// k8s.io/api that internal/upstreamtest/release.sh links, whose volume mounts lack it (ok is
// false there, and no pod needs the feature).
var bindMountOptions, bindMountOptionsKnown = reflect.TypeFor[v1.VolumeMount]().FieldByName("BindMountOptions")

// bindMountOptionsInUse reports whether a volume mount of a container, init container or
// ephemeral container lists bindMountOptions.
func bindMountOptionsInUse(spec *v1.PodSpec) bool {
	if !bindMountOptionsKnown {
		return false
	}
	set := func(mounts []v1.VolumeMount) bool {
		for i := range mounts {
			if reflect.ValueOf(&mounts[i]).Elem().FieldByIndex(bindMountOptions.Index).Len() > 0 {
				return true
			}
		}
		return false
	}
	for i := range spec.Containers {
		if set(spec.Containers[i].VolumeMounts) {
			return true
		}
	}
	for i := range spec.InitContainers {
		if set(spec.InitContainers[i].VolumeMounts) {
			return true
		}
	}
	for i := range spec.EphemeralContainers {
		if set(spec.EphemeralContainers[i].VolumeMounts) {
			return true
		}
	}
	return false
}

// missingFeatures returns the features of want the node does not declare in
// status.declaredFeatures, in want's order.
func missingFeatures(want []string, node *v1.Node) []string {
	var out []string
	for _, f := range want {
		if !slices.Contains(node.Status.DeclaredFeatures, f) {
			out = append(out, f)
		}
	}
	return out
}
