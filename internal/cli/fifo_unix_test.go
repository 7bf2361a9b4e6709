//go:build unix

package cli

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path, for the tests that a reader must refuse one.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
