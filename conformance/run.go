package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/manifest"
)

// Impl is a Go implementation under test: it plans one sync of every DaemonSet of s at
// opts.Now with opts.BurstLimit, returning one plan per DaemonSet.
type Impl func(s daemonset.Snapshot, opts Options) ([]*daemonset.Result, error)

// Run runs every case of the embedded corpus against impl, each at the release it names
// (Case.Kubernetes, the corpus's v1.36.3), one subtest per case named after it, and fails the
// subtest with one line per mismatch. RunAt runs them at one release.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, cases, impl)
}

// runCases runs cases against impl, one subtest each.
func runCases(t *testing.T, cases []Case, impl Impl) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			o := RunCase(c, impl)
			if o.Error != "" {
				t.Fatalf("%s (rules %v): %s", c.Name, c.Rules, o.Error)
			}
			for _, m := range o.Mismatches {
				t.Errorf("%s (rules %v): %s", c.Name, c.Rules, m)
			}
			if o.MoreMismatches > 0 {
				t.Errorf("%s: ... and %d more", c.Name, o.MoreMismatches)
			}
		})
	}
}

// Outcome is the result of one case (testdata/result.schema.json).
type Outcome struct {
	Case    string `json:"case"`
	Profile string `json:"profile"`
	// Result is pass, fail, skip (the implementation declined the case), error (the case or
	// the implementation's answer could not be read) or otherRelease (not run: the case holds
	// for other releases only than the one of the run, [SelectAt]).
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
	// Mismatches are the first MaxMismatches ways the answer differs, in [VerifyAny]'s order;
	// MoreMismatches counts the others.
	Mismatches     []Mismatch `json:"mismatches,omitempty"`
	MoreMismatches int        `json:"moreMismatches,omitempty"`
}

// MaxMismatches bounds the mismatches an [Outcome] lists, so that an answer wrong in a
// million ways makes a report of a screenful.
const MaxMismatches = 100

// RunCase runs one case against impl.
func RunCase(c Case, impl Impl) Outcome {
	o := Outcome{Case: c.Name, Profile: c.Profile}
	s, err := c.Snapshot()
	if err != nil {
		return o.failed(err)
	}
	opts, err := c.Options()
	if err != nil {
		return o.failed(err)
	}
	got, err := impl(s, opts)
	if err != nil {
		return o.failed(err)
	}
	return o.judged(VerifyAny(c.expectations(), got, opts))
}

// The texts an Outcome keeps come from the implementation (a skip reason, an error, node
// names quoted in mismatches): each is cut as errors are ([errlist.Cut]), so that a program
// answering 20 MB of text per case makes a report of a screenful per case, not gigabytes.
func (o Outcome) failed(err error) Outcome {
	o.Result, o.Error = "error", errlist.Cut(err.Error(), errlist.LineBytes)
	return o
}

// diffBytes bounds a mismatch's diff an Outcome keeps: a diff has many lines, so it gets
// the room of a screenful of them.
const diffBytes = errlist.Shown * errlist.LineBytes

func (o Outcome) judged(ms []Mismatch) Outcome {
	o.Result = "pass"
	if len(ms) > 0 {
		o.Result = "fail"
		shown := ms[:min(len(ms), MaxMismatches)]
		o.Mismatches = make([]Mismatch, len(shown))
		for i, m := range shown {
			m.DaemonSet = errlist.Cut(m.DaemonSet, errlist.LineBytes)
			m.Object = errlist.Cut(m.Object, errlist.LineBytes)
			m.Message = errlist.Cut(m.Message, errlist.LineBytes)
			m.Diff = errlist.Cut(m.Diff, diffBytes)
			o.Mismatches[i] = m
		}
		o.MoreMismatches = len(ms) - len(shown)
	}
	return o
}

// Request is one line an implementation reads in the stdin/stdout protocol: a case without its
// expectations (testdata/protocol.schema.json).
type Request struct {
	// ID numbers the requests of one run from 1; the answer to a request repeats it, so that
	// an answer given twice or left out is not paired with the next case. 0 (left out of the
	// line) is no number.
	ID   int64  `json:"id,omitempty"`
	Case string `json:"case"`
	// Profile lets an implementation decline the cases of profiles it does not claim.
	Profile    string            `json:"profile"`
	Now        string            `json:"now"`
	BurstLimit int               `json:"burstLimit"`
	Objects    []json.RawMessage `json:"objects"`
	// Kubernetes is the release whose controller the case's expectations are for (VER-1), as
	// "v1.36.3"; absent from requests of a runner older than it, which mean v1.36.3.
	Kubernetes string `json:"kubernetes,omitempty"`
}

// NewRequest is the request for c.
func NewRequest(c Case) Request {
	return Request{Case: c.Name, Profile: c.Profile, Now: c.Now, BurstLimit: c.BurstLimit, Objects: c.Objects, Kubernetes: c.Kubernetes}
}

// Response is one line an implementation writes back: the plans, in the shape of
// `daemonsched plan -o json` (DecodePlan), skip with a reason to decline a case it does not
// implement, or error to say it could not answer this request (testdata/protocol.schema.json).
type Response struct {
	// ID is the ID of the request answered. An answer without it is paired with the request
	// by order, as before IDs existed: a program that repeats it is checked for answers out of
	// step.
	ID         *int64          `json:"id,omitempty"`
	DaemonSets json.RawMessage `json:"daemonSets,omitempty"`
	Skip       string          `json:"skip,omitempty"`
	// Error says why the implementation could not answer the request (it could not read it,
	// or refused its objects), given instead of daemonSets: the case is an error, and the
	// next request is sent.
	Error string `json:"error,omitempty"`
}

// AnswerBytes bounds an answer line [JudgeResponse] judges. An answer is a plan: 32 MiB, the
// bound verify puts on its candidate by default (--max-plan-bytes), where decoding a plan
// takes about 23 times its text: a 60 MB answer of 600,000 creates peaked at 2.42 GB.
const AnswerBytes = 32 << 20

// JudgeResponse judges an implementation's answer line to c. A line with a key given twice in
// one object, or that is not UTF-8, is an error naming where ([manifest.CheckJSON]).
func JudgeResponse(c Case, line []byte) Outcome {
	o := Outcome{Case: c.Name, Profile: c.Profile}
	if len(line) > AnswerBytes {
		return o.failed(fmt.Errorf("answer: %d bytes, larger than %d (limit AnswerBytes)", len(line), AnswerBytes))
	}
	// encoding/json keeps the last of a key given twice ({"skip":"x","skip":""}) and
	// replaces invalid UTF-8 silently: the answer is refused first, as manifests are.
	if err := manifest.CheckJSON(line); err != nil {
		return o.failed(fmt.Errorf("answer: %w", err))
	}
	var r Response
	if err := json.Unmarshal(line, &r); err != nil {
		return o.failed(fmt.Errorf("answer: %w", err))
	}
	if r.Skip != "" {
		o.Result, o.Error = "skip", errlist.Cut(r.Skip, errlist.LineBytes)
		return o
	}
	if r.Error != "" {
		return o.failed(fmt.Errorf("the implementation answered with an error: %s", r.Error))
	}
	got, err := DecodePlan(line)
	if err != nil {
		return o.failed(err)
	}
	opts, err := c.Options()
	if err != nil {
		return o.failed(err)
	}
	return o.judged(VerifyAny(c.expectations(), got, opts))
}

// Report is the outcome of every case of one profile for one implementation; it passes when
// every case passed (testdata/result.schema.json).
type Report struct {
	Profile        string `json:"profile"`
	Implementation string `json:"implementation"`
	Kubernetes     string `json:"kubernetes"`
	Passed         int    `json:"passed"`
	Failed         int    `json:"failed"`
	Skipped        int    `json:"skipped"`
	Errors         int    `json:"errors"`
	// OtherReleases counts the cases not run because they hold for other releases only; they
	// do not count against Conforms.
	OtherReleases int       `json:"otherReleases,omitempty"`
	Conforms      bool      `json:"conforms"`
	Cases         []Outcome `json:"cases"`
}

// ResultOtherRelease is the Result of a case not run at a release it does not hold for.
const ResultOtherRelease = "otherRelease"

// SelectAt splits cases for a run at release v: those that hold at it (HoldsAt), each as run
// at v (At), and the outcomes of the others, which hold for other releases only and are not
// run. A case whose releases cannot be read is an error naming it.
func SelectAt(cases []Case, v daemonset.Version) (run []Case, other []Outcome, err error) {
	for _, c := range cases {
		ok, err := c.HoldsAt(v)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			run = append(run, c.At(v))
			continue
		}
		holds := c.Releases
		if len(holds) == 0 {
			holds = []string{strings.TrimPrefix(c.Kubernetes, "v")}
		}
		other = append(other, Outcome{Case: c.Name, Profile: c.Profile, Result: ResultOtherRelease,
			Error: fmt.Sprintf("holds for Kubernetes %s, not %s", strings.Join(holds, ", "), v)})
	}
	return run, other, nil
}

// RunAt runs, as Run does, the cases of the embedded corpus that hold at release v, each at
// v; the others are skipped subtests saying which releases they hold for.
func RunAt(t *testing.T, v daemonset.Version, impl Impl) {
	t.Helper()
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	run, other, err := SelectAt(cases, v)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range other {
		t.Run(o.Case, func(t *testing.T) { t.Skip(o.Error) })
	}
	runCases(t, run, impl)
}

// Reports groups outcomes by profile, in the order of Profiles; profiles without a case are
// left out.
func Reports(implementation string, outcomes []Outcome) []Report {
	var out []Report
	for _, p := range profiles {
		r := Report{Profile: p, Implementation: implementation, Kubernetes: RecordedVersion}
		for _, o := range outcomes {
			if o.Profile != p {
				continue
			}
			switch o.Result {
			case "pass":
				r.Passed++
			case "fail":
				r.Failed++
			case "skip":
				r.Skipped++
			case ResultOtherRelease:
				r.OtherReleases++
			default:
				r.Errors++
			}
			r.Cases = append(r.Cases, o)
		}
		if len(r.Cases) == 0 {
			continue
		}
		slices.SortFunc(r.Cases, func(a, b Outcome) int {
			switch {
			case a.Case < b.Case:
				return -1
			case a.Case > b.Case:
				return 1
			}
			return 0
		})
		r.Conforms = r.Failed == 0 && r.Errors == 0 && r.Skipped == 0
		out = append(out, r)
	}
	return out
}
