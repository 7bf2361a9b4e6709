package manifest_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// FuzzReadInputs reads several inputs at once. With shaped set, the fuzzer's bytes draw a
// cluster (shapefuzz) written as YAML or JSON documents and cut into three inputs at document
// boundaries: it is read without error (invalid hand-written objects as warnings), as many
// objects as written, and as the same objects as from one input. Read lean (D-16), it gives the
// same error or the same warnings, sources and plan. Otherwise the bytes
// themselves are cut into three inputs. Either way: no panic, no input modified, the same
// outcome on 1 and 3 goroutines, within a time bound.
func FuzzReadInputs(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"), uint16(40), uint16(60), false)
	f.Add([]byte("0123456789abcdef0123456789abcdef"), uint16(1), uint16(3), true)
	f.Add([]byte{255, 254, 253, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, uint16(2), uint16(2), true)
	f.Add([]byte("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}]}"), uint16(20), uint16(200), false)
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint16, shaped bool) {
		var inputs [][]byte
		written := 0
		if shaped {
			c := shapefuzz.New(data)
			var docs [][]byte
			for _, obj := range c.Objects() {
				var doc []byte
				var err error
				if len(data)%2 == 0 {
					doc, err = json.Marshal(obj)
					doc = append(doc, '\n')
				} else {
					doc, err = yaml.Marshal(obj)
					doc = append([]byte("---\n"), doc...)
				}
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, doc)
			}
			written = len(docs)
			a, b := int(cut1)%(len(docs)+1), int(cut2)%(len(docs)+1)
			a, b = min(a, b), max(a, b)
			for _, part := range [][][]byte{docs[:a], docs[a:b], docs[b:]} {
				if len(part) > 0 {
					inputs = append(inputs, bytes.Join(part, nil))
				}
			}
		} else {
			a, b := int(cut1)%(len(data)+1), int(cut2)%(len(data)+1)
			a, b = min(a, b), max(a, b)
			inputs = [][]byte{data[:a], data[a:b], data[b:]}
		}
		clones := make([][]byte, len(inputs))
		in := make([]manifest.Input, len(inputs))
		for i, d := range inputs {
			clones[i] = bytes.Clone(d)
			in[i] = manifest.Input{Name: string(rune('a' + i)), Data: d}
		}
		opts := manifest.Options{WarnInvalidObjects: true}
		start := time.Now()
		got, err := manifest.ReadInputs(in, opts)
		if d := time.Since(start); d > shapefuzz.Bound {
			t.Fatalf("ReadInputs took %v", d)
		}
		for i := range inputs {
			if !bytes.Equal(inputs[i], clones[i]) {
				t.Fatal("ReadInputs modified its input")
			}
		}
		opts.Workers = 3
		again, err2 := manifest.ReadInputs(in, opts)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("1 and 3 goroutines disagree: %v, then %v", err, err2)
		}
		// Read lean (D-16): the same outcome, warnings and sources, and the same plan.
		lean, errLean := manifest.ReadInputs(in, manifest.Options{WarnInvalidObjects: true, Lean: true})
		if (err == nil) != (errLean == nil) || (err != nil && err.Error() != errLean.Error()) {
			t.Fatalf("whole and lean disagree: %v, then %v", err, errLean)
		}
		if err == nil {
			if diff := cmp.Diff(got.Warnings, lean.Warnings); diff != "" {
				t.Fatalf("whole and lean warn differently (-whole +lean):\n%s", diff)
			}
			if diff := cmp.Diff(got.Sources, lean.Sources); diff != "" {
				t.Fatalf("whole and lean sources differ (-whole +lean):\n%s", diff)
			}
			if a, b := planText(got.Snapshot), planText(lean.Snapshot); a != b {
				t.Fatalf("whole and lean plan differently:\n%s\n%s", a, b)
			}
		}
		if err == nil {
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("1 and 3 goroutines disagree (-one +three):\n%s", diff)
			}
			if bytes.ContainsAny([]byte(warningText(got)), "\n") {
				t.Fatal("a warning spans lines")
			}
		}
		if !shaped {
			return
		}
		if err != nil {
			t.Fatalf("a shaped cluster is not read: %v", err)
		}
		s := got.Snapshot
		if n := len(s.DaemonSets) + len(s.Nodes) + len(s.Pods) + len(s.Revisions); n != written {
			t.Fatalf("read %d objects, wrote %d", n, written)
		}
		one, err := manifest.ReadInputs([]manifest.Input{{Name: "all", Data: bytes.Join(inputs, nil)}}, opts)
		if err != nil {
			t.Fatalf("one input: %v", err)
		}
		if diff := cmp.Diff(one.Snapshot, got.Snapshot); diff != "" {
			t.Fatalf("one input and several read differently (-one +several):\n%s", diff)
		}
	})
}

// planText is the cluster plan of s at its Latest, as JSON, or its error.
func planText(s daemonset.Snapshot) string {
	res, err := s.Plan(daemonset.Options{Now: manifest.Latest(s)})
	if err != nil {
		return err.Error()
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// warningText joins the warnings, to check that none spans lines.
func warningText(r *manifest.Result) string {
	var b bytes.Buffer
	for _, w := range r.Warnings {
		b.WriteString(w.String())
	}
	return b.String()
}
