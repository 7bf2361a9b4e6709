package manifest

import (
	"errors"
	"io"

	"github.com/daemonsched/daemonsched/daemonset"
)

// Defaults is a set of the defaults Read applies to hand-written manifests (D-4, D-5). kubectl
// dumps already carry them, so there they change nothing.
type Defaults uint8

const (
	// DefaultDaemonSetFields applies the DaemonSet API defaults to every DaemonSet
	// ([daemonset.WithDefaults]: update strategy, revisionHistoryLimit; D-4).
	DefaultDaemonSetFields Defaults = 1 << iota
	// DefaultNamespace puts namespaced objects without metadata.namespace in "default", as
	// kubectl does (D-5).
	DefaultNamespace
	// DefaultUID gives every DaemonSet without metadata.uid one derived from its namespace and
	// name, the same on every read, with a [WarningDerivedUID] warning (D-5). Pods belong to it
	// only if their ownerReferences carry that uid.
	DefaultUID
	// DefaultPodTemplate gives every DaemonSet's pod template the pod defaults of the API
	// server and drops its empty lists and maps, as the stored object comes back
	// ([daemonset.Version.WithTemplateDefaults] at [Options.Version], DFLT-3, D-4), so that the revision hash of a
	// hand-written manifest is the one the cluster computes; a kubectl dump is already so.
	// Skip it to read templates as written, as the conformance corpus is read.
	DefaultPodTemplate
)

// Options says how Read reads. The zero value reads as the daemonsched command does, every
// default applied (pod-template defaults included, so a hand-written manifest hashes as the
// cluster hashes it), on one goroutine (the command sets Workers to the number of CPUs).
type Options struct {
	// StrictFields makes a field the linked API types (k8s.io/api v0.37.2, Kubernetes 1.37's)
	// do not have an error; otherwise it is a [WarningUnknownField] warning and the field is
	// dropped, as every client built with those types (the 1.37 controller included) drops it.
	StrictFields bool
	// StrictHandWritten makes a field the linked API types do not have an error in a
	// [HandWritten] object (a manifest: most likely a typo, which would change the plan without
	// a word) and leaves it a warning in objects read from the API server, which may come from
	// a newer Kubernetes. StrictFields makes it an error everywhere.
	StrictHandWritten bool
	// SkipDefaults lists the defaults not to apply; the zero value applies all of them. (The
	// pod-template defaults, [DefaultPodTemplate], were an opt-in PodTemplateDefaults field,
	// off in the zero value: the zero value then hashed a hand-written manifest unlike the
	// cluster and unlike the command.)
	SkipDefaults Defaults
	// Workers is how many goroutines share the decoding of the documents of an input and of the
	// items of a list; 0 and 1 mean the calling goroutine only. The result, and the error, are
	// the same whatever the number. Negative panics.
	Workers int
	// WarnInvalidObjects makes what the API server would refuse in a hand-written Node or Pod
	// a [WarningInvalidObject] warning, as for objects read from the API server, rather than
	// an error (VAL-24).
	WarnInvalidObjects bool
	// Limits bound the input; the zero value is the defaults. Negative limits panic.
	Limits Limits
	// Lean keeps, of every Node and Pod, only the fields the plan, explain and
	// rollout.Progress read (D-16): identity, labels, owner references, timestamps, a pod's
	// node name, required node affinity, phase, Ready and PodScheduled conditions and start
	// time, a node's taints and Ready condition (another condition only when it holds the
	// object's latest time, for [Latest]), what the scheduler's verdict reads (requests,
	// ports, priorities, allocatable), a container's waiting reason, and one managedFields
	// entry holding their latest time; their repeated
	// strings are shared, and so are the label maps of pods whose labels are equal (a
	// DaemonSet's pods of one revision): a lean snapshot is to be read, not written. A
	// kubectl dump's nodes and pods then take a fraction of the memory, and the plan is the
	// same. Off in the zero value, since a caller reading the Snapshot may want every field;
	// the daemonsched command sets it for plan. Objects are checked (unknown
	// fields, VAL-24) before they are trimmed, so warnings and errors are the same.
	Lean bool
	// Version is the Kubernetes release whose API server admits the DaemonSets of the Apply
	// inputs (D-14; its validation differs by release, VER-7), as [daemonset.Options.Version]:
	// the zero Version is the newest release. FeatureGates set its gates, as
	// [daemonset.Options.FeatureGates]; the map is only read.
	Version      daemonset.Version
	FeatureGates daemonset.FeatureGates
}

func (o Options) applies(d Defaults) bool { return o.SkipDefaults&d == 0 }

// Result is everything read, in input order.
type Result struct {
	// Snapshot holds every DaemonSet, Node, Pod and ControllerRevision read, with the defaults
	// of Options applied. Read checks it holds no two objects of one kind with one name.
	Snapshot daemonset.Snapshot
	// Sources says where each object of Snapshot was read, index for index.
	Sources Sources
	// Admission holds the LimitRanges and RuntimeClasses read, for the what-if (fleet's
	// Admission); the plan does not read them.
	Admission Admission
	// Warnings are sorted by reason (skipped kinds, unknown fields, invalid objects, derived
	// uids, applied DaemonSets added as new), then in input order; at most [Limits.Warnings]
	// of them.
	Warnings []Warning
	// WarningsLeftOut counts the distinct warnings left out of Warnings by [Limits.Warnings].
	WarningsLeftOut int
}

// Sources says where the objects of a [daemonset.Snapshot] were read, index for index.
type Sources struct {
	DaemonSets, Nodes, Pods, Revisions []Source
}

// Input is one named input: bytes held in memory, a file or a stream. The first of Data, Path
// and Reader that is set is read; files and streams are read when their turn comes. A file is
// never held whole (it is read twice: checked, then decoded as it is split). A stream of YAML
// (stdin from a pipe, or redirected from a regular file within the size limit) is checked as
// it is decoded: a NUL byte, invalid UTF-8 and the size limit end it where they are, after the
// text before them is decoded, however the stream's reads cut it; so does a file of YAML
// holding a NUL byte or invalid UTF-8, so that a file and a pipe of the same text name the
// same first problem. It is held one document at a time, a list whole, since a list may be
// read again. A stream whose text starts with "{" (a JSON stream, unless a line of it starts
// with "---") and UTF-16 are read whole first; a stream redirected from a regular file over
// the size limit is refused by its size, unread. Only regular files are read from a Path (see
// [Limits.InputBytes] for the size).
type Input struct {
	// Name stands for the input in messages and in [Source.File]; "" means Path.
	Name   string
	Data   []byte
	Path   string
	Reader io.Reader
	// Apply marks an input of DaemonSet manifests applied over the other inputs, as `kubectl
	// apply` would have the API server store them (D-14, [apiserver.Apply]): each is merged
	// into the DaemonSet of the same namespace and name, or created when there is none; a
	// change the API server would refuse is an error. Other kinds in such an input (the
	// ServiceAccount and RBAC objects of a bundle) are skipped with a [WarningSkippedKind]
	// warning.
	Apply bool
	// Namespace is the namespace of the DaemonSets of an Apply input that have none, as
	// `kubectl apply -n NAMESPACE` gives it; "" leaves them to [DefaultNamespace].
	Namespace string
}

// Read reads one stream of manifests: YAML or JSON, several documents, lists (kind: List as
// kubectl prints them, NodeList, PodList, ... as the API server returns them). name stands for
// it in messages. See [ReadInputs].
func Read(name string, r io.Reader, opts Options) (*Result, error) {
	return ReadInputs([]Input{{Name: name, Reader: r}}, opts)
}

// ReadFiles reads the files at paths, in that order, as one snapshot. See [ReadInputs].
func ReadFiles(paths []string, opts Options) (*Result, error) {
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = Input{Path: p}
	}
	return ReadInputs(inputs, opts)
}

// ReadInputs decodes every input, in order, into one snapshot. Each input is UTF-8 (a byte
// order mark is dropped) or UTF-16 with a byte order mark, and holds YAML or JSON documents;
// apps/v1 DaemonSet and ControllerRevision and v1 Node and Pod are read into the snapshot, v1
// LimitRange and node.k8s.io/v1 RuntimeClass into [Result.Admission], and other kinds are
// skipped with a warning. Objects are decoded into the linked API types, 1.37's, as the 1.37
// controller decodes them, whatever the release the snapshot is planned at (see
// [Options.StrictFields]); a value of the wrong type, a key given twice and a syntax
// error are errors. ControllerRevision data is re-encoded as the controller stores it (compact
// JSON, sorted keys), so that a revision printed by kubectl still matches its template byte for
// byte. Then the defaults of opts apply.
//
// The error, on one line, says where the problem is: "FILE: document N: [items[I]: ][Kind
// namespace/name: ][path: ]message"; a missing or unsupported kind, apiVersion or name, and a
// name given twice, wrap their [*field.Error]. An input without objects, and two objects of one
// kind with one (namespace and) name, are errors. The inputs are not modified. ReadInputs
// panics if opts.Workers is negative.
func ReadInputs(inputs []Input, opts Options) (*Result, error) {
	if opts.Workers < 0 {
		panic("manifest: negative Options.Workers")
	}
	opts.Limits.check()
	opts.Limits = opts.Limits.withDefaults()
	in := newCollector(opts)
	left := opts.Limits.InputBytes
	for i, input := range inputs {
		name, o, n, err := openStreamed(input, left, opts.Limits.ObjectBytes)
		if errors.Is(err, errInputBytes) {
			return nil, inputTooLarge(name, opts.Limits.InputBytes, i == 0)
		}
		if err != nil {
			return nil, err
		}
		left -= n
		in.applying, in.applyNamespace = input.Apply, input.Namespace
		in.reader.applying = input.Apply
		in.applySkips = appliedSkips{warning: -1}
		err = in.readOpened(name, o)
		if o.file != nil {
			o.file.Close()
		}
		if o.spool != nil {
			left -= o.spool.total
		}
		if errors.Is(err, errInputBytes) {
			return nil, inputTooLarge(name, opts.Limits.InputBytes, i == 0)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := in.checkDuplicates(); err != nil {
		return nil, err
	}
	if err := in.overlay(); err != nil {
		return nil, err
	}
	in.applyDefaults()
	return in.result(), nil
}
