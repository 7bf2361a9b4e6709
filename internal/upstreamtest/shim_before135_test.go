//go:build k8s_1_33 || k8s_1_34

package upstreamtest

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// This file holds what the tests need from 1.33 and 1.34, where their APIs differ from the later
// releases': no NodeDeclaredFeatures filter, gate or node field (new in 1.35), no
// RestartAllContainers restart action, the plugin types in k8s.io/kubernetes's scheduler framework
// (in 1.33 every framework type; the kube-scheduler module's framework package, from 1.34, holds
// the cycle state, node info and status), and NodeResourcesFit's Fits without a DRA manager.
// release.sh builds it with the tag k8s_1_33 or k8s_1_34.

// schedFeatures are the linked release's defaults of the scheduler features the filters read,
// from its own gates: PodLevelResources, for one, is alpha and off in 1.33 and beta and on from
// 1.34.
var schedFeatures = feature.Features{
	EnablePodLevelResources:         utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
	EnableSidecarContainers:         utilfeature.DefaultFeatureGate.Enabled(features.SidecarContainers),
	EnableInPlacePodVerticalScaling: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
}

// fixedPlugin is a plugin factory that returns p.
func fixedPlugin(p framework.Plugin) frameworkruntime.PluginFactory {
	return func(context.Context, runtime.Object, framework.Handle) (framework.Plugin, error) { return p, nil }
}

// newPreemption is the default preemption plugin over fw (1.33's New returns it as a Plugin).
func newPreemption(ctx context.Context, args runtime.Object, fw framework.Framework) (*defaultpreemption.DefaultPreemption, error) {
	pl, err := defaultpreemption.New(ctx, args, fw, schedFeatures)
	if err != nil {
		return nil, err
	}
	var p any = pl
	pre, ok := p.(*defaultpreemption.DefaultPreemption)
	if !ok {
		return nil, fmt.Errorf("defaultpreemption.New returned %T", pl)
	}
	return pre, nil
}

// nodeDeclaredFeatures registers nothing and lets every pod pass: the filter is new in 1.35.
func nodeDeclaredFeatures(context.Context) ([]tf.RegisterPluginFunc, func(state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) bool, error) {
	return nil, func(*framework.CycleState, *v1.Pod, *framework.NodeInfo) bool { return true }, nil
}

// fitsResources is NodeResourcesFit's Fits on nodeInfo.
func fitsResources(pod *v1.Pod, nodeInfo *framework.NodeInfo) []noderesources.InsufficientResource {
	return noderesources.Fits(pod, nodeInfo, noderesources.ResourceRequestsOptions{EnablePodLevelResources: schedFeatures.EnablePodLevelResources})
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
// pod-level resources: nothing before 1.37.
func defaultPodLevelResources(*api.Pod) {}

// restartAllContainersOn does nothing: the RestartAllContainers action is new in 1.35.
func restartAllContainersOn(*v1.Container) {}

// declareFeature does nothing: status.declaredFeatures is new in 1.35.
func declareFeature(*v1.Node, string) {}

// tolerates is Toleration.ToleratesTaint, which has no comparison operators before 1.35.
func tolerates(tol *v1.Toleration, t *v1.Taint) bool { return tol.ToleratesTaint(t) }

// bindMountOptionsOn does nothing: bindMountOptions is new in 1.37.
func bindMountOptionsOn(*v1.Container) {}
