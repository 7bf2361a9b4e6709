package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
)

// TestConformanceServeAnswersEveryCase runs the whole corpus through serve, as a runner would,
// and judges every answer.
func TestConformanceServeAnswersEveryCase(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, c := range cases {
		line, _ := json.Marshal(conformance.NewRequest(c))
		in.Write(append(line, '\n'))
	}
	var out, stderr bytes.Buffer
	if code := run([]string{"conformance", "serve"}, &in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d answers to %d cases", len(lines), len(cases))
	}
	for i, c := range cases {
		if o := conformance.JudgeResponse(c, []byte(lines[i])); o.Result != "pass" {
			t.Errorf("%s: %+v", c.Name, o)
		}
	}
}

// TestDriveBrokenPrograms: a program that answers garbage, exits early or hangs fails its cases
// with a reason, and the runner neither hangs nor panics.
func TestDriveBrokenPrograms(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	cases = cases[:3]
	tests := []struct {
		name, script string
		want         []string
	}{
		{"garbage", `while read l; do echo '{"daemonSets": 7}'; done`, []string{"error", "error", "error"}},
		{"exits after one", `read l; echo '{"skip": "no"}'`, []string{"skip", "error", "error"}},
		{"hangs", `sleep 5`, []string{"error", "error", "error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			start := time.Now()
			got, err := drive([]string{"sh", "-c", tt.script}, cases, 300*time.Millisecond, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 4*time.Second {
				t.Errorf("the runner waited for a hanging program")
			}
			for i, o := range got {
				if o.Result != tt.want[i] {
					t.Errorf("case %d: %s (%s), want %s", i, o.Result, o.Error, tt.want[i])
				}
			}
		})
	}
}

// TestConformanceRunWritesReports checks the YAML reports of the Python example.
func TestConformanceRunWritesReports(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join("..", "..", "examples", "conformance-python", "daemonsched_conformance.py"))
	var out, stderr bytes.Buffer
	code := run([]string{"conformance", "run", "--report", dir, "--name", "tiny-python", "--profile", "placement", "--", "python3", script}, nil, &out, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "placement.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"implementation: tiny-python", "conforms: true", "kubernetes: v1.36.3", "result: pass"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d reports, want only placement's", len(entries))
	}
}

// TestVerifyDiff checks --diff prints the go-cmp diff under a status mismatch (go-cmp's output
// is deliberately unstable, so no golden file holds it).
func TestVerifyDiff(t *testing.T) {
	var out, stderr bytes.Buffer
	code := run([]string{"verify", "-f", "testdata/manifests/choices.yaml", "--plan", "testdata/manifests/choices-bad.json", "--diff"}, nil, &out, &stderr)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(out.String(), "NumberReady:") || !strings.Contains(out.String(), "DaemonSetStatus{") {
		t.Errorf("no status diff:\n%s", out.String())
	}
}

// TestVerifyAcceptsThePlansOfRandomClusters runs verify's check on the 400 random clusters
// whose plans TestPlansAreUnchanged pins (several DaemonSets, revisions, orphans, skipped and
// invalid DaemonSets), with and without a burst cap: the project's own plan always conforms.
func TestVerifyAcceptsThePlansOfRandomClusters(t *testing.T) {
	for seed := range uint64(400) {
		in, err := manifest.Read("random", bytes.NewReader(randomCluster(seed)), manifest.Options{WarnInvalidObjects: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, burst := range []int{0, 2} {
			opts := conformance.Options{Now: manifest.Latest(in.Snapshot), BurstLimit: burst}
			plans, err := daemonset.PlanCluster(in.Snapshot, daemonset.Options{Now: opts.Now, BurstLimit: burst})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(plans)
			candidate, err := conformance.DecodePlan(data)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := conformance.Check(in.Snapshot, candidate, opts)
			if err != nil || len(ms) > 0 {
				t.Fatalf("seed %d, burst %d: %v %v", seed, burst, err, ms)
			}
		}
	}
}
