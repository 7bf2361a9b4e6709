package manifest_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// realDump is kubectldump.Real, the input of the daemonsched golden case real-dump-v136.
func realDump(t testing.TB) []byte {
	t.Helper()
	return kubectldump.Real()
}

func listItems(t testing.TB, listYAML []byte) []map[string]any {
	t.Helper()
	items, err := kubectldump.Items(listYAML)
	require.NoError(t, err)
	return items
}

func kubectlJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := kubectldump.JSON(v)
	require.NoError(t, err)
	return data
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
