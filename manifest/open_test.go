package manifest_test

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/manifest"
)

// within fails the test when f takes longer than d: the attacks below once blocked forever.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

// ReadText is the gate of every input read beside a cluster (issue 25, F6, F9, F14): only a
// regular file or a stream, never blocking in open(2), bounded while it streams, and text only.
func TestReadTextRefusesWhatReadRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	zeroLink := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zeroLink))
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	big := write("big.yaml", strings.Repeat("a", 2048))
	zero, err := os.Open("/dev/zero")
	require.NoError(t, err)
	t.Cleanup(func() { zero.Close() })
	bigStdin, err := os.Open(big)
	require.NoError(t, err)
	t.Cleanup(func() { bigStdin.Close() })
	tests := []struct {
		name string
		in   manifest.Input
		want string
	}{
		{"a named pipe is refused without waiting for a writer", manifest.Input{Path: fifo}, fifo + ": not a regular file (a named pipe)"},
		{"a link to /dev/zero is refused before it is read", manifest.Input{Path: zeroLink}, zeroLink + ": not a regular file (a character device)"},
		{"a directory is refused", manifest.Input{Path: dir}, dir + ": is a directory"},
		{"a missing file names itself", manifest.Input{Path: filepath.Join(dir, "none")}, filepath.Join(dir, "none") + ": no such file or directory"},
		{"a file over the limit is refused before it is read", manifest.Input{Path: big}, big + ": input is larger than 1 KiB (limit InputBytes)"},
		{"stdin from /dev/zero ends at its first block", manifest.Input{Name: "-", Reader: zero}, "-: line 1: a NUL byte: not YAML or JSON text"},
		{"stdin from a large file is refused by its size", manifest.Input{Name: "-", Reader: bigStdin}, "-: input is larger than 1 KiB (limit InputBytes)"},
		{"a stream over the limit fails one byte past it", manifest.Input{Name: "-", Reader: strings.NewReader(strings.Repeat("b", 1025))}, "-: input is larger than 1 KiB (limit InputBytes)"},
		{"invalid UTF-8 names its line", manifest.Input{Name: "t", Data: []byte("a: 1\nb: \xff\n")}, "t: line 2: invalid UTF-8 (byte 0xFF)"},
		{"invalid UTF-8 in a file names its line", manifest.Input{Path: write("bad.yaml", "a: 1\nb: \xc3\n")}, filepath.Join(dir, "bad.yaml") + ": line 2: invalid UTF-8 (byte 0xC3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			within(t, 5*time.Second, func() {
				_, err := manifest.ReadText(tt.in, 1024)
				require.EqualError(t, err, tt.want)
			})
		})
	}
}

// Text that passes comes back as UTF-8 without a byte order mark, from a file or a stream.
func TestReadTextReturnsTheText(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "t.yaml")
	require.NoError(t, os.WriteFile(p, []byte("\xEF\xBB\xBFname: n\n"), 0o600))
	got, err := manifest.ReadText(manifest.Input{Path: p}, 1024)
	require.NoError(t, err)
	require.Equal(t, "name: n\n", string(got))
	got, err = manifest.ReadText(manifest.Input{Name: "-", Reader: strings.NewReader("\xFF\xFEa\x00:\x00 \x001\x00")}, 1024)
	require.NoError(t, err)
	require.Equal(t, "a: 1", string(got))
}

// DirFS reads a directory's files through the gate: fs.ReadFile of a named pipe or of a link
// to /dev/zero ends at once (issue 25, F9), and the files pass fstest's checks.
func TestDirFSRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\n"), 0o600))
	require.NoError(t, fstest.TestFS(manifest.DirFS(dir, 1024), "a.yaml"))
	mkfifo(t, filepath.Join(dir, "fifo.yaml"))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	fsys := manifest.DirFS(dir, 1024)
	within(t, 5*time.Second, func() {
		_, err := fs.ReadFile(fsys, "fifo.yaml")
		require.EqualError(t, err, "fifo.yaml: not a regular file (a named pipe)")
		_, err = fs.ReadFile(fsys, "zero.yaml")
		require.EqualError(t, err, "zero.yaml: not a regular file (a character device)")
		_, err = fsys.Open("fifo.yaml")
		require.Error(t, err)
	})
}

// endless is a stream of 'a' that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// A stream past the limit is refused holding about the limit, not a doubled buffer and its
// copy (issue 25, F16: 2 GB on stdin peaked at 3.6 GB before the 1 GiB refusal): at a 64 MiB
// limit, reading allocates at most 1.25 times the limit (it allocated 4 times it).
func TestAStreamPastTheLimitIsRefusedInTheLimitsMemory(t *testing.T) {
	const limit = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := manifest.ReadInputs([]manifest.Input{{Name: "stdin", Reader: io.LimitReader(endless{}, 2*limit)}},
		manifest.Options{Limits: manifest.Limits{InputBytes: limit}})
	runtime.ReadMemStats(&after)
	require.EqualError(t, err, "stdin: input is larger than 64 MiB (limit InputBytes)")
	allocated := after.TotalAlloc - before.TotalAlloc
	require.LessOrEqual(t, allocated, uint64(limit*5/4), "allocated %d MiB", allocated>>20)
}

func ExampleReadText() {
	_, err := manifest.ReadText(manifest.Input{Name: "-", Reader: strings.NewReader("name: n\x00")}, 1<<20)
	fmt.Println(err)
	_, err = manifest.ReadText(manifest.Input{Path: "/dev/zero"}, 1<<20)
	fmt.Println(err)
	// Output:
	// -: line 1: a NUL byte: not YAML or JSON text
	// /dev/zero: not a regular file (a character device)
}
