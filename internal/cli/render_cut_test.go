package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestTableCutsALongName: a name longer than any valid one (plan --lenient prints a plan for
// it) is cut in the table rows as error lists cut values; a 1.5 MB name was printed whole
// (issue 25, item 3).
func TestTableCutsALongName(t *testing.T) {
	long := strings.Repeat("a", 1500000)
	r := &daemonset.Result{Namespace: "default", Name: long, Invalid: []string{"metadata.name: Invalid value"}}
	var out bytes.Buffer
	renderActions(&out, r, false, "")
	if out.Len() > 10000 {
		t.Errorf("the table has %d bytes for a %d-byte name, want it cut", out.Len(), len(long))
	}
	if !strings.Contains(out.String(), "bytes more)") {
		t.Errorf("the table does not say the name was cut:\n%.400s", out.String())
	}
}
