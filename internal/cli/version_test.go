package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// A release build's stamp (release/release.sh sets stampedVersion with -ldflags -X) is the
// version printed, before the module's own.
func TestVersionPrintsTheStamp(t *testing.T) {
	defer func(old string) { stampedVersion = old }(stampedVersion)
	stampedVersion = "v9.8.7"
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"version"}, nil, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "daemonsched v9.8.7\n")
}
