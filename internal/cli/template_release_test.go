package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// forecast --template applies the template through the API server of the release modelled
// (--kubernetes-version), so its template defaults are that release's: before 1.35 the API
// server drops a new template's image volumes and their mounts (VER-10, DFLT-3), and the
// revision forecast is that of the template without them; from 1.35 the volume is kept.
func TestForecastTemplateDefaultsAtTheRelease(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.ReadFile(filepath.Join("testdata", "forecast-template", "new-ds.yaml"))
	require.NoError(t, err)
	withVolume := strings.Replace(string(plain), "        resources: {}\n", `        resources: {}
        volumeMounts:
        - mountPath: /models
          name: models
      volumes:
      - image:
          reference: registry.example.com/models:v1
        name: models
`, 1)
	require.NotEqual(t, string(plain), withVolume)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.yaml"), plain, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "volume.yaml"), []byte(withVolume), 0o600))
	revision := func(release, template string) string {
		var out, errOut bytes.Buffer
		args := []string{"forecast", "-f", filepath.Join("testdata", "forecast-template", "before.yaml"),
			"--template", filepath.Join(dir, template), "--startup", "20s-40s", "--kubernetes-version", release, "--now", "2025-01-01T00:00:00Z"}
		require.Equal(t, exitOK, run(args, nil, &out, &errOut), errOut.String())
		first, _, _ := strings.Cut(out.String(), ",")
		require.Contains(t, first, " to revision ")
		return first
	}
	for _, tt := range []struct {
		name     string
		release  string
		wantSame bool
	}{
		{"1.34 drops the image volume, so the revision is the plain template's (VER-10)", "1.34", true},
		{"1.33 drops the image volume, so the revision is the plain template's (VER-10)", "1.33", true},
		{"1.35 keeps the image volume, so the revision differs (DFLT-3)", "1.35", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			same := revision(tt.release, "volume.yaml") == revision(tt.release, "plain.yaml")
			require.Equal(t, tt.wantSame, same)
		})
	}
}
