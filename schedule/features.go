package schedule

import (
	"reflect"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
// VolumeBindMountOptions for a volume mount of any container with bindMountOptions. A feature
// is needed exactly when [FeatureField] finds the field that needs it.
func requiredFeatures(spec *v1.PodSpec, rel daemonset.Version) []string {
	if !rel.AtLeast(1, 36, 0) {
		return nil
	}
	var out []string
	for _, f := range []string{FeatureRestartAllContainers, FeatureUserNamespacesHostNetwork, FeatureVolumeBindMountOptions} {
		if f == FeatureVolumeBindMountOptions && !rel.AtLeast(1, 37, 0) {
			continue
		}
		if FeatureField(spec, f, nil) != nil {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// FeatureField returns the path, under fldPath, of the first field of spec that makes a pod
// need node feature f (SCHED-3), whatever the release: the action of a container's or init
// container's restart rule that restarts all containers
// (initContainers[0].restartPolicyRules[1].action), hostUsers when it is false beside
// hostNetwork, or a volume mount's bindMountOptions
// (containers[0].volumeMounts[1].bindMountOptions). Init containers come first, then
// containers, then ephemeral containers, as in the PodSpec. It returns nil when no field of
// spec needs f, or f is not a feature of this package's constants; a nil fldPath roots the path
// at the first field's name. It is no hot path: it allocates the path it returns.
func FeatureField(spec *v1.PodSpec, f string, fldPath *field.Path) *field.Path {
	switch f {
	case FeatureRestartAllContainers:
		for _, g := range []struct {
			name       string
			containers []v1.Container
		}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
			for i := range g.containers {
				for k, r := range g.containers[i].RestartPolicyRules {
					if r.Action == v1.ContainerRestartRuleActionRestartAllContainers {
						return fldPath.Child(g.name).Index(i).Child("restartPolicyRules").Index(k).Child("action")
					}
				}
			}
		}
	case FeatureUserNamespacesHostNetwork:
		if spec.HostNetwork && spec.HostUsers != nil && !*spec.HostUsers {
			return fldPath.Child("hostUsers")
		}
	case FeatureVolumeBindMountOptions:
		return bindMountOptionsField(spec, fldPath)
	}
	return nil
}

// bindMountOptions is VolumeMount's bindMountOptions field, found once: it is new in
// k8s.io/api v0.37 and is read by name, so that this package still builds against the older
// k8s.io/api that internal/upstreamtest/release.sh links, whose volume mounts lack it (ok is
// false there, and no pod needs the feature).
var bindMountOptions, bindMountOptionsKnown = reflect.TypeFor[v1.VolumeMount]().FieldByName("BindMountOptions")

// bindMountOptionsField is FeatureField for VolumeBindMountOptions: the first volume mount of
// an init container, container or ephemeral container that lists bindMountOptions.
func bindMountOptionsField(spec *v1.PodSpec, fldPath *field.Path) *field.Path {
	if !bindMountOptionsKnown {
		return nil
	}
	set := func(mounts []v1.VolumeMount) int {
		for j := range mounts {
			if reflect.ValueOf(&mounts[j]).Elem().FieldByIndex(bindMountOptions.Index).Len() > 0 {
				return j
			}
		}
		return -1
	}
	at := func(group string, i, j int) *field.Path {
		return fldPath.Child(group).Index(i).Child("volumeMounts").Index(j).Child("bindMountOptions")
	}
	for i := range spec.InitContainers {
		if j := set(spec.InitContainers[i].VolumeMounts); j >= 0 {
			return at("initContainers", i, j)
		}
	}
	for i := range spec.Containers {
		if j := set(spec.Containers[i].VolumeMounts); j >= 0 {
			return at("containers", i, j)
		}
	}
	for i := range spec.EphemeralContainers {
		if j := set(spec.EphemeralContainers[i].VolumeMounts); j >= 0 {
			return at("ephemeralContainers", i, j)
		}
	}
	return nil
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
