package daemonset

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

var podSink *v1.Pod

// trackerPodDS is a DaemonSet whose template has every part podFrom shares or rebuilds: labels,
// annotations, a container, tolerations, required terms beside preferred ones, and pod
// anti-affinity.
func trackerPodDS() *appsv1.DaemonSet {
	ds := apitest.DaemonSet()
	spec := &ds.Spec.Template.Spec
	ds.Spec.Template.Annotations = map[string]string{"a": "b"}
	spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}}
	spec.Affinity = apitest.RequiredAffinity(
		apitest.Term(apitest.Requirement("zone", v1.NodeSelectorOpIn, "a", "b")),
		apitest.FieldTerm(apitest.Requirement("metadata.name", v1.NodeSelectorOpIn, "x")))
	spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.PreferredSchedulingTerm{
		{Weight: 1, Preference: apitest.Term(apitest.Requirement("disk", v1.NodeSelectorOpExists))}}
	spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	return ds
}

// TestPodFromIsNewPod: a Tracker's pod for a node is the pod the Planner builds for it (POD-1..
// POD-8, the POD-6 binding naming the node), its prototype is left as it was, and pods built
// from one prototype each keep their own node name.
func TestPodFromIsNewPod(t *testing.T) {
	p, errs := Compile(trackerPodDS(), Options{Now: time.Unix(1000, 0)})
	require.Empty(t, errs)
	hash := p.digest.hash()
	proto := p.newPod("", hash)
	before := proto.DeepCopy()
	a, b := podFrom(proto, "node-a"), podFrom(proto, "node-b")
	if diff := cmp.Diff(p.newPod("node-a", hash), a); diff != "" {
		t.Errorf("podFrom(node-a) mismatch (-newPod +podFrom):\n%s", diff)
	}
	if diff := cmp.Diff(p.newPod("node-b", hash), b); diff != "" {
		t.Errorf("podFrom(node-b) mismatch (-newPod +podFrom):\n%s", diff)
	}
	if diff := cmp.Diff(before, proto); diff != "" {
		t.Errorf("podFrom changed its prototype (-before +after):\n%s", diff)
	}
}

// TestPodFromAllocatesOnce: a Tracker's pod costs one allocation, the pod and its binding
// path; a deep copy of the prototype cost 19 for this template.
func TestPodFromAllocatesOnce(t *testing.T) {
	p, errs := Compile(trackerPodDS(), Options{Now: time.Unix(1000, 0)})
	require.Empty(t, errs)
	proto := p.newPod("", p.digest.hash())
	allocs := testing.AllocsPerRun(100, func() { podSink = podFrom(proto, "node-a") })
	require.Equal(t, 1.0, allocs)
}
