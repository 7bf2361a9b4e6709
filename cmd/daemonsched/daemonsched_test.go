package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/stretchr/testify/require"
)

// The binary names the k8s.io/api module built into it: only a main package's build
// information lists the modules, so this is checked here rather than in internal/cli.
func TestVersionNamesTheBuiltInAPI(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, cli.Run([]string{"version", "-o", "json"}, nil, &out, &errOut), errOut.String())
	var v struct {
		KubernetesAPI string `json:"kubernetesAPI"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &v))
	require.True(t, strings.HasPrefix(v.KubernetesAPI, "v0.37."), v.KubernetesAPI)
}
