package cli

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected stdout, stderr and exit of the golden cases")

// TestGolden runs every case under testdata/<case>/: "args" holds one argument per line, an
// optional "stdin" file is fed to standard input, and "stdout", "stderr" and "exit" hold what run
// must write and return, byte for byte. The case directory is the working directory, so file
// names in messages read as in the args. go test -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "args"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no golden cases under testdata")
	}
	for _, argsFile := range dirs {
		dir, err := filepath.Abs(filepath.Dir(argsFile))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Chdir(dir)
			args := readArgs(t, "args")
			// stdin is empty unless the case has a "stdin" file, and a terminal (nil) if it
			// has a "terminal" file.
			var stdin io.Reader = bytes.NewReader(nil)
			if data, err := os.ReadFile("stdin"); err == nil {
				stdin = bytes.NewReader(data)
			}
			if _, err := os.Stat("terminal"); err == nil {
				stdin = nil
			}
			var stdout, stderr bytes.Buffer
			code := run(args, stdin, &stdout, &stderr)
			got := map[string][]byte{
				"stdout": stdout.Bytes(),
				"stderr": stderr.Bytes(),
				"exit":   []byte(strconv.Itoa(code) + "\n"),
			}
			for _, name := range []string{"exit", "stderr", "stdout"} {
				if *update {
					if err := os.WriteFile(name, got[name], 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(name)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(want, got[name]) {
					t.Errorf("%s mismatch (args %q)\n--- want\n%s\n--- got\n%s", name, args, want, got[name])
				}
			}
		})
	}
}

// readArgs reads one argument per line; a final newline does not make an empty argument.
func readArgs(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
