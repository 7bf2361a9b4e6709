// Package conformancepython holds the test that runs the Python implementation of
// daemonsched_conformance.py through the conformance protocol.
package conformancepython

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
)

// answers sends each case to the script as a numbered JSON request line, at the release the
// case names (its kubernetes field), and returns the answer lines, each checked to repeat its
// request's id.
func answers(t *testing.T, cases []conformance.Case) [][]byte {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
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
	var lines [][]byte
	for i, c := range cases {
		if !sc.Scan() {
			t.Fatalf("no answer to %s", c.Name)
		}
		var r conformance.Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID == nil || *r.ID != int64(i+1) {
			t.Fatalf("the answer to %s does not repeat id %d: %v %.80s", c.Name, i+1, err, sc.Text())
		}
		lines = append(lines, slices.Clone(sc.Bytes()))
	}
	if sc.Scan() {
		t.Errorf("an answer too many: %s", sc.Text())
	}
	return lines
}

// claimed reports whether the script claims c's profile.
func claimed(c conformance.Case) bool {
	return slices.Contains([]string{"placement", "what-if"}, c.Profile)
}

// TestPythonImplementation sends every corpus case to the script, one numbered JSON line
// each, and judges its answers: each repeats its request's id, the placement and what-if
// cases pass, the other profiles are declined.
func TestPythonImplementation(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range answers(t, cases) {
		c := cases[i]
		o := conformance.JudgeResponse(c, line)
		want := "skip"
		if claimed(c) {
			want = "pass"
			n++
		}
		if o.Result != want {
			t.Errorf("%s (%s): %s %s %v, want %s", c.Name, c.Profile, o.Result, o.Error, o.Mismatches, want)
		}
	}
	if n < 5 {
		t.Errorf("only %d cases in the claimed profiles", n)
	}
}

// TestPythonImplementationAtEveryRelease runs the claimed cases at every release each holds
// for, the request naming it (VER-1, VER-4: which pods a DaemonSet controls depends on the
// patch), and sends releases the script does not model, which it answers with the protocol's
// error.
func TestPythonImplementationAtEveryRelease(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	var sent []conformance.Case
	for _, v := range everyPatch(t) {
		run, _, err := conformance.SelectAt(slices.DeleteFunc(slices.Clone(cases), func(c conformance.Case) bool { return !claimed(c) }), v)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, run...)
	}
	unmodelled := []string{"v1.32.9", "v1.38.0", "v1.37.3", "1.x"}
	for _, k := range unmodelled {
		c := cases[slices.IndexFunc(cases, claimed)]
		c.Kubernetes = k
		sent = append(sent, c)
	}
	lines := answers(t, sent)
	for i, c := range sent[:len(sent)-len(unmodelled)] {
		if o := conformance.JudgeResponse(c, lines[i]); o.Result != "pass" {
			t.Errorf("%s at %s: %s %s %v, want pass", c.Name, c.Kubernetes, o.Result, o.Error, o.Mismatches)
		}
	}
	for i, k := range unmodelled {
		var r conformance.Response
		if err := json.Unmarshal(lines[len(sent)-len(unmodelled)+i], &r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Error, "is not modelled") || r.DaemonSets != nil {
			t.Errorf("kubernetes %q: answered %+v, want the protocol's error saying the release is not modelled", k, r)
		}
	}
}

// everyPatch returns every patch of every supported minor, from its .0 to its newest, oldest
// first: the releases a corpus case's ranges are drawn from.
func everyPatch(t *testing.T) []daemonset.Version {
	var out []daemonset.Version
	for _, newest := range daemonset.SupportedVersions() {
		for p := 0; p <= newest.Patch(); p++ {
			v, err := daemonset.ParseVersion(fmt.Sprintf("%d.%d.%d", newest.Major(), newest.Minor(), p))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}
