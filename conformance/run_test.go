package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
)

func corpusCase(t *testing.T, name string) Case {
	t.Helper()
	c, ok := corpusByName(t)[name]
	if !ok {
		t.Fatalf("no case %s", name)
	}
	return c
}

func TestRunCaseAndJudgeResponse(t *testing.T) {
	c := corpusCase(t, "diff-17-controlled-failed-before-adopted")
	if o := RunCase(c, func(daemonset.Snapshot, Options) ([]*daemonset.Result, error) { return nil, errors.New("boom") }); o.Result != "error" || o.Error != "boom" {
		t.Errorf("a failing implementation: %+v", o)
	}
	if o := RunCase(c, func(daemonset.Snapshot, Options) ([]*daemonset.Result, error) { return nil, nil }); o.Result != "fail" || o.Mismatches[0].Message != "no plan for this DaemonSet" {
		t.Errorf("an empty answer: %+v", o)
	}
	tests := []struct{ line, result, detail string }{
		{`{"skip": "not mine"}`, "skip", "not mine"},
		{`{"id": 1, "error": "request 1: not a request"}`, "error", "the implementation answered with an error: request 1: not a request"},
		{`not json`, "error", "answer"},
		{`{"daemonSets": [{"namespace": "ns"}]}`, "error", "required field is missing"},
		{`{"daemonSets": []}`, "fail", "no plan for this DaemonSet"},
		// Issue 25, dupgate: what encoding/json takes silently is refused first, naming where;
		// a quantity bomb in the first of a key given twice hung the runner.
		{`{"skip": "not mine", "skip": ""}`, "error", `answer: line 1: skip: Duplicate value: "skip"`},
		{"{\"skip\": \"n\xffot mine\"}", "error", "answer: line 1: invalid UTF-8 (byte 0xFF)"},
		{`{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"","create":[{"node":"n","reason":"","pod":{"spec":{"containers":[{"resources":{"requests":{"cpu":"1e-999999999"}},"name":"c","resources":{}}]}}}],"delete":[],"adopt":[],"release":[],"status":null}]}`,
			"error", `answer: line 1: daemonSets[0].create[0].pod.spec.containers[0].resources: Duplicate value: "resources"`},
	}
	for _, tt := range tests {
		o := JudgeResponse(c, []byte(tt.line))
		detail := o.Error
		if len(o.Mismatches) > 0 {
			detail = o.Mismatches[0].Message
		}
		if o.Result != tt.result || !strings.Contains(detail, tt.detail) {
			t.Errorf("%s: %+v, want %s with %q", tt.line, o, tt.result, tt.detail)
		}
	}
}

// TestOutcomeCapsMismatches: an answer wrong in more ways than MaxMismatches lists that many
// and counts the others (F15).
func TestOutcomeCapsMismatches(t *testing.T) {
	ms := make([]Mismatch, MaxMismatches+7)
	o := Outcome{}.judged(ms)
	if o.Result != "fail" || len(o.Mismatches) != MaxMismatches || o.MoreMismatches != 7 {
		t.Errorf("%s, %d listed, %d more", o.Result, len(o.Mismatches), o.MoreMismatches)
	}
	if o := (Outcome{}).judged(ms[:2]); len(o.Mismatches) != 2 || o.MoreMismatches != 0 {
		t.Errorf("%d listed, %d more", len(o.Mismatches), o.MoreMismatches)
	}
}

func TestReports(t *testing.T) {
	outcomes := []Outcome{
		{Case: "b", Profile: "diff", Result: "pass"},
		{Case: "a", Profile: "diff", Result: "pass"},
		{Case: "c", Profile: "rolling", Result: "skip"},
		{Case: "d", Profile: "placement", Result: "pass"},
	}
	got := Reports("impl", outcomes)
	if len(got) != 3 || got[0].Profile != "placement" || got[1].Profile != "diff" || got[2].Profile != "rolling" {
		t.Fatalf("profiles: %+v", got)
	}
	if !got[0].Conforms || !got[1].Conforms || got[1].Passed != 2 || got[1].Cases[0].Case != "a" {
		t.Errorf("passing profiles: %+v", got[:2])
	}
	if got[2].Conforms || got[2].Skipped != 1 {
		t.Errorf("a skipped case does not conform: %+v", got[2])
	}
}

// TestJudgeResponseCutsTheAnswersTexts: issue 25 (F15 through the runner, audit33b 2): a skip
// reason, an error text or a node name of megabytes is kept cut as errors are, so that a
// program answering 20 MB a case does not hold gigabytes over a run.
func TestJudgeResponseCutsTheAnswersTexts(t *testing.T) {
	c := corpusCase(t, "diff-17-controlled-failed-before-adopted")
	big := strings.Repeat("x", 1<<20)
	for i, line := range []string{
		`{"skip": "` + big + `"}`,
		`{"error": "` + big + `"}`,
		`{"daemonSets": [{"namespace": "` + big + `"}]}`,
		`{"daemonSets":[{"namespace":"a","name":"` + big + `","revisionHash":"","create":[{"node":"` + big + `","reason":"` + big + `","pod":{}}],"delete":[],"adopt":[],"release":[],"status":null}]}`,
	} {
		o := JudgeResponse(c, []byte(line))
		texts := []string{o.Error}
		for _, m := range o.Mismatches {
			texts = append(texts, m.DaemonSet, m.Object, m.Message)
			if len(m.Diff) > diffBytes+40 {
				t.Errorf("%.40s...: a diff of %d bytes", line, len(m.Diff))
			}
		}
		for _, s := range texts {
			if len(s) > errlist.LineBytes+40 {
				t.Errorf("%.40s...: %s keeps %d bytes: %.80s", line, o.Result, len(s), s)
			}
		}
		if o.Result == "pass" {
			t.Errorf("%.40s...: passes", line)
		}
		if i < 2 && !strings.Contains(o.Error, "bytes more)") {
			t.Errorf("%.40s...: not cut: %.80s", line, o.Error)
		}
	}
}

// TestJudgeResponseBoundsTheAnswer: issue 25 (audit33 1): an answer line over AnswerBytes is
// refused before it is decoded (a 60 MB one peaked at 2.42 GB).
func TestJudgeResponseBoundsTheAnswer(t *testing.T) {
	c := corpusCase(t, "diff-17-controlled-failed-before-adopted")
	line := []byte(`{"daemonSets":[]}` + strings.Repeat(" ", AnswerBytes))
	o := JudgeResponse(c, line)
	if o.Result != "error" || !strings.Contains(o.Error, "limit AnswerBytes") {
		t.Errorf("%s: %.200s", o.Result, o.Error)
	}
}
