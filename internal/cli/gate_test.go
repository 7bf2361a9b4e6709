package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/conformance"
)

// runWithin runs the command line with stdin and returns its exit code and stderr, failing the
// test when it has not ended after five seconds: each attack below once hung or read for
// minutes (issue 25).
func runWithin(t *testing.T, stdin *os.File, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		var in io.Reader = bytes.NewReader(nil)
		if stdin != nil {
			in = stdin
		}
		done <- result{run(args, in, &stdout, &stderr), stderr.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(5 * time.Second):
		t.Fatalf("%q still running after 5s", args)
		return 0, ""
	}
}

// Every file read beside the input passes the input's gate (issue 25, F6): a named pipe is
// refused without waiting for a writer, stdin from /dev/zero at its first block, and
// invalid UTF-8 with its line.
func TestSideFilesPassTheInputsGate(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"name\": \"n\xff\"}\n"), 0o600))
	zero, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer zero.Close()
	whatif := filepath.Join("testdata", "manifests", "whatif.yaml")
	choices := filepath.Join("testdata", "manifests", "choices.yaml")
	tests := []struct {
		name  string
		stdin *os.File
		args  []string
		want  string
	}{
		{"a named pipe as --node-template", nil, []string{"whatif", "-f", whatif, "--node-template", fifo},
			"daemonsched: " + fifo + ": not a regular file (a named pipe); read a stream from stdin (--node-template -)\n"},
		{"a named pipe as --plan", nil, []string{"verify", "-f", choices, "--plan", fifo},
			"daemonsched: " + fifo + ": not a regular file (a named pipe); read a stream from stdin (--plan -)\n"},
		{"/dev/zero on stdin as --node-template", zero, []string{"whatif", "-f", whatif, "--node-template", "-"},
			"daemonsched: -: line 1: a NUL byte: not YAML or JSON text\n"},
		{"/dev/zero on stdin as --plan", zero, []string{"verify", "-f", choices, "--plan", "-"},
			"daemonsched: -: line 1: a NUL byte: not YAML or JSON text\n"},
		{"invalid UTF-8 in --plan", nil, []string{"verify", "-f", choices, "--plan", bad},
			"daemonsched: " + bad + ": line 1: invalid UTF-8 (byte 0xFF)\n"},
		{"invalid UTF-8 in --node-template", nil, []string{"whatif", "-f", whatif, "--node-template", bad},
			"daemonsched: " + bad + ": line 1: invalid UTF-8 (byte 0xFF)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWithin(t, tt.stdin, tt.args...)
			require.Equal(t, 1, code, stderr)
			require.Equal(t, tt.want, stderr)
		})
	}
}

// A node template is one object, bounded as one (issue 25, F6): a template past
// --max-object-bytes is refused, from a file before it is read and from stdin at the bound,
// where it was read up to --max-input-bytes and decoded whole (300 MB: 4-5 GB).
func TestNodeTemplateIsBoundedAsAnObject(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	text := "name: n\nlabels:\n  a: " + strings.Repeat("b", 2<<20) + "\n"
	require.NoError(t, os.WriteFile(big, []byte(text), 0o600))
	whatif := filepath.Join("testdata", "manifests", "whatif.yaml")
	stdin, err := os.Open(big)
	require.NoError(t, err)
	defer stdin.Close()
	for _, tt := range []struct {
		name  string
		stdin *os.File
		tmpl  string
	}{{"a file", nil, big}, {"stdin", stdin, "-"}} {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWithin(t, tt.stdin, "whatif", "-f", whatif, "--node-template", tt.tmpl, "--max-object-bytes", "1048576")
			require.Equal(t, 1, code, stderr)
			require.Equal(t, "daemonsched: "+tt.tmpl+": a node template larger than 1 MiB (limit ObjectBytes, --max-object-bytes; the API server's is 3 MiB)\n", stderr)
		})
	}
	// Under the default bound the same template is read and judged.
	code, stderr := runWithin(t, nil, "whatif", "-f", whatif, "--node-template", big)
	require.NotContains(t, stderr, "larger than", "exit %d", code)
}

// --corpus reads its cases through the gate (issue 25, F9): a named pipe or a link to
// /dev/zero among them ends the run at once, and a case file whose name would print a
// terminal escape is refused.
func TestCorpusFilesPassTheInputsGate(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, dir string)
		want string
	}{
		{"a named pipe", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "a.yaml"))
		}, "daemonsched: a.yaml: not a regular file (a named pipe)\n"},
		{"a link to /dev/zero", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "a.yaml")))
		}, "daemonsched: a.yaml: not a regular file (a character device)\n"},
		{"a terminal escape in a case name", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "\x1b[2J.yaml"), []byte("name: x\n"), 0o600))
		}, `daemonsched: "\x1b[2J.yaml": a case file name must be printable, without control characters or spaces other than ' '` + "\n"},
		// A 60 MB case took 15 s under the 64 MiB bound; no case needs more than 600 KB.
		{"a case over the case-file bound", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), bytes.Repeat([]byte("#\n"), corpusFileBytes/2+1), 0o600))
		}, "daemonsched: a.yaml: input is larger than 8 MiB (limit InputBytes)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(t, dir)
			code, stderr := runWithin(t, nil, "conformance", "run", "--report", "", "--corpus", dir, "--", "true")
			require.Equal(t, 1, code, stderr)
			require.Equal(t, tt.want, stderr)
		})
	}
}

// A report replaces a link in its place and leaves the link's target as it was (issue 25, F10).
func TestReportsDoNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o600))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, "placement.yaml")))
	require.NoError(t, writeReports(dir, []conformance.Report{{Profile: "placement", Implementation: "x"}}))
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "keep", string(got))
	st, err := os.Lstat(filepath.Join(dir, "placement.yaml"))
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular())
}

// -f LINK to a directory reads the directory's manifests (issue 25, F17: "a directory without
// .json, .yaml or .yml files").
func TestALinkToADirectoryIsThatDirectory(t *testing.T) {
	dir := t.TempDir()
	manifests := filepath.Join(dir, "manifests")
	require.NoError(t, os.Mkdir(manifests, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(manifests, "a.yaml"), nil, 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(manifests, link))
	got, err := expand([]string{link}, false)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(link, "a.yaml")}, got)
}

// A quantity behind a space once spun forever in every command that reads a cluster, the
// candidate of verify --plan and the requests of conformance serve (issue 25, F1); it is
// refused at once, with its field, whichever side the space is on.
func TestAQuantityBehindASpaceIsRefused(t *testing.T) {
	dir := t.TempDir()
	choices := filepath.Join("testdata", "manifests", "choices.yaml")
	candidate := filepath.Join("testdata", "manifests", "choices-plan.json")
	for _, q := range []string{" 1e-999999999", "1e-999999999 "} {
		path := filepath.Join(dir, "node.yaml")
		require.NoError(t, os.WriteFile(path, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \""+q+"\"}}\n"), 0o600))
		plan := filepath.Join(dir, "plan.json")
		require.NoError(t, os.WriteFile(plan, []byte(`{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":[{"node":"n","reason":"","pod":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"`+q+`"}}}]}}}],"delete":[],"adopt":[],"release":[],"status":{}}]}`), 0o600))
		now := "--now=2026-01-01T00:00:00Z"
		for _, args := range [][]string{
			{"plan", "-f", path, now},
			{"explain", "-f", path, "--node", "n1", now},
			{"whatif", "-f", path, "--node", "n1", now},
			{"node-ready", "-f", path, "--node", "n1", now},
			{"rollout", "status", "-f", path, now},
			{"forecast", "-f", path, now},
			{"lint", "-f", path},
			{"verify", "-f", path, "--plan", candidate, now},
		} {
			code, stderr := runWithin(t, nil, args...)
			require.Equal(t, 1, code, "%q: %s", args, stderr)
			require.Contains(t, stderr, `status.capacity[cpu]: Invalid value: "`+q+`": a quantity with an exponent beyond ±100`, "%q", args)
		}
		code, stderr := runWithin(t, nil, "verify", "-f", choices, "--plan", plan, now)
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, `candidate: daemonSets[0].create[0].pod.spec.containers[0].resources.requests[cpu]: Invalid value: "`+q+`": a quantity with an exponent beyond ±100`)
		requests := filepath.Join(dir, "requests")
		require.NoError(t, os.WriteFile(requests, []byte(`{"id":1,"now":"2026-01-01T00:00:00Z","objects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":{"cpu":"`+q+`"}}}]}`+"\n"), 0o600))
		stdin, err := os.Open(requests)
		require.NoError(t, err)
		var stdout bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run([]string{"conformance", "serve"}, stdin, &stdout, io.Discard) }()
		select {
		case code := <-done:
			require.Equal(t, 0, code)
		case <-time.After(5 * time.Second):
			t.Fatalf("conformance serve of a request with cpu %q still running after 5s", q)
		}
		stdin.Close()
		require.Contains(t, stdout.String(), `{"id":1,"error":"request 1: `, "%q", q)
		require.Contains(t, stdout.String(), `a quantity with an exponent beyond ±100`, "%q", q)
	}
}

// TestPrintErrorIsBounded: a DaemonSet with 20,000 invalid tolerations prints the first 100
// problems, in index order, and counts the others; a 1.5 MB name is cut (issue 25, F14).
func TestPrintErrorIsBounded(t *testing.T) {
	t.Parallel()
	var tols strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&tols, `{"key":"bad key %d!","operator":"Exists"},`, i)
	}
	ds := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"` + strings.Repeat("d", 1500000) + `","namespace":"default"},` +
		`"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}],` +
		`"tolerations":[` + strings.TrimSuffix(tols.String(), ",") + `]}}}}`
	var stdout, stderr bytes.Buffer
	code := run([]string{"plan", "-f", "-", "--now", "2026-01-01T00:00:00Z"}, strings.NewReader(ds), &stdout, &stderr)
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	require.Len(t, lines, 101, "first line: %.300s", lines[0])
	require.Equal(t, "daemonsched: ... and 19901 more", lines[100], "20,000 tolerations and the name")
	for _, l := range lines {
		require.Less(t, len(l), 1100)
	}
	require.Contains(t, lines[0], "metadata.name")
	require.Contains(t, lines[1], "tolerations[0].key")
	require.Contains(t, lines[10], "tolerations[9].key")
	require.Contains(t, lines[11], "tolerations[10].key")
}

// --apply and --template go through -f's gate (issue 25): a named pipe is refused without
// waiting for a writer, a link to /dev/zero without reading it, a directory reads its
// manifests; --template - is refused, since the template is read twice and stdin once (it
// read nothing and said "stdin: no objects"); --corpus names a directory, and a named pipe or
// a device in its place is said to be none ("no *.yaml case" before). The refusal's hint names
// the flag's own way to read stdin, or none: --apply FIFO said "(-f -)", which reads the stream
// as the input, and --template FIFO the same, though --template reads no stdin.
func TestEveryPathFlagPassesTheInputsGate(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	pipes := filepath.Join(dir, "pipes")
	require.NoError(t, os.Mkdir(pipes, 0o755))
	mkfifo(t, filepath.Join(pipes, "ds.yaml"))
	surge := filepath.Join("testdata", "manifests", "surge.yaml")
	now := "--now=2026-01-01T00:00:00Z"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a named pipe as -f", []string{"plan", "-f", fifo, now}, 1,
			"daemonsched: " + fifo + ": not a regular file (a named pipe); read a stream from stdin (-f -)\n"},
		{"a named pipe as --apply", []string{"plan", "-f", surge, "--apply", fifo, now}, 1,
			"daemonsched: " + fifo + ": not a regular file (a named pipe); read a stream from stdin (--apply -)\n"},
		{"a link to /dev/zero as --apply", []string{"plan", "-f", surge, "--apply", zero, now}, 1,
			"daemonsched: " + zero + ": not a regular file (a character device); read a stream from stdin (--apply -)\n"},
		{"a named pipe in a directory given to --apply", []string{"plan", "-f", surge, "--apply", pipes, now}, 1,
			"daemonsched: " + filepath.Join(pipes, "ds.yaml") + ": not a regular file (a named pipe); read a stream from stdin (--apply -)\n"},
		{"a directory without manifests as --apply", []string{"plan", "-f", surge, "--apply", empty, now}, 1,
			"daemonsched: " + empty + ": a directory without .json, .yaml or .yml files (-R reads its subdirectories too)\n"},
		{"a named pipe as --template", []string{"forecast", "-f", surge, "--template", fifo, now}, 1,
			"daemonsched: " + fifo + ": not a regular file (a named pipe)\n"},
		{"a link to /dev/zero as --template", []string{"forecast", "-f", surge, "--template", zero, now}, 1,
			"daemonsched: " + zero + ": not a regular file (a character device)\n"},
		{"stdin as --template", []string{"forecast", "-f", surge, "--template", "-", now}, 2,
			"error: --template -: give the template as a file; stdin is not read for it\n"},
		{"a named pipe as --corpus", []string{"conformance", "run", "--report", "", "--corpus", fifo, "--", "true"}, 1,
			"daemonsched: " + fifo + ": not a directory\n"},
		{"a link to /dev/zero as --corpus", []string{"conformance", "run", "--report", "", "--corpus", zero, "--", "true"}, 1,
			"daemonsched: " + zero + ": not a directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWithin(t, nil, tt.args...)
			require.Equal(t, tt.code, code, stderr)
			require.True(t, strings.HasPrefix(stderr, tt.want), stderr)
		})
	}
}

// The way to read stdin each refusal's hint names works: the applied manifest given as
// --apply - plans as the same file given as --apply FILE.
func TestPathFlagHintsReadStdin(t *testing.T) {
	surge := filepath.Join("testdata", "manifests", "surge.yaml")
	now := "--now=2026-01-01T00:00:00Z"
	f, err := os.Open(surge)
	require.NoError(t, err)
	defer f.Close()
	var fromFile, fromStdin bytes.Buffer
	require.Equal(t, 0, run([]string{"plan", "-f", surge, "--apply", surge, now}, bytes.NewReader(nil), &fromFile, io.Discard))
	require.Equal(t, 0, run([]string{"plan", "-f", surge, "--apply", "-", now}, f, &fromStdin, io.Discard))
	require.Equal(t, fromFile.String(), fromStdin.String())
}
