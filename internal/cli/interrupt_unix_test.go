//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal to conformance run kills PROGRAM's process group, a grandchild included, writes no
// report and ends the run with 128 plus the signal's number and one line. The runner died
// alone and the group ran on; Ctrl-C could not reach it, its group being its own (issue 25).
//
// The signal goes to this test process, whose drive catches it: the test is not parallel,
// so no other drive is running to catch it too, and it is sent only once PROGRAM has started
// (its pid file exists), after drive began catching.
func TestConformanceRunInterruptedKillsTheGroup(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile, reports := filepath.Join(dir, "pid"), filepath.Join(dir, "reports")
			// The grandchild's pid is written once the request is read: PROGRAM then waits.
			script := `sleep 60 & read l; echo $! > "$1.tmp"; mv "$1.tmp" "$1"; sleep 60`
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				var out, stderr bytes.Buffer
				code := run([]string{"conformance", "run", "--timeout", "60s", "--report", reports, "--", "sh", "-c", script, "sh", pidFile}, nil, &out, &stderr)
				done <- result{code, out.String(), stderr.String()}
			}()
			grandchild := waitForPid(t, pidFile)
			if err := syscall.Kill(os.Getpid(), tt.sig); err != nil {
				t.Fatal(err)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("conformance run did not end after the signal")
			}
			want := "daemonsched: conformance run: interrupted (" + tt.name + `): killed sh's process group; no report written` + "\n"
			if r.code != tt.code || r.stdout != "" || r.stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stderr %q", r.code, r.stdout, r.stderr, tt.code, want)
			}
			if _, err := os.Stat(reports); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("reports written: %v", err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for syscall.Kill(grandchild, 0) == nil {
				if time.Now().After(deadline) {
					syscall.Kill(grandchild, syscall.SIGKILL) //nolint:errcheck // cleaning up
					t.Fatalf("PROGRAM's child %d still runs 10 s after the run ended", grandchild)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// waitForPid waits for the file path to hold a pid, written whole (renamed into place).
func waitForPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("PROGRAM did not start within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
