package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/rollout"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// agent is the tests' DaemonSet under the budgets mu and ms, running image.
func agent(mu, ms intstr.IntOrString, image string, minReady int32) *appsv1.DaemonSet {
	return apitest.DaemonSet(apitest.Rolling(&mu, &ms), func(ds *appsv1.DaemonSet) {
		ds.Namespace, ds.Name, ds.UID = "kube-system", "agent", "uid-agent"
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "agent"}
		ds.Spec.Template.Labels = map[string]string{"app": "agent"}
		ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "agent", Image: image}}
		ds.Spec.MinReadySeconds = minReady
		ds.Generation = 1
	})
}

func nodes(n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		out[i] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)}}
	}
	return out
}

// settled runs ds on n nodes until nothing more happens, every pod Ready at once, as the
// default release's controller.
func settled(t testing.TB, ds *appsv1.DaemonSet, n int) daemonset.Snapshot {
	t.Helper()
	return settledAt(t, ds, n, daemonset.Version{})
}

// settledAt is settled as release v's controller (its hashes).
func settledAt(t testing.TB, ds *appsv1.DaemonSet, n int, v daemonset.Version) daemonset.Snapshot {
	t.Helper()
	traj, err := rollout.Simulate(daemonset.Snapshot{Nodes: nodes(n)}, ds, rollout.Options{Start: t0.Add(-time.Hour), Version: v})
	require.NoError(t, err)
	require.True(t, traj.Quiescent)
	return traj.End
}
