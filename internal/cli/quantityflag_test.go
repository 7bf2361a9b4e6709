package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A refused quantity names the flag that sets its bound, in the inputs and in verify's
// candidate plan alike: --max-quantity-* bound every quantity the command reads (issue 25 item
// 1: the candidate was read at the default bounds whatever the flags said, and its refusal
// named no flag).
func TestQuantityRefusalNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	node := func(cpu string) string {
		return "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: \"" + cpu + "\"}}\n"
	}
	bomb := write("bomb.yaml", node("1e-999999999"))
	long := write("long.yaml", node(strings.Repeat("1", 70)))
	candidate := func(cpu string) string {
		return `{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":[{"node":"n","reason":"","pod":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"` + cpu + `"}}}]}}}],"delete":[],"adopt":[],"release":[],"status":null}]}`
	}
	plan := write("plan.json", candidate("1e-999999999"))
	plan60 := write("plan60.json", candidate("1e-60"))
	choices := filepath.Join("testdata", "manifests", "choices.yaml")
	tests := []struct {
		name       string
		args       []string
		wantSuffix string
	}{{
		name:       "an input's exponent names --max-quantity-exponent",
		args:       []string{"plan", "-f", bomb},
		wantSuffix: "a quantity with an exponent beyond ±100 (limit QuantityExponent, --max-quantity-exponent)\n",
	}, {
		name:       "an input's length names --max-quantity-length, at the bound the flag set",
		args:       []string{"plan", "-f", long, "--max-quantity-length", "65"},
		wantSuffix: "a quantity longer than 65 characters (limit QuantityLength, --max-quantity-length)\n",
	}, {
		name:       "a candidate plan's exponent names --max-quantity-exponent",
		args:       []string{"verify", "-f", choices, "--plan", plan},
		wantSuffix: "a quantity with an exponent beyond ±100 (limit QuantityExponent, --max-quantity-exponent)\n",
	}, {
		name:       "a candidate plan's exponent is judged at the bound the flag set",
		args:       []string{"verify", "-f", choices, "--plan", plan60, "--max-quantity-exponent", "50"},
		wantSuffix: "plan60.json: candidate: daemonSets[0].create[0].pod.spec.containers[0].resources.requests[cpu]: Invalid value: \"1e-60\": a quantity with an exponent beyond ±50 (limit QuantityExponent, --max-quantity-exponent)\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWithin(t, nil, tt.args...)
			require.Equal(t, 1, code, stderr)
			require.True(t, strings.HasSuffix(stderr, tt.wantSuffix), stderr)
		})
	}
}

// The refusals at the bounds of manifest.Limits name the flag that sets each, beside the bound
// the library names (issue 25: the library's messages named the command's flags, the flags of
// a program it does not know), for the inputs and for the files read beside them at
// --max-input-bytes.
func TestLimitRefusalNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	nodes := write("nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n")
	blanks := write("blanks.yaml", strings.Repeat("---\n", 5)+"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
	whatif := filepath.Join("testdata", "manifests", "whatif.yaml")
	template := write("template.yaml", "name: n\nlabels: {a: b}\n"+strings.Repeat("# padding\n", 1000))
	tests := []struct {
		name       string
		args       []string
		wantSuffix string
	}{{
		name:       "too many objects names --max-objects",
		args:       []string{"plan", "-f", nodes, "--max-objects", "1"},
		wantSuffix: ": more than 1 objects (limit Objects, --max-objects)\n",
	}, {
		name:       "too many empty documents names --max-objects",
		args:       []string{"plan", "-f", blanks, "--max-objects", "3"},
		wantSuffix: ": more than 3 documents, empty ones included (limit Objects, --max-objects)\n",
	}, {
		name:       "an input too large names --max-input-bytes",
		args:       []string{"plan", "-f", nodes, "--max-input-bytes", "10"},
		wantSuffix: ": input is larger than 10 bytes (limit InputBytes, --max-input-bytes)\n",
	}, {
		name:       "an object too large names --max-object-bytes before the API server's limit",
		args:       []string{"plan", "-f", nodes, "--max-object-bytes", "10"},
		wantSuffix: ": an object larger than 10 bytes (limit ObjectBytes, --max-object-bytes; the API server's is 3 MiB)\n",
	}, {
		name:       "a node template too large names --max-object-bytes",
		args:       []string{"whatif", "-f", whatif, "--node-template", template, "--max-object-bytes", "5000"},
		wantSuffix: ": a node template larger than 5000 bytes (limit ObjectBytes, --max-object-bytes; the API server's is 3 MiB)\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWithin(t, nil, tt.args...)
			require.Equal(t, 1, code, stderr)
			require.True(t, strings.HasSuffix(stderr, tt.wantSuffix), stderr)
		})
	}
}
