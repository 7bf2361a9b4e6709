//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd the leader of a process group of its own, so that killGroup reaches
// the children it starts too: they would otherwise outlive the runner and keep writing to
// the terminal (F8).
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group inOwnGroup made for cmd, the program and every process
// it started that stayed in its group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // the group may be gone already
}

// groupOf names what killGroup kills, for messages: prog's process group.
func groupOf(prog string) string { return prog + "'s process group" }
