package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt")

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	const golden = "testdata/output.txt"
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("run() output mismatch (-want +got):\n%s", diff)
	}
}
