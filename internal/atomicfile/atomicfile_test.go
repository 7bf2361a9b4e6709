package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/internal/atomicfile"
)

// A link where the file goes is replaced, and the file it pointed to is left as it was (issue
// 25, F10: os.WriteFile followed the link and overwrote its target).
func TestWriteReplacesALinkNotItsTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o600))
	path := filepath.Join(dir, "report.yaml")
	require.NoError(t, os.Symlink(victim, path))
	require.NoError(t, atomicfile.Write(path, []byte("report"), 0o644))
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "keep", string(got))
	st, err := os.Lstat(path)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "mode %v", st.Mode())
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "report", string(got))
}

// A file that exists is replaced whole, and nothing else is left in the directory.
func TestWriteReplacesAFileAndLeavesNoTemporary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.yaml")
	require.NoError(t, os.WriteFile(path, []byte("an older and longer report"), 0o644))
	require.NoError(t, atomicfile.Write(path, []byte("new"), 0o644))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

// A directory where the file goes is an error, and it is left as it was, without a temporary
// file beside it.
func TestWriteOntoADirectoryFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.yaml")
	require.NoError(t, os.Mkdir(path, 0o755))
	require.Error(t, atomicfile.Write(path, []byte("x"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}
