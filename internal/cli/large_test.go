package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// kubectlDump writes what `kubectl get nodes,pods,daemonsets -A -o yaml` prints for a cluster of
// n nodes: every tenth node carries an untolerated NoExecute taint, and the first two thirds of
// the nodes run an up-to-date, ready agent pod.
func kubectlDump(n int) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata:
    creationTimestamp: "2026-01-10T08:00:00Z"
    labels:
      kubernetes.io/hostname: node-%03[1]d
      topology.kubernetes.io/zone: zone-%[2]c
    name: node-%03[1]d
    uid: 00000000-0000-4000-8000-%012[1]d
  spec:
`, i, 'a'+rune(i%3))
		if i%10 == 0 {
			b.WriteString("    taints:\n    - effect: NoExecute\n      key: example.com/drain\n      value: \"true\"\n")
		}
		fmt.Fprintf(&b, `  status:
    conditions:
    - lastHeartbeatTime: "2026-03-02T09:59:00Z"
      lastTransitionTime: "2026-01-10T08:00:30Z"
      reason: KubeletReady
      status: "True"
      type: Ready
`)
	}
	for i := range 2 * n / 3 {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-02-01T10:00:00Z"
    generateName: agent-
    labels:
      app: agent
      pod-template-generation: "1"
    name: agent-%05[1]d
    namespace: kube-system
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: DaemonSet
      name: agent
      uid: 11111111-2222-4333-8444-555555555555
    uid: 10000000-0000-4000-8000-%012[1]d
  spec:
    containers:
    - image: registry.example.com/agent:1.0
      name: agent
    nodeName: node-%03[1]d
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2026-02-01T10:00:05Z"
      status: "True"
      type: Ready
    phase: Running
`, i)
	}
	b.WriteString(`- apiVersion: apps/v1
  kind: DaemonSet
  metadata:
    annotations:
      deprecated.daemonset.template.generation: "1"
    creationTimestamp: "2026-02-01T10:00:00Z"
    generation: 1
    name: agent
    namespace: kube-system
    uid: 11111111-2222-4333-8444-555555555555
  spec:
    revisionHistoryLimit: 10
    selector:
      matchLabels:
        app: agent
    template:
      metadata:
        labels:
          app: agent
      spec:
        containers:
        - image: registry.example.com/agent:1.0
          name: agent
    updateStrategy:
      rollingUpdate:
        maxSurge: 0
        maxUnavailable: 1
      type: RollingUpdate
kind: List
metadata:
  resourceVersion: ""
`)
	return b.Bytes()
}

// A 300-node kubectl dump goes end to end through run: the agent is created on every untainted
// node without one (DIFF-2) and deleted from every tainted node that has one (ELIG-4, TAINT-5, DIFF-4).
func TestRunPlansAKubectlDumpOf300Nodes(t *testing.T) {
	t.Parallel()
	const n = 300
	var stdout, stderr bytes.Buffer
	code := run([]string{"plan", "-f", "-", "-o", "json"}, bytes.NewReader(kubectlDump(n)), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	require.Empty(t, stderr.String())

	var got daemonset.ClusterResult
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	require.Len(t, got.DaemonSets, 1)
	res := got.DaemonSets[0]

	var wantCreate, wantDelete, gotCreate, gotDelete []string
	for i := range n {
		tainted, hasPod := i%10 == 0, i < 2*n/3
		switch {
		case !tainted && !hasPod:
			wantCreate = append(wantCreate, fmt.Sprintf("node-%03d MissingPod", i))
		case tainted && hasPod:
			wantDelete = append(wantDelete, fmt.Sprintf("agent-%05d node-%03d NodeNotEligible", i, i))
		}
	}
	for _, c := range res.Create {
		gotCreate = append(gotCreate, c.Node+" "+string(c.Reason))
		require.Equal(t, c.Node, c.Pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0])
	}
	for _, d := range res.Delete {
		gotDelete = append(gotDelete, d.Name+" "+d.Node+" "+string(d.Reason))
	}
	require.Equal(t, wantCreate, gotCreate)
	require.Equal(t, wantDelete, gotDelete)
	require.True(t, slices.IsSortedFunc(res.Create, func(a, b daemonset.Creation) int { return strings.Compare(a.Node, b.Node) }))

	require.NotNil(t, res.Status)
	require.Equal(t, int32(n-n/10), res.Status.DesiredNumberScheduled)
	require.Equal(t, int32(2*n/3-2*n/3/10), res.Status.CurrentNumberScheduled)
	require.Equal(t, int32(2*n/3/10), res.Status.NumberMisscheduled)
}

// The plan is sorted (STYLE: deterministic output): the example cluster gives byte-equal JSON
// whatever the order of its documents.
func TestRunOutputDoesNotDependOnDocumentOrder(t *testing.T) {
	t.Parallel()
	// The example is plain YAML, "---" lines between documents: apimachinery's reader splits it.
	var docs [][]byte
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(exampleCluster)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		docs = append(docs, doc)
	}
	require.Greater(t, len(docs), 10)

	plan := func(docs [][]byte) string {
		var in bytes.Buffer
		for _, d := range docs {
			in.WriteString("---\n")
			in.Write(d)
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"plan", "-f", "-", "-o", "json"}, &in, &stdout, &stderr)
		require.Equal(t, exitOK, code, stderr.String())
		return stdout.String()
	}
	want := plan(docs)
	reversed := slices.Clone(docs)
	slices.Reverse(reversed)
	require.Equal(t, want, plan(reversed))
	// Interleaved: odd documents first, then even ones.
	var interleaved [][]byte
	for i := 1; i < len(docs); i += 2 {
		interleaved = append(interleaved, docs[i])
	}
	for i := 0; i < len(docs); i += 2 {
		interleaved = append(interleaved, docs[i])
	}
	require.Equal(t, want, plan(interleaved))
}

// BenchmarkRunPlan measures the whole command on kubectl dumps: decoding dominates, the plan
// itself is a small share.
func BenchmarkRunPlan(b *testing.B) {
	for _, n := range []int{300, 3000} {
		dump := kubectlDump(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(dump)))
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				if code := run([]string{"plan", "-f", "-", "-o", "json"}, bytes.NewReader(dump), &stdout, &stderr); code != exitOK {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// realisticDump is kubectldump.Realistic: n nodes as a v1.36 API server returns them, a daemon
// pod on every node but every seventh, one kubectl List; about 7 KB per node.
func realisticDump(t testing.TB, n int) []byte {
	t.Helper()
	dump, err := kubectldump.Realistic(n)
	require.NoError(t, err)
	return dump
}

// A realistic kubectl dump plans end to end; the plan creates the agent on every seventh node,
// which has none. (BenchmarkRunPlanRealistic runs 5,000 nodes, about 38 MB of YAML; the test
// keeps to 500 so that it stays fast under -race.)
func TestRunPlansARealisticDump(t *testing.T) {
	t.Parallel()
	const n = 500
	dump := realisticDump(t, n)
	var stdout, stderr bytes.Buffer
	code := run([]string{"plan", "-f", "-", "-o", "json", "--strict"}, bytes.NewReader(dump), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	var got daemonset.ClusterResult
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	require.Len(t, got.DaemonSets, 1)
	require.Len(t, got.DaemonSets[0].Create, (n+6)/7)
	require.Equal(t, int32(n), got.DaemonSets[0].Status.DesiredNumberScheduled)
}

// BenchmarkRunPlanRealistic measures the whole command on realistic kubectl dumps (see
// realisticDump), read from YAML and from kubectl's JSON.
func BenchmarkRunPlanRealistic(b *testing.B) {
	const n = 5000
	dump := realisticDump(b, n)
	var list map[string]any
	require.NoError(b, yaml.Unmarshal(dump, &list))
	js, err := kubectldump.JSON(list)
	require.NoError(b, err)
	inputs := []struct {
		name string
		data []byte
	}{{"yaml", dump}, {"json", js}}
	for _, in := range inputs {
		b.Run(fmt.Sprintf("nodes=%d/%s", n, in.name), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				if code := run([]string{"plan", "-f", "-", "-o", "json"}, bytes.NewReader(in.data), &stdout, &stderr); code != exitOK {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}
