// Package kubectldump gives tests what `kubectl get -o yaml|json` prints of a v1.36 cluster: a
// real dump, and realistic dumps of any size built from its objects. The same size always gives
// the same bytes. It is for tests and benchmarks only.
package kubectldump

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"
)

// v136 is a List as `kubectl get nodes,pods,daemonsets,controllerrevisions,services -A -o yaml`
// prints it from a v1.36 cluster: managedFields, resourceVersion, the status of every kind. The
// daemonsched golden case real-dump-v136 reads the same bytes (TestRealIsTheGoldenCase).
//
//go:embed v136.yaml
var v136 []byte

// Real returns the real dump: two nodes, a daemon pod, its DaemonSet and ControllerRevision and
// a Service, as one List.
func Real() []byte { return slices.Clone(v136) }

// Items returns the items of a List, as generic objects.
func Items(list []byte) ([]map[string]any, error) {
	var l struct {
		Items []map[string]any `json:"items"`
	}
	err := yaml.Unmarshal(list, &l)
	return l.Items, err
}

// JSON prints v as `kubectl get -o json` does: encoding/json, four-space indent, map keys
// sorted, <, > and & escaped, a final newline.
func JSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "    ")
	return append(data, '\n'), err
}

// Realistic replicates the first node and the daemon pod of [Real] to n nodes (worker-00000,
// ...) and a pod on every node but every seventh (worker-00000, worker-00007, ...), followed
// by the DaemonSet, its revision and the Service, as one List in kubectl's YAML layout: about
// 7 KB per node.
func Realistic(n int) ([]byte, error) {
	items, err := Items(v136)
	if err != nil {
		return nil, err
	}
	var node, pod []byte
	var rest bytes.Buffer
	for _, it := range items {
		y, err := yaml.Marshal(it)
		if err != nil {
			return nil, err
		}
		switch it["kind"] {
		case "Node":
			if node == nil {
				node = y
			}
		case "Pod":
			pod = y
		default:
			rest.Write(ListItem(y))
		}
	}
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range n {
		name := fmt.Sprintf("worker-%05d", i)
		b.Write(ListItem(bytes.ReplaceAll(node, []byte("worker-1"), []byte(name))))
		if i%7 != 0 {
			p := bytes.ReplaceAll(pod, []byte("worker-1"), []byte(name))
			p = bytes.ReplaceAll(p, []byte("agent-x7k2p"), []byte(fmt.Sprintf("agent-%05d", i)))
			p = bytes.ReplaceAll(p, []byte("000000000001"), []byte(fmt.Sprintf("%012d", i)))
			b.Write(ListItem(p))
		}
	}
	b.Write(rest.Bytes())
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Bytes(), nil
}

// ListItem makes a YAML mapping an item of a block sequence, as kubectl prints list items: "- "
// before the first line, two spaces before the others that are not blank.
func ListItem(y []byte) []byte {
	var b bytes.Buffer
	for i, line := range slices.Collect(bytes.Lines(y)) {
		switch {
		case i == 0:
			b.WriteString("- ")
		case len(bytes.TrimSpace(line)) > 0:
			b.WriteString("  ")
		}
		b.Write(line)
	}
	return b.Bytes()
}
