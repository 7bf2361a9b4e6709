package fleet_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/scalebench"
	"github.com/daemonsched/daemonsched/internal/workload"
)

// benchWhatIf is the reference Set of 200 DaemonSets admitted through a LimitRange with
// default requests and limits in every namespace they use, one DaemonSet in ten running under
// a RuntimeClass with overhead (its pods are re-compiled in), as issue 15's targets ask.
func benchWhatIf(b testing.TB) *fleet.WhatIf {
	dss := workload.DaemonSets(1, scalebench.DaemonSets)
	for i := 0; i < len(dss); i += 10 {
		dss[i].Spec.Template.Spec.RuntimeClassName = new("kata")
	}
	s, errs := fleet.Compile(dss, setNow)
	if s == nil {
		b.Fatal(errs)
	}
	var lrs []*v1.LimitRange
	seen := map[string]bool{}
	for i := range s.Len() {
		ns := s.Planner(i).DaemonSet().Namespace
		if seen[ns] {
			continue
		}
		seen[ns] = true
		lrs = append(lrs, &v1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "defaults"}, Spec: v1.LimitRangeSpec{
			Limits: []v1.LimitRangeItem{{Type: v1.LimitTypeContainer,
				Default:        v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("512Mi")},
				DefaultRequest: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")}}},
		}})
	}
	adm, errs := fleet.CompileAdmission(lrs, []*nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}}}})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	return s.WhatIf(fleet.Config{Admission: adm})
}

// BenchmarkWhatIfNode: the concrete what-if with admission, 200 DaemonSets, a reused
// Decision; the target is no slower than BenchmarkScaleNode (Set.DecideNode, about 2 µs).
//
//	go test -run '^$' -bench 'WhatIf|ScaleNode$' -benchmem ./fleet
func BenchmarkWhatIfNode(b *testing.B) {
	w := benchWhatIf(b)
	nodes := scalebench.Nodes(10_000)
	var d fleet.Decision
	b.ReportAllocs()
	k := 0
	clock := scalebench.StartCPU(b)
	for b.Loop() {
		w.DecideNode(nodes[k%len(nodes)], &d)
		k++
	}
	clock.Report(b, 0)
	scaleSinkInt = len(d.Runs())
}

// BenchmarkWhatIfTemplate: a node template of the reference pool whose zone, instance type
// and architecture are open (3 x 4 x 2 values) and whose name is unknown, for 200 DaemonSets:
// answers and the exact range of requests; the target is under 20 µs.
func BenchmarkWhatIfTemplate(b *testing.B) {
	w := benchWhatIf(b)
	base := scalebench.Nodes(1)[0]
	for _, tc := range []struct {
		name string
		reqs []v1.NodeSelectorRequirement
	}{
		{"known", nil},
		{"zone-type-arch", []v1.NodeSelectorRequirement{
			{Key: workload.LabelZone, Operator: v1.NodeSelectorOpIn, Values: []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
			{Key: workload.LabelInstanceType, Operator: v1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge", "c5.2xlarge", "r5.4xlarge"}},
			{Key: workload.LabelArch, Operator: v1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
		}},
	} {
		labels := map[string]string{}
		for k, v := range base.Labels {
			labels[k] = v
		}
		for _, r := range tc.reqs {
			delete(labels, r.Key)
		}
		delete(labels, workload.LabelHostname)
		tpl, errs := fleet.CompileTemplate(&fleet.NodeTemplate{Labels: labels, Requirements: tc.reqs, Taints: base.Spec.Taints}, nil)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		b.Run(tc.name, func(b *testing.B) {
			d := &fleet.TemplateDecision{}
			b.ReportAllocs()
			clock := scalebench.StartCPU(b)
			for b.Loop() {
				w.DecideTemplate(tpl, d)
			}
			clock.Report(b, 0)
			runs, depends := 0, 0
			for _, v := range d.Verdicts {
				switch v.Answer {
				case fleet.Runs:
					runs++
				case fleet.Depends:
					depends++
				}
			}
			b.ReportMetric(float64(runs), "runs")
			b.ReportMetric(float64(depends), "depends")
			cpuMin, cpuMax := d.Requests.Min[v1.ResourceCPU], d.Requests.Max[v1.ResourceCPU]
			b.Logf("cpu %s..%s exact %v", cpuMin.String(), cpuMax.String(), d.Requests.Exact)
		})
	}
}
