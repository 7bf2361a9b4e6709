package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	run("yaml/floor", yamlDump, func() error {
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
	})
	run("yaml/Read", yamlDump, read(yamlDump))
	run("json/floor", jsonDump, func() error {
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
	})
	run("json/Read", jsonDump, read(jsonDump))
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
