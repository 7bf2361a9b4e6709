// Package e2e runs upstream's own DaemonSet e2e specs (k8s.io/kubernetes/test/e2e/apps, the
// "[sig-apps] Daemon set [Serial]" container, v1.36.3) against a kube-apiserver whose DaemonSet
// controller is whatever run.sh started beside it: the reference controller, or
// kube-controller-manager's own for comparison. The suite registers the nodes and runs the live
// story's test kubelet in-process; it never starts a DaemonSet controller itself.
//
//	run.sh e2e       # the reference controller
//	run.sh e2e-kcm   # kube-controller-manager's DaemonSet controller
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/examples/refcontroller/live"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/test/e2e/framework"

	// The specs: every sig-apps spec registers, the focus below keeps the Daemon set ones.
	_ "k8s.io/kubernetes/test/e2e/apps"
)

// focus selects the ten specs of upstream's DaemonSet container (seven of them [Conformance]).
const focus = `\[sig-apps\] Daemon set \[Serial\]`

var nodeCount = flag.Int("nodes", 3, "number of nodes the suite registers (the rollback spec needs at least 2)")

func TestMain(m *testing.M) {
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestDaemonSetSpecs(t *testing.T) {
	if framework.TestContext.KubeConfig == "" {
		t.Skip("no --kubeconfig: run through examples/refcontroller/live/run.sh e2e")
	}
	cfg, err := framework.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for i := range *nodeCount {
		if err := registerNode(ctx, client, fmt.Sprintf("e2e-node-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// The specs use agnhost from registry.k8s.io; the rollback spec's "foo:non-existent" must
	// never become ready, as on a real node.
	if _, err := live.StartKubelet(ctx, client, live.KubeletOptions{Registries: []string{"registry.k8s.io/"}}); err != nil {
		t.Fatal(err)
	}

	gomega.RegisterFailHandler(framework.Fail)
	suiteConfig, reporterConfig := framework.CreateGinkgoConfig()
	if len(suiteConfig.FocusStrings) == 0 {
		suiteConfig.FocusStrings = []string{focus}
	}
	// One spec at a time in a stable order, so that times compare between runs.
	suiteConfig.RandomizeAllSpecs = false
	// The times, one line per spec that ran, for the README's table: from ginkgo's own JSON
	// report (the framework's PreviewSpecs, before the run, reports every spec to reporting
	// nodes as passed, so they cannot tell).
	if reporterConfig.JSONReport == "" {
		reporterConfig.JSONReport = filepath.Join(t.TempDir(), "report.json")
	}
	ginkgo.RunSpecs(t, "daemonsched: upstream DaemonSet e2e specs", suiteConfig, reporterConfig)
	if err := printTimes(reporterConfig.JSONReport); err != nil {
		t.Error(err)
	}
}

// printTimes prints the run time of every spec that ran, from a ginkgo JSON report.
func printTimes(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var lines []string
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt || s.State.Is(types.SpecStateSkipped) {
				continue
			}
			lines = append(lines, fmt.Sprintf("e2e: %-7s %6.1fs  %s", s.State, s.RunTime.Seconds(), s.LeafNodeText))
		}
		lines = append(lines, fmt.Sprintf("e2e: suite %.1fs", r.RunTime.Seconds()))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	return nil
}

// registerNode creates a node as a kubelet registers one and reports it Ready, with no taints,
// so that the e2e framework counts it as ready and schedulable.
func registerNode(ctx context.Context, client kubernetes.Interface, name string) error {
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("8Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	node, err := client.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{v1.LabelHostname: name, v1.LabelOSStable: "linux", v1.LabelArchStable: "amd64"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	now := metav1.NewTime(time.Now())
	node.Status = v1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: now, LastTransitionTime: now}},
		Addresses: []v1.NodeAddress{{Type: v1.NodeHostName, Address: name}},
	}
	_, err = client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	return err
}
