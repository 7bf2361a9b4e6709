package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
)

// requiredFields are the fields of one plan the JSON contract always prints; the others
// (skipped, rollingUpdate, collisionCount, revisions, events, conflicts, invalid, statusWrite,
// backoff, requeueAfter, the uids of pods) are optional.
var requiredFields = []string{"namespace", "name", "revisionHash", "create", "delete", "adopt", "release", "status"}

// DecodePlan reads a candidate in the shape `daemonsched plan -o json` prints: an object whose
// daemonSets lists one plan per DaemonSet. Unknown fields are ignored; a missing required
// field, a value of the wrong type, text that is not JSON or a resource quantity beyond
// manifest's default limits (manifest.CheckQuantities) is an error naming where it is.
func DecodePlan(data []byte) ([]*daemonset.Result, error) {
	var top struct {
		DaemonSets []json.RawMessage `json:"daemonSets"`
	}
	if !json.Valid(data) {
		var syntax *json.SyntaxError
		if err := json.Unmarshal(data, &top); errors.As(err, &syntax) {
			return nil, fmt.Errorf("candidate: not valid JSON at byte %d: %w", syntax.Offset, err)
		}
		return nil, fmt.Errorf("candidate: not valid JSON")
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("candidate: %w", err)
	}
	if top.DaemonSets == nil {
		return nil, fmt.Errorf("candidate: daemonSets: required field is missing")
	}
	out := make([]*daemonset.Result, len(top.DaemonSets))
	for i, raw := range top.DaemonSets {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("candidate: daemonSets[%d]: %w", i, err)
		}
		for _, f := range requiredFields {
			if _, ok := fields[f]; !ok {
				return nil, fmt.Errorf("candidate: daemonSets[%d].%s: required field is missing", i, f)
			}
		}
		var r daemonset.Result
		// A quantity such as 1e-999999999 takes hours to parse: refuse it first.
		if err := manifest.CheckQuantities(raw, &r, manifest.Limits{}); err != nil {
			return nil, fmt.Errorf("candidate: daemonSets[%d].%w", i, err)
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("candidate: daemonSets[%d]: %w", i, err)
		}
		out[i] = &r
	}
	return out, nil
}
