package kubectldump_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// The embedded dump is the golden case's input, so the two cannot drift apart.
func TestRealIsTheGoldenCase(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile(filepath.Join("..", "..", "internal", "cli", "testdata", "real-dump-v136", "dump.yaml"))
	require.NoError(t, err)
	require.Equal(t, string(golden), string(kubectldump.Real()))
}

// A realistic dump holds n nodes and a pod on every node but every seventh, is valid YAML, and
// its items keep kubectl's layout ("- " then two-space indentation).
func TestRealistic(t *testing.T) {
	t.Parallel()
	const n = 15
	dump, err := kubectldump.Realistic(n)
	require.NoError(t, err)
	items, err := kubectldump.Items(dump)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it["kind"].(string)]++
	}
	require.Equal(t, map[string]int{"Node": n, "Pod": n - 3, "DaemonSet": 1, "ControllerRevision": 1, "Service": 1}, kinds)
	again, err := kubectldump.Realistic(n)
	require.NoError(t, err)
	require.Equal(t, dump, again, "the same size gives the same bytes")
	require.True(t, bytes.Contains(dump, []byte("\n- apiVersion: v1\n  kind: Node\n")))

	var list map[string]any
	require.NoError(t, yaml.Unmarshal(dump, &list))
	js, err := kubectldump.JSON(list)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(js, []byte("{\n    \"apiVersion\": \"v1\",\n")))
}
