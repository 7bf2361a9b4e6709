package cli

import (
	"bytes"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// orderedYAML converts JSON to YAML keeping the order of the JSON's keys (sigs.k8s.io/yaml
// sorts them), so that -o yaml reads in the same order as -o json. JSON is YAML: it is parsed
// as a node tree, whose scalars lose their JSON quoting, and written with two-space indentation.
func orderedYAML(js []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("rendering YAML: %w", err)
	}
	plain(&doc)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent() // "- " under its key, as kubectl writes lists
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("rendering YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("rendering YAML: %w", err)
	}
	return b.Bytes(), nil
}

// plain drops the JSON styles (quoted strings, flow mappings) so that the encoder writes block
// YAML, quoting a string only where YAML needs it; tags keep strings strings.
func plain(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		plain(c)
	}
}
