package daemonset_test

// The scenario tables are the source of the conformance corpus's scenario cases: this test
// writes every scenario a snapshot can express to ../conformance/testdata/scenarios.json, and
// the ones it cannot, with the reason, to the same file. conformance's TestCorpusIsCurrent turns
// the file into corpus cases; TestScenarioExportIsCurrent keeps the file equal to the tables.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
)

var updateScenarios = flag.Bool("update-scenarios", false, "rewrite ../conformance/testdata/scenarios.json from the scenario tables")

// exportedScenario is one entry of scenarios.json (conformance reads the same shape).
type exportedScenario struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Scenarios   []string `json:"scenarios,omitempty"`
	Surprises   []int    `json:"surprises,omitempty"`
	Rules       []string `json:"rules"`
	Now         string   `json:"now,omitempty"`
	BurstLimit  int      `json:"burstLimit,omitempty"`
	// Objects are the manifests; LeftOut says instead why the scenario has no case.
	Objects []json.RawMessage `json:"objects,omitempty"`
	LeftOut string            `json:"leftOut,omitempty"`
}

var ruleToken = regexp.MustCompile(`^[A-Z]+-[0-9]+$`)

// exportScenario splits the scenario's name into its IDs and its words, and writes its objects
// as manifests, unless the case could not reproduce the scenario's outcome: a sync that needs
// the TolerationComparisonOperators gate, or manifests whose reading (with the API
// server's defaults, D-4) changes what the plan is.
func exportScenario(sc scenario) exportedScenario {
	e := exportedScenario{Name: sc.name, Surprises: slices.Clone(sc.surprises), Rules: []string{}}
	var words []string
	for _, w := range strings.Fields(sc.name) {
		switch {
		case strings.HasPrefix(w, "SCN-"):
			e.Scenarios = append(e.Scenarios, w)
		case strings.HasPrefix(w, "Surprise-"):
		case ruleToken.MatchString(w):
			e.Rules = append(e.Rules, w)
		default:
			words = append(words, w)
		}
	}
	e.Description = strings.Join(words, " ")
	o := opts()
	if sc.opts != nil {
		o = *sc.opts
	}
	if o.Enabled(daemonset.GateTaintTolerationComparisonOperators) {
		e.LeftOut = "the sync needs a feature gate (TolerationComparisonOperators), which a case cannot set"
		return e
	}
	e.Now, e.BurstLimit = o.Now.UTC().Format(time.RFC3339Nano), o.BurstLimit
	ds := sc.ds
	if ds == nil {
		ds = newDS()
	}
	add := func(kind, apiVersion string, obj any) {
		data, err := json.Marshal(obj)
		if err != nil {
			panic(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			panic(err)
		}
		m["kind"], m["apiVersion"] = kind, apiVersion
		data, _ = json.Marshal(m)
		e.Objects = append(e.Objects, data)
	}
	add("DaemonSet", "apps/v1", ds)
	for _, n := range sc.nodes {
		add("Node", "v1", n)
	}
	for _, p := range sc.pods {
		add("Pod", "v1", p)
	}
	for _, r := range sc.revisions {
		add("ControllerRevision", "apps/v1", r)
	}
	list, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": e.Objects})
	// As the corpus reads them (conformance.LoadCases): templates as written, without the pod defaults.
	read, err := manifest.Read(sc.name, bytes.NewReader(list), manifest.Options{SkipDefaults: manifest.DefaultPodTemplate})
	if err != nil {
		return leftOut(e, "its objects are not valid manifests: "+err.Error())
	}
	c, err := read.Snapshot.Plan(daemonset.Options{Version: v1363, Now: o.Now, BurstLimit: o.BurstLimit})
	if err != nil {
		return leftOut(e, "read as manifests, its snapshot cannot be planned: "+err.Error())
	}
	if len(c.DaemonSets) != 1 {
		return leftOut(e, fmt.Sprintf("read as manifests, it plans %d DaemonSets", len(c.DaemonSets)))
	}
	if diff := cmp.Diff(sc.want, summarize(c.DaemonSets[0])); diff != "" {
		return leftOut(e, "read as manifests (the API server's DaemonSet defaults applied, D-4), the outcome is not the scenario's")
	}
	return e
}

func leftOut(e exportedScenario, reason string) exportedScenario {
	e.Objects, e.Now, e.BurstLimit, e.LeftOut = nil, "", 0, reason
	return e
}

// TestScenarioExportIsCurrent checks that ../conformance/testdata/scenarios.json is the export
// of today's scenario tables, and that every scenario naming a Surprise or an SCN ID is in it.
func TestScenarioExportIsCurrent(t *testing.T) {
	var all []exportedScenario
	for _, sc := range scenarios() {
		if len(sc.surprises) == 0 && !strings.Contains(sc.name, "SCN-") {
			continue
		}
		all = append(all, exportScenario(sc))
	}
	slices.SortFunc(all, func(a, b exportedScenario) int { return strings.Compare(a.Name, b.Name) })
	want, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := filepath.Join("..", "conformance", "testdata", "scenarios.json")
	if *updateScenarios {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./daemonset -run TestScenarioExportIsCurrent -update-scenarios", path)
	}
}
