package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/errlist"
)

// FuzzRunVerify feeds arbitrary candidate text to `daemonsched verify --plan -` on a fixed
// snapshot (issue 25, item 7: verify's candidate is a way in): it never panics, exits 0 or 1
// in bounded time (the bound is generous for a loaded machine), and its output stays a
// bounded list: an error is one line on stderr with nothing on stdout, and a candidate that
// does not conform lists at most errlist.Shown mismatches, each cut, then their count.
func FuzzRunVerify(f *testing.F) {
	for _, name := range []string{"choices-plan.json", "choices-bad.json", "choices-missing-status.json", "choices-burst1.json"} {
		data, err := os.ReadFile("testdata/manifests/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data) // a candidate that conforms, and ones that do not
	}
	f.Add([]byte(`{"daemonSets":[],"daemonSets":[]}`))                                                                                                                                                                                                                                             // a key given twice (F14)
	f.Add([]byte("{\"kubernetes\":\"\xff\",\"daemonSets\":[]}"))                                                                                                                                                                                                                                   // invalid UTF-8 (F14)
	f.Add([]byte(`{"daemonSets":[null,null,{"namespace":"x","name":"y","revisionHash":"h","create":[{"node":"ghost","reason":"MissingPod","pod":null}],"delete":[],"adopt":[],"release":[],"status":null}]}`))                                                                                     // null plans, an unknown DaemonSet
	f.Add([]byte(`{"daemonSets":[{"namespace":"kube-system","name":"agent","revisionHash":"h","create":[{"node":"n1","reason":"MissingPod","pod":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":" 1e-999999999"}}}]}}}],"delete":[],"adopt":[],"release":[],"status":null}]}`)) // a quantity bomb behind a space
	f.Fuzz(func(t *testing.T, data []byte) {
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run([]string{"verify", "-f", "testdata/manifests/choices.yaml", "--plan", "-"}, bytes.NewReader(data), &stdout, &stderr)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("verify took %v on %q", d, data)
		}
		switch {
		case code == exitOK:
		case code != exitBadInput:
			t.Fatalf("exit %d, want 0 or 1; stderr:\n%s", code, stderr.String())
		case stdout.Len() == 0:
			if n := strings.Count(stderr.String(), "\n"); n != 1 {
				t.Fatalf("an error in %d lines:\n%s", n, stderr.String())
			}
		default: // does not conform: the list on stdout, the summary on stderr
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(lines) > errlist.Shown+1 {
				t.Fatalf("%d mismatch lines", len(lines))
			}
			for _, l := range lines {
				if len(l) > errlist.LineBytes+100 {
					t.Fatalf("a mismatch line of %d bytes", len(l))
				}
			}
		}
	})
}
