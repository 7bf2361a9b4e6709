package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"sigs.k8s.io/yaml"
)

// scenarioEntry is one entry of testdata/scenarios.json, which daemonset's
// TestScenarioExportIsCurrent writes from the scenario tables (SCN-*, Surprise-*): the
// objects of a scenario whose outcome, read as manifests, is the table's, or why it has none.
type scenarioEntry struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Scenarios   []string          `json:"scenarios"`
	Surprises   []int             `json:"surprises"`
	Rules       []string          `json:"rules"`
	Now         string            `json:"now"`
	BurstLimit  int               `json:"burstLimit"`
	Objects     []json.RawMessage `json:"objects"`
	LeftOut     string            `json:"leftOut"`
}

func readScenarios(t *testing.T) []scenarioEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []scenarioEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	return entries
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// scenarioCaseName is the case's file name: "scenario-", the scenario's IDs and words, cut at a
// word boundary so that names stay readable.
func scenarioCaseName(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 72 {
		s = s[:72]
		if i := strings.LastIndex(s, "-"); i > 0 {
			s = s[:i]
		}
	}
	return "scenario-" + s
}

// profileOf is the profile of a scenario's first rule family; "" lets finish decide from what
// the sync does.
func profileOf(rules []string) string {
	for _, r := range rules {
		switch r[:strings.LastIndex(r, "-")] {
		case "SEL", "NSEL", "AFF", "TAINT", "ELIG", "DEFTOL":
			return "placement"
		case "UPD":
			return "rolling"
		case "STAT":
			return "status"
		}
	}
	return ""
}

// scenarioCases turns every expressible scenario of testdata/scenarios.json into a case, its
// expectations computed as for every other case.
func scenarioCases(t *testing.T) []Case {
	t.Helper()
	var cases []Case
	seen := map[string]string{}
	for _, e := range readScenarios(t) {
		if e.LeftOut != "" {
			continue
		}
		name := scenarioCaseName(e.Name)
		if other, ok := seen[name]; ok {
			t.Fatalf("scenarios %q and %q have the same case name %s", other, e.Name, name)
		}
		seen[name] = e.Name
		src := Case{Name: name, Kubernetes: RecordedVersion, Now: e.Now, BurstLimit: e.BurstLimit, Objects: e.Objects}
		s, err := src.Snapshot()
		if err != nil {
			t.Fatalf("scenario %q: %v", e.Name, err)
		}
		opts, err := src.Options()
		if err != nil {
			t.Fatal(err)
		}
		s = withCurrentRevisions(t, s, opts)
		c := generatedCase(name, s, e.BurstLimit, fmt.Sprintf("generated from the scenario table case %q of daemonset's tests "+
			"(exported to testdata/scenarios.json by TestScenarioExportIsCurrent, which checks that the plan of these manifests "+
			"is the one the table states); choice sets from daemonset.Orders", e.Name))
		c.Now = e.Now
		c.Surprises = e.Surprises
		desc := e.Description
		if len(desc) > 0 {
			desc = strings.ToUpper(desc[:1]) + desc[1:] + "."
		}
		finish(t, &c, desc, profileOf(e.Rules), slices.Concat(e.Rules, e.Scenarios)...)
		cases = append(cases, c)
	}
	return cases
}

// withCurrentRevisions gives every DaemonSet of s without a ControllerRevision its current
// one, as a cluster holds after the DaemonSet's first sync, so that an implementation in
// another language, which cannot compute Go's template hash (UPD-17), reads it from the
// revision (UPD-14). It is done only where it leaves every expectation as it was.
func withCurrentRevisions(t *testing.T, s daemonset.Snapshot, opts Options) daemonset.Snapshot {
	t.Helper()
	if len(s.Revisions) > 0 {
		return s
	}
	out := s
	for _, ds := range s.DaemonSets {
		cr, err := daemonset.NewRevision(ds, v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount), 1)
		if err != nil {
			t.Fatal(err)
		}
		out.Revisions = append(out.Revisions, cr)
	}
	before, err1 := Expect(s, opts)
	after, err2 := Expect(out, opts)
	if err1 != nil || err2 != nil || !bytes.Equal(mustMarshal(t, mustJSON(t, withoutRevisionWrites(before))), mustMarshal(t, mustJSON(t, withoutRevisionWrites(after)))) {
		return s
	}
	return out
}

// withoutRevisionWrites is es without the revision writes, its alternatives' too.
func withoutRevisionWrites(es []Expected) []Expected {
	out := slices.Clone(es)
	for i := range out {
		out[i].Revisions = nil
		out[i].Alternatives = withoutRevisionWrites(out[i].Alternatives)
	}
	return out
}

// leftOutEntry is one entry of testdata/left-out.yaml: a Surprise or an SCN scenario the
// corpus has no case for, and why.
type leftOutEntry struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// TestCorpusCoversSurprisesAndScenarios holds the corpus to issue 13's promise: each of the 34
// Surprises, each SCN scenario of docs/rules/scenarios.md and each fidelity difference of
// docs/upstream-differences.md ("difference ID") has a case, unless testdata/left-out.yaml
// says why not. An entry there for something a case covers is an error
// too, so that the file stays true.
func TestCorpusCoversSurprisesAndScenarios(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "left-out.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []leftOutEntry
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		t.Fatal(err)
	}
	left := map[string]string{}
	for _, e := range entries {
		if e.Reason == "" {
			t.Errorf("left-out %s has no reason", e.ID)
		}
		left[e.ID] = e.Reason
	}
	covered := map[string]string{}
	for _, c := range corpusByName(t) {
		for _, n := range c.Surprises {
			covered["Surprise-"+strconv.Itoa(n)] = c.Name
		}
		for _, r := range c.Rules {
			if strings.HasPrefix(r, "SCN-") {
				covered[r] = c.Name
			}
		}
	}
	want := []string{}
	for n := 1; n <= 34; n++ {
		want = append(want, "Surprise-"+strconv.Itoa(n))
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "rules", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`(?m)^### (SCN-[0-9]+)$`).FindAllStringSubmatch(string(doc), -1)
	if len(ids) < 100 {
		t.Fatalf("only %d SCN headings in docs/rules/scenarios.md", len(ids))
	}
	for _, m := range ids {
		want = append(want, m[1])
	}
	// The fidelity differences: a case whose source names the section covers it.
	diffs, err := os.ReadFile(filepath.Join("..", "docs", "upstream-differences.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## ([^:\n]+):`).FindAllStringSubmatch(string(diffs), -1)
	if len(sections) < 5 {
		t.Fatalf("only %d sections in docs/upstream-differences.md", len(sections))
	}
	for _, m := range sections {
		id := "difference " + m[1]
		want = append(want, id)
		for _, c := range corpusByName(t) {
			if strings.Contains(c.Source, "docs/upstream-differences.md, "+m[1]+")") {
				covered[id] = c.Name
			}
		}
	}
	for _, id := range want {
		c, ok := covered[id]
		_, out := left[id]
		switch {
		case !ok && !out:
			t.Errorf("%s has no case and no entry in testdata/left-out.yaml", id)
		case ok && out:
			t.Errorf("%s has case %s, yet testdata/left-out.yaml lists it", id, c)
		}
		delete(left, id)
	}
	for id := range left {
		t.Errorf("testdata/left-out.yaml lists %s, which is no Surprise, SCN scenario or fidelity difference", id)
	}
}
