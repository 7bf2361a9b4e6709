package daemonset_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// BenchmarkPlanRevisions plans the BenchmarkPlan DaemonSet on 10,000 nodes, one current pod
// each, with the revisions a cluster holds: "current" one current revision (the common path,
// nothing to write), "current+10" ten old ones as well (within the default history limit),
// "current+12/limit=10" two more than the limit (a history clean-up), "none" no revision at
// all (the sync creates one).
func BenchmarkPlanRevisions(b *testing.B) {
	const n = 10000
	ds := realisticDS()
	ns := realisticNodes(n)
	pods := realisticPods(ds, ns)
	cur, err := daemonset.NewRevision(ds, hashOf(ds), 13)
	if err != nil {
		b.Fatal(err)
	}
	cur.UID = "uid-cur"
	old := func(k int) []*appsv1.ControllerRevision {
		out := []*appsv1.ControllerRevision{cur}
		for i := 1; i <= k; i++ {
			r := cur.DeepCopy()
			r.Name, r.UID, r.Revision = fmt.Sprintf("foo-old%02d", i), "uid-old", int64(i)
			r.Labels = map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: fmt.Sprintf("old%02d", i)}
			r.Data.Raw = fmt.Appendf(nil, `{"spec":{"template":{"$patch":"replace","metadata":{"name":"%d"}}}}`, i)
			out = append(out, r)
		}
		return out
	}
	limited := ptr.To(int32(10))
	for _, tc := range []struct {
		name  string
		revs  []*appsv1.ControllerRevision
		limit *int32
	}{
		{"current", old(0), nil},
		{"current+10", old(10), nil},
		{"current+12/limit=10", old(12), limited},
		{"none", nil, nil},
	} {
		d := ds.DeepCopy()
		d.Spec.RevisionHistoryLimit = tc.limit
		p, _ := daemonset.Compile(d, opts())
		s := daemonset.Snapshot{Nodes: ns, Pods: pods, Revisions: tc.revs}
		b.Run(tc.name, func(b *testing.B) { benchmarkPlan(b, p, s) })
	}
}
