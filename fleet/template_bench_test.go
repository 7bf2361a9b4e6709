package fleet_test

import (
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/scalebench"
)

// hugeNotIn is the template of issue 25's F5: reqs NotIn requirements of values values each,
// all on one key, every value distinct.
func hugeNotIn(reqs, values int) *fleet.NodeTemplate {
	t := &fleet.NodeTemplate{}
	for i := range reqs {
		r := v1.NodeSelectorRequirement{Key: "example.com/pool", Operator: v1.NodeSelectorOpNotIn}
		for j := range values {
			r.Values = append(r.Values, "v"+strconv.Itoa(i*values+j))
		}
		t.Requirements = append(t.Requirements, r)
	}
	return t
}

// BenchmarkTemplateManyNotIn: compiling and deciding a template of 4,000 NotIn requirements of
// 50 values each on one key, for the reference Set of 200 DaemonSets (issue 25, F5: 34.5 s
// when every value was checked against every requirement); the target is under 100 ms.
//
//	go test -run '^$' -bench TemplateManyNotIn -benchmem ./fleet
func BenchmarkTemplateManyNotIn(b *testing.B) {
	w := benchWhatIf(b)
	nt := hugeNotIn(4000, 50)
	d := &fleet.TemplateDecision{}
	b.ReportAllocs()
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		tpl, errs := fleet.CompileTemplate(nt, nil)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		w.DecideTemplate(tpl, d)
	}
	clock.Report(b, 0)
}
