package manifest

import (
	"fmt"
	"strings"

	"github.com/daemonsched/daemonsched/internal/printable"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source says where an object was read: the input's name, the 1-based number of its document
// (blank and comment-only documents are not counted) and, inside a list, its index in items.
type Source struct {
	File     string
	Document int
	// Item is the index in the list's items, or -1 for an object that is not in a list.
	Item int
}

// String is "FILE: document N", or "FILE: document N: items[I]" inside a list. A file name
// with control or other non-graphic characters is quoted (see identity).
func (s Source) String() string {
	if s.Item < 0 {
		return fmt.Sprintf("%s: document %d", printable.Quote(s.File), s.Document)
	}
	return fmt.Sprintf("%s: document %d: items[%d]", printable.Quote(s.File), s.Document, s.Item)
}

// WarningReason says what a [Warning] is about, as a stable code.
type WarningReason string

const (
	// WarningSkippedKind: an object of a kind that is not read (only apps/v1 DaemonSet and
	// ControllerRevision, v1 Node, Pod and LimitRange, and node.k8s.io/v1 RuntimeClass are)
	// was skipped.
	WarningSkippedKind WarningReason = "SkippedKind"
	// WarningUnknownField: a field the linked API types (Kubernetes 1.37's, the message says
	// so) do not have was dropped, as every client built with them (the controller included)
	// drops it.
	WarningUnknownField WarningReason = "UnknownField"
	// WarningInvalidObject: a Node or Pod read from the API server (it carries
	// metadata.resourceVersion) fails the API server's validation of a field the plan reads
	// (VAL-24); it is read as stored. The same problem in a hand-written object is an error.
	WarningInvalidObject WarningReason = "InvalidObject"
	// WarningDerivedUID: a DaemonSet without metadata.uid got one derived from its namespace and
	// name (D-5, [DefaultUID]).
	WarningDerivedUID WarningReason = "DerivedUID"
	// WarningAdoptedUID: a DaemonSet without metadata.uid took the uid of the DaemonSet of the
	// same namespace and name that controls pods in the input, so that a manifest read with a
	// dump of its cluster owns the pods it owns there (D-5, [DefaultUID]).
	WarningAdoptedUID WarningReason = "AdoptedUID"
	// WarningAppliedNew: a DaemonSet of an [Input.Apply] input that no other input holds was
	// added as a new DaemonSet (D-14), which is what kubectl apply would do, but is more often a
	// manifest without metadata.namespace (so in "default") or with a misspelt name. The
	// message names the closest DaemonSet the other inputs hold, if any.
	WarningAppliedNew WarningReason = "AppliedNew"
)

// Warning is something Read did with the input that the caller may want to know about. One
// Warning may stand for several objects: More counts the others.
type Warning struct {
	Reason WarningReason
	// Source, APIVersion, Kind, Namespace and Name are those of the (first) object. Namespace is
	// as messages show it: "default" for a namespaced object without one, unless
	// [DefaultNamespace] is skipped.
	Source                            Source
	APIVersion, Kind, Namespace, Name string
	// Field is the field path the warning is about ("status.images[3].sizeBytes"), or "".
	Field string
	// Message says what happened, without where.
	Message string
	// More is the number of further objects with the same warning: of the same apiVersion and
	// kind for WarningSkippedKind; of the same kind with the same Field, list indices left out,
	// for WarningUnknownField.
	More int
}

// String is the warning on one line, as the daemonsched command prints it after
// "daemonsched: warning: ".
func (w Warning) String() string {
	where := w.Source.String() + ": " + identity(w.Kind, w.Namespace, w.Name)
	if w.Reason == WarningSkippedKind {
		if w.More > 0 {
			where += fmt.Sprintf(" and %d more", w.More)
		}
		return where + ": " + w.Message
	}
	if w.Field != "" {
		where += ": " + printable.Quote(w.Field)
	}
	s := where + ": " + w.Message
	if w.Reason == WarningUnknownField && w.More > 0 {
		s += fmt.Sprintf(" (and %d more %s objects with %s)", w.More, w.Kind, indexPattern(w.Field))
	}
	return s
}

// identity names an object in messages: "Pod kube-system/agent-x7k2p", "Node worker-1",
// "Service (no name)". Objects without a kind read "object". A kind, namespace or name with a
// control or other non-graphic character is quoted ("Node \"x\\ny\""), so that a message
// stays on one line and no terminal escape passes through.
func identity(kind, namespace, name string) string {
	if kind == "" {
		kind = "object"
	}
	kind, namespace, name = printable.Quote(kind), printable.Quote(namespace), printable.Quote(name)
	switch {
	case name == "":
		return kind + " (no name)"
	case namespace == "":
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// shownNamespace is the namespace messages give an object: a namespaced object without one is
// in "default" (D-5) when that default applies.
func shownNamespace(kind, namespace string, opts Options) string {
	if namespace != "" || !opts.applies(DefaultNamespace) {
		return namespace
	}
	if _, known := kinds[kind]; !known {
		// A typo of a cluster-scoped kind (kind: node) is named as that kind would be: "node
		// cp-1", not "node default/cp-1".
		if k := misspelledKind(kind, ""); k != "" {
			kind = k
		}
	}
	if namespaced(kind) {
		return metav1.NamespaceDefault
	}
	return namespace
}

// indexPattern replaces the list indices of a field path by "*": status.images[3].x reads
// status.images[*].x.
func indexPattern(path string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(path[i+1:], ']')
		}
		if j < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i+1])
		b.WriteByte('*')
		path = path[i+1+j:]
	}
}
