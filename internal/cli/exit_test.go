package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// exit writes the command's output once when it answered, with a success or a finding, and
// nothing on stdout otherwise; the status is the one exitStatuses documents.
func TestExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		failWrite  bool
		wantStatus int
		wantStdout string
		wantStderr string
	}{
		{name: "success writes the output and exits 0", wantStatus: exitOK, wantStdout: "answer\n"},
		{name: "bad input writes the error alone and exits 1", err: errors.New("f.yaml: document 1: bad"),
			wantStatus: exitBadInput, wantStderr: "daemonsched: f.yaml: document 1: bad\n"},
		{name: "a usage error says where to find help and exits 2", err: usagef("unknown flag: --x"),
			wantStatus: exitUsage, wantStderr: "error: unknown flag: --x\nSee 'daemonsched plan --help'.\n"},
		{name: "a candidate that does not conform writes its mismatches and exits 1", err: errNonconforming,
			wantStatus: exitNonconforming, wantStdout: "answer\n"},
		{name: "a node not ready writes its table and exits 3", err: errNotReady, wantStatus: exitNotReady, wantStdout: "answer\n"},
		{name: "a progressing rollout writes its report and exits 3", err: errProgressing, wantStatus: exitProgressing, wantStdout: "answer\n"},
		{name: "a stuck rollout writes its report and exits 4", err: errStuck, wantStatus: exitStuck, wantStdout: "answer\n"},
		{name: "a finding wrapped keeps its status", err: fmt.Errorf("rollout: %w", errStuck), wantStatus: exitStuck, wantStdout: "answer\n"},
		{name: "stdout that cannot be written is an error whatever the answer", err: errNonconforming, failWrite: true,
			wantStatus: exitBadInput, wantStderr: "daemonsched: closed\n"},
		{name: "stdout that cannot be written turns a success into exit 1", failWrite: true,
			wantStatus: exitBadInput, wantStderr: "daemonsched: closed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := &cobra.Command{Use: "daemonsched"}
			plan := &cobra.Command{Use: "plan"}
			cmd.AddCommand(plan)
			var stdout, stderr bytes.Buffer
			w := writerFunc(stdout.Write)
			if tt.failWrite {
				w = func([]byte) (int, error) { return 0, errors.New("closed") }
			}
			got := exit(plan, tt.err, []byte("answer\n"), w, &stderr)
			require.Equal(t, tt.wantStatus, got)
			require.Equal(t, tt.wantStdout, stdout.String())
			require.Equal(t, tt.wantStderr, stderr.String())
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Every command's --help ends its description with the exit statuses it can return, the root
// command's with all of them, and the README's CLI section holds that list.
func TestExitStatusesDocumented(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := append(strings.Fields(commandPath(c)), "--help")
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitOK, run(args, nil, &stdout, &stderr), "%q: %s", args, stderr.String())
		help := exitHelp(commandPath(c))
		require.Contains(t, stdout.String(), "\n\n"+help+"\n", "%q", args)
		for _, s := range exitStatuses {
			if s.commands == nil || slices.Contains(s.commands, commandPath(c)) {
				require.Contains(t, help+"\n", fmt.Sprintf("  %d  %s\n", s.code, s.meaning), "%q", args)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(&env{out: new(bytes.Buffer)}))

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	cli := string(readme)[strings.Index(string(readme), "\n## The CLI\n"):]
	cli = cli[:strings.Index(cli[1:], "\n## ")+1]
	require.Contains(t, cli, "\n"+exitHelp("")+"\n", "README.md's CLI section lists every exit status as daemonsched --help does")
}

// Every golden case exits with a status its command documents, and every documented status is
// the exit of a golden case of that command: a finding with its output on stdout, bad input and
// usage errors with nothing there.
func TestGoldenExitStatusesAreDocumented(t *testing.T) {
	t.Parallel()
	argsFiles, err := filepath.Glob(filepath.Join("testdata", "*", "args"))
	require.NoError(t, err)
	type row struct{ code, path string }
	seen := map[row]bool{}
	for _, argsFile := range argsFiles {
		dir := filepath.Dir(argsFile)
		args := readArgs(t, argsFile)
		exitText, err := os.ReadFile(filepath.Join(dir, "exit"))
		require.NoError(t, err)
		code, err := strconv.Atoi(strings.TrimSpace(string(exitText)))
		require.NoError(t, err)
		stdout, err := os.ReadFile(filepath.Join(dir, "stdout"))
		require.NoError(t, err)
		root := newRootCommand(&env{out: new(bytes.Buffer)})
		cmd, _, err := root.Find(args)
		if err != nil {
			cmd = root
		}
		path := commandPath(cmd)
		documented := false
		for _, s := range exitStatuses {
			if s.code != code || !(s.commands == nil || slices.Contains(s.commands, path) || path == "") {
				continue
			}
			documented = true
			switch {
			case s.commands != nil && len(stdout) > 0:
				seen[row{strconv.Itoa(code), path}] = true
			case s.commands == nil && (code == exitOK) == (len(stdout) > 0):
				seen[row{strconv.Itoa(code), ""}] = true
			}
		}
		require.True(t, documented, "%s: %q exits %d, which %q --help does not list", dir, args, code, path)
	}
	for _, s := range exitStatuses {
		if s.code > 128 {
			continue // a signal's status: no golden case sends one (TestConformanceRunInterruptedKillsTheGroup)
		}
		paths := s.commands
		if paths == nil {
			paths = []string{""}
		}
		for _, p := range paths {
			require.True(t, seen[row{strconv.Itoa(s.code), p}], "no golden case of %q exits %d (%s)", p, s.code, s.meaning)
		}
	}
}
