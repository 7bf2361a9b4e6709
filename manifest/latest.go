package manifest

import (
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Latest returns the latest timestamp the objects of s carry, in UTC, or the Unix epoch when they
// carry none: a reproducible stand-in for "now" (the daemonsched command's default --now). Every
// timestamp an object carries is at or before the moment it was read: metadata.creationTimestamp
// and managedFields[].time of every object (the time of its last write by each manager, so a
// dump's latest status update), pod status.startTime, pod, node and DaemonSet condition
// lastTransitionTime, node condition lastHeartbeatTime and taint timeAdded.
// (deletionTimestamp is left out: it lies a grace period in the future.) Nil entries are passed
// over.
func Latest(s daemonset.Snapshot) time.Time {
	var t time.Time
	for _, d := range s.DaemonSets {
		if d == nil {
			continue
		}
		t = latestMeta(t, &d.ObjectMeta)
		for _, c := range d.Status.Conditions {
			t = later(t, c.LastTransitionTime)
		}
	}
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		t = latestMeta(t, &r.ObjectMeta)
	}
	for _, n := range s.Nodes {
		if n != nil {
			t = latestNode(t, n)
		}
	}
	for _, p := range s.Pods {
		if p != nil {
			t = latestPod(t, p)
		}
	}
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}

// later returns the later of t and m.
func later(t time.Time, m metav1.Time) time.Time {
	if m.Time.After(t) {
		return m.Time
	}
	return t
}

// latestMeta returns the latest of t and the times m carries that Latest reads.
func latestMeta(t time.Time, m *metav1.ObjectMeta) time.Time {
	t = later(t, m.CreationTimestamp)
	for _, f := range m.ManagedFields {
		if f.Time != nil {
			t = later(t, *f.Time)
		}
	}
	return t
}

// latestNode returns the latest of t and the times n carries that Latest reads.
func latestNode(t time.Time, n *v1.Node) time.Time {
	t = latestMeta(t, &n.ObjectMeta)
	for _, c := range n.Status.Conditions {
		t = later(later(t, c.LastTransitionTime), c.LastHeartbeatTime)
	}
	for _, taint := range n.Spec.Taints {
		if taint.TimeAdded != nil {
			t = later(t, *taint.TimeAdded)
		}
	}
	return t
}

// latestPod returns the latest of t and the times p carries that Latest reads.
func latestPod(t time.Time, p *v1.Pod) time.Time {
	t = latestMeta(t, &p.ObjectMeta)
	if p.Status.StartTime != nil {
		t = later(t, *p.Status.StartTime)
	}
	for _, c := range p.Status.Conditions {
		t = later(t, c.LastTransitionTime)
	}
	return t
}
