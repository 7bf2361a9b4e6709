package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/spf13/cobra"
)

// Exit statuses. This file is the one place they are defined: exitStatuses says what each means
// and which commands use it, every command's --help prints the section exitHelp makes of it,
// and the README's CLI section holds the whole list (TestExitStatusesDocumented).
const (
	exitOK            = 0
	exitBadInput      = 1 // also a finding: a candidate or a profile run that does not conform
	exitUsage         = 2
	exitNotReady      = 3 // node-ready (WHATIF-5)
	exitProgressing   = 3 // rollout status (ROLL-11), forecast (ROLL-10)
	exitStuck         = 4 // rollout status (ROLL-11), forecast (ROLL-10)
	exitNonconforming = exitBadInput
	exitLintFindings  = exitBadInput // lint (LINT-9)
	// A signal ended conformance run (interrupt.go): 128 plus the signal's number (2 and 15
	// on every system Go runs on), as a shell reports a command the signal killed.
	exitInterrupted = 130 // SIGINT
	exitTerminated  = 143 // SIGTERM
)

// exitStatus is a command that answered, with a status other than 0: run writes its output, as
// on success, and exits with the status. A command returns one of the findings below; any other
// error is bad input (exit 1, nothing on stdout) or, marked with errUsage, a usage error.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// The findings.
const (
	errNonconforming = exitStatus(exitNonconforming) // verify, conformance run
	errNotReady      = exitStatus(exitNotReady)      // node-ready
	errProgressing   = exitStatus(exitProgressing)   // rollout status, forecast
	errStuck         = exitStatus(exitStuck)         // rollout status, forecast
	errLintFindings  = exitStatus(exitLintFindings)  // lint
)

// exitStatuses is what each exit status means, in the order --help lists them. commands are the
// paths of the commands that exit so, without "daemonsched "; nil is every command.
var exitStatuses = []struct {
	code     int
	commands []string
	meaning  string
}{
	{exitOK, nil, "success (the answer on stdout)"},
	{exitBadInput, nil, "bad input or another error (one line each on stderr, nothing on stdout)"},
	{exitNonconforming, []string{"verify"}, "the candidate does not conform (one line per mismatch on stdout, the summary on stderr)"},
	{exitNonconforming, []string{"conformance run"}, "a profile run does not conform (the summary on stdout)"},
	{exitLintFindings, []string{"lint"}, "a finding at or above --fail-on (the findings on stdout)"},
	{exitUsage, nil, `usage (one "error: ..." line on stderr and where to find help, nothing on stdout)`},
	{exitNotReady, []string{"node-ready"}, "the node is not ready for workloads (the table on stdout)"},
	{exitProgressing, []string{"rollout status"}, "a rollout is progressing and none is stuck (the report on stdout)"},
	{exitStuck, []string{"rollout status"}, "a rollout is stuck (the report on stdout)"},
	{exitProgressing, []string{"forecast"}, "a rollout is still progressing at the forecast's end and none is stuck (the forecast on stdout)"},
	{exitStuck, []string{"forecast"}, "a rollout ends stuck (the forecast on stdout)"},
	{exitInterrupted, []string{"conformance run"}, "interrupted by SIGINT: PROGRAM's process group killed, no report written (one line on stderr, nothing on stdout)"},
	{exitTerminated, []string{"conformance run"}, "terminated by SIGTERM: the same"},
}

// exitHelp is the "Exit status" section of the help of the command at path (its CommandPath
// without "daemonsched "): the statuses of every command and its own. The root command ("")
// lists them all, each finding with the command it belongs to.
func exitHelp(path string) string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range exitStatuses {
		meaning := s.meaning
		switch {
		case s.commands == nil:
		case path == "":
			meaning = strings.Join(s.commands, ", ") + ": " + meaning
		case !slices.Contains(s.commands, path):
			continue
		}
		fmt.Fprintf(&b, "  %d  %s\n", s.code, meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// commandPath is c's path without the root's name: "rollout status", "" for the root.
func commandPath(c *cobra.Command) string {
	_, path, _ := strings.Cut(c.CommandPath(), " ")
	return path
}

// addExitHelp ends the description of c and of every command under it with its exit statuses
// (cobra's help prints Short where Long is empty, so that becomes the Long).
func addExitHelp(c *cobra.Command) {
	long := c.Long
	if long == "" {
		long = c.Short
	}
	c.Long = strings.TrimRight(long, "\n") + "\n\n" + exitHelp(commandPath(c))
	for _, sub := range c.Commands() {
		addExitHelp(sub)
	}
}

// exit writes what the command returned and says the status run exits with: the output held in
// out, written once, on success and with a finding; on a usage error one "error: ..." line and
// where to find help (cmd's), and on any other error the error, nothing on stdout.
func exit(cmd *cobra.Command, err error, out []byte, stdout, stderr io.Writer) int {
	var status exitStatus
	var interrupted *interruptedError
	switch {
	case errors.Is(err, errUsage):
		msg := strings.TrimRight(err.Error(), "\n")
		fmt.Fprintf(stderr, "error: %s\nSee '%s --help'.\n", printable.Escape(msg), cmd.CommandPath())
		return exitUsage
	case errors.As(err, &interrupted):
		printError(stderr, err)
		return interrupted.code()
	case err != nil && !errors.As(err, &status):
		printError(stderr, err)
		return exitBadInput
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "daemonsched: %v\n", err)
		return exitBadInput
	}
	return int(status)
}
