package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// realDump is a List as `kubectl get nodes,pods,daemonsets,controllerrevisions,services -A -o
// yaml` prints it from a v1.36 cluster: managedFields, resourceVersion, the status of every kind.
func realDump(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real-dump-v136", "dump.yaml"))
	require.NoError(t, err)
	return data
}

// runFiles writes each file into a fresh directory and runs daemonsched with args and -f for each,
// in the order given.
func runFiles(t *testing.T, files map[string][]byte, order []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range order {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, files[name], 0o644))
		args = append(args, "-f", path)
	}
	var out, errOut bytes.Buffer
	code = run(args, nil, &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestParseRFC3339(t *testing.T) {
	t.Parallel()
	utc := func(s string, ns int) time.Time {
		t, _ := time.Parse(time.DateTime, s)
		return t.Add(time.Duration(ns))
	}
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{name: "UTC without fraction", in: "2026-03-02T10:00:00Z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "UTC with milliseconds", in: "2026-03-02T10:00:00.123Z", want: utc("2026-03-02 10:00:00", 123e6)},
		{name: "nanoseconds", in: "2026-03-02T10:00:00.000000001Z", want: utc("2026-03-02 10:00:00", 1)},
		{name: "positive offset", in: "2026-03-02T12:00:00+02:00", want: utc("2026-03-02 10:00:00", 0)},
		{name: "negative offset and fraction", in: "2026-03-02T05:00:00.5-05:00", want: utc("2026-03-02 10:00:00", 5e8)},
		{name: "zero offset", in: "2026-03-02T10:00:00+00:00", want: utc("2026-03-02 10:00:00", 0)},
		{name: "lower-case t and z", in: "2026-03-02t10:00:00z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "space between date and time (RFC 3339 5.6)", in: "2026-03-02 10:00:00Z", want: utc("2026-03-02 10:00:00", 0)},
		{name: "no zone is refused", in: "2026-03-02T10:00:00", wantErr: true},
		{name: "offset without colon is refused", in: "2026-03-02T10:00:00+0200", wantErr: true},
		{name: "date only is refused", in: "2026-03-02", wantErr: true},
		{name: "Unix seconds are refused", in: "1772445600", wantErr: true},
		{name: "empty is refused", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f timeFlag
			err := f.Set(tt.in)
			if tt.wantErr {
				require.ErrorContains(t, err, "not an RFC 3339 time")
				return
			}
			require.NoError(t, err)
			require.True(t, tt.want.Equal(f.t), "got %v, want %v", f.t, tt.want)
			require.Equal(t, time.UTC, f.t.Location())
		})
	}
}

// -o yaml holds what -o json holds; both are byte-identical across runs.
func TestYAMLOutputIsTheJSONContent(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"d.yaml": realDump(t)}
	js, _, code := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "json")
	require.Equal(t, exitOK, code)
	y, _, code := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "yaml")
	require.Equal(t, exitOK, code)
	fromYAML, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(js)))
	require.JSONEq(t, compact.String(), string(fromYAML))
	js2, _, _ := runFiles(t, files, []string{"d.yaml"}, "plan", "-o", "json")
	require.Equal(t, js, js2)

	// The built-in example too, which has every kind of action.
	var out1, out2, e bytes.Buffer
	require.Equal(t, exitOK, run([]string{"plan", "--example", "-o", "json"}, nil, &out1, &e))
	require.Equal(t, exitOK, run([]string{"plan", "--example", "-o", "yaml"}, nil, &out2, &e))
	fromYAML, err = yaml.YAMLToJSON(out2.Bytes())
	require.NoError(t, err)
	require.JSONEq(t, out1.String(), string(fromYAML))
}
