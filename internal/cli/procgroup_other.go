//go:build !unix

package cli

import "os/exec"

// inOwnGroup does nothing where there are no process groups.
func inOwnGroup(*exec.Cmd) {}

// killGroup kills the program alone where there are no process groups.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill() //nolint:errcheck // it may have exited already
	}
}

// groupOf names what killGroup kills, for messages: prog alone.
func groupOf(prog string) string { return prog }
