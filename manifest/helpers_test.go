package manifest_test

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// realDump is a List as `kubectl get nodes,pods,daemonsets,controllerrevisions,services -A -o
// yaml` prints it from a v1.36 cluster: managedFields, resourceVersion, the status of every kind.
// It is the input of the daemonsched golden case real-dump-v136 too.
func realDump(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real-dump-v136.yaml"))
	require.NoError(t, err)
	return data
}

// listItems returns the items of a List as generic objects.
func listItems(t testing.TB, listYAML []byte) []map[string]any {
	t.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, yaml.Unmarshal(listYAML, &l))
	return l.Items
}

// kubectlJSON prints v as `kubectl get -o json` does: encoding/json, four-space indent, map keys
// sorted, <, > and & escaped.
func kubectlJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "    ")
	require.NoError(t, err)
	return append(data, '\n')
}

func mustYAML(t testing.TB, v any) []byte {
	t.Helper()
	y, err := yaml.Marshal(v)
	require.NoError(t, err)
	return y
}

func toUTF16(s string, order binary.AppendByteOrder, bom []byte) []byte {
	out := slices.Clone(bom)
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return out
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}
