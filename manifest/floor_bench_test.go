package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/readmemory"
	"github.com/daemonsched/daemonsched/internal/scalebench"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// floorNodes is the size of the dump of BenchmarkReadFloor (issue 25, item 6).
const floorNodes = 5000

// BenchmarkReadFloor compares, on one goroutine, the streaming reader with the decode floor on
// a kubectl dump of 5,000 nodes and their pods (kubectldump.Realistic), YAML and JSON:
//
//   - yaml/floor: every item's text (split beforehand) through sigs.k8s.io/yaml's strict
//     conversion, then decoded strictly into its typed object (sigs.k8s.io/json);
//   - json/floor: encoding/json decoding the list, then each item into its typed object;
//   - */Read: the same dump read as the daemonsched plan command reads it (planReadOptions):
//     from a file (checked, then split as it is read again), lean, under the command's
//     collector policy while reading (internal/readmemory), on one goroutine (Workers 1).
//
// The floor decodes text held in memory, and its YAML items are split and dedented beforehand:
// reading the file and splitting it are counted against Read alone. The target is Read's
// cpu-ms/op within 1.2 times the floor's.
//
//	GOMAXPROCS=1 go test -run '^$' -bench 'ReadFloor/(yaml|json)' -benchtime 1x -benchmem -count 5 ./manifest
//
// Run one after the other, the floor and Read see different loads on a shared machine, and
// their ratio moves with it (0.85-1.35x from run to run at load 2-10). The alternated
// sub-benchmarks run both in each round instead, the floor first in even rounds and Read first
// in odd ones, so that a change of load falls on both sides alike; x-floor is the median of the
// rounds' own ratios of CPU time (each round one floor and one Read):
//
//	GOMAXPROCS=1 go test -run '^$' -bench 'ReadFloor/alternated' -benchtime 5x ./manifest
func BenchmarkReadFloor(b *testing.B) {
	yamlDump, jsonDump := generatedDump(b, floorNodes)
	kindOf := itemKinds(b, yamlDump)
	_, items, ok := splitYAMLList(document{data: yamlDump, line: 1})
	if !ok {
		b.Fatal("the generated dump is not in kubectl's layout")
	}
	dedented := make([][]byte, len(items))
	for i, it := range items {
		dedented[i] = dedent(it.data)
	}
	pods := floorNodes - (floorNodes+6)/7
	run := func(name string, data []byte, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			start, known := scalebench.CPUTime()
			n := 0
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if end, _ := scalebench.CPUTime(); known {
				b.ReportMetric(float64(end-start)/float64(n)/1e6, "cpu-ms/op")
			}
		})
	}
	dir := b.TempDir()
	read := func(data []byte) func() error {
		path := filepath.Join(dir, fmt.Sprintf("dump-%d", len(data)))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		return func() error {
			res, err := planRead(path, 1)
			if err == nil && len(res.Snapshot.Pods) != pods {
				err = fmt.Errorf("read %d pods, want %d", len(res.Snapshot.Pods), pods)
			}
			return err
		}
	}
	yamlFloor := func() error {
		for i, it := range dedented {
			js, err := yaml.YAMLToJSONStrict(it)
			if err != nil {
				return err
			}
			if _, err := kjson.UnmarshalStrict(js, emptyObject(kindOf[i])); err != nil {
				return err
			}
		}
		return nil
	}
	jsonFloor := func() error {
		var l struct{ Items []json.RawMessage }
		if err := json.Unmarshal(jsonDump, &l); err != nil {
			return err
		}
		for i, it := range l.Items {
			if err := json.Unmarshal(it, emptyObject(kindOf[i])); err != nil {
				return err
			}
		}
		return nil
	}
	yamlRead, jsonRead := read(yamlDump), read(jsonDump)
	run("yaml/floor", yamlDump, yamlFloor)
	run("yaml/Read", yamlDump, yamlRead)
	run("json/floor", jsonDump, jsonFloor)
	run("json/Read", jsonDump, jsonRead)
	b.Run("alternated/yaml", func(b *testing.B) { alternate(b, yamlFloor, yamlRead) })
	b.Run("alternated/json", func(b *testing.B) { alternate(b, jsonFloor, jsonRead) })
}

// alternate runs floor and read once each per round, in turn first, and reports the median of
// the rounds' ratios of read's CPU time to floor's (x-floor), with the CPU time of each side
// per round. Without a CPU clock it reports nothing but wall time.
func alternate(b *testing.B, floor, read func() error) {
	if _, known := scalebench.CPUTime(); !known {
		b.Skip("no CPU clock on this platform")
	}
	var floorCPU, readCPU time.Duration
	var ratios []float64
	for b.Loop() {
		first, second := floor, read
		if len(ratios)%2 == 1 {
			first, second = read, floor
		}
		a, err := cpuOf(first)
		if err != nil {
			b.Fatal(err)
		}
		c, err := cpuOf(second)
		if err != nil {
			b.Fatal(err)
		}
		f, r := a, c
		if len(ratios)%2 == 1 {
			f, r = c, a
		}
		floorCPU += f
		readCPU += r
		ratios = append(ratios, float64(r)/float64(f))
	}
	n := float64(len(ratios))
	b.ReportMetric(median(ratios), "x-floor")
	b.ReportMetric(float64(floorCPU)/n/1e6, "floor-cpu-ms/op")
	b.ReportMetric(float64(readCPU)/n/1e6, "Read-cpu-ms/op")
}

// cpuOf is the CPU time the process spends in f, all threads together, so the collector's
// background work during f counts against f. Each side starts as a fresh process would, its
// garbage collected and the memory it held returned to the system, uncounted: the benchmark
// holds its dumps (137 MB live) and what generating them freed, and Read's soft memory limit
// (internal/readmemory, 512 MiB for this dump) counts memory the runtime keeps but does not
// use, so that Read began its first collection at once and held it for seconds
// (GODEBUG=gctrace=1), paying for the benchmark's memory rather than its own.
func cpuOf(f func() error) (time.Duration, error) {
	debug.FreeOSMemory()
	start, _ := scalebench.CPUTime()
	err := f()
	end, _ := scalebench.CPUTime()
	return end - start, err
}

// median is the middle of xs, or the mean of its two middle values; xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// planReadOptions are the options the daemonsched plan command reads with, by default
// (internal/cli: readFlags.options(strictHandWritten, workers), then lean): the default
// limits, hand-written objects strict, lean (D-16).
func planReadOptions(workers int) Options {
	return Options{StrictHandWritten: true, Workers: workers, Lean: true}
}

// planRead reads the file at path as the daemonsched plan command reads a -f file: with
// planReadOptions, under the command's collector policy while reading (internal/readmemory,
// which leaves the collector alone when GOGC or GOMEMLIMIT is in the environment).
func planRead(path string, workers int) (*Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	defer readmemory.Set(st.Size(), os.Getenv)()
	return ReadInputs([]Input{{Path: path}}, planReadOptions(workers))
}

// BenchmarkHoldsOversizedRun is the scan every YAML document Read decodes whole pays before
// its quantities are judged as written (D-20): here over the floor's whole YAML dump.
func BenchmarkHoldsOversizedRun(b *testing.B) {
	yamlDump, _ := generatedDump(b, floorNodes)
	lim := Limits{}.withDefaults()
	b.ReportAllocs()
	b.SetBytes(int64(len(yamlDump)))
	for b.Loop() {
		if holdsOversizedRun(yamlDump, lim) {
			b.Fatal("the dump holds no oversized number")
		}
	}
}
