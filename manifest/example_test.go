package manifest_test

import (
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
)

// A kubectl List of several kinds reads into a snapshot; the Service is skipped with a warning
// and the DaemonSet, written by hand, gets a uid derived from its name (D-5).
func ExampleRead() {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: worker-1, creationTimestamp: "2026-03-01T10:00:00Z"}
- apiVersion: v1
  kind: Service
  metadata: {name: dns, namespace: kube-system}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:1}]}
`
	res, err := manifest.Read("dump.yaml", strings.NewReader(dump), manifest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Snapshot
	fmt.Println(len(s.Nodes), "node,", len(s.DaemonSets), "DaemonSet, at", res.Sources.DaemonSets[0])
	fmt.Println("update strategy:", s.DaemonSets[0].Spec.UpdateStrategy.Type)
	fmt.Println("now:", manifest.Latest(s).Format("2006-01-02T15:04:05Z07:00"))
	for _, w := range res.Warnings {
		fmt.Println(strings.TrimSpace(fmt.Sprint(w.Reason, ": ", w.Kind, " ", w.Namespace, "/", w.Name, " ", w.Field)))
	}
	// Output:
	// 1 node, 1 DaemonSet, at dump.yaml: document 1: items[2]
	// update strategy: RollingUpdate
	// now: 2026-03-01T10:00:00Z
	// SkippedKind: Service kube-system/dns
	// DerivedUID: DaemonSet kube-system/agent metadata.uid
}

// A kubectl dump is read and planned as the controller would plan every DaemonSet in it, at
// the latest time the dump records (the CLI's default --now).
func Example_planADump() {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: worker-1, labels: {kubernetes.io/os: linux}, creationTimestamp: "2026-03-01T10:00:00Z"}
- apiVersion: v1
  kind: Node
  metadata: {name: worker-2, labels: {kubernetes.io/os: linux}, creationTimestamp: "2026-03-01T10:05:00Z"}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: 0b5c6e4e-agent}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec:
        nodeSelector: {kubernetes.io/os: linux}
        containers: [{name: agent, image: agent:1}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-x1
    namespace: kube-system
    labels: {app: agent}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: 0b5c6e4e-agent, controller: true}]
  spec: {nodeName: worker-1, containers: [{name: agent, image: agent:1}]}
  status: {phase: Running}
`
	res, err := manifest.Read("dump.yaml", strings.NewReader(dump), manifest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	plans, err := res.Snapshot.Plan(daemonset.Options{Now: manifest.Latest(res.Snapshot)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range plans.DaemonSets {
		for _, c := range r.Create {
			fmt.Printf("%s/%s: create on %s (%s)\n", r.Namespace, r.Name, c.Node, c.Reason)
		}
		fmt.Printf("%s/%s: desired %d, current %d\n", r.Namespace, r.Name,
			r.Status.DesiredNumberScheduled, r.Status.CurrentNumberScheduled)
	}
	// Output:
	// kube-system/agent: create on worker-2 (MissingPod)
	// kube-system/agent: desired 2, current 1
}

// Limits bound what is read. A quantity whose exponent would make apimachinery build a number
// of a billion digits is refused before it is parsed, naming the field; the limits can be
// raised (or lowered) one by one. A hand-written node the API server would refuse is an error,
// a warning with WarnInvalidObjects.
func ExampleLimits() {
	const node = `apiVersion: v1
kind: Node
metadata: {name: worker-1}
status: {capacity: {cpu: "1e-999999999"}}
`
	_, err := manifest.Read("node.yaml", strings.NewReader(node), manifest.Options{})
	fmt.Println(err)

	_, err = manifest.Read("node.yaml", strings.NewReader(strings.Replace(node, "1e-999999999", "4", 1)),
		manifest.Options{Limits: manifest.Limits{ObjectBytes: 64}})
	fmt.Println(err)

	const tainted = `apiVersion: v1
kind: Node
metadata: {name: worker-2}
spec: {taints: [{key: gpu, effect: NoSchedule}, {key: gpu, effect: NoSchedule}]}
`
	_, err = manifest.Read("node.yaml", strings.NewReader(tainted), manifest.Options{})
	fmt.Println(err)
	res, _ := manifest.Read("node.yaml", strings.NewReader(tainted), manifest.Options{WarnInvalidObjects: true})
	fmt.Println(res.Warnings[0].Reason)
	// Output:
	// node.yaml: document 1: Node worker-1: status.capacity[cpu]: Invalid value: "1e-999999999": a quantity with an exponent beyond ±100 (limit QuantityExponent)
	// node.yaml: document 1: an object larger than 64 bytes (limit ObjectBytes; the API server's is 3 MiB)
	// node.yaml: document 1: Node worker-2: spec.taints[1]: Duplicate value: {"key":"gpu","effect":"NoSchedule"}: taints must be unique by key and effect pair
	// InvalidObject
}

// Read lean (D-16), a dump's pods keep what the plan and its table read (here the phase, the
// Ready condition, the node name and the containers' requests) and drop the rest (here the
// containers' images); managedFields shrink to one entry holding their latest time, so Latest
// is the same as on the whole objects.
func ExampleOptions_lean() {
	const dump = `apiVersion: v1
kind: Pod
metadata:
  name: agent-x7k2p
  namespace: kube-system
  resourceVersion: "700001"
  managedFields:
  - {manager: kubelet, operation: Update, time: "2026-03-01T10:00:05Z"}
  - {manager: kube-controller-manager, operation: Update, time: "2026-03-01T10:00:00Z"}
spec:
  nodeName: worker-1
  containers: [{name: agent, image: agent:1, resources: {requests: {cpu: 100m}}}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T10:00:04Z"}]
`
	for _, lean := range []bool{false, true} {
		res, err := manifest.Read("pod.yaml", strings.NewReader(dump), manifest.Options{Lean: lean})
		if err != nil {
			fmt.Println(err)
			return
		}
		p := res.Snapshot.Pods[0]
		c := p.Spec.Containers[0]
		fmt.Printf("lean %v: %s on %s, %s, ready %v, requests cpu %s, image %q, %d managedFields, latest %s\n",
			lean, p.Name, p.Spec.NodeName, p.Status.Phase, daemonset.IsPodReady(p), c.Resources.Requests.Cpu(), c.Image,
			len(p.ManagedFields), manifest.Latest(res.Snapshot).Format("15:04:05"))
	}
	// Output:
	// lean false: agent-x7k2p on worker-1, Running, ready true, requests cpu 100m, image "agent:1", 2 managedFields, latest 10:00:05
	// lean true: agent-x7k2p on worker-1, Running, ready true, requests cpu 100m, image "", 1 managedFields, latest 10:00:05
}
