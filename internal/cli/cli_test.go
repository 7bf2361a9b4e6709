package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// version names the default Kubernetes release (the newest), every supported one and the
// k8s.io/api module built in (VER-1).
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"version", "-o", "json"}, nil, &out, &errOut), errOut.String())
	var v versionInfo
	require.NoError(t, yaml.Unmarshal(out.Bytes(), &v))
	require.Equal(t, "v1.37.2", v.Kubernetes)
	require.Equal(t, []string{"v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"}, v.Supported)
	// KubernetesAPI comes from a main package's build information: cmd/daemonsched's test.
	require.NotEmpty(t, v.Version)

	out.Reset()
	require.Equal(t, exitOK, run([]string{"version"}, nil, &out, &errOut))
	require.Contains(t, out.String(), "Kubernetes semantics: v1.37.2 by default")
	require.Contains(t, out.String(), "Supported Kubernetes releases (--kubernetes-version): v1.33.13, v1.34.4, v1.35.4, v1.36.3, v1.37.2")
}

// completion writes each shell's script on stdout; an unknown shell is a usage error.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		var out, errOut bytes.Buffer
		require.Equal(t, exitOK, run([]string{"completion", shell}, nil, &out, &errOut), shell)
		require.Contains(t, out.String(), "daemonsched", shell)
		require.Empty(t, errOut.String(), shell)
	}
	var out, errOut bytes.Buffer
	require.Equal(t, exitUsage, run([]string{"completion", "tcsh"}, nil, &out, &errOut))
	require.Empty(t, out.String())
	require.True(t, strings.HasPrefix(errOut.String(), "error: "), errOut.String())
}

// Every command's --help goes to stdout with exit 0, and lists its flags.
func TestHelpOnStdoutForEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"plan", "--help"}, {"plan", "-h"}, {"demo", "--help"}, {"explain", "--help"}, {"verify", "--help"},
		{"rollout", "status", "--help"}, {"forecast", "--help"}, {"conformance", "run", "--help"}, {"conformance", "serve", "--help"},
		{"version", "--help"}, {"help", "plan"},
	} {
		var out, errOut bytes.Buffer
		require.Equal(t, exitOK, run(args, nil, &out, &errOut), "%q", args)
		require.Empty(t, errOut.String(), "%q", args)
		require.Contains(t, out.String(), "Flags:", "%q", args)
	}
}

// A flag's help states one default: conformance's --kubernetes-version says what none given
// means, and pflag added "(default 1.37.2)", the newest release, after it.
func TestHelpStatesOneDefault(t *testing.T) {
	for _, args := range [][]string{{"conformance", "run", "--help"}, {"conformance", "serve", "--help"}, {"plan", "--help"}} {
		var out, errOut bytes.Buffer
		require.Equal(t, exitOK, run(args, nil, &out, &errOut), "%q", args)
		for line := range strings.Lines(out.String()) {
			if strings.Contains(line, "(default") {
				require.Equal(t, 1, strings.Count(line, "(default")+strings.Count(line, "; default v"), "%q: %s", args, line)
			}
		}
	}
}

// A terminal on stdin is never read without -f -: stdin is read only when it is piped.
func TestTerminalIsNotRead(t *testing.T) {
	require.True(t, isTerminal(nil))
	require.False(t, isTerminal(strings.NewReader("")))
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, isTerminal(f), "a regular file redirected to stdin is read")
	if tty, err := os.Open("/dev/tty"); err == nil {
		defer tty.Close()
		require.True(t, isTerminal(tty))
	}
}

// Directories of -f are read for their manifest files only, sorted; -R adds subdirectories.
func TestExpandDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.yaml", "a.JSON", "c.yml", "notes.txt", "sub/d.yaml"} {
		path := dir + "/" + name
		require.NoError(t, os.MkdirAll(path[:strings.LastIndex(path, "/")], 0o755))
		require.NoError(t, os.WriteFile(path, nil, 0o644))
	}
	got, err := expand([]string{"-", dir, "missing.yaml"}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"-", dir + "/a.JSON", dir + "/b.yaml", dir + "/c.yml", "missing.yaml"}, got)
	got, err = expand([]string{dir}, true)
	require.NoError(t, err)
	require.Equal(t, []string{dir + "/a.JSON", dir + "/b.yaml", dir + "/c.yml", dir + "/sub/d.yaml"}, got)
	_, err = expand([]string{dir + "/sub/.."}, false)
	require.NoError(t, err)
	empty := t.TempDir()
	_, err = expand([]string{empty}, false)
	require.ErrorContains(t, err, "a directory without .json, .yaml or .yml files (-R reads its subdirectories too)")
}
