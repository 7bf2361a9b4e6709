package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"sigs.k8s.io/yaml"
)

// FuzzRunShaped writes a cluster shaped from the fuzzer's bytes (shapefuzz: names and label
// values with control characters included) as YAML and runs `explain` on one of its nodes and
// `plan -o table` on it: exit 0 or 1, nothing on stdout on failure, every line of stdout and
// stderr free of control characters, the same bytes on a second run, within a time bound.
func FuzzRunShaped(f *testing.F) {
	f.Add([]byte(nil), uint8(0))
	f.Add([]byte("0123456789abcdef0123456789abcdef"), uint8(1))
	f.Add([]byte{255, 254, 253, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		c := shapefuzz.New(data)
		var in bytes.Buffer
		for _, obj := range c.Objects() {
			doc, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			in.WriteString("---\n")
			in.Write(doc)
		}
		node := "missing"
		if len(c.Nodes) > 0 {
			node = c.Nodes[int(which)%len(c.Nodes)].Name
		}
		now := shapefuzz.Base.Format(time.RFC3339)
		for _, args := range [][]string{
			{"explain", "-f", "-", "--node", node, "--now", now, "--warn-invalid"},
			{"plan", "-f", "-", "--now", now, "--warn-invalid"},
			{"plan", "-f", "-", "--now", now}, // hand-written invalid objects are errors
		} {
			var first string
			for range 2 {
				var stdout, stderr bytes.Buffer
				start := time.Now()
				code := run(args, bytes.NewReader(in.Bytes()), &stdout, &stderr)
				if d := time.Since(start); d > shapefuzz.Bound {
					t.Fatalf("%q took %v", args, d)
				}
				switch {
				case code != exitOK && code != exitBadInput:
					t.Fatalf("%q: exit %d; stderr:\n%s", args, code, stderr.String())
				case code == exitBadInput && stdout.Len() > 0:
					t.Fatalf("%q: exit 1 with output on stdout", args)
				}
				for _, out := range []*bytes.Buffer{&stdout, &stderr} {
					for line := range bytes.Lines(out.Bytes()) {
						if l := string(bytes.TrimSuffix(line, []byte("\n"))); !printable.Safe(l) {
							t.Fatalf("%q: a line with control characters: %q", args, l)
						}
					}
				}
				got := stdout.String() + stderr.String() + string(rune('0'+code))
				if first == "" {
					first = got
				} else if got != first {
					t.Fatalf("%q: two runs differ:\n%s\n---\n%s", args, first, got)
				}
			}
		}
	})
}
