//go:build unix

package cli

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/conformance"
)

// TestDriveReadsTheIDAsTheAnswerIsRead: the id that pairs an answer with its request is read
// through the gate the rest of the answer passes, under its exact key: a duplicate id is that
// case's error (as any duplicate key is), not an id; "ID" is not "id". Neither ends the run as
// out of step (issue 25, item 3).
func TestDriveReadsTheIDAsTheAnswerIsRead(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cases, err := conformance.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	small := cases[:3]
	tests := []struct {
		name    string
		answer  string
		want    []string
		wantErr string
	}{
		{"an id given twice", `{"id":1,"id":2,"skip":"no"}`, []string{"error", "error", "error"}, "Duplicate value"},
		{"an id spelt ID", `{"ID":99,"skip":"no"}`, []string{"skip", "skip", "skip"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			program := []string{"sh", "-c", `while read l; do printf '%s\n' "$1"; done`, "sh", tt.answer}
			var stderr bytes.Buffer
			got, err := drive(program, small, testLimits, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d outcomes, want %d", len(got), len(tt.want))
			}
			for i, o := range got {
				if o.Result != tt.want[i] {
					t.Errorf("case %d: %s (%s), want %s", i, o.Result, o.Error, tt.want[i])
				}
				if strings.Contains(o.Error, "out of step") {
					t.Errorf("case %d: %s", i, o.Error)
				}
				if tt.wantErr != "" && !strings.Contains(o.Error, tt.wantErr) {
					t.Errorf("case %d: error %q, want %q", i, o.Error, tt.wantErr)
				}
			}
		})
	}
}
