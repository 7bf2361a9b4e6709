package fleet_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// hostileDaemonSet is issue 25's F5 on the DaemonSet side: one DaemonSet whose required node
// affinity is one term of reqs requirements on one key, of values distinct values each, every
// tenth an In of values named by the NotIns before it, the others NotIn. The API server
// accepts it (at 4,400 x 50 it is 2.4 MB).
func hostileDaemonSet(reqs, values int) *appsv1.DaemonSet {
	ds := workload.DaemonSets(1, 1)[0]
	var exprs []v1.NodeSelectorRequirement
	for i := range reqs {
		e := v1.NodeSelectorRequirement{Key: "example.com/pool", Operator: v1.NodeSelectorOpNotIn}
		base := i * values
		if i%10 == 9 {
			e.Operator, base = v1.NodeSelectorOpIn, (i-1)*values
		}
		for j := range values {
			e.Values = append(e.Values, fmt.Sprintf("v%07d", base+j))
		}
		exprs = append(exprs, e)
	}
	ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}}}
	return ds
}

// hostileSet compiles the hostile DaemonSet.
func hostileSet(tb testing.TB, reqs, values int) *fleet.Set {
	set, errs := fleet.Compile([]*appsv1.DaemonSet{hostileDaemonSet(reqs, values)}, setNow)
	if set == nil {
		tb.Fatal(errs)
	}
	return set
}

// hostileWhatIf builds a WhatIf of set (its template index is built on the first template)
// and decides the template of a node with the key unset and one with it open, returning the
// answers.
func hostileWhatIf(tb testing.TB, set *fleet.Set) [2]fleet.Answer {
	w := set.WhatIf(fleet.Config{})
	var out [2]fleet.Answer
	for i, nt := range []*fleet.NodeTemplate{
		{Labels: map[string]string{"kubernetes.io/os": "linux"}},
		{Requirements: []v1.NodeSelectorRequirement{{Key: "example.com/pool", Operator: v1.NodeSelectorOpExists}}},
	} {
		tpl, errs := fleet.CompileTemplate(nt, nil)
		if len(errs) > 0 {
			tb.Fatal(errs)
		}
		var d fleet.TemplateDecision
		w.DecideTemplate(tpl, &d)
		out[i] = d.Verdicts[0].Answer
	}
	return out
}

// TestTemplateWhatIfOnHostileDaemonSet: the template what-if answers on 2,000 requirements of
// 50 values on one key (100,000 classes), the shape of issue 25's F5. Its speed is
// BenchmarkWhatIfTemplateHostileDaemonSet's to measure (CI runs it once): trying every class for
// every requirement took about 75 times as long as compiling the Set; the what-if now takes
// about as long. Its answers are checked against the old algorithm in index_internal_test.go.
func TestTemplateWhatIfOnHostileDaemonSet(t *testing.T) {
	got := hostileWhatIf(t, hostileSet(t, 2000, 50))
	// The Ins name values the NotIns before them exclude: no value is left, and a node without
	// the key fails the Ins.
	if want := [2]fleet.Answer{fleet.DoesNotRun, fleet.DoesNotRun}; got != want {
		t.Fatalf("answers %v, want %v", got, want)
	}
}

// BenchmarkWhatIfTemplateHostileDaemonSet: building a WhatIf's template index (the Set is
// compiled once, outside the loop) for one DaemonSet of 4,400 requirements x 50 values on one key (2.4 MB, issue 25, F5: 73.9 s for
// `whatif --node-template`) and deciding two templates; the target is well under 100 ms.
//
//	go test -run '^$' -bench WhatIfTemplateHostileDaemonSet -benchmem ./fleet
func BenchmarkWhatIfTemplateHostileDaemonSet(b *testing.B) {
	set := hostileSet(b, 4400, 50)
	b.ReportAllocs()
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		hostileWhatIf(b, set)
	}
	clock.Report(b, 0)
}
