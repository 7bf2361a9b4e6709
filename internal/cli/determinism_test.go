package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
)

// The oracle's promise: equal snapshots give equal bytes, whatever the order of documents,
// list items and files, and whatever the goroutines do. Random clusters are planned with their
// items shuffled and split over several files, several times each; every golden case that
// reads files is run again and must write the same stdout and stderr.
func TestPlansAreTheSameWhateverTheInputOrder(t *testing.T) {
	t.Parallel()
	seeds := 60
	if testing.Short() {
		seeds = 10
	}
	for seed := range uint64(seeds) {
		var list struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Items      []json.RawMessage `json:"items"`
		}
		require.NoError(t, json.Unmarshal(randomCluster(seed), &list))
		want, code := planFiles(t, [][]json.RawMessage{list.Items})
		r := rand.New(rand.NewPCG(seed, 7))
		for round := range 4 {
			items := slices.Clone(list.Items)
			r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
			// Split over 1 to 3 files, at random points.
			var files [][]json.RawMessage
			for rest := items; len(rest) > 0; {
				n := len(rest)
				if len(files) < 2 {
					n = 1 + r.IntN(len(rest))
				}
				files, rest = append(files, rest[:n]), rest[n:]
			}
			got, gotCode := planFiles(t, files)
			require.Equal(t, code, gotCode, "seed %d round %d: exit", seed, round)
			if code != 0 {
				continue // the error names the file and document, which the shuffle moved
			}
			require.Equal(t, string(want), string(got), "seed %d round %d: stdout differs with the input shuffled", seed, round)
		}
	}
}

// planFiles writes each group of items as a kind: List file and plans them as JSON.
func planFiles(t *testing.T, files [][]json.RawMessage) (stdout []byte, code int) {
	t.Helper()
	args := append([]string{"plan", "-o", "json", "--warn-invalid"}, writeLists(t, files)...)
	var out, errOut bytes.Buffer
	code = run(args, nil, &out, &errOut)
	return out.Bytes(), code
}

// writeLists writes each non-empty group of items as a kind: List file in a fresh directory
// and returns the -f arguments that read them.
func writeLists(t *testing.T, files [][]json.RawMessage) []string {
	t.Helper()
	dir := t.TempDir()
	var args []string
	for i, items := range files {
		if len(items) == 0 {
			continue
		}
		data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		require.NoError(t, err)
		path := filepath.Join(dir, string(rune('a'+i))+".json")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		args = append(args, "-f", path)
	}
	return args
}

// Every golden case gives the same bytes on every run: warnings, --strict errors and the
// problems of Result.Invalid are sorted, not in map order.
func TestGoldenCasesAreTheSameOnEveryRun(t *testing.T) {
	if raceEnabled {
		// Five runs of every golden case, the whole corpus through the Python example among them:
		// under the detector it pushed this package past go test's 10-minute default on 2 cores,
		// and map order is no race. .ci/run runs it without -race after the README's command.
		t.Skip("run without -race: go test -run '^TestGoldenCasesAreTheSameOnEveryRun$' ./internal/cli")
	}
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "args"))
	require.NoError(t, err)
	for _, argsFile := range dirs {
		dir, err := filepath.Abs(filepath.Dir(argsFile))
		require.NoError(t, err)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Chdir(dir)
			args := readArgs(t, "args")
			var first []byte
			for i := range 5 {
				var stdin bytes.Reader
				if data, err := os.ReadFile("stdin"); err == nil {
					stdin.Reset(data)
				}
				var out bytes.Buffer
				code := run(args, &stdin, &out, &out)
				got := append(out.Bytes(), byte('0'+code))
				if i == 0 {
					first = got
					continue
				}
				require.Equal(t, string(first), string(got), "run %d", i)
			}
		})
	}
}

// Every golden plan read from files gives its stdout again when its objects are written back
// shuffled over two files: the plan depends on the snapshot, not on where each object was.
func TestGoldenPlansAreTheSameShuffled(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "args"))
	require.NoError(t, err)
	for _, argsFile := range dirs {
		dir, err := filepath.Abs(filepath.Dir(argsFile))
		require.NoError(t, err)
		args := readArgs(t, argsFile)
		exit, err := os.ReadFile(filepath.Join(dir, "exit"))
		require.NoError(t, err)
		// An --apply case depends on which file is applied over which (D-14).
		if len(args) == 0 || args[0] != "plan" || string(exit) != "0\n" || slices.Contains(args, "--apply") {
			continue
		}
		var files, rest []string
		for i := 0; i < len(args); i++ {
			if args[i] == "-f" && i+1 < len(args) {
				files = append(files, filepath.Join(dir, args[i+1]))
				i++
				continue
			}
			rest = append(rest, args[i])
		}
		if len(files) == 0 || slices.ContainsFunc(files, func(f string) bool { return filepath.Base(f) == "-" || filepath.Base(f) == "stdin" }) {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "stdout"))
			require.NoError(t, err)
			files, err := expand(files, slices.Contains(rest, "-R")) // -f DIR reads its files
			require.NoError(t, err)
			in, err := manifest.ReadFiles(files, manifest.Options{WarnInvalidObjects: true})
			require.NoError(t, err)
			var items []json.RawMessage
			for _, obj := range allObjects(in) {
				data, err := json.Marshal(obj)
				require.NoError(t, err)
				items = append(items, data)
			}
			r := rand.New(rand.NewPCG(uint64(len(items)), 3))
			for round := range 3 {
				r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
				cut := r.IntN(len(items) + 1)
				runArgs := append(slices.Clone(rest), writeLists(t, [][]json.RawMessage{items[:cut], items[cut:]})...)
				var out, errOut bytes.Buffer
				code := run(append(runArgs, "--warn-invalid"), nil, &out, &errOut)
				require.Equal(t, 0, code, "round %d: %s", round, errOut.String())
				require.Equal(t, string(want), out.String(), "round %d", round)
			}
		})
	}
}

// allObjects lists every object read, DaemonSets first.
func allObjects(in *manifest.Result) []any {
	return shapefuzz.Cluster(in.Snapshot).Objects()
}
