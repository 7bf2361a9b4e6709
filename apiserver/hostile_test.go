package apiserver_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// bombDaemonSet is a DaemonSet whose container's resources are given as res (JSON text).
func bombDaemonSet(res string) string {
	return `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"default"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i",` + res + `}]}}}}`
}

// ApplyJSON is a library entry point: it refuses hostile JSON itself, not only because
// package manifest gates it first (issue 25, dupgate). Each input once took hours: parsing
// "1e-999999999" builds 10^999999999.
func TestApplyJSONRefusesHostileInput(t *testing.T) {
	t.Parallel()
	requests := field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "requests")
	tests := []struct {
		name     string
		manifest string
		wantErrs field.ErrorList
	}{{
		name:     "a quantity with a huge negative exponent is refused before it is parsed",
		manifest: bombDaemonSet(`"resources":{"requests":{"cpu":"1e-999999999"}}`),
		wantErrs: field.ErrorList{field.Invalid(requests.Key("cpu"), "1e-999999999", "")},
	}, {
		name:     "a quantity with a huge exponent between spaces is refused",
		manifest: bombDaemonSet(`"resources":{"limits":{"memory":" 1E+999999999 "}}`),
		wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "limits").Key("memory"), " 1E+999999999 ", "")},
	}, {
		// The first is not sent (D-21, TestApplyJSONKeepsTheLastOfAKeyGivenTwice).
		name:     "a quantity bomb in the last of a key given twice is refused",
		manifest: bombDaemonSet(`"resources":{},"resources":{"requests":{"cpu":"1e-999999999"}}`),
		wantErrs: field.ErrorList{field.Invalid(requests.Key("cpu"), "1e-999999999", "")},
	}, {
		name:     "invalid UTF-8, which encoding/json would replace silently, is refused",
		manifest: strings.Replace(bombDaemonSet(`"resources":{}`), `"image":"i"`, "\"image\":\"i\xff\"", 1),
		wantErrs: field.ErrorList{field.Invalid(nil, nil, "")},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, live := range []bool{false, true} {
				data := []byte(tt.manifest)
				before := bytes.Clone(data)
				stored := stored(t)
				if !live {
					stored = nil
				}
				got, errs := apiserver.ApplyJSON(stored, data, apiserver.Options{})
				if got != nil {
					t.Errorf("ApplyJSON stored %v", got)
				}
				if !bytes.Equal(before, data) {
					t.Fatal("ApplyJSON modified its input")
				}
				matcher := field.ErrorMatcher{}.ByType().ByField()
				if tt.wantErrs[0].Field != "<nil>" {
					matcher = matcher.ByValue()
				}
				matcher.Test(t, tt.wantErrs, errs)
			}
		})
	}
}

// A refused quantity names its path and the bound passed, not the flags of the CLI, which
// ApplyJSON does not read (issue 25): apiserver takes no limits.
func TestApplyJSONQuantityErrorNamesTheBound(t *testing.T) {
	t.Parallel()
	for _, res := range []string{`"resources":{"requests":{"cpu":"1e-999999999"}}`, `"resources":{"requests":{"cpu":"` + strings.Repeat("1", 65) + `"}}`} {
		_, errs := apiserver.ApplyJSON(nil, []byte(bombDaemonSet(res)), apiserver.Options{})
		require.Len(t, errs, 1)
		require.Equal(t, "spec.template.spec.containers[0].resources.requests[cpu]", errs[0].Field)
		require.NotContains(t, errs[0].Detail, "--max-quantity")
		require.NotContains(t, errs[0].Detail, "limit Quantity")
		require.Regexp(t, `^a quantity (with an exponent beyond ±100|longer than 64 characters)$`, errs[0].Detail)
	}
}

// Text that is not a DaemonSet is quoted cut at a rune boundary, as every cut value is
// (errlist.Cut): cutting at byte 77 split a two-byte rune.
func TestApplyJSONCutsTheQuotedTextAtARune(t *testing.T) {
	t.Parallel()
	_, errs := apiserver.ApplyJSON(nil, []byte(strings.Repeat("é", 60)), apiserver.Options{})
	require.Len(t, errs, 1)
	value, ok := errs[0].BadValue.(string)
	require.True(t, ok)
	require.True(t, utf8.ValidString(value), "cut value %q is not UTF-8", value)
}
