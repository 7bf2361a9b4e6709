package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
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

// testLimits are small protocol limits for tests.
var testLimits = protocolLimits{timeout: 300 * time.Millisecond, lineBytes: 1 << 20, stderrLines: 3, stderrLineBytes: 64}

// largestCase is the corpus case with the longest request: larger than a pipe's buffer.
func largestCase(t *testing.T, cases []conformance.Case) conformance.Case {
	t.Helper()
	var big conformance.Case
	size := 0
	for _, c := range cases {
		line, _ := json.Marshal(conformance.NewRequest(c))
		if len(line) > size {
			big, size = c, len(line)
		}
	}
	if size < 1<<17 {
		t.Fatalf("the largest request has %d bytes, want more than a pipe's buffer", size)
	}
	return big
}

// TestDriveBrokenPrograms: a program that answers garbage, exits early, hangs, does not read,
// writes an endless line, answers twice or closes its stdout fails its cases with a reason
// saying so, and the runner neither hangs nor panics (F2, F3, F11, F12).
func TestDriveBrokenPrograms(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	big := largestCase(t, cases)
	small := cases[:3]
	// echoID answers each request with its id, twice when given "twice".
	const echoID = `while read l; do id=${l#'{"id":'}; id=${id%%,*}; echo "{\"id\":$id,\"skip\":\"no\"}"; [ "$1" = twice ] && echo "{\"id\":$id,\"skip\":\"no\"}"; done`
	tests := []struct {
		name    string
		program []string
		cases   []conformance.Case
		want    []string
		wantErr string
	}{
		{"garbage", []string{"sh", "-c", `while read l; do echo '{"daemonSets": 7}'; done`}, small, []string{"error", "error", "error"}, "daemonSets: want a list, got a number"},
		{"exits after one", []string{"sh", "-c", `read l; echo '{"skip": "no"}'; exit 3`}, small, []string{"skip", "error", "error"}, "exited without answering (exit status 3)"},
		{"hangs", []string{"sh", "-c", `sleep 5`}, small, []string{"error", "error", "error"}, "did not answer within 300ms"},
		{"stops reading a request larger than a pipe (F2)", []string{"yes", `{"skip":"x"}`}, []conformance.Case{big, small[0]}, []string{"error", "error"}, "did not read its request within 300ms"},
		{"writes an endless line (F3)", []string{"sh", "-c", `read l; exec cat /dev/zero`}, small, []string{"error", "error", "error"}, "a line longer than 1048576 bytes"},
		{"answers with the request's id", []string{"sh", "-c", echoID, "sh"}, small, []string{"skip", "skip", "skip"}, ""},
		{"answers twice (F11)", []string{"sh", "-c", echoID, "sh", "twice"}, small, []string{"skip", "error", "error"}, "answered request 1 while request 2 was waiting"},
		{"closes its stdin during a request larger than a pipe", []string{"sh", "-c", `exec <&-; sleep 5`}, []conformance.Case{big, small[0]}, []string{"error", "error"}, "closed its stdin without answering"},
		{"closes its stdout (F12)", []string{"sh", "-c", `exec >&-; sleep 5`}, small, []string{"error", "error", "error"}, "closed its stdout without answering"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := exec.LookPath(tt.program[0]); err != nil {
				t.Skip(err)
			}
			var stderr bytes.Buffer
			start := time.Now()
			got, err := drive(tt.program, tt.cases, testLimits, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 4*time.Second {
				t.Errorf("the runner took %v", time.Since(start))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d outcomes, want %d", len(got), len(tt.want))
			}
			for i, o := range got {
				if o.Result != tt.want[i] {
					t.Errorf("case %d: %s (%s), want %s", i, o.Result, o.Error, tt.want[i])
				}
			}
			if tt.wantErr != "" && !strings.Contains(got[len(got)-1].Error, tt.wantErr) {
				t.Errorf("last error %q, want %q", got[len(got)-1].Error, tt.wantErr)
			}
		})
	}
}

// TestDriveKillsTheProcessGroup: a child the program started is killed with it at the end,
// and cannot write to the terminal afterwards (F8).
func TestDriveKillsTheProcessGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := `sleep 60 & echo $! > ` + pidFile + `; while read l; do echo '{"skip": "no"}'; done`
	if _, err := drive([]string{"sh", "-c", script}, cases[:1], testLimits, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	deadline := time.Now().Add(2 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		// Gone, or a zombie no one reaps yet: either way it runs no more.
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program's child %s still runs: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDriveQuotesAndCapsStderr: the program's stderr reaches the runner's escaped, each line
// cut and the lines counted past the bound.
func TestDriveQuotesAndCapsStderr(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	script := `printf '\033]0;title\007red\n' >&2; printf '%0100d\n' 0 >&2; for i in 1 2 3 4; do echo $i >&2; done; while read l; do echo '{"skip": "no"}'; done`
	var stderr bytes.Buffer
	if _, err := drive([]string{"sh", "-c", script}, cases[:1], testLimits, &stderr); err != nil {
		t.Fatal(err)
	}
	want := `\x1b]0;title\ared
` + strings.Repeat("0", 64) + ` [cut]
1
daemonsched: ... and 3 more lines of sh's stderr
`
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}

// TestConformanceFlagsAreChecked: a --timeout or --max-line-bytes that is not positive is a
// usage error (F13).
func TestConformanceFlagsAreChecked(t *testing.T) {
	for _, args := range [][]string{
		{"conformance", "run", "--timeout", "0", "--", "true"},
		{"conformance", "run", "--timeout", "-1s", "--", "true"},
		{"conformance", "run", "--max-line-bytes", "0", "--", "true"},
		{"conformance", "serve", "--max-line-bytes", "-1"},
	} {
		var out, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &stderr); code != 2 || !strings.Contains(stderr.String(), "must be positive") {
			t.Errorf("%v: exit %d: %s", args, code, stderr.String())
		}
	}
}

// endless is an input that never ends and holds no newline, as /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestConformanceServeRefusesALongLine: serve < /dev/zero ends with one line once the bound is
// passed (F3), and serve repeats each request's id.
func TestConformanceServeRefusesALongLine(t *testing.T) {
	var out, stderr bytes.Buffer
	if code := run([]string{"conformance", "serve", "--max-line-bytes", "4096"}, endless{}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), "request 1: a line longer than 4096 bytes") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	req := conformance.NewRequest(cases[0])
	req.ID = 7
	line, _ := json.Marshal(req)
	out.Reset()
	if code := run([]string{"conformance", "serve"}, bytes.NewReader(line), &out, &stderr); code != 0 || !strings.HasPrefix(out.String(), `{"id":7,`) {
		t.Errorf("exit %d: %.40s", code, out.String())
	}
}

// TestConformanceServeAnswersABadRequestAndGoesOn: a request serve cannot plan (not JSON, not
// a request, objects refused) is answered with an error line, with its id when it gives one,
// and the next request is answered as usual; the runner judges such an answer an error.
func TestConformanceServeAnswersABadRequestAndGoesOn(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	good := conformance.NewRequest(cases[0])
	good.ID = 4
	goodLine, _ := json.Marshal(good)
	bad := conformance.NewRequest(cases[0])
	bad.ID, bad.Now = 3, "yesterday"
	badLine, _ := json.Marshal(bad)
	in := strings.Join([]string{
		`not json`,
		`{"id": 2, "objects": {}}`,
		string(badLine),
		string(goodLine),
	}, "\n") + "\n"
	var out, stderr bytes.Buffer
	if code := run([]string{"conformance", "serve"}, strings.NewReader(in), &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers to 4 requests:\n%s", len(lines), out.String())
	}
	wantPrefix := []string{
		`{"error":"request 1: not a request: invalid character`,
		`{"id":2,"error":"request 2: not a request: json: cannot unmarshal object into Go struct field Request.objects`,
		`{"id":3,"error":"request 3: `,
		`{"id":4,"now":`,
	}
	for i, want := range wantPrefix {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("answer %d = %.200s, want it to start with %s", i+1, lines[i], want)
		}
	}
	if o := conformance.JudgeResponse(cases[0], []byte(lines[2])); o.Result != "error" || !strings.Contains(o.Error, "answered with an error: request 3: ") {
		t.Errorf("the runner's judgement of an error answer: %+v", o)
	}
	if o := conformance.JudgeResponse(cases[0], []byte(lines[3])); o.Result != "pass" {
		t.Errorf("the request after the bad ones: %+v", o)
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
			plans, err := in.Snapshot.Plan(daemonset.Options{Now: opts.Now, BurstLimit: burst})
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

// TestVerifyCapsItsLists: a candidate wrong in many ways lists errlist.Shown mismatches and counts
// the others, each line cut (F4, F15); a key given twice or a byte that is not UTF-8 is one
// error (F14).
func TestVerifyCapsItsLists(t *testing.T) {
	data, err := os.ReadFile("testdata/manifests/choices-plan.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	plan := doc["daemonSets"].([]any)[0].(map[string]any)
	var creates []any
	for i := range errlist.Shown + 50 {
		creates = append(creates, map[string]any{"node": fmt.Sprintf("ghost-%03d-%s", i, strings.Repeat("x", 2*errlist.LineBytes)), "reason": "MissingPod", "pod": nil})
	}
	plan["create"] = creates
	bad, _ := json.Marshal(doc)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var out, stderr bytes.Buffer
	code := run([]string{"verify", "-f", "testdata/manifests/choices.yaml", "--plan", write("bad.json", bad)}, nil, &out, &stderr)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != errlist.Shown+1 || !regexp.MustCompile(`^\.\.\. and \d+ more$`).MatchString(lines[errlist.Shown]) {
		t.Errorf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines {
		if len(l) > errlist.LineBytes+40 {
			t.Fatalf("a line of %d bytes", len(l))
		}
	}
	for _, tt := range []struct{ name, text, want string }{
		{"twice", `{"daemonSets":[],"daemonSets":[]}`, "candidate: daemonSets: duplicate key"},
		{"utf8", "{\"kubernetes\":\"\xff\",\"daemonSets\":[]}", "line 1: invalid UTF-8 (byte 0xFF)"},
	} {
		out.Reset()
		stderr.Reset()
		code := run([]string{"verify", "-f", "testdata/manifests/choices.yaml", "--plan", write(tt.name, []byte(tt.text))}, nil, &out, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%s: exit %d: %s", tt.name, code, stderr.String())
		}
	}
}

// TestConformanceRunReportsSafely: a report replaces a link of its name instead of writing
// through it (F10), and a case file whose name is not printable is refused, its name quoted
// (F9), so no escape sequence from --corpus reaches the terminal.
func TestConformanceRunReportsSafely(t *testing.T) {
	data, err := os.ReadFile("../../conformance/testdata/cases/sync-3-selecting-all.yaml")
	if err != nil {
		t.Fatal(err)
	}
	answer := []string{"--", "sh", "-c", `while read l; do echo '{"skip": "x"}'; done`}

	evil := t.TempDir()
	bad := bytes.Replace(data, []byte("name: sync-3-selecting-all"), []byte("name: \"evil\\e[2J\""), 1)
	if err := os.WriteFile(filepath.Join(evil, "evil\x1b[2J.yaml"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	code := run(append([]string{"conformance", "run", "--corpus", evil, "--report", ""}, answer...), nil, &out, &stderr)
	if code != 1 || out.Len() != 0 || !strings.Contains(stderr.String(), `"evil\x1b[2J.yaml"`) || strings.ContainsRune(stderr.String(), 0x1b) {
		t.Fatalf("a case file with an escape in its name: exit %d\n%s%s", code, out.String(), stderr.String())
	}

	corpus, reports := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(corpus, "sync-3-selecting-all.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(reports, "status.yaml")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	stderr.Reset()
	code = run(append([]string{"conformance", "run", "--corpus", corpus, "--report", reports}, answer...), nil, &out, &stderr)
	if code != 1 || !strings.Contains(out.String(), `  sync-3-selecting-all: skip: x`) {
		t.Fatalf("exit %d\n%s%s", code, out.String(), stderr.String())
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(reports, "status.yaml")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the report is not a regular file: %v %v", fi.Mode(), err)
	}
}

// TestConformanceServeAnswersAtRelease runs every case that holds at each supported release
// through serve --kubernetes-version, as conformance run --kubernetes-version sends them, and
// judges every answer at that release (VER-9).
func TestConformanceServeAnswersAtRelease(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range daemonset.SupportedVersions() {
		t.Run(v.String(), func(t *testing.T) {
			held, _, err := conformance.SelectAt(cases, v)
			if err != nil {
				t.Fatal(err)
			}
			var in bytes.Buffer
			for _, c := range held {
				line, _ := json.Marshal(conformance.NewRequest(c))
				in.Write(append(line, '\n'))
			}
			var out, stderr bytes.Buffer
			if code := run([]string{"conformance", "serve", "--kubernetes-version", v.String()}, &in, &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != len(held) {
				t.Fatalf("%d answers to %d cases", len(lines), len(held))
			}
			for i, c := range held {
				if !strings.Contains(lines[i], `"kubernetes":"v`+v.String()+`"`) {
					t.Errorf("%s: the answer does not name %s", c.Name, v)
				}
				if o := conformance.JudgeResponse(c, []byte(lines[i])); o.Result != "pass" {
					t.Errorf("%s: %+v", c.Name, o)
				}
			}
		})
	}
}

// TestConformanceServeRefusesAnotherRelease: serve started at one release does not answer a
// request for another with that release's plan (VER-9).
func TestConformanceServeRefusesAnotherRelease(t *testing.T) {
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(conformance.NewRequest(cases[0])) // v1.36.3, as the corpus names it
	// The refusal is the request's answer (the protocol's error line), and serve goes on.
	var out, stderr bytes.Buffer
	code := run([]string{"conformance", "serve", "--kubernetes-version", "1.37"}, bytes.NewReader(append(line, '\n')), &out, &stderr)
	want := `{"error":"request 1: kubernetes: the case asks for Kubernetes 1.36.3, but serve answers at 1.37.2 (--kubernetes-version)"}` + "\n"
	if code != 0 || out.String() != want || stderr.Len() != 0 {
		t.Fatalf("exit %d\nstdout %q, want %q\nstderr %q", code, out.String(), want, stderr.String())
	}
}

// TestConformanceRunAtRelease: conformance run --kubernetes-version runs the cases that hold at
// that release, at it, and counts, names and reports the others without running them (VER-9).
func TestConformanceRunAtRelease(t *testing.T) {
	corpus := t.TempDir()
	for _, name := range []string{"sync-3-selecting-all", "generated-01"} {
		data, err := os.ReadFile("../../conformance/testdata/cases/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(corpus, name+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The program skips every case, saying the release it was asked for.
	answer := []string{"--", "sh", "-c", `while read l; do k=$(printf '%s' "$l" | sed -n 's/.*"kubernetes":"\([^"]*\)".*/\1/p'); echo "{\"skip\": \"asked for $k\"}"; done`}
	reports := t.TempDir()
	var out, stderr bytes.Buffer
	code := run(append([]string{"conformance", "run", "--corpus", corpus, "--report", reports, "--kubernetes-version", "1.37"}, answer...), nil, &out, &stderr)
	want := "Kubernetes 1.37.2: 1 of 2 cases hold at this release; not run, holding for other releases only: 1\n" +
		"status    0 passed, 0 failed, 1 skipped, 0 errors, 1 for other releases: does not conform\n" +
		"  sync-3-selecting-all: skip: asked for v1.37.2\n"
	if code != 1 || out.String() != want {
		t.Fatalf("exit %d\n%s\nwant\n%s%s", code, out.String(), want, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(reports, "status.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kubernetes: v1.37.2", "otherReleases: 1", "result: otherRelease", "error: holds for Kubernetes 1.36, not 1.37.2"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, data)
		}
	}

	// Without --kubernetes-version every case runs at the release it names.
	out.Reset()
	stderr.Reset()
	code = run(append([]string{"conformance", "run", "--corpus", corpus, "--report", ""}, answer...), nil, &out, &stderr)
	want = "status    0 passed, 0 failed, 2 skipped, 0 errors: does not conform\n" +
		"  generated-01: skip: asked for v1.36.3\n" +
		"  sync-3-selecting-all: skip: asked for v1.36.3\n"
	if code != 1 || out.String() != want {
		t.Fatalf("exit %d\n%s\nwant\n%s%s", code, out.String(), want, stderr.String())
	}
}

// TestConformanceServeRefusesDuplicatesAndInvalidUTF8: a request line with a key given twice,
// at its top level or in an object, or with invalid UTF-8 is answered with an error naming
// where, as a manifest is refused, and without an id (which of two would it be?); the next
// request is answered as usual (issue 25, dupgate: {"id":1,"id":2} was answered as request 2,
// and a quantity bomb in the first of a key given twice hung serve).
func TestConformanceServeRefusesDuplicatesAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	const node = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`
	tests := []struct {
		name, line, want string
	}{
		{"an id given twice", `{"id":1,"id":2,"now":"2026-01-01T00:00:00Z","objects":[]}`,
			`{"error":"request 1: not a request: line 1: id: Duplicate value: \"id\""}`},
		{"now given twice", `{"id":1,"kubernetes":"v1.36.3","now":"2026-01-01T00:00:00Z","now":"2027-01-01T00:00:00Z","objects":[]}`,
			`{"error":"request 1: not a request: line 1: now: Duplicate value: \"now\""}`},
		{"invalid UTF-8 at the top level", "{\"id\":1,\"case\":\"a\xffb\",\"now\":\"2026-01-01T00:00:00Z\",\"objects\":[]}",
			`{"error":"request 1: not a request: line 1: invalid UTF-8 (byte 0xFF)"}`},
		{"a quantity bomb in the first of an object's key given twice",
			`{"id":1,"now":"2026-01-01T00:00:00Z","objects":[{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"default","uid":"u1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"resources":{"requests":{"cpu":"1e-999999999"}},"name":"c","image":"i","resources":{}}]}}}}]}`,
			`{"error":"request 1: not a request: line 1: objects[0].spec.template.spec.containers[0].resources: Duplicate value: \"resources\""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.line + "\n" + `{"id":2,"now":"2026-01-01T00:00:00Z","objects":[` + node + `]}` + "\n"
			var out, stderr bytes.Buffer
			if code := run([]string{"conformance", "serve"}, strings.NewReader(in), &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("%d answers to 2 requests:\n%s", len(lines), out.String())
			}
			require.Equal(t, tt.want, lines[0])
			require.True(t, strings.HasPrefix(lines[1], `{"id":2,"now":`), "the next answer: %.200s", lines[1])
		})
	}
}

// TestConformanceServeCutsALongError: an error answer quoting a huge value is one line of about
// errlist.LineBytes, not an echo of the request (issue 25, F14: a 1.5 MB name was answered
// whole).
func TestConformanceServeCutsALongError(t *testing.T) {
	name := strings.Repeat("x", 1_500_000)
	line := `{"id":3,"objects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `"}}],"now":"2026-01-01T00:00:00Z"}` + "\n"
	var out, stderr bytes.Buffer
	if code := run([]string{"conformance", "serve", "--max-line-bytes", "4000000"}, strings.NewReader(line), &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var a struct {
		ID    int64  `json:"id"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatalf("answer %.200q: %v", out.String(), err)
	}
	if a.ID != 3 || a.Error == "" || len(a.Error) > 1100 {
		t.Errorf("answer id %d, error of %d bytes (%.120q); want id 3 and an error cut near 1000 bytes", a.ID, len(a.Error), a.Error)
	}
}

// answerID reads an answer's id as JudgeResponse reads the answer: not from a line past
// conformance.AnswerBytes, which JudgeResponse refuses unparsed, where a 40 MB line was
// checked and decoded whole for its id first (audit34).
func TestAnswerIDReadsWhatTheJudgeReads(t *testing.T) {
	t.Parallel()
	line := func(skip int) []byte {
		return []byte(`{"id":7,"skip":"` + strings.Repeat("a", skip) + `"}`)
	}
	if id, ok := answerID(line(10)); !ok || id != 7 {
		t.Errorf("answerID of a short answer = %d, %v; want 7, true", id, ok)
	}
	if id, ok := answerID(line(conformance.AnswerBytes)); ok {
		t.Errorf("answerID of a line past AnswerBytes = %d, true; want it unread", id)
	}
}
