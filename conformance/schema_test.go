package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// validate checks v against the subset of JSON Schema the two schemas use: $ref to $defs,
// type, enum, required, properties, additionalProperties false, items, pattern, minimum. It
// returns the first problem with its path.
func validate(root, schema map[string]any, v any, path string) error {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: unknown $ref %s", path, ref)
		}
		return validate(root, def, v, path)
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", path, v, enum)
	}
	if t, ok := schema["type"]; ok && !hasType(t, v) {
		return fmt.Errorf("%s: %T is not of type %v", path, v, t)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range asSlice(schema["required"]) {
			if _, ok := x[r.(string)]; !ok {
				return fmt.Errorf("%s: required %s is missing", path, r)
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for k, val := range x {
			sub, ok := props[k].(map[string]any)
			if !ok {
				if schema["additionalProperties"] == false {
					return fmt.Errorf("%s: property %s is not allowed", path, k)
				}
				continue
			}
			if err := validate(root, sub, val, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, val := range x {
				if err := validate(root, items, val, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case string:
		if p, ok := schema["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(x) {
			return fmt.Errorf("%s: %q does not match %s", path, x, p)
		}
	case float64:
		if m, ok := schema["minimum"].(float64); ok && x < m {
			return fmt.Errorf("%s: %v is below %v", path, x, m)
		}
	}
	return nil
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func hasType(t, v any) bool {
	for _, name := range append(asSlice(t), t) {
		ok := false
		switch name {
		case "object":
			_, ok = v.(map[string]any)
		case "array":
			_, ok = v.([]any)
		case "string":
			_, ok = v.(string)
		case "boolean":
			_, ok = v.(bool)
		case "integer":
			f, isNum := v.(float64)
			ok = isNum && f == float64(int64(f))
		case "null":
			ok = v == nil
		}
		if ok {
			return true
		}
	}
	return false
}

func loadSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCasesMatchTheSchema validates every corpus file, as YAML read into JSON, against
// case.schema.json, and checks that the validator catches a broken case.
func TestCasesMatchTheSchema(t *testing.T) {
	schema := loadSchema(t, "case.schema.json")
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, schema, v, filepath.Base(f)); err != nil {
			t.Error(err)
		}
		broken := v.(map[string]any)
		broken["expected"].([]any)[0].(map[string]any)["orders"].(map[string]any)["phase"] = "later"
		if validate(schema, schema, broken, "") == nil {
			t.Errorf("%s: a case with an unknown phase passes the schema", f)
		}
	}
}

// TestReportsMatchTheSchema validates reports of passing, failing, skipped and broken cases
// against result.schema.json.
func TestReportsMatchTheSchema(t *testing.T) {
	schema := loadSchema(t, "result.schema.json")
	outcomes := []Outcome{
		{Case: "a", Profile: "diff", Result: "pass"},
		{Case: "b", Profile: "diff", Result: "fail", Mismatches: []Mismatch{{DaemonSet: "ns/ds", Action: "delete", Object: "ns/p", Rule: "DIFF-17", Message: "m", Diff: "d"}}, MoreMismatches: 2},
		{Case: "c", Profile: "rolling", Result: "skip", Error: "not implemented"},
		{Case: "d", Profile: "status", Result: "error", Error: "exited"},
	}
	for _, r := range Reports("impl", outcomes) {
		data, err := yaml.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, schema, v, r.Profile); err != nil {
			t.Error(err)
		}
	}
}

// TestProtocolMatchesTheSchema validates the request of every corpus case, numbered as the
// runner numbers them, and answers of each kind against protocol.schema.json.
func TestProtocolMatchesTheSchema(t *testing.T) {
	schema := loadSchema(t, "protocol.schema.json")
	request := map[string]any{"$ref": "#/$defs/request"}
	response := map[string]any{"$ref": "#/$defs/response"}
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		req := NewRequest(c)
		req.ID = int64(i + 1)
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, request, v, c.Name); err != nil {
			t.Error(err)
		}
	}
	id := int64(3)
	for _, r := range []Response{{ID: &id, Skip: "not mine"}, {DaemonSets: json.RawMessage(`[]`)}, {ID: &id, Error: "request 3: not a request"}} {
		data, _ := json.Marshal(r)
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, response, v, string(data)); err != nil {
			t.Error(err)
		}
	}
	if validate(schema, request, map[string]any{"case": "x"}, "") == nil {
		t.Error("a request without its snapshot passes the schema")
	}
}
