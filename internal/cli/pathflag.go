package cli

import (
	"fmt"
	"io/fs"
	"os"
)

// stdinHint ends the refusal of a file, given to flag, that is not regular: it names the
// flag's own way to read a stream from stdin, or nothing for a flag that has none. --template
// has none (the template is read twice, stdin once), and --corpus names a directory, which
// stdin cannot be. Package manifest's refusal names -f's way whatever the flag: --apply FIFO
// said "read a stream from stdin (-f -)", which reads the stream as the input, not applied
// over it (issue 25).
func stdinHint(flag string) string {
	switch flag {
	case "-f", "--apply", "--plan", "--node-template":
		return "; read a stream from stdin (" + flag + " -)"
	}
	return ""
}

// checkPathFlag refuses path, given to flag, when it names neither a regular file nor a
// directory, before anything is read: a named pipe would block in open(2), a device never end.
// The message is package manifest's refusal of the same file (its gate refuses it again, should
// the file change in between), ended by the flag's hint (stdinHint). A path that cannot be
// stat'ed is left to the reader's error.
func checkPathFlag(flag, path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil
	}
	return fmt.Errorf("%s: not a regular file (%s)%s", path, fileType(st.Mode()), stdinHint(flag))
}

// fileType names the type of a file that is not regular, as package manifest names it in the
// same refusal.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
