package conformance

import (
	"strings"
	"testing"
)

func TestDecodePlanErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", `{"daemonSets": [`, "not valid JSON at byte"},
		{"not an object", `[1]`, "cannot unmarshal array"},
		{"no daemonSets", `{}`, "daemonSets: required field is missing"},
		{"a required field missing", `{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":[],"delete":[],"adopt":[]}]}`, "daemonSets[0].release: required field is missing"},
		{"a quantity that would take hours to parse", `{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":[{"node":"n","reason":"","pod":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1e-999999999"}}}]}}}],"delete":[],"adopt":[],"release":[],"status":null}]}`,
			`candidate: daemonSets[0].create[0].pod.spec.containers[0].resources.requests[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100`},
		{"a wrong type", `{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":{},"delete":[],"adopt":[],"release":[],"status":null}]}`, "daemonSets[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodePlan([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	got, err := DecodePlan([]byte(`{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"h","create":[],"delete":[],"adopt":[],"release":[],"status":null,"future":1}]}`))
	if err != nil || len(got) != 1 || got[0].RevisionHash != "h" {
		t.Fatalf("optional and unknown fields: %v %+v", err, got)
	}
}
