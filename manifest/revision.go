package manifest

import (
	"bytes"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
)

// canonicalData rewrites a ControllerRevision's data as the controller stored it: compact JSON
// with sorted keys, as encoding/json writes a map (pkg/controller/daemon getPatch). The library
// compares these bytes with the template's (UPD-16), and kubectl prints them re-indented (-o
// json) or as YAML, so without this a revision read from `kubectl get -o json` would never be
// current and would even look like a hash collision (UPD-21).
func canonicalData(cr *appsv1.ControllerRevision) error {
	if len(cr.Data.Raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(cr.Data.Raw))
	dec.UseNumber() // integers stay integers, written back as they were
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	cr.Data.Raw = raw
	return nil
}
