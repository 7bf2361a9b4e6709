package schedule

import (
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
)

// The node features a pod can need (component-helpers nodedeclaredfeatures, the features whose
// InferForScheduling can hold), by the names nodes declare them under.
const (
	FeatureRestartAllContainers      = "RestartAllContainersOnContainerExits"
	FeatureUserNamespacesHostNetwork = "UserNamespacesHostNetworkSupport"
)

// requiredFeatures is what the NodeDeclaredFeatures filter of rel requires of a node
// (SCHED-3), sorted: nothing before 1.36 (no filter before 1.35, and the NodeDeclaredFeatures
// gate is alpha and off in 1.35); from 1.36 RestartAllContainersOnContainerExits for a
// container or init container with a restart rule whose action is RestartAllContainers, and
// UserNamespacesHostNetworkSupport for hostNetwork with hostUsers false. 1.37's
// VolumeBindMountOptions (a volume mount with bindMountOptions, an alpha field the API server
// drops with its gate off) is not inferred: SCHED-3 says why.
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
	slices.Sort(out)
	return out
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
