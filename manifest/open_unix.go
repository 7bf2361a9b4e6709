//go:build unix

package manifest

import "syscall"

// openFlags opens a file without blocking: open(2) of a named pipe otherwise waits for a writer.
const openFlags = syscall.O_NONBLOCK
