package manifest

import (
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
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
	see := func(m metav1.Time) {
		if m.Time.After(t) {
			t = m.Time
		}
	}
	seeMeta := func(m *metav1.ObjectMeta) {
		see(m.CreationTimestamp)
		for _, f := range m.ManagedFields {
			if f.Time != nil {
				see(*f.Time)
			}
		}
	}
	for _, d := range s.DaemonSets {
		if d == nil {
			continue
		}
		seeMeta(&d.ObjectMeta)
		for _, c := range d.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	for _, r := range s.Revisions {
		if r == nil {
			continue
		}
		seeMeta(&r.ObjectMeta)
	}
	for _, n := range s.Nodes {
		if n == nil {
			continue
		}
		seeMeta(&n.ObjectMeta)
		for _, c := range n.Status.Conditions {
			see(c.LastTransitionTime)
			see(c.LastHeartbeatTime)
		}
		for _, taint := range n.Spec.Taints {
			if taint.TimeAdded != nil {
				see(*taint.TimeAdded)
			}
		}
	}
	for _, p := range s.Pods {
		if p == nil {
			continue
		}
		seeMeta(&p.ObjectMeta)
		if p.Status.StartTime != nil {
			see(*p.Status.StartTime)
		}
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}
