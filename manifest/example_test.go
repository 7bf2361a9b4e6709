package manifest_test

import (
	"fmt"
	"strings"

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
