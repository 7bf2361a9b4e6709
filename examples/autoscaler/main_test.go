package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonsched/daemonsched/fleet"
	"github.com/daemonsched/daemonsched/internal/golden"
)

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden.Check(t, "testdata/output.txt", out.Bytes())
}

// askShape asks the example's Set about its node shape named name.
func askShape(t *testing.T, name string) whatIf {
	t.Helper()
	set, err := compile()
	require.NoError(t, err)
	shapes, err := decodeAll[v1.Node](shapesYAML)
	require.NoError(t, err)
	for _, n := range shapes {
		if n.Annotations["shape"] == name {
			var d fleet.NodeDecision
			return ask(set, n, &d)
		}
	}
	t.Fatalf("no shape %q", name)
	return whatIf{}
}

func rowOf(t *testing.T, w whatIf, name string) row {
	t.Helper()
	for _, r := range w.rows {
		if r.ds.Name == name {
			return r
		}
	}
	t.Fatalf("no DaemonSet %q", name)
	return row{}
}

func requireQuantity(t *testing.T, want resource.Quantity, l v1.ResourceList, name v1.ResourceName) {
	t.Helper()
	q := l[name]
	require.Zero(t, want.Cmp(q), "%s: %s, want %s", name, q.String(), want.String())
}

// TestWhatIfCountsAsTheScheduler: the figures a simple sum of container requests gets wrong.
// A container with limits only requests its limits; the CNI agent's sidecar adds to its
// regular containers while its larger init container sets the cpu; hostNetwork turns every
// containerPort into a host port; and a host port two daemon pods claim is a conflict.
func TestWhatIfCountsAsTheScheduler(t *testing.T) {
	w := askShape(t, "general-purpose amd64")

	npd := rowOf(t, w, "node-problem-detector")
	require.True(t, npd.decision.ShouldRun)
	requireQuantity(t, resource.MustParse("20m"), npd.requests, v1.ResourceCPU)
	requireQuantity(t, resource.MustParse("100Mi"), npd.requests, v1.ResourceMemory)

	cni := rowOf(t, w, "cni-agent")
	requireQuantity(t, resource.MustParse("500m"), cni.requests, v1.ResourceCPU)     // the first init container
	requireQuantity(t, resource.MustParse("300Mi"), cni.requests, v1.ResourceMemory) // agent 256Mi + sidecar 32Mi < 300Mi
	require.Equal(t, []fleet.HostPort{
		{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 2020},
		{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 9879},
	}, cni.ports)

	// The total is the sum over the daemon pods that run, and only those.
	sum := v1.ResourceList{}
	running := 0
	for _, r := range w.rows {
		if !r.decision.ShouldRun {
			require.Nil(t, r.requests)
			continue
		}
		running++
		for name, q := range r.requests {
			s := sum[name]
			s.Add(q)
			sum[name] = s
		}
	}
	require.Equal(t, running, w.running)
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		requireQuantity(t, sum[name], w.total, name)
	}

	require.Len(t, w.conflicts, 1)
	c := w.conflicts[0]
	require.Equal(t, [2]string{"cni-agent", "fluentd-elasticsearch"}, [2]string{c.a.Name, c.b.Name})
	require.Equal(t, int32(2020), c.port.Port)
}

// TestWhatIfOnATaintedShape: fluentd does not tolerate the GPU taint, so its pod neither
// counts nor conflicts there.
func TestWhatIfOnATaintedShape(t *testing.T) {
	w := askShape(t, "GPU amd64")
	fluentd := rowOf(t, w, "fluentd-elasticsearch")
	require.False(t, fluentd.decision.ShouldRun)
	require.Equal(t, "nvidia.com/gpu", fluentd.decision.Taint.Key)
	require.Empty(t, w.conflicts)
	require.Equal(t, 4, w.running)
}

// TestDecodeAllIsStrict: a node shape is read as strictly as a hand-written manifest (D-20).
// apimachinery's YAMLOrJSONDecoder, which read them before, matched "Capacity" to capacity and
// dropped unknown fields without a word.
func TestDecodeAllIsStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		wantCPU     []string // of each shape, when it is read
		wantErr     string
	}{
		{name: "D-20: shapes in several documents are all read", input: "status: {capacity: {cpu: '4'}}\n---\nstatus: {capacity: {cpu: '8'}}\n", wantCPU: []string{"4", "8"}},
		{name: "D-20: a key spelt with other capitals is an unknown field", input: "status: {capacity: {cpu: '4'}}\n---\nstatus:\n  Capacity: {cpu: '8'}\n",
			wantErr: "document 2 (line 3): status.Capacity: unknown field (did you mean capacity?)"},
		{name: "D-20: an unknown field is an error", input: "metadata: {lables: {a: b}}\n", wantErr: "document 1 (line 1): metadata.lables: unknown field (did you mean labels?)"},
		{name: "D-20: a key given twice is an error", input: "metadata:\n  labels: {a: b}\n  labels: {c: d}\n", wantErr: `document 1 (line 1): line 3: key "labels" already set in map`},
		{name: "D-20: a quantity beyond the gate is refused as written", input: "status: {capacity: {cpu: 1e-999999999}}\n",
			wantErr: `document 1 (line 1): status.capacity[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shapes, err := decodeAll[v1.Node]([]byte(tt.input))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, s := range shapes {
				q := s.Status.Capacity[v1.ResourceCPU]
				got = append(got, q.String())
			}
			require.Equal(t, tt.wantCPU, got)
		})
	}
}
