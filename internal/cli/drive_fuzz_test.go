//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/printable"
)

// driveHelperEnv, when set, makes the test binary the program FuzzDrive drives
// (TestDriveHelperProcess): its value is the file of the script the program follows, or
// driveSleeper for a process that only sleeps.
const driveHelperEnv = "DAEMONSCHED_DRIVE_HELPER"

// driveSleeper is the script of a child the helper leaves in its process group: drive must
// kill it too (F8).
const driveSleeper = "sleep"

// driveScript is what the helper program does: the fuzz input, written to a file.
type driveScript struct {
	// Stdout is what the program answers, one segment (up to and including a newline) at a
	// time when it answers request by request; Stderr is written whole at the start.
	Stdout, Stderr []byte
	// Behaviour is a driveMode in its low two bits, plus driveChild and driveHang.
	Behaviour byte
	// Code is the status the program exits with, unless it hangs.
	Code byte
	// PIDFile is where the program writes its pid and its child's (0 without one) once it has
	// written its stderr.
	PIDFile string
}

// A driveMode is how the helper talks to the runner.
type driveMode byte

const (
	// driveAnswers reads a request, writes the next segment of Stdout, and so on; once Stdout
	// is used up it reads its stdin to the end.
	driveAnswers driveMode = iota
	// driveFloods writes Stdout at once and never reads.
	driveFloods
	// driveStopsReading reads one request, writes the first segment and reads no more.
	driveStopsReading
	// driveClosesStdout closes its stdout at once, then reads its stdin to the end.
	driveClosesStdout
)

// The helper's behaviour bits beyond its mode.
const (
	// driveChild starts a child that sleeps, in the helper's process group.
	driveChild byte = 1 << 2
	// driveHang makes the helper sleep at the end, until it is killed, instead of exiting
	// with Code.
	driveHang byte = 1 << 3
)

// TestDriveHelperProcess is not a test: it is the program FuzzDrive drives, the test binary
// run again with driveHelperEnv set. It exits before the testing package writes to stdout.
func TestDriveHelperProcess(t *testing.T) {
	script := os.Getenv(driveHelperEnv)
	switch script {
	case "":
		return
	case driveSleeper:
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(driveHelper(script))
}

// driveHelper follows the script in the file path and returns the status to exit with.
func driveHelper(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	var s driveScript
	if err := json.Unmarshal(data, &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	child := 0
	if s.Behaviour&driveChild != 0 {
		sleeper := helperCommand()
		sleeper.Env = append(os.Environ(), driveHelperEnv+"="+driveSleeper)
		if err := sleeper.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 125
		}
		child = sleeper.Process.Pid
	}
	os.Stderr.Write(s.Stderr)
	// Renamed into place, so that the test never reads half of it.
	tmp := s.PIDFile + ".tmp"
	if os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", os.Getpid(), child), 0o644) != nil || os.Rename(tmp, s.PIDFile) != nil {
		return 125
	}
	segments := bytes.SplitAfter(s.Stdout, []byte("\n"))
	in := bufio.NewReader(os.Stdin)
	switch driveMode(s.Behaviour & 3) {
	case driveAnswers:
		for _, seg := range segments {
			if _, err := in.ReadBytes('\n'); err != nil {
				break
			}
			os.Stdout.Write(seg)
		}
		io.Copy(io.Discard, in)
	case driveFloods:
		os.Stdout.Write(s.Stdout)
	case driveStopsReading:
		if _, err := in.ReadBytes('\n'); err == nil {
			os.Stdout.Write(segments[0])
		}
	case driveClosesStdout:
		os.Stdout.Close()
		io.Copy(io.Discard, in)
	}
	if s.Behaviour&driveHang != 0 {
		time.Sleep(time.Minute)
	}
	return int(s.Code)
}

// helperProgram runs the test binary as TestDriveHelperProcess.
func helperProgram() []string {
	return []string{os.Args[0], "-test.run=^TestDriveHelperProcess$"}
}

// helperCommand is helperProgram as a command, its environment to be set.
func helperCommand() *exec.Cmd {
	p := helperProgram()
	return exec.Command(p[0], p[1:]...)
}

// fuzzDriveLimits are FuzzDrive's bounds: small, so that an input costs a fraction of a second
// even when the program answers nothing, and a line past lineBytes is quick to write. The
// timeout covers the helper's start (40 ms of init alone; 190 ms at a load of 19 on 2 cores,
// where 200 ms left even correct answers too late), so that the answers it gives are judged.
var fuzzDriveLimits = protocolLimits{timeout: 300 * time.Millisecond, lineBytes: 8 << 10, stderrLines: 3, stderrLineBytes: 64}

// FuzzDrive runs the conformance runner's session (drive) against a program that writes what
// the fuzzer gives, on its stdout and stderr, and behaves as it chooses: answers request by
// request, floods without reading, stops reading, closes its stdout, exits with a status or
// hangs, leaves a child in its group. Whatever it does, drive returns in time with one outcome
// per case, in order, each of an allowed result with a bounded text, printable where it is not
// the program's own words; the program's stderr reaches ours escaped and bounded; and no
// process of the program's group survives (issue 25, item 7).
func FuzzDrive(f *testing.F) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		f.Skip("no /proc to tell whether the program's processes are gone")
	}
	small, big := fuzzDriveCases(f)
	lim := fuzzDriveLimits
	correct := serveAnswers(f, small)
	skip := []byte(`{"skip":"x"}` + "\n")
	const answers, stops, floods, closes = byte(driveAnswers), byte(driveStopsReading), byte(driveFloods), byte(driveClosesStdout)
	// Each seed: the program's stdout, its stderr, its behaviour, which cases (1 + pick%3 small
	// ones, the first replaced by the largest when pick has 0x80), its exit status.
	f.Add(correct, []byte(nil), answers, byte(2), byte(0))                                                                // correct answers to three cases: all pass
	f.Add([]byte(`{"id":2,"skip":"x"}`+"\n"), []byte(nil), answers, byte(1), byte(0))                                     // an answer with another id (F11)
	f.Add([]byte(`{"id":1,"id":1,"skip":"x"}`+"\n"), []byte(nil), answers, byte(0), byte(0))                              // an id given twice
	f.Add([]byte("{\"skip\":\"\xff\"}\n"), []byte(nil), answers, byte(0), byte(0))                                        // invalid UTF-8
	f.Add([]byte(strings.Repeat("x", lim.lineBytes+1)+"\n"), []byte(nil), answers, byte(1), byte(0))                      // a line past the bound (F3)
	f.Add([]byte(`{"skip":"x"}`), []byte(nil), floods, byte(2), byte(3))                                                  // no newline, then exit 3
	f.Add(bytes.Repeat([]byte(`{"skip":"x"}`+"\n"), 10_000), []byte(nil), floods|driveHang, byte(0x81), byte(0))          // a flood of skips without reading a request larger than a pipe (F2)
	f.Add([]byte(`{"id":1,"skip":"x"}`+"\n"+`{"id":1,"skip":"x"}`+"\n"), []byte(nil), floods|driveHang, byte(1), byte(0)) // an answer given twice (F11)
	f.Add(skip, []byte("\x1b]0;title\x07\x1b[2J\u202eevil\n"+strings.Repeat("y", 200)), answers, byte(0), byte(0))        // escapes on stderr, a long line without a newline
	f.Add(skip, bytes.Repeat([]byte("line\n"), 10_000), answers, byte(0), byte(0))                                        // 10,000 stderr lines
	f.Add(skip, []byte(nil), stops|driveChild|driveHang, byte(1), byte(0))                                                // stops reading after one answer, a child in its group (F8)
	f.Add([]byte(nil), []byte(nil), closes, byte(2), byte(0))                                                             // closes its stdout (F12)
	f.Add([]byte(`{"skip":"\u001b[2J"}`+"\n"+`{"error":"\u202e"}`+"\n"), []byte(nil), answers, byte(1), byte(0))          // escapes in a skip reason and an error
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, behaviour, pick, code byte) {
		cases := slices.Clone(small[:1+pick%3])
		if pick&0x80 != 0 {
			cases[0] = big
		}
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		script, err := json.Marshal(driveScript{Stdout: stdout, Stderr: stderr, Behaviour: behaviour, Code: code, PIDFile: pidFile})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "script.json")
		if err := os.WriteFile(path, script, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(driveHelperEnv, path)
		got, relayed := driveWithin(t, cases, lim)
		pids := readPIDs(t, pidFile)
		checkOutcomes(t, cases, got)
		checkRelayed(t, relayed, stderr, pids != nil, lim)
		for _, pid := range pids {
			checkGone(t, pid)
		}
	})
}

// pipeBytes is more than a pipe's buffer holds (64 KiB on Linux, 16 KiB on macOS).
const pipeBytes = 1 << 17

// fuzzDriveCases are the cases FuzzDrive sends: the three of the built-in corpus's smallest
// files, and the case of the smallest file whose request is larger than a pipe's buffer, which
// a program that stops reading leaves half written (F2). Only these are loaded: the whole
// corpus takes 1.3 to 3 s on a loaded machine, in every fuzz worker, before its first input.
func fuzzDriveCases(f *testing.F) (small []conformance.Case, big conformance.Case) {
	const dir = "../../conformance/testdata/cases"
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	type file struct {
		name string
		size int64
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, file{e.Name(), info.Size()})
		}
	}
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.size, b.size), strings.Compare(a.name, b.name))
	})
	load := func(files ...file) []conformance.Case {
		chosen := fstest.MapFS{}
		for _, file := range files {
			data, err := os.ReadFile(filepath.Join(dir, file.name))
			if err != nil {
				f.Fatal(err)
			}
			chosen[file.name] = &fstest.MapFile{Data: data}
		}
		cases, err := conformance.LoadCases(chosen)
		if err != nil {
			f.Fatal(err)
		}
		return cases
	}
	if len(files) < 4 {
		f.Fatalf("%s: %d cases, want at least 4", dir, len(files))
	}
	small = load(files[:3]...)
	// A file holds its case's expectations too: the largest files are not the largest requests.
	for _, file := range files {
		if file.size < pipeBytes {
			continue
		}
		c := load(file)[0]
		line, err := json.Marshal(conformance.NewRequest(c))
		if err != nil {
			f.Fatal(err)
		}
		if len(line) > pipeBytes {
			return small, c
		}
	}
	f.Fatalf("%s: no case's request is larger than a pipe's buffer", dir)
	return nil, conformance.Case{}
}

// serveAnswers is what conformance serve answers to cases sent as drive sends them: a correct
// answer to each, one a line.
func serveAnswers(f *testing.F, cases []conformance.Case) []byte {
	var in bytes.Buffer
	for i, c := range cases {
		req := conformance.NewRequest(c)
		req.ID = int64(i + 1)
		line, err := json.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	var out, stderr bytes.Buffer
	if code := run([]string{"conformance", "serve"}, &in, &out, &stderr); code != 0 {
		f.Fatalf("serve: exit %d: %s", code, stderr.String())
	}
	for line := range bytes.Lines(out.Bytes()) {
		if len(line) > fuzzDriveLimits.lineBytes {
			f.Fatalf("an answer of %d bytes, more than the %d FuzzDrive allows", len(line), fuzzDriveLimits.lineBytes)
		}
	}
	return out.Bytes()
}

// driveWithin is drive's outcomes and what it wrote to its stderr. It fails the test when drive
// does not return within the longest a run may take: for every case its timeout twice (the
// request's deadline, then the moment that tells an exit from a closed stream), the wait for
// the exit, the second given to the relay, and slack for a loaded machine.
func driveWithin(t *testing.T, cases []conformance.Case, lim protocolLimits) ([]conformance.Outcome, string) {
	t.Helper()
	bound := time.Duration(2*len(cases)+1)*lim.timeout + time.Second + 3*time.Second
	type result struct {
		outcomes []conformance.Outcome
		err      error
	}
	var stderr bytes.Buffer
	done := make(chan result, 1)
	go func() {
		o, err := drive(helperProgram(), cases, lim, &stderr)
		done <- result{o, err}
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.outcomes, stderr.String()
	case <-timer.C:
		t.Fatalf("drive did not return within %v (%d cases, a timeout of %v)", bound, len(cases), lim.timeout)
		return nil, ""
	}
}

// readPIDs is the program's pid and its child's, nil when it was killed before it wrote them.
func readPIDs(t *testing.T, pidFile string) []int {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, field := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			t.Fatalf("%s: %q", pidFile, data)
		}
		if pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// outcomeErrorBytes bounds an outcome's text: cut to errlist.LineBytes, then the count of the
// bytes left out (errlist.Cut).
const outcomeErrorBytes = errlist.LineBytes + len("... ( bytes more)") + 20

// checkOutcomes checks there is one outcome per case, in order, each with an allowed result
// (conformance.Outcome's doc; otherRelease is not drive's to give) and bounded texts, printable
// where they are not the program's own words.
func checkOutcomes(t *testing.T, cases []conformance.Case, got []conformance.Outcome) {
	t.Helper()
	if len(got) != len(cases) {
		t.Fatalf("%d outcomes of %d cases", len(got), len(cases))
	}
	for i, o := range got {
		c := cases[i]
		if o.Case != c.Name || o.Profile != c.Profile {
			t.Errorf("outcome %d is of %s (%s), want %s (%s)", i, o.Case, o.Profile, c.Name, c.Profile)
		}
		if len(o.Error) > outcomeErrorBytes {
			t.Errorf("outcome %d: a text of %d bytes, more than %d: %.200q", i, len(o.Error), outcomeErrorBytes, o.Error)
		}
		if own := ownWords(o); !printable.Safe(own) {
			t.Errorf("outcome %d: a text of drive's or the judge's that is not printable: %q", i, own)
		}
		for j, m := range o.Mismatches {
			if len(m.DaemonSet) > outcomeErrorBytes || len(m.Object) > outcomeErrorBytes || len(m.Message) > outcomeErrorBytes {
				t.Errorf("outcome %d, mismatch %d: a text longer than %d bytes: %.200q", i, j, outcomeErrorBytes, m.Message)
			}
		}
		switch o.Result {
		case "pass":
			if o.Error != "" || len(o.Mismatches) > 0 {
				t.Errorf("outcome %d passes with %q and %d mismatches", i, o.Error, len(o.Mismatches))
			}
		case "fail":
			if len(o.Mismatches) == 0 || len(o.Mismatches) > conformance.MaxMismatches {
				t.Errorf("outcome %d fails with %d mismatches", i, len(o.Mismatches))
			}
		case "skip", "error":
			if o.Error == "" || len(o.Mismatches) > 0 {
				t.Errorf("outcome %d: %s with %q and %d mismatches", i, o.Result, o.Error, len(o.Mismatches))
			}
		default:
			t.Errorf("outcome %d: result %q", i, o.Result)
		}
	}
}

// answeredPrefix starts the text of a case the program answered with an error
// (conformance.JudgeResponse); its words follow.
const answeredPrefix = "the implementation answered with an error: "

// ownWords is the text of o that drive or the judge wrote, without the program's own words: a
// skip reason or an error it answered is kept as written (cut), and escaped where it is printed
// (conformanceRun: printable.Escape; the YAML reports escape control characters).
func ownWords(o conformance.Outcome) string {
	if o.Result == "skip" {
		return ""
	}
	if strings.HasPrefix(o.Error, answeredPrefix) {
		return answeredPrefix
	}
	return o.Error
}

// checkRelayed checks what drive wrote to its stderr: at most lim.stderrLines of the
// program's, then a count of the others, then at most one line of drive's own about the
// program's end, every line printable and bounded. When the program wrote all of its stderr
// (whole), the lines relayed and counted are exactly the ones it wrote.
func checkRelayed(t *testing.T, relayed string, written []byte, whole bool, lim protocolLimits) {
	t.Helper()
	if relayed == "" {
		if whole && len(written) > 0 {
			t.Errorf("nothing relayed of %d bytes of stderr", len(written))
		}
		return
	}
	if !strings.HasSuffix(relayed, "\n") {
		t.Fatalf("relayed stderr does not end its last line: %q", relayed)
	}
	lines := strings.Split(strings.TrimSuffix(relayed, "\n"), "\n")
	prog := printable.Quote(helperProgram()[0])
	// An escaped byte takes at most four (\x1b), then " [cut]"; drive's own lines name prog.
	lineBound := max(4*lim.stderrLineBytes+len(" [cut]"), 200+len(prog))
	for i, l := range lines {
		if !printable.Safe(l) || len(l) > lineBound {
			t.Errorf("relayed line %d of %d bytes, not printable or longer than %d: %q", i, len(l), lineBound, l)
		}
	}
	if len(lines) > lim.stderrLines+2 {
		t.Fatalf("%d lines relayed, want at most %d:\n%s", len(lines), lim.stderrLines+2, relayed)
	}
	if !whole {
		return
	}
	n := bytes.Count(written, []byte("\n"))
	if len(written) > 0 && written[len(written)-1] != '\n' {
		n++
	}
	shown := min(n, lim.stderrLines)
	rest := lines[min(shown, len(lines)):]
	if len(lines) < shown {
		t.Fatalf("%d lines relayed of %d written:\n%s", len(lines), n, relayed)
	}
	if n > lim.stderrLines {
		want := fmt.Sprintf("daemonsched: ... and %d more lines of %s's stderr", n-lim.stderrLines, prog)
		if len(rest) == 0 || rest[0] != want {
			t.Fatalf("%d lines written, relayed:\n%s\nwant the count %q", n, relayed, want)
		}
		rest = rest[1:]
	}
	if len(rest) > 1 || len(rest) == 1 && !strings.HasPrefix(rest[0], "daemonsched: "+prog) {
		t.Errorf("after the program's stderr, want at most one line about its end:\n%s", relayed)
	}
}

// checkGone checks that the program's process pid (or its child) runs no more once drive has
// returned: drive killed the whole group. The child, no longer drive's to reap, may stay a
// zombie, and a kill takes a moment to land: its state is read until it has, within a bound.
func checkGone(t *testing.T, pid int) {
	t.Helper()
	proc := "/proc/" + strconv.Itoa(pid)
	deadline := time.Now().Add(2 * time.Second)
	for {
		stat, err := os.ReadFile(proc + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		// A pid taken again by a process of someone else's is not the program's.
		if env, err := os.ReadFile(proc + "/environ"); err != nil || !bytes.Contains(env, []byte(driveHelperEnv+"=")) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // the test fails either way
			t.Fatalf("process %d of the program's group still runs after drive returned: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
