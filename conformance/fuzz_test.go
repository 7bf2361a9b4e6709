package conformance

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/daemonset"
)

// FuzzCheck feeds arbitrary candidate bytes for a random snapshot: DecodePlan and Check never
// panic, never change the snapshot, answer the same twice, and accept the project's own plan.
func FuzzCheck(f *testing.F) {
	for seed := range uint64(8) {
		s := randomSnapshot(rand.New(rand.NewPCG(seed, 3)))
		c, err := s.Plan(daemonset.Options{Version: v1363, Now: epoch})
		if err != nil {
			f.Fatal(err)
		}
		data, _ := json.Marshal(c)
		f.Add(seed, uint8(0), data)
		f.Add(seed, uint8(1), data)
	}
	f.Add(uint64(1), uint8(0), []byte(`{"daemonSets":[null,{"namespace":"ns","name":"ds","revisionHash":"","create":[{"node":"","pod":null}],"delete":[{},{}],"adopt":[],"release":[],"status":{}}]}`))
	f.Fuzz(func(t *testing.T, seed uint64, burst uint8, data []byte) {
		s := randomSnapshot(rand.New(rand.NewPCG(seed, 3)))
		before := snapshotJSON(t, s)
		opts := Options{Version: v1363, Now: epoch, BurstLimit: int(burst % 4)}
		candidate, err := DecodePlan(data)
		if err != nil {
			return
		}
		first, err := Check(s, candidate, opts)
		if err != nil {
			t.Fatal(err)
		}
		second, _ := Check(s, candidate, opts)
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("two answers:\n%v\n%v", first, second)
		}
		if !bytes.Equal(before, snapshotJSON(t, s)) {
			t.Fatal("Check changed the snapshot")
		}
		own, _ := s.Plan(opts.planOptions())
		if ms, _ := Check(s, own.DaemonSets, opts); len(ms) > 0 {
			t.Fatalf("the project's plan is rejected: %v", ms)
		}
	})
}

func snapshotJSON(t *testing.T, s daemonset.Snapshot) []byte {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzReadPlan reads arbitrary candidate text whole and a byte at a time: both give the same
// plans or the same error, and what is accepted is valid JSON in valid UTF-8.
func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`{"now":"2026-03-02T10:00:00Z","daemonSets":[null,{"namespace":"a","name":"b","revisionHash":"h","create":[],"delete":[],"adopt":[],"release":[],"status":null}]}`))                                                                                    // a plan and a null one
	f.Add([]byte(`{"daemonSets":[],"daemonSets":[]}`))                                                                                                                                                                                                                   // a key given twice (F14)
	f.Add([]byte("{\"x\":\"\xe2\x82\",\"daemonSets\":[]}"))                                                                                                                                                                                                              // a rune cut short (F14)
	f.Add([]byte(`{"daemonSets":[null,null,null,null,null,null,null,null,null,null,null]}`))                                                                                                                                                                             // more plans than the limit (F4)
	f.Add([]byte(`{"daemonSets":[{"namespace":"a","name":"b","revisionHash":"h","create":[{"node":"n","reason":"","pod":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1e-999999999"}}}]}}}],"delete":[],"adopt":[],"release":[],"status":null}]}`)) // a quantity bomb
	lim := PlanLimits{Bytes: 1 << 16, DaemonSets: 8, PlanBytes: 1 << 12}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err := ReadPlan(bytes.NewReader(data), lim)
		bytewise, err2 := ReadPlan(iotest.OneByteReader(bytes.NewReader(data)), lim)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("whole: %v, a byte at a time: %v", err, err2)
		}
		if err != nil {
			return
		}
		if !utf8.Valid(data) || !json.Valid(data) {
			t.Fatalf("accepted text that is not valid JSON in UTF-8")
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("whole and a byte at a time differ:\n%+v\n%+v", whole, bytewise)
		}
	})
}

// FuzzJudgeResponse judges arbitrary answer lines to one case, as conformance run judges what
// PROGRAM writes: it never panics, ends in bounded time (issue 25, dupgate: a quantity bomb
// in the first of a key given twice hung the runner; the bound is generous for a loaded
// machine), answers the same twice, and gives a result the report schema knows, an error
// always saying why. The project's own answer passes.
func FuzzJudgeResponse(f *testing.F) {
	c, err := Corpus()
	if err != nil {
		f.Fatal(err)
	}
	kase := c[0]
	s, err := kase.Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	opts, err := kase.Options()
	if err != nil {
		f.Fatal(err)
	}
	plans, err := s.Plan(daemonset.Options{Now: opts.Now, Version: opts.Version, BurstLimit: opts.BurstLimit})
	if err != nil {
		f.Fatal(err)
	}
	own, err := json.Marshal(map[string]any{"id": 1, "daemonSets": plans.DaemonSets})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(own)                                                                                                                           // the project's own answer
	f.Add([]byte(`{"skip":"not mine"}`))                                                                                                 // declined
	f.Add([]byte(`{"id":1,"error":"request 1: x"}`))                                                                                     // an error answer
	f.Add([]byte(`{"skip":"not mine","skip":""}`))                                                                                       // a key given twice (dupgate)
	f.Add([]byte("{\"skip\":\"\xff\"}"))                                                                                                 // invalid UTF-8
	f.Add(bytes.Replace(own, []byte(`"containers":[{`), []byte(`"containers":[{"resources":{"requests":{"cpu":"1e-999999999"}},`), 1))   // bombprog.sh: a bomb before the pod's own resources
	f.Add(bytes.Replace(own, []byte(`"containers":[{`), []byte(`"containers":[{"resources":{"requests":{"cpu":" 1e-999999999"}}},`), 1)) // a bomb behind a space, in a container of its own
	f.Fuzz(func(t *testing.T, line []byte) {
		start := time.Now()
		o := JudgeResponse(kase, line)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("JudgeResponse(%q) took %v", line, d)
		}
		if again := JudgeResponse(kase, line); !reflect.DeepEqual(o, again) {
			t.Fatalf("JudgeResponse(%q) twice: %+v, then %+v", line, o, again)
		}
		switch o.Result {
		case "pass", "fail", "skip":
		case "error":
			if o.Error == "" {
				t.Fatalf("JudgeResponse(%q): an error without a reason", line)
			}
		default:
			t.Fatalf("JudgeResponse(%q): result %q", line, o.Result)
		}
		if bytes.Equal(line, own) && o.Result != "pass" {
			t.Fatalf("the project's own answer: %+v", o)
		}
	})
}
