package apiserver_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// FuzzApplyJSON: ApplyJSON never panics, modifies neither its manifest nor the stored object,
// returns a DaemonSet or errors (never both, never neither), and ends in bounded time: what the
// gate lets through parses at once (issue 25, dupgate: "1e-999999999" took hours). The bound
// is generous for a loaded machine; the seeds took hours before the gate.
func FuzzApplyJSON(f *testing.F) {
	manifest, err := yaml.YAMLToJSON([]byte(manifestYAML))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(manifest, false) // the manifest of the other tests, created
	f.Add(manifest, true)  // applied over the object it created
	for _, res := range []string{
		`"resources":{"requests":{"cpu":"100m"}}`,                                // a plain quantity
		`"resources":{"requests":{"cpu":"1e-999999999"}}`,                        // the exponent bomb of kubernetes #141306
		`"resources":{"limits":{"memory":" 1e-999999999"}}`,                      // behind a space (issue 25, F1)
		`"resources":{"requests":{"cpu":"1e-999999999"}},"resources":{}`,         // the first of a key given twice (dupgate)
		`"resources":{"requests":{"cpu":"1e-999999999","cpu":"1"}}`,              // the first of a quantity given twice
		`"Resources":{"REQUESTS":{"cpu":"1e-999999999"}}`,                        // keys of other capitals: unknown fields, never parsed
		`"resources":{},"Resources":{"requests":{"cpu":"1e-999999999"}}`,         // the same beside the real key, which encoding/json filled from it
		`"resources":{"requests":{"cpu":1e999999999}}`,                           // a number, not a string
		`"resources":{"requests":{"cpu":"\u0031e-999999999"}}`,                   // behind an escape
		`"resources":{"requests":{"cpu":"99999999999999999999999999999999999"}}`, // long, but within the limit
	} {
		f.Add([]byte(bombDaemonSet(res)), false)
		f.Add([]byte(bombDaemonSet(res)), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, live bool) {
		before := bytes.Clone(data)
		var current = stored(t)
		if !live {
			current = nil
		}
		storedBefore := current.DeepCopy()
		start := time.Now()
		got, errs := apiserver.ApplyJSON(current, data, apiserver.Options{})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("ApplyJSON(%q) took %v", data, d)
		}
		if !bytes.Equal(before, data) {
			t.Fatal("ApplyJSON modified its manifest")
		}
		if diff := cmp.Diff(storedBefore, current); diff != "" {
			t.Fatalf("ApplyJSON modified stored (-before +after):\n%s", diff)
		}
		if (got == nil) == (len(errs) == 0) {
			t.Fatalf("ApplyJSON(%q) = %v, %v: want a DaemonSet or errors", data, got, errs)
		}
	})
}
