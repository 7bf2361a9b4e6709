package manifest

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// benchNodes is the size of the generated dump: about 7 KB of YAML per node, so 7 MB, which
// each reader reads in a fraction of a second.
const benchNodes = 1000

// benchPods is the number of pods in it: one on every node but every seventh.
const benchPods = benchNodes - (benchNodes+6)/7

// generatedDump is kubectldump.Realistic(n) as YAML and as kubectl's JSON.
func generatedDump(b testing.TB, n int) (yamlDump, jsonDump []byte) {
	b.Helper()
	yamlDump, err := kubectldump.Realistic(n)
	if err != nil {
		b.Fatal(err)
	}
	var list map[string]any
	if err := yaml.Unmarshal(yamlDump, &list); err != nil {
		b.Fatal(err)
	}
	if jsonDump, err = kubectldump.JSON(list); err != nil {
		b.Fatal(err)
	}
	return yamlDump, jsonDump
}

// emptyObject returns an empty object of kind, for the baselines; they know each item's kind
// beforehand (itemKinds), so that finding it costs them nothing.
func emptyObject(kind string) any {
	switch kind {
	case "Node":
		return &v1.Node{}
	case "Pod":
		return &v1.Pod{}
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	case "ControllerRevision":
		return &appsv1.ControllerRevision{}
	}
	return &map[string]any{}
}

// itemKinds returns the kind of each item of a List.
func itemKinds(b *testing.B, list []byte) []string {
	items, err := kubectldump.Items(list)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["kind"].(string)
	}
	return out
}

// BenchmarkRead compares Read with the decoders it could have used instead, on one generated
// kubectl dump of benchNodes nodes (kubectldump.Realistic):
//
//   - yaml/Read: Read with Workers GOMAXPROCS (the items split as text, then decoded in
//     parallel; kubectl.go); yaml/Read-lean the same with Options.Lean, as plan reads (D-16).
//   - yaml/sigs.k8s.io-yaml-whole: the whole document through sigs.k8s.io/yaml
//     (YAMLToJSONStrict), then each item decoded strictly (sigs.k8s.io/json), one after the
//     other, as Read would without the split.
//   - yaml/universal-deserializer: apimachinery's universal deserializer (a scheme with core/v1
//     and apps/v1) on the whole document, then on each item.
//   - yaml/pre-split-items: only the decoding of the items, split beforehand, in parallel
//     (YAMLToJSONStrict and UnmarshalStrict each): what Read adds to that is the split, the
//     identity read for messages, and the list's own fields.
//   - json/Read (json/Read-lean) and json/encoding-json: kubectl -o json through Read, and
//     encoding/json decoding the list and then each item into its typed object.
//
// Besides wall time, each reports cpu-ms/op, the CPU time of all goroutines: Read's split buys
// wall time with parallel decoding, which a loaded machine hides, while its CPU cost stays
// measurable.
func BenchmarkRead(b *testing.B) {
	yamlDump, jsonDump := generatedDump(b, benchNodes)
	kindOf := itemKinds(b, yamlDump)
	workers := goruntime.GOMAXPROCS(0) // as the daemonsched command reads
	all := newReader(Options{Workers: workers})
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
	readAll := func(data []byte, lean bool) func() error {
		return func() error {
			res, err := ReadInputs([]Input{{Name: "dump", Data: data}}, Options{Workers: workers, Lean: lean})
			if err == nil && len(res.Snapshot.Pods) != benchPods {
				err = fmt.Errorf("read %d pods, want %d", len(res.Snapshot.Pods), benchPods)
			}
			return err
		}
	}
	run("yaml/Read", yamlDump, readAll(yamlDump, false))
	run("yaml/Read-lean", yamlDump, readAll(yamlDump, true))
	run("yaml/sigs.k8s.io-yaml-whole", yamlDump, func() error {
		js, err := yaml.YAMLToJSONStrict(yamlDump)
		if err != nil {
			return err
		}
		var l struct{ Items []json.RawMessage }
		if err := json.Unmarshal(js, &l); err != nil {
			return err
		}
		for i, it := range l.Items {
			if _, err := kjson.UnmarshalStrict(it, emptyObject(kindOf[i])); err != nil {
				return err
			}
		}
		return nil
	})
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := appsv1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	deserializer := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	run("yaml/universal-deserializer", yamlDump, func() error {
		obj, _, err := deserializer.Decode(yamlDump, nil, nil)
		if err != nil {
			return err
		}
		for _, it := range obj.(*v1.List).Items {
			if _, _, err := deserializer.Decode(it.Raw, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	doc := document{data: yamlDump, line: 1}
	_, items, ok := splitYAMLList(doc)
	if !ok {
		b.Fatal("the generated dump is not in kubectl's layout")
	}
	dedented := make([][]byte, len(items))
	for i, it := range items {
		dedented[i] = dedent(it.data)
	}
	run("yaml/pre-split-items", yamlDump, func() error {
		errs := make([]error, len(dedented))
		all.forEach(len(dedented), func(i int) {
			js, err := yaml.YAMLToJSONStrict(dedented[i])
			if err == nil {
				_, err = kjson.UnmarshalStrict(js, emptyObject(kindOf[i]))
			}
			errs[i] = err
		})
		return firstError(errs)
	})
	run("json/Read", jsonDump, readAll(jsonDump, false))
	run("json/Read-lean", jsonDump, readAll(jsonDump, true))
	run("json/encoding-json", jsonDump, func() error {
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
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkDecodeObject decodes one daemon pod of the real dump (JSON, 5 KB), as a list item,
// the way Read does (decodeValue: identify, then kjson.UnmarshalStrict) and with apimachinery's
// strict JSON serializer (runtime/serializer/json with Strict, on a scheme of core/v1), alone and
// after the identify Read needs anyway for its messages.
func BenchmarkDecodeObject(b *testing.B) {
	items, err := kubectldump.Items(kubectldump.Real())
	if err != nil {
		b.Fatal(err)
	}
	var pod []byte
	for _, it := range items {
		if it["kind"] == "Pod" {
			if pod, err = json.Marshal(it); err != nil {
				b.Fatal(err)
			}
		}
	}
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	strict := kjsonserializer.NewSerializerWithOptions(kjsonserializer.DefaultMetaFactory, scheme, scheme, kjsonserializer.SerializerOptions{Strict: true})
	src := Source{File: "f", Document: 1, Item: 0}
	b.Run("decodeValue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := newReader(Options{}).decodeValue(src, pod, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strict-serializer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := strict.Decode(pod, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("identify+strict-serializer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := newReader(Options{}).identify(src, pod, ""); err != nil {
				b.Fatal(err)
			}
			if _, _, err := strict.Decode(pod, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
