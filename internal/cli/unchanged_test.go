package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The plans of random clusters are pinned: the SHA-256 of `plan -o json` for each seed is in
// testdata/random-plans.sha256, recorded before the code was reorganised into packages. A
// change that alters any byte of any plan fails here and names the seed; replay one with
// `go test ./internal/cli -run TestPlansAreUnchanged/seed=17 -v`, which prints the input.
// The generator below is part of the record: changing it means recording again
// (-update-plans), which is only right when the plans are meant to change.

const randomPlanSeeds = 400

var updatePlans = flag.Bool("update-plans", false, "record the digests of the random plans anew")

func TestPlansAreUnchanged(t *testing.T) {
	path := filepath.Join("testdata", "random-plans.sha256")
	want := map[string]string{}
	if !*updatePlans {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			seed, sum, ok := strings.Cut(sc.Text(), " ")
			if !ok {
				t.Fatalf("%s: malformed line %q", path, sc.Text())
			}
			want[seed] = sum
		}
		if len(want) != randomPlanSeeds {
			t.Fatalf("%s holds %d digests, want %d", path, len(want), randomPlanSeeds)
		}
	}
	var record bytes.Buffer
	for seed := range uint64(randomPlanSeeds) {
		input := randomCluster(seed)
		dir := t.TempDir()
		file := filepath.Join(dir, "cluster.json")
		if err := os.WriteFile(file, input, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		// --warn-invalid: the generator draws nodes with a taint key and effect twice, which
		// the API server refuses (VAL-24), to pin how the plan reads them. The digests are
		// 1.36.3's plans, recorded before releases were selectable: pinned to that release.
		code := run([]string{"plan", "-f", file, "-o", "json", "--warn-invalid", "--lenient", "--kubernetes-version", "1.36.3"}, nil, &stdout, &stderr)
		sum := sha256.Sum256(fmt.Appendf(nil, "%d\n%s", code, stdout.Bytes()))
		got := hex.EncodeToString(sum[:])
		key := fmt.Sprint(seed)
		fmt.Fprintf(&record, "%s %s\n", key, got)
		if *updatePlans {
			continue
		}
		t.Run("seed="+key, func(t *testing.T) {
			if testing.Verbose() {
				t.Logf("input:\n%s\nexit %d\nstdout:\n%s\nstderr:\n%s", input, code, stdout.Bytes(), stderr.Bytes())
			}
			if got != want[key] {
				t.Errorf("the plan of seed %d changed (exit %d, stderr %q); run with -v to see it", seed, code, stderr.String())
			}
		})
	}
	if *updatePlans {
		if err := os.WriteFile(path, record.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// randomCluster is a kind: List of nodes, DaemonSets, their pods and, for some, their
// ControllerRevisions, drawn so that every part of a sync is reached: placement and taints,
// orphans and foreign pods, terminal, terminating and unready pods, rolling updates with and
// without surge, OnDelete, skipped syncs and invalid DaemonSets.
func randomCluster(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(minutes int) metav1.Time { return metav1.NewTime(base.Add(time.Duration(minutes) * time.Minute)) }
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	var items []any

	nodes := r.IntN(9)
	for i := range nodes {
		n := &v1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}}
		n.Name = fmt.Sprintf("node-%02d", i)
		n.Labels = map[string]string{"kubernetes.io/hostname": n.Name, "kubernetes.io/os": pick("linux", "linux", "windows")}
		if z := pick("a", "b", ""); z != "" {
			n.Labels["zone"] = z
		}
		if r.IntN(3) == 0 {
			n.Labels["cores"] = fmt.Sprint(2 << r.IntN(5))
		}
		for range r.IntN(3) {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{
				Key:    pick("dedicated", "gpu", "node.kubernetes.io/not-ready", "node.kubernetes.io/unschedulable"),
				Value:  pick("", "infra"),
				Effect: v1.TaintEffect(pick("NoSchedule", "NoExecute", "PreferNoSchedule")),
			})
		}
		n.Spec.Unschedulable = r.IntN(8) == 0
		n.CreationTimestamp = at(-r.IntN(1000))
		items = append(items, n)
	}

	for d := range 1 + r.IntN(3) {
		ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}}
		ds.Namespace, ds.Name = pick("kube-system", "monitoring"), fmt.Sprintf("agent-%d", d)
		ds.UID = types.UID(fmt.Sprintf("uid-%d-%d", seed, d))
		ds.CreationTimestamp = at(-2000 + d)
		ds.Generation = int64(1 + r.IntN(4))
		ds.Status.ObservedGeneration = int64(r.IntN(4))
		app := ds.Name
		ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
		switch r.IntN(12) {
		case 0:
			ds.Spec.Selector = &metav1.LabelSelector{} // SYNC-3
		case 1:
			ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Gt", Values: []string{"1"}}} // SYNC-5
		case 2:
			ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"canary"}}}
		}
		if r.IntN(15) == 0 {
			ts := at(-1)
			ds.DeletionTimestamp = &ts // SYNC-4
		}
		tpl := &ds.Spec.Template
		tpl.Labels = map[string]string{"app": app}
		if r.IntN(15) == 0 {
			tpl.Labels["app"] = "other" // invalid: the selector does not match the template
		}
		tpl.Spec.Containers = []v1.Container{{Name: "agent", Image: fmt.Sprintf("agent:%d", r.IntN(3))}}
		// A tidy DaemonSet runs one pod on every node and places anywhere, so that its base
		// diff is often empty and the rolling update acts.
		tidy := r.IntN(2) == 0
		if !tidy && r.IntN(3) == 0 {
			tpl.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
		}
		switch r.IntN(5) {
		case 0:
			if tidy {
				break
			}
			tpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{
					{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
					{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cores", Operator: v1.NodeSelectorOpGt, Values: []string{"8"}}}},
				}}}}
		case 1:
			tpl.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
					{Key: "metadata.name", Operator: v1.NodeSelectorOpNotIn, Values: []string{"node-00", "node-03"}}}}}}}}
		}
		if !tidy && r.IntN(6) == 0 {
			tpl.Spec.NodeName = fmt.Sprintf("node-%02d", r.IntN(nodes+1))
		}
		for range r.IntN(3) {
			tpl.Spec.Tolerations = append(tpl.Spec.Tolerations, v1.Toleration{
				Key: pick("dedicated", "gpu", ""), Operator: v1.TolerationOperator(pick("Exists", "Equal")),
				Value: pick("", "infra"), Effect: v1.TaintEffect(pick("", "NoSchedule", "NoExecute")),
			})
		}
		if r.IntN(5) == 0 {
			tpl.Annotations = map[string]string{"deprecated.daemonset.template.generation": fmt.Sprint(ds.Generation)}
		}
		switch r.IntN(5) {
		case 0:
			ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
		case 1:
		default:
			ru := &appsv1.RollingUpdateDaemonSet{}
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: ru}
			ints := []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromString("50%"), intstr.FromString("25%")}
			mu, ms := ints[r.IntN(len(ints))], ints[r.IntN(len(ints))]
			if r.IntN(2) == 0 {
				ru.MaxUnavailable = &mu
			}
			if r.IntN(2) == 0 {
				ru.MaxSurge = &ms
			}
		}
		ds.Spec.MinReadySeconds = int32(r.IntN(3) * 30)
		items = append(items, ds)

		current := v1363.ComputeHash(tpl, nil)
		if r.IntN(2) == 0 {
			if cr, err := daemonset.NewRevision(ds, current, int64(1+r.IntN(3))); err == nil {
				cr.APIVersion, cr.Kind = "apps/v1", "ControllerRevision"
				items = append(items, cr)
			}
		}
		controller := true
		count := r.IntN(2 * (nodes + 1))
		if tidy {
			count = nodes
		}
		for p := range count {
			pod := &v1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}
			pod.Namespace, pod.Name = ds.Namespace, fmt.Sprintf("%s-%03d", ds.Name, p)
			pod.Labels = map[string]string{"app": app, "controller-revision-hash": pick(current, current, "old0000001")}
			pod.CreationTimestamp = at(-r.IntN(600))
			owner := r.IntN(8)
			if tidy {
				owner = 7
			}
			switch owner {
			case 0: // an orphan the selector matches
			case 1:
				pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: &controller}}
			default:
				pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &controller}}
			}
			target := fmt.Sprintf("node-%02d", r.IntN(nodes+2)) // sometimes a node that does not exist
			if tidy {
				target = fmt.Sprintf("node-%02d", p)
			}
			if r.IntN(6) == 0 {
				pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
					NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
						{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{target}}}}}}}}
			} else {
				pod.Spec.NodeName = target
			}
			pod.Status.Phase = v1.PodPhase(pick("Running", "Running", "Running", "Pending", "Failed", "Succeeded"))
			if tidy && r.IntN(4) != 0 {
				pod.Status.Phase = v1.PodRunning
			}
			if r.IntN(3) != 0 {
				pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: at(-r.IntN(5))}}
			}
			if r.IntN(10) == 0 {
				ts := at(-1)
				pod.DeletionTimestamp = &ts
			}
			items = append(items, pod)
		}
	}
	r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", " ")
	if err != nil {
		panic(err)
	}
	return data
}

// v1363 is the release whose hash these pods and revisions carry, as they did when the test was
// written: 1.36.3, not the default release.
var v1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()
