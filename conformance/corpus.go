package conformance

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"sigs.k8s.io/yaml"
)

// Profiles returns the groups of cases an implementation can claim one by one, in report
// order: placement (which nodes run the pod: SEL, NSEL, AFF, TAINT, ELIG), diff (the base
// diff: DIFF, OWN, POD), rolling (the rolling update: UPD), status (STAT) and what-if (a
// hypothetical node or DaemonSet added to a cluster, as simulators ask). The slice is the
// caller's: changing it changes nothing here.
func Profiles() []string { return slices.Clone(profiles[:]) }

// profiles is what Profiles returns: an array, so that no caller can change it.
var profiles = [...]string{"placement", "diff", "rolling", "status", "what-if"}

// RecordedVersion is the release whose controller the corpus was recorded and checked against
// (VER-9): a case that names no release (its kubernetes field) is at this one. It is not the
// library's default release, which is the newest, daemonset.NewestVersion (VER-1).
const RecordedVersion = "v1.36.3"

// Case is one corpus case (testdata/case.schema.json): the manifests of one snapshot, the sync's
// clock and burst cap, and what every conforming plan agrees on.
type Case struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Profile     string   `json:"profile"`
	Rules       []string `json:"rules"`
	// Surprises are the numbers of the specification's Surprises (behaviours a natural
	// re-implementation is likely to get wrong) the case demonstrates.
	Surprises []int `json:"surprises,omitempty"`
	// Source says where the case comes from: hand-written and checked against upstream code,
	// generated from the project's plans, or a regression of a fidelity difference.
	Source     string `json:"source"`
	Kubernetes string `json:"kubernetes"`
	// Releases are the ranges of releases whose controller produces the expectations
	// (releases.go: "1.36", "1.33.0-1.33.5", "1.34-1.37"); Kubernetes is one of them. Absent,
	// the case holds for the release Kubernetes names alone.
	Releases []string `json:"releases,omitempty"`
	// Now is the instant of the sync, RFC 3339.
	Now        string `json:"now"`
	BurstLimit int    `json:"burstLimit,omitempty"`
	// Objects are native apps/v1 DaemonSet and ControllerRevision and v1 Node and Pod
	// manifests.
	Objects  []json.RawMessage `json:"objects"`
	Expected []Expected        `json:"expected"`
	// Alternatives are the expectations under the other orders the controller's work queue
	// may sync the DaemonSets in (D-2, ExpectAll): a plan conforms when it conforms to
	// Expected or to one of them.
	Alternatives [][]Expected `json:"alternatives,omitempty"`
}

// expectations are Expected and then the Alternatives.
func (c *Case) expectations() [][]Expected {
	return append([][]Expected{c.Expected}, c.Alternatives...)
}

// Snapshot reads the case's objects as the CLI reads manifests (manifest.Read) but for pod
// templates, read as written (manifest.DefaultPodTemplate skipped): DaemonSets get
// the API server's DaemonSet-level defaults (D-4, DFLT-1, DFLT-2), objects without a namespace
// are in "default" (D-5). An implementation in another language reads them the same way.
func (c *Case) Snapshot() (daemonset.Snapshot, error) {
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": c.Objects})
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	res, err := manifest.Read(c.Name, bytes.NewReader(list), manifest.Options{SkipDefaults: manifest.DefaultPodTemplate})
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	return res.Snapshot, nil
}

// Options returns the options of the case's sync.
func (c *Case) Options() (Options, error) {
	now, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil {
		return Options{}, fmt.Errorf("case %s: now: %w", c.Name, err)
	}
	// The case holds for the release it names: its controller judges (VER-1).
	var release daemonset.Version
	if c.Kubernetes != "" {
		if release, err = daemonset.ParseVersion(c.Kubernetes); err != nil {
			return Options{}, fmt.Errorf("case %s: kubernetes: %w", c.Name, err)
		}
	}
	// The rolling profile claims UPD-14 to UPD-22, so its plans must report revision writes.
	return Options{Now: now, Version: release, BurstLimit: c.BurstLimit, Revisions: c.Profile == "rolling"}, nil
}

//go:embed testdata/cases/*.yaml
var corpusFS embed.FS

// Corpus returns the cases of the embedded corpus, sorted by name.
func Corpus() ([]Case, error) {
	sub, err := fs.Sub(corpusFS, "testdata/cases")
	if err != nil {
		return nil, err
	}
	// The embedded corpus is the project's own, generated and checked (TestCorpusIsCurrent):
	// it skips the quantity gate, which would double the time of loading it.
	return loadCases(sub, false)
}

// LoadCases reads every *.yaml case of fsys's root, sorted by name. Unknown fields are
// errors, so that a typo in a hand-written case is not silently ignored, and so is a file name
// that is not printable. Reading a directory from outside, give it manifest.DirFS: a named pipe
// or /dev/zero among its files is then refused instead of read forever.
func LoadCases(fsys fs.FS) ([]Case, error) {
	return loadCases(fsys, true)
}

// loadCases is LoadCases; gate says whether the quantities of the expected pods are gated
// (checkCaseQuantities), as they must be in cases from outside.
func loadCases(fsys fs.FS, gate bool) ([]Case, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, name := range names {
		if !printable.Safe(name) {
			// Its name is printed with every outcome: a terminal escape or a newline in it would
			// reach the terminal or forge a line of the report.
			return nil, fmt.Errorf("%s: a case file name must be printable, without control characters or spaces other than ' '", printable.Quote(name))
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		if gate {
			if err := checkCaseQuantities(data); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		var c Case
		if err := yaml.UnmarshalStrict(data, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if want := strings.TrimSuffix(path.Base(name), ".yaml"); c.Name != want {
			return nil, fmt.Errorf("%s: name %q, want the file's name %q", name, c.Name, want)
		}
		if !slices.Contains(profiles[:], c.Profile) {
			return nil, fmt.Errorf("%s: profile %q is not one of %s", name, c.Profile, strings.Join(profiles[:], ", "))
		}
		cases = append(cases, c)
	}
	slices.SortFunc(cases, func(a, b Case) int { return strings.Compare(a.Name, b.Name) })
	return cases, nil
}

// checkCaseQuantities refuses, before the case is decoded, a resource quantity of its expected
// pods that manifest's gate refuses ([manifest.CheckQuantities]): decoding "1e-999999999"
// into a resource.Quantity builds 10^999999999, and a case with one in an expected pod kept
// LoadCases (conformance run --corpus) spinning for minutes (issue 25, F1 and F9). The objects
// are not decoded here; Snapshot reads them through manifest's gate. Text that is not YAML
// passes: the decoding that follows reports it.
func checkCaseQuantities(data []byte) error {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil
	}
	return manifest.CheckQuantities(js, &caseQuantities{}, manifest.Limits{})
}

// caseQuantities is a case as the quantity gate walks it. An Orders decodes itself, which the
// gate does not look into, so the gate is given the choice sets' own type, where the expected
// pods are; the other fields of a case hold no quantity the decoding parses.
type caseQuantities struct {
	Expected     []expectedQuantities   `json:"expected"`
	Alternatives [][]expectedQuantities `json:"alternatives"`
}

type expectedQuantities struct {
	Orders       *orders              `json:"orders"`
	Alternatives []expectedQuantities `json:"alternatives"`
}
