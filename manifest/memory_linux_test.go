package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/readmemory"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// memoryChildEnv names the file a child process of BenchmarkReadMemory reads, and
// memoryLeanEnv, when set, has it read as the daemonsched plan command does: lean (D-16), under
// the command's memory limit for reading (internal/readmemory).
// memoryFloorEnv, when set, has it decode the file as BenchmarkReadFloor's floor does instead
// (decodeFloor), under the same memory limit.
const (
	memoryChildEnv = "DAEMONSCHED_READ_MEMORY_FILE"
	memoryLeanEnv  = "DAEMONSCHED_READ_MEMORY_LEAN"
	memoryFloorEnv = "DAEMONSCHED_READ_MEMORY_FLOOR"
)

// TestReadMemoryChild is BenchmarkReadMemory's child: it reads the file the environment names,
// as the daemonsched command does, and exits. Without that variable it does nothing.
func TestReadMemoryChild(t *testing.T) {
	path := os.Getenv(memoryChildEnv)
	if path == "" {
		t.Skip("the child of BenchmarkReadMemory")
	}
	var res *Result
	if path != "-" { // "-" is the baseline: the test binary alone
		workers := goruntime.GOMAXPROCS(0) // as the daemonsched command reads
		var err error
		switch {
		case os.Getenv(memoryFloorEnv) != "":
			st, serr := os.Stat(path)
			if serr != nil {
				t.Fatal(serr)
			}
			defer readmemory.Set(st.Size(), os.Getenv)()
			err = decodeFloor(path)
		case os.Getenv(memoryLeanEnv) != "":
			res, err = planRead(path, workers)
		default:
			res, err = ReadFiles([]string{path}, Options{Workers: workers})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Printf("peak %s\n", strings.TrimSpace(rest))
		}
	}
	// What the result keeps: the heap live after a full collection, the peak read first.
	goruntime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	goruntime.KeepAlive(res)
	fmt.Printf("live %d\n", live[0].Value.Uint64())
}

// memoryNodes is the size of BenchmarkReadMemory's realistic dumps: 5,000 nodes, about 38 MB
// of YAML (DAEMONSCHED_MEMORY_NODES changes it).
func memoryNodes() int {
	if n, err := strconv.Atoi(os.Getenv("DAEMONSCHED_MEMORY_NODES")); err == nil && n > 0 {
		return n
	}
	return 5000
}

// BenchmarkReadMemory measures the peak memory of reading a file: the test binary runs itself
// (TestReadMemoryChild) on a realistic YAML dump, the same dump as kubectl's JSON, and a List
// of 240,000 tiny pods, each read with the zero Options but Workers (library: every field,
// the collector's defaults) and as the daemonsched plan command reads (plan: lean, under its
// memory limit for reading), and reports the child's peak resident set (VmHWM of /proc/self/status,
// which the child prints: getrusage's ru_maxrss of a child counts the parent's at the fork, a
// gigabyte here), and, for the dumps, decoded as BenchmarkReadFloor's floor decodes them (floor:
// decodeFloor, under plan's memory limit): peak-MB, the child's whole peak;
// base-MB, the peak of the same binary reading nothing; input-MB; x-input, (peak-base)/input;
// and, reading with the reader, kept-x-input: what the result keeps (the heap live after a full
// collection, above the same binary's reading nothing) over the input. The peak is that, the
// garbage the collector lets the heap grow by over what it marks, and the runtime's own.
func BenchmarkReadMemory(b *testing.B) {
	dir := b.TempDir()
	yamlDump, jsonDump := generatedDump(b, memoryNodes())
	var tiny strings.Builder
	tiny.WriteString("apiVersion: v1\nitems:\n")
	for i := range 240_000 {
		fmt.Fprintf(&tiny, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%06d\n    namespace: default\n", i)
	}
	tiny.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	inputs := []struct {
		name string
		data []byte
	}{{"yaml-dump", yamlDump}, {"json-dump", jsonDump}, {"tiny-pods-yaml", []byte(tiny.String())}}
	base, baseLive := childPeak(b, "-", false)
	for _, in := range inputs {
		path := filepath.Join(dir, in.name)
		if err := os.WriteFile(path, in.data, 0o600); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name        string
			lean, floor bool
		}{{"library", false, false}, {"plan", true, false}, {"floor", true, true}} {
			if mode.floor && !strings.HasSuffix(in.name, "-dump") {
				continue // the floor decodes kubectl's dumps only
			}
			b.Run(in.name+"/"+mode.name, func(b *testing.B) {
				var peak, live int64
				for b.Loop() {
					p, l := childPeakEnv(b, path, mode.lean, mode.floor)
					peak, live = max(peak, p), max(live, l)
				}
				mb := func(n int64) float64 { return float64(n) / (1 << 20) }
				b.ReportMetric(mb(peak), "peak-MB")
				b.ReportMetric(mb(base), "base-MB")
				b.ReportMetric(mb(int64(len(in.data))), "input-MB")
				b.ReportMetric(float64(peak-base)/float64(len(in.data)), "x-input")
				if !mode.floor {
					b.ReportMetric(float64(live-baseLive)/float64(len(in.data)), "kept-x-input")
				}
			})
		}
	}
}

// decodeFloor decodes the kubectl dump at path as BenchmarkReadFloor's floor does, keeping
// nothing it decodes: the file read whole; YAML split into its items, each dedented (one at a
// time here, where the CPU benchmark dedents them all beforehand to keep that out of its
// measure), converted by sigs.k8s.io/yaml and decoded strictly; JSON decoded as a list of raw
// items by encoding/json, each then decoded into its typed object. It holds the input's text
// throughout (twice for JSON: the file and the raw items), as the floor does.
func decodeFloor(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if isJSONStream(data) {
		var l struct{ Items []json.RawMessage }
		if err := json.Unmarshal(data, &l); err != nil {
			return err
		}
		for _, it := range l.Items {
			_, kind := peekType(it)
			if err := json.Unmarshal(it, emptyObject(string(kind))); err != nil {
				return err
			}
		}
		return nil
	}
	_, items, ok := splitYAMLList(document{data: data, line: 1})
	if !ok {
		return fmt.Errorf("%s: not in kubectl's layout", path)
	}
	for _, it := range items {
		js, err := yaml.YAMLToJSONStrict(dedent(it.data))
		if err != nil {
			return err
		}
		_, kind := peekType(js) // sigs.k8s.io/yaml sorts keys: apiVersion, then kind
		if _, err := kjson.UnmarshalStrict(js, emptyObject(string(kind))); err != nil {
			return err
		}
	}
	return nil
}

// childPeak runs TestReadMemoryChild on path, lean or not, and returns its peak resident set and
// its heap live after reading, in bytes.
func childPeak(b *testing.B, path string, lean bool) (peak, live int64) {
	return childPeakEnv(b, path, lean, false)
}

// childPeakEnv is childPeak, the child decoding as the floor does when floor is set.
func childPeakEnv(b *testing.B, path string, lean, floor bool) (peak, live int64) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadMemoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+path)
	if lean {
		cmd.Env = append(cmd.Env, memoryLeanEnv+"=1")
	}
	if floor {
		cmd.Env = append(cmd.Env, memoryFloorEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	peak, live = -1, -1
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "peak "); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			peak = kb << 10
		}
		if rest, ok := strings.CutPrefix(line, "live "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			live = n
		}
	}
	if peak < 0 || live < 0 {
		b.Fatalf("no peak or live heap in the child's output: %s", out)
	}
	return peak, live
}
