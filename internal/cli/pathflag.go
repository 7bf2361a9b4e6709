package cli

import (
	"fmt"

	"github.com/daemonsched/daemonsched/manifest"
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
	if err := manifest.NotRegular(path); err != nil {
		return fmt.Errorf("%w%s", err, stdinHint(flag))
	}
	return nil
}
