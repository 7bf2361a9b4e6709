package conformance

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
)

// FuzzCheck feeds arbitrary candidate bytes for a random snapshot: DecodePlan and Check never
// panic, never change the snapshot, answer the same twice, and accept the project's own plan.
func FuzzCheck(f *testing.F) {
	for seed := range uint64(8) {
		s := randomSnapshot(rand.New(rand.NewPCG(seed, 3)))
		c, err := daemonset.PlanCluster(s, daemonset.Options{Now: epoch})
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
		opts := Options{Now: epoch, BurstLimit: int(burst % 4)}
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
		own, _ := daemonset.PlanCluster(s, opts.planOptions())
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
