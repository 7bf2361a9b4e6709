// Package conformancepython holds the test that runs the Python implementation of
// daemonsched_conformance.py through the conformance protocol.
package conformancepython

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/conformance"
)

// TestPythonImplementation sends every corpus case to the script, one numbered JSON line
// each, and judges its answers: each repeats its request's id, the placement and what-if
// cases pass, the other profiles are declined.
func TestPythonImplementation(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for i, c := range cases {
		req := conformance.NewRequest(c)
		req.ID = int64(i + 1)
		line, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	cmd := exec.Command(python, "daemonsched_conformance.py")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, err.(*exec.ExitError).Stderr)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	claimed := 0
	for i, c := range cases {
		if !sc.Scan() {
			t.Fatalf("no answer to %s", c.Name)
		}
		var r conformance.Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID == nil || *r.ID != int64(i+1) {
			t.Fatalf("the answer to %s does not repeat id %d: %v %.80s", c.Name, i+1, err, sc.Text())
		}
		o := conformance.JudgeResponse(c, sc.Bytes())
		want := "skip"
		if slices.Contains([]string{"placement", "what-if"}, c.Profile) {
			want = "pass"
			claimed++
		}
		if o.Result != want {
			t.Errorf("%s (%s): %s %s %v, want %s", c.Name, c.Profile, o.Result, o.Error, o.Mismatches, want)
		}
	}
	if sc.Scan() {
		t.Errorf("an answer too many: %s", sc.Text())
	}
	if claimed < 5 {
		t.Errorf("only %d cases in the claimed profiles", claimed)
	}
}
