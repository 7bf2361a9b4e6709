package daemonset_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var updateGolden = flag.Bool("update", false, "rewrite daemonset/testdata/*.json from the current plans")

// TestPlanGoldenJSON pins the JSON form of whole plans, byte for byte: the oracle contract
// (field names, [] for empty lists, "status": null when skipped, D-11) and the full created
// pod (POD-*). Run with -update to rewrite the files after an intended change.
func TestPlanGoldenJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		ds    *appsv1.DaemonSet
		nodes []*v1.Node
		pods  []*v1.Pod
	}{
		{name: "SCN-35 SCN-42 a create, a failed pod and duplicates, with events", file: "plan-mixed.json",
			ds: newDS(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "2"}
				ds.Generation = 2
			}),
			nodes: []*v1.Node{node("n0"), node("n1"), node("n2", taint("k", "", v1.TaintEffectNoExecute))},
			pods: []*v1.Pod{
				pod("f", "n0", phase(v1.PodFailed)), pod("r10", "n0", created(10)), pod("r20", "n0", created(20)),
				pod("x", "n2"), pod("o", "n9", orphan, func(p *v1.Pod) { p.Spec.NodeName = "" }, unscheduledFor("n9")),
			}},
		{name: "SYNC-3 D-11 a skipped plan", file: "plan-skipped.json",
			ds:    newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }),
			nodes: nodes(1)},
		{name: "UPD-8 a rolling step replacing one old pod", file: "plan-rolling.json",
			ds:    newDS(rolling(ios(1), ios(0))),
			nodes: nodes(2),
			pods:  []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p1", "n1", oldHash, ready)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, tt.nodes, tt.pods, opts())
			require.NoError(t, err)
			got, err := json.MarshalIndent(res, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", tt.file)
			if *updateGolden {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./daemonset -run TestPlanGoldenJSON -update to create it")
			if !bytes.Equal(want, got) {
				t.Errorf("%s is out of date (run with -update after an intended change):\n--- want\n%s\n--- got\n%s", path, want, got)
			}
		})
	}
}
