//go:build !(k8s_1_33 || k8s_1_34)

package upstreamtest

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodedeclaredfeatures"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// This file holds what the scheduler differential needs from the releases that have the
// NodeDeclaredFeatures filter and the kube-scheduler framework module's plugin types, 1.35 to the
// newest; shim_before135_test.go holds the same for 1.33 and 1.34.

// fixedPlugin is a plugin factory that returns p.
func fixedPlugin(p fwk.Plugin) frameworkruntime.PluginFactory {
	return func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return p, nil }
}

// newPreemption is the default preemption plugin over fw.
func newPreemption(ctx context.Context, args runtime.Object, fw framework.Framework) (*defaultpreemption.DefaultPreemption, error) {
	return defaultpreemption.New(ctx, args, fw, schedFeatures)
}

// nodeDeclaredFeatures returns the registration of the NodeDeclaredFeatures filter and whether
// it lets pod onto nodeInfo after PreFilter has run on state (it passes when PreFilter skipped it).
func nodeDeclaredFeatures(ctx context.Context) ([]tf.RegisterPluginFunc, func(state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) bool, error) {
	pl, err := nodedeclaredfeatures.New(ctx, nil, nil, schedFeatures)
	if err != nil {
		return nil, nil, err
	}
	fits := func(state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
		if _, err := state.Read("PreFilter" + nodedeclaredfeatures.Name); err != nil {
			return true
		}
		return pl.(fwk.FilterPlugin).Filter(ctx, state, pod, nodeInfo).IsSuccess()
	}
	return []tf.RegisterPluginFunc{tf.RegisterPluginAsExtensions(nodedeclaredfeatures.Name, fixedPlugin(pl), "PreFilter", "Filter")}, fits, nil
}

// fitsResources is NodeResourcesFit's Fits on nodeInfo, with no DRA manager.
func fitsResources(pod *v1.Pod, nodeInfo *framework.NodeInfo) []noderesources.InsufficientResource {
	return noderesources.Fits(pod, nodeInfo, nil, noderesources.ResourceRequestsOptions{EnablePodLevelResources: schedFeatures.EnablePodLevelResources})
}

// restartAllContainersOn gives c a restart rule whose action is RestartAllContainers (from 1.35).
func restartAllContainersOn(c *v1.Container) {
	c.RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
}

// declareFeature adds f to the node's status.declaredFeatures (from 1.35).
func declareFeature(node *v1.Node, f string) {
	node.Status.DeclaredFeatures = append(node.Status.DeclaredFeatures, f)
}

// tolerates is Toleration.ToleratesTaint with TaintTolerationComparisonOperators off, its default.
func tolerates(tol *v1.Toleration, t *v1.Taint) bool {
	return tol.ToleratesTaint(klog.Background(), t, false)
}
