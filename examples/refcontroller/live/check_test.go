//go:build live

package live

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// storyRelease is the release of the servers the story runs against (servers/go.mod pins
// k8s.io/kubernetes v1.36.3): the controller, the checks and the model plan with its rules.
var storyRelease = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()

// currentRevisionName is the name of the revision the stored DaemonSet's template should have:
// <name>-<hash of the template as the API server stored it>.
func (s *story) currentRevisionName() string {
	ds, err := s.client.AppsV1().DaemonSets(ns).Get(s.ctx, dsName, metav1.GetOptions{})
	s.mustErr(err)
	return ds.Name + "-" + storyRelease.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// converged reads the cluster from the API server and returns why it has not converged, or ""
// when it has: the DaemonSet's generation is observed; a plan of the snapshot has nothing left
// to do; every node that should run a daemon pod runs exactly one, current and available,
// every node that may not keep one has none, and the others at most one; no daemon pod is
// unbound or terminating; the ControllerRevisions are the expected ones; and the stored status
// counters are the plan's.
func (s *story) converged() string {
	ds, err := s.client.AppsV1().DaemonSets(ns).Get(s.ctx, dsName, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	nodeList, err := s.client.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	podList, err := s.client.CoreV1().Pods(ns).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	revList, err := s.client.AppsV1().ControllerRevisions(ns).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	if ds.Status.ObservedGeneration < ds.Generation {
		return fmt.Sprintf("observedGeneration %d < generation %d", ds.Status.ObservedGeneration, ds.Generation)
	}
	snap := daemonset.Snapshot{}
	for i := range nodeList.Items {
		snap.Nodes = append(snap.Nodes, &nodeList.Items[i])
	}
	for i := range podList.Items {
		snap.Pods = append(snap.Pods, &podList.Items[i])
	}
	for i := range revList.Items {
		snap.Revisions = append(snap.Revisions, &revList.Items[i])
	}
	p, errs := daemonset.Compile(ds, daemonset.Options{Version: storyRelease, Now: time.Now()})
	if len(errs) > 0 {
		return errs.ToAggregate().Error()
	}
	res := p.Plan(snap)
	if n := len(res.Create) + len(res.Delete) + len(res.Adopt) + len(res.Release); n > 0 {
		return fmt.Sprintf("the plan still has %d creates, %d deletes, %d adoptions, %d releases",
			len(res.Create), len(res.Delete), len(res.Adopt), len(res.Release))
	}

	byNode := map[string][]*v1.Pod{}
	for _, pod := range snap.Pods {
		if !storyRelease.IsControlledBy(pod, ds) {
			return fmt.Sprintf("pod %s is not the DaemonSet's", pod.Name)
		}
		if pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" {
			return fmt.Sprintf("pod %s is terminating or unbound", pod.Name)
		}
		byNode[pod.Spec.NodeName] = append(byNode[pod.Spec.NodeName], pod)
	}
	for _, node := range snap.Nodes {
		e, pods := p.Eligibility(node), byNode[node.Name]
		delete(byNode, node.Name)
		switch {
		case e.ShouldRun && len(pods) != 1:
			return fmt.Sprintf("%s runs %d daemon pods, want 1", node.Name, len(pods))
		case e.ShouldRun && pods[0].Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != res.RevisionHash:
			return fmt.Sprintf("%s: pod %s is not current", node.Name, pods[0].Name)
		case e.ShouldRun && !storyRelease.IsPodAvailable(pods[0], ds.Spec.MinReadySeconds, time.Now()):
			return fmt.Sprintf("%s: pod %s is not available", node.Name, pods[0].Name)
		case !e.ShouldContinueRunning && len(pods) > 0:
			return fmt.Sprintf("%s may not run a daemon pod (%s) and runs %d", node.Name, e.Reason, len(pods))
		case len(pods) > 1:
			return fmt.Sprintf("%s runs %d daemon pods", node.Name, len(pods))
		}
	}
	for node := range byNode {
		return fmt.Sprintf("a daemon pod is bound to %s, which is gone", node)
	}

	var revs []string
	slices.SortFunc(revList.Items, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	for _, r := range revList.Items {
		revs = append(revs, fmt.Sprintf("%s %d", r.Name, r.Revision))
		if r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == "" || !metav1.IsControlledBy(&r, ds) {
			return fmt.Sprintf("revision %s lacks its hash label or controller", r.Name)
		}
	}
	if !slices.Equal(revs, s.revisions) {
		return fmt.Sprintf("revisions [%s], want [%s]", strings.Join(revs, ", "), strings.Join(s.revisions, ", "))
	}

	want, got := res.Status, ds.Status
	if got.DesiredNumberScheduled != want.DesiredNumberScheduled || got.CurrentNumberScheduled != want.CurrentNumberScheduled ||
		got.NumberMisscheduled != want.NumberMisscheduled || got.NumberReady != want.NumberReady ||
		got.UpdatedNumberScheduled != want.UpdatedNumberScheduled || got.NumberAvailable != want.NumberAvailable ||
		got.NumberUnavailable != want.NumberUnavailable || got.ObservedGeneration != want.ObservedGeneration {
		return fmt.Sprintf("status %+v, the plan says %+v", got, *want)
	}
	return ""
}
