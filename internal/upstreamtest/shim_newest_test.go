//go:build !(k8s_1_33 || k8s_1_34 || k8s_1_35 || k8s_1_36)

package upstreamtest

import (
	"context"

	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	api "k8s.io/kubernetes/pkg/apis/core"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// This file holds what the tests need from the newest release, v1.37.2, where its APIs differ
// from older releases'; shim_older_test.go (1.35, 1.36) and shim_before135_test.go (1.33, 1.34)
// hold the same for the older ones, which release.sh builds with the tag k8s_1_<minor>.

// schedFeatures are the v1.37.2 scheduler's feature defaults that the filters read
// (SidecarContainers is GA and no longer a field; GenericWorkload is beta and off).
var schedFeatures = feature.Features{
	EnablePodLevelResources:         true,
	EnableNodeDeclaredFeatures:      true,
	EnableInPlacePodVerticalScaling: true,
}

// selectVictims runs the default preemption's SelectVictimsOnNode on nodeInfo as the v1.37.2
// Evaluator's DryRunPreemption does (the node's possible victims first, then no PDBs), and
// reports whether it made room.
func selectVictims(ctx context.Context, pre *defaultpreemption.DefaultPreemption, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) ([]*v1.Pod, bool) {
	possible, err := pre.Evaluator.GetVictimsOnNode(ctx, nodeInfo)
	if err != nil {
		return nil, false
	}
	victims, _, status := pre.SelectVictimsOnNode(ctx, state.Clone(), pod, nodeInfo.Snapshot(), possible, nil)
	return victims, status.IsSuccess()
}

// snapshotOptions give the framework the snapshot of node and pods; from 1.37 the preemption
// reads it through the framework's mutable snapshot lister as well.
func snapshotOptions(node *v1.Node, pods []*v1.Pod) []frameworkruntime.Option {
	snapshot := internalcache.NewSnapshot(pods, []*v1.Node{node})
	return []frameworkruntime.Option{
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
	}
}

// defaultPodLevelResources is what the registry's PrepareForCreate does to a created pod's
// pod-level resources, between the mutating and the validating admission plugins: from 1.37
// (PodLevelResourcesFixDefaulting, on) it defaults them there (ADM-7).
func defaultPodLevelResources(pod *api.Pod) { podutil.DefaultPodLevelResources(pod) }

// bindMountOptionsOn gives c a volume mount with bindMountOptions, which from 1.37 needs the
// node feature VolumeBindMountOptions (SCHED-3).
func bindMountOptionsOn(c *v1.Container) {
	c.VolumeMounts = append(c.VolumeMounts, v1.VolumeMount{Name: "data", MountPath: "/data", BindMountOptions: []string{"nosuid"}})
}
