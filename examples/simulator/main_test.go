package main

import (
	"bytes"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/golden"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden.Check(t, "testdata/output.txt", out.Bytes())
}

// After every change the DaemonSet settles with exactly one pod of the current template on each
// worker that should run it (role=worker, no NoExecute taint), and none elsewhere; during the
// rollout no more than maxUnavailable (1) of the desired pods is missing at any sync (UPD-5).
func TestEveryChangeSettlesOnePodPerEligibleNode(t *testing.T) {
	c := newCluster()
	for _, ch := range changes() {
		ch.apply(c)
		err := c.settle(func(sync int, res *daemonset.Result) {
			desired := 0
			for _, n := range c.nodes {
				if eligible(n) {
					desired++
				}
			}
			require.GreaterOrEqual(t, len(c.pods), desired-1, "%s, sync %d: more than one pod missing", ch.what, sync)
		})
		require.NoError(t, err, ch.what)

		image := c.ds.Spec.Template.Spec.Containers[0].Image
		onNode := map[string]int{}
		for _, p := range c.pods {
			require.Equal(t, image, p.Spec.Containers[0].Image, "%s: pod %s runs an old template", ch.what, p.Name)
			onNode[p.Spec.NodeName]++
		}
		for _, n := range c.nodes {
			want := 0
			if eligible(n) {
				want = 1
			}
			require.Equal(t, want, onNode[n.Name], "%s: pods on %s", ch.what, n.Name)
		}
	}
}

func eligible(n *v1.Node) bool {
	return n.Labels["role"] == "worker" && len(n.Spec.Taints) == 0
}
