package manifest

import (
	"bytes"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Position is where something is written in an input's text: a line of the file, from 1, and
// a column of that line, from 1, or 0 when unknown.
type Position struct {
	Line   int
	Column int
}

// Positions finds where the fields of the objects of one input are written, for tools that
// point into the file (lint's SARIF regions). It splits the text into documents as the reader
// does, so a [Source] the reader gave names the same document, and parses each document the
// first time it is asked about. It is not safe for concurrent use.
type Positions struct {
	data   []byte
	docs   []document
	parsed map[int]*yaml.Node // by document index; nil when it does not parse
}

// NewPositions returns the positions of data, the text of one input as [ReadText] returns it
// (UTF-8, without a byte order mark). data is only read, and must not change while the
// Positions is used.
func NewPositions(data []byte) *Positions {
	docs, _ := splitDocuments(data)
	return &Positions{data: data, docs: docs, parsed: map[int]*yaml.Node{}}
}

// Field returns where the field at path (as [field.Path] renders it:
// "spec.template.spec.containers[0].ports[1].hostPort", a map key in brackets) of the object
// src names is written: the position of the field's key, of the element for a list index. A
// field the object does not write gets the position of its closest parent that it writes, and
// exact false. ok is false when the text holds no such document or list item, or the document
// does not parse as YAML (which reads JSON too).
func (p *Positions) Field(src Source, path string) (pos Position, exact, ok bool) {
	if src.Document < 1 || src.Document > len(p.docs) {
		return Position{}, false, false
	}
	doc := p.docs[src.Document-1]
	root, seen := p.parsed[src.Document]
	if !seen {
		root = parseNode(doc.data)
		p.parsed[src.Document] = root
	}
	if root == nil {
		return Position{}, false, false
	}
	at := root // the node whose position is reported
	if src.Item >= 0 {
		items, _ := child(root, "items", false)
		if items == nil {
			return Position{}, false, false
		}
		item, _ := child(items, strconv.Itoa(src.Item), true)
		if item == nil {
			return Position{}, false, false
		}
		root, at = item, item
	}
	exact = true
	node := root
	for _, seg := range splitPath(path) {
		value, key := child(node, seg.name, seg.index)
		if value == nil {
			exact = false
			break
		}
		node, at = value, key
	}
	return p.position(doc, at), exact, true
}

// position converts a node's place in doc to the file's line and column. A JSON value that
// starts within a line (several on one line) shifts the columns of its first line.
func (p *Positions) position(doc document, n *yaml.Node) Position {
	pos := Position{Line: doc.line + n.Line - 1, Column: n.Column}
	if n.Line == 1 && doc.json {
		// doc.data is a slice of p.data: its offset is what their capacities differ by.
		off := cap(p.data) - cap(doc.data)
		pos.Column += off - (bytes.LastIndexByte(p.data[:off], '\n') + 1)
	}
	return pos
}

// parseNode parses one document into its root node, aliases left as they are; nil when it does
// not parse or holds nothing.
func parseNode(data []byte) *yaml.Node {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil || n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return nil
	}
	return n.Content[0]
}

// child returns the value under name in a mapping node, with the node that says where it is
// written (its key), or, when index is set and n is a sequence, the element at that index, as
// its own place; nil when there is none. Aliases are followed.
func child(n *yaml.Node, name string, index bool) (value, at *yaml.Node) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				v := n.Content[i+1]
				for v.Kind == yaml.AliasNode && v.Alias != nil {
					v = v.Alias
				}
				return v, n.Content[i]
			}
		}
	case yaml.SequenceNode:
		if !index {
			return nil, nil
		}
		i, err := strconv.Atoi(name)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, nil
		}
		v := n.Content[i]
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		return v, n.Content[i]
	}
	return nil, nil
}

// pathSegment is one step of a field path: a field name, or what a pair of brackets holds (a
// list index or a map key).
type pathSegment struct {
	name  string
	index bool
}

// splitPath splits a path as field.Path renders it: names joined by dots, each followed by any
// number of bracketed indices or keys ("containers[0]", "requests[example.com/gpu]"); dots
// inside brackets belong to the key.
func splitPath(path string) []pathSegment {
	var out []pathSegment
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				end = len(path)
			}
			out = append(out, pathSegment{name: path[1:end], index: true})
			path = path[min(end+1, len(path)):]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out = append(out, pathSegment{name: path[:end]})
			path = path[end:]
		}
	}
	return out
}
