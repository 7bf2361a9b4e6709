package main

import (
	"bytes"
	"testing"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/golden"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden.Check(t, "testdata/output.txt", out.Bytes())
}

// podRequests follows the scheduler's formula: the example's small copy agrees with the
// library's fleet.PodRequests on every template of the example.
func TestPodRequestsAgreesWithTheLibrary(t *testing.T) {
	dss, err := decodeAll[appsv1.DaemonSet](daemonSetsYAML)
	require.NoError(t, err)
	require.NotEmpty(t, dss)
	for _, ds := range dss {
		spec := &ds.Spec.Template.Spec
		got, want := podRequests(spec), fleet.PodRequests(spec)
		for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			g, w := got[name], want[name]
			require.Zero(t, w.Cmp(g), "%s %s: example %s, library %s", ds.Name, name, g.String(), w.String())
		}
	}
}

func TestPodRequests(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	req := func(cpu, mem string) v1.ResourceRequirements {
		return v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem),
		}}
	}
	tests := []struct {
		name             string
		spec             v1.PodSpec
		wantCPU, wantMem string
	}{
		{
			name:    "regular containers are summed",
			spec:    v1.PodSpec{Containers: []v1.Container{{Resources: req("100m", "64Mi")}, {Resources: req("50m", "32Mi")}}},
			wantCPU: "150m", wantMem: "96Mi",
		},
		{
			name: "the largest init container counts when it exceeds the running phase",
			spec: v1.PodSpec{
				InitContainers: []v1.Container{{Resources: req("500m", "100Mi")}, {Resources: req("100m", "300Mi")}},
				Containers:     []v1.Container{{Resources: req("200m", "256Mi")}},
			},
			wantCPU: "500m", wantMem: "300Mi",
		},
		{
			name: "a sidecar runs beside the containers and beside later init containers",
			spec: v1.PodSpec{
				InitContainers: []v1.Container{
					{Resources: req("50m", "32Mi"), RestartPolicy: &always},
					{Resources: req("400m", "100Mi")},
				},
				Containers: []v1.Container{{Resources: req("200m", "256Mi")}},
			},
			wantCPU: "450m", wantMem: "288Mi",
		},
		{
			name:    "overhead is added",
			spec:    v1.PodSpec{Overhead: req("250m", "120Mi").Requests, Containers: []v1.Container{{Resources: req("100m", "180Mi")}}},
			wantCPU: "350m", wantMem: "300Mi",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := podRequests(&tt.spec)
			cpu, mem := got[v1.ResourceCPU], got[v1.ResourceMemory]
			wantCPU, wantMem := resource.MustParse(tt.wantCPU), resource.MustParse(tt.wantMem)
			require.Zero(t, wantCPU.Cmp(cpu), "cpu %s", cpu.String())
			require.Zero(t, wantMem.Cmp(mem), "memory %s", mem.String())
		})
	}
}
