//go:build k8s_1_35 || k8s_1_36

package upstreamtest

import (
	"context"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// This file holds what the tests need from 1.35 and 1.36, where their APIs differ from the
// newest's (release.sh builds them with the tag k8s_1_<minor>); shim_newest_test.go holds the
// newest's, shim_before135_test.go 1.33's and 1.34's, and shim_since135_test.go what 1.35 to the
// newest share.

// schedFeatures are the linked release's defaults of the scheduler features the filters read,
// from its own gates: NodeDeclaredFeatures, for one, is alpha and off in 1.35 and beta and on in
// 1.36. (Not NewSchedulerFeaturesFromGates: it also turns on features, such as DRA's extended
// resources, whose plugins need a framework handle these tests do not build.)
var schedFeatures = feature.Features{
	EnablePodLevelResources:         utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
	EnableSidecarContainers:         utilfeature.DefaultFeatureGate.Enabled(features.SidecarContainers),
	EnableNodeDeclaredFeatures:      utilfeature.DefaultFeatureGate.Enabled(features.NodeDeclaredFeatures),
	EnableInPlacePodVerticalScaling: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
}

// selectVictims runs the default preemption's SelectVictimsOnNode on nodeInfo with no PDBs, as
// the scheduler before 1.37 does, and reports whether it made room.
func selectVictims(ctx context.Context, pre *defaultpreemption.DefaultPreemption, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) ([]*v1.Pod, bool) {
	victims, _, status := pre.SelectVictimsOnNode(ctx, state.Clone(), pod, nodeInfo.Snapshot(), nil)
	return victims, status.IsSuccess()
}

// snapshotOptions give the framework the snapshot of node and pods.
func snapshotOptions(node *v1.Node, pods []*v1.Pod) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithSnapshotSharedLister(internalcache.NewSnapshot(pods, []*v1.Node{node}))}
}

// defaultPodLevelResources is what the registry's PrepareForCreate does to a created pod's
// pod-level resources: nothing before 1.37, which defaults them when it decodes the pod.
func defaultPodLevelResources(*api.Pod) {}

// bindMountOptionsOn does nothing: bindMountOptions is new in 1.37.
func bindMountOptionsOn(*v1.Container) {}
