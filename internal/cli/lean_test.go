package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/kubectldump"
	"github.com/daemonsched/daemonsched/internal/shapefuzz"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// leanRun runs args as run does, with stdin (nil: a terminal), and returns what the command
// printed (stdout, then stderr, then its error) and whether it read its input lean (D-16);
// every has it read every field instead.
func leanRun(args []string, stdin []byte, every bool) (printed, stdout string, readLean bool) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	e := &env{stdin: in, out: new(bytes.Buffer), live: io.Discard, stderr: &stderr, readEvery: every}
	root := newRootCommand(e)
	root.SetArgs(append([]string{}, args...))
	_, err := root.ExecuteC()
	return fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nerror: %v\n", e.out, &stderr, err), e.out.String(), e.readLean
}

// requireLeanPrintsTheSame runs args read lean and read whole, when the command reads lean at
// all, and requires the same output; it reports whether the command read lean.
func requireLeanPrintsTheSame(t *testing.T, args []string, stdin []byte) bool {
	t.Helper()
	got, _, readLean := leanRun(args, stdin, false)
	if !readLean {
		return false
	}
	want, _, _ := leanRun(args, stdin, true)
	require.Equal(t, want, got, "%q: the output differs when the input is read lean (D-16); -want (every field) +got (lean)", args)
	return true
}

// TestLeanCommandsPrintTheSame guards D-16 against the next reader of a lean snapshot: every
// command that reads its input lean (lean in decode.go) prints the same bytes, warnings and
// errors included, as when it reads every field. It runs each golden case's command, each
// command on a rollout held by a crash-looping pod and a pending one the scheduler preempts
// for (what plan's table names, through rollout.Progress, as holding the update budget), on a
// realistic kubectl dump and on random clusters whose nodes and pods carry what the scheduler
// reads.
func TestLeanCommandsPrintTheSame(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		dirs, err := filepath.Glob(filepath.Join("testdata", "*", "args"))
		require.NoError(t, err)
		lean := 0
		for _, argsFile := range dirs {
			dir, err := filepath.Abs(filepath.Dir(argsFile))
			require.NoError(t, err)
			args := readArgs(t, argsFile)
			if len(args) == 0 || args[0] != "plan" && args[0] != "demo" {
				continue // the commands that read lean (TestLeanReadersArePlanAndDemo)
			}
			t.Run(filepath.Base(dir), func(t *testing.T) {
				t.Chdir(dir)
				stdin := []byte{}
				if data, err := os.ReadFile("stdin"); err == nil {
					stdin = data
				}
				if _, err := os.Stat("terminal"); err == nil {
					stdin = nil
				}
				if requireLeanPrintsTheSame(t, args, stdin) {
					lean++
				}
			})
		}
		require.Positive(t, lean, "no golden case read lean")
	})
	stuck := heldRollout(t)
	for _, args := range [][]string{
		{"plan", "-f", stuck, "--now", "2026-03-01T12:00:00Z"},
		{"plan", "-f", stuck, "--now", "2026-03-01T12:00:00Z", "-n", "kube-system"},
		{"plan", "-f", stuck, "--now", "2026-03-01T12:00:00Z", "-o", "json"},
		{"plan", "-f", stuck, "--now", "2026-03-01T12:00:00Z", "-o", "yaml"},
		{"plan", "-f", stuck},
	} {
		require.True(t, requireLeanPrintsTheSame(t, args, []byte{}), "%q does not read lean", args)
	}
	dump, err := kubectldump.Realistic(40)
	require.NoError(t, err)
	require.True(t, requireLeanPrintsTheSame(t, []string{"plan"}, dump), "plan on stdin does not read lean")
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 40 {
		path := randomScheduledCluster(t, r)
		t.Run(fmt.Sprint("random-", i), func(t *testing.T) {
			require.True(t, requireLeanPrintsTheSame(t, []string{"plan", "-f", path, "--lenient", "--now", shapefuzz.Base.Format(time.RFC3339)}, []byte{}))
		})
	}
}

// TestLeanReadersArePlanAndDemo: of the commands, plan and demo (plan of the built-in example)
// alone read lean, the ones TestLeanCommandsPrintTheSame runs on every input; a command that
// starts to read lean fails here until that test runs it too.
func TestLeanReadersArePlanAndDemo(t *testing.T) {
	stuck := heldRollout(t)
	_, plan, _ := leanRun([]string{"plan", "-f", stuck, "-o", "json"}, []byte{}, true)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(planFile, []byte(plan), 0o644))
	var readers []string
	for _, args := range [][]string{
		{"plan", "-f", stuck}, {"plan", "-f", stuck, "-o", "wide"}, {"plan", "-f", stuck, "--scheduler", "-o", "json"}, {"demo"},
		{"explain", "-f", stuck, "--node", "node-a"}, {"verify", "-f", stuck, "--plan", planFile},
		{"rollout", "status", "-f", stuck, "-n", "kube-system", "ds/agent"}, {"forecast", "-f", stuck, "-n", "kube-system", "ds/agent"},
		{"whatif", "-f", stuck, "--node", "node-a"}, {"node-ready", "-f", stuck, "--node", "node-a"}, {"lint", "-f", stuck},
	} {
		printed, _, readLean := leanRun(args, []byte{}, false)
		require.NotContains(t, printed, "usage", "%q", args)
		if readLean {
			readers = append(readers, strings.Join(args[:min(len(args), 4)], " "))
		}
	}
	want := []string{"plan -f " + stuck, "demo"}
	require.Equal(t, want, readers, "the commands that read lean (D-16): TestLeanCommandsPrintTheSame must run each")
}

// heldRollout writes, as a kubectl dump, a DaemonSet whose rolling update waits for its budget
// (maxUnavailable 1): node-a runs an available pod of the old revision, node-b a pod of the
// current one whose container crash-loops, and node-c a pending one (the controller created it
// with node affinity, the scheduler has not bound it) that fits only by preempting a pod of a
// lower priority, the node allowing one pod. Read lean, a node's allocatable, the priorities
// and the container statuses must survive for plan's table to name what holds the budget.
func heldRollout(t *testing.T) string {
	t.Helper()
	created := metav1.NewTime(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	maxUnavailable := intstr.FromInt32(1)
	ds := &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid", Generation: 2, CreationTimestamp: created,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Update", Time: &created}}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: v1.PodSpec{PriorityClassName: "system-node-critical", Containers: []v1.Container{{Name: "agent", Image: "agent:2",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &maxUnavailable}},
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 2},
	}
	// The DaemonSet as the reader gives it (defaulted), for its hash and its pods.
	read, err := manifest.ReadFiles([]string{writeList(t, ds)}, manifest.Options{})
	require.NoError(t, err)
	require.Len(t, read.Snapshot.DaemonSets, 1)
	p, errs := daemonset.Compile(read.Snapshot.DaemonSets[0], daemonset.Options{Now: created.Time})
	require.Empty(t, errs)
	hash := p.Plan(daemonset.Snapshot{}).RevisionHash
	node := func(name, pods string) *v1.Node {
		return &v1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: created, Labels: map[string]string{"kubernetes.io/hostname": name},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: "Update", Time: &created}}},
			Status: v1.NodeStatus{
				Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse(pods)},
				Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: created, LastTransitionTime: created}},
			}}
	}
	ready := func(status v1.ConditionStatus) []v1.PodCondition {
		return []v1.PodCondition{{Type: v1.PodReady, Status: status, LastTransitionTime: created}}
	}
	daemonPod := func(name, node, revision string) *v1.Pod {
		pod := p.NewPod(node)
		pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		pod.Name, pod.UID, pod.CreationTimestamp = name, types.UID("uid-"+name), created
		pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", Time: &created}}
		pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = revision
		pod.Spec.Priority = new(int32(2000001000))
		pod.Status.Phase = v1.PodRunning
		pod.Status.StartTime = &created
		return pod
	}
	old := daemonPod("agent-a", "node-a", "old")
	old.Spec.NodeName = "node-a"
	old.Status.Conditions = ready(v1.ConditionTrue)
	crashing := daemonPod("agent-b", "node-b", hash)
	crashing.Spec.NodeName = "node-b"
	crashing.Status.Conditions = ready(v1.ConditionFalse)
	crashing.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "agent", Image: "agent:2",
		State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s"}}}}
	pending := daemonPod("agent-c", "node-c", hash)
	pending.Status.Phase = v1.PodPending
	pending.Status.StartTime = nil
	web := &v1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default", UID: "uid-web-0", CreationTimestamp: created,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", Time: &created}}},
		Spec:   v1.PodSpec{NodeName: "node-c", Priority: new(int32(1000)), Containers: []v1.Container{{Name: "web", Image: "web:1"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &created, Conditions: ready(v1.ConditionTrue)}}
	return writeList(t, ds, node("node-a", "110"), node("node-b", "110"), node("node-c", "1"), old, crashing, pending, web)
}

// writeList writes objs as one kubectl List in JSON and returns its path.
func writeList(t *testing.T, objs ...any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": objs})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cluster.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// randomScheduledCluster writes a shaped cluster (internal/shapefuzz) whose nodes and pods
// also carry, drawn from r, what the scheduler and rollout.Progress read (allocatable,
// requests, host ports, priorities, waiting reasons, Ready conditions) and what nobody reads
// (images, addresses), with some of its DaemonSets' pods of the current revision and some of
// those pending: the places where lean and full reads could part.
func randomScheduledCluster(t *testing.T, r *rand.Rand) string {
	t.Helper()
	var data []byte
	for range 3 {
		data = binary.LittleEndian.AppendUint64(data, r.Uint64())
	}
	c := shapefuzz.New(data)
	quantity := func() resource.Quantity { return *resource.NewQuantity(int64(r.IntN(4)), resource.DecimalSI) }
	for _, n := range c.Nodes {
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: quantity(), v1.ResourcePods: quantity()}
		n.Status.Images = []v1.ContainerImage{{Names: []string{"registry.example.com/agent:1"}, SizeBytes: 1 << 20}}
		n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.1"}}
	}
	opts := daemonset.Options{Now: shapefuzz.Base}
	hashes := map[types.UID]string{}
	for _, ds := range c.DaemonSets {
		if p, errs := daemonset.Compile(ds, opts); len(errs) == 0 {
			hashes[ds.UID] = p.Plan(daemonset.Snapshot{}).RevisionHash
		}
	}
	for _, pod := range c.Pods {
		pod.Spec.Priority = new(int32(r.IntN(3) * 1000))
		pod.Spec.Containers = []v1.Container{{Name: "c", Image: "img", Env: []v1.EnvVar{{Name: "A", Value: "b"}},
			Ports:     []v1.ContainerPort{{ContainerPort: 80, HostPort: int32(r.IntN(2) * 80)}},
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: quantity()}}}}
		if r.IntN(2) == 0 {
			pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", Image: "img", RestartCount: 3,
				State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil || hashes[ref.UID] == "" || r.IntN(3) == 0 {
			continue
		}
		pod.Labels = map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hashes[ref.UID]}
		for _, ds := range c.DaemonSets {
			if ds.UID == ref.UID {
				for k, v := range ds.Spec.Template.Labels {
					pod.Labels[k] = v
				}
			}
		}
		if node := pod.Spec.NodeName; node != "" && r.IntN(2) == 0 {
			pod.Spec.NodeName = ""
			pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
					Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
		}
	}
	return writeList(t, c.Objects()...)
}
