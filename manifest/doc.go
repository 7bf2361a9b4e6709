// Package manifest reads Kubernetes manifests and kubectl dumps (YAML or JSON, several
// documents, kind: List and typed lists) into a [daemonset.Snapshot], decoding objects into the
// k8s.io/api types as the controller decodes them. It never contacts an API server and
// never reads a clock: [Latest] gives a reproducible "now" from the objects themselves.
//
// [Read], [ReadFiles] and [ReadInputs] return a [Result]: the snapshot, where each object was
// read ([Source]), and [Warning] values for what was skipped or dropped. Hand-written manifests
// get the D-4 and D-5 defaults (see [Defaults]) unless [Options.SkipDefaults] says otherwise.
// [Positions] finds where, in an input's text, a field of an object read from it is written.
//
// Damaged and hostile input ends quickly, in bounded memory, with one line saying where:
// [Limits] bound the input's size, its objects, each object's size and the resource quantities
// (checked before apimachinery parses them, which for "1e-999999999" takes hours); only regular
// files are read from a path; invalid UTF-8 is an error. Decoding errors name the field with its
// list indices. Nodes and pods are validated as the API server validates the fields the plan
// reads (VAL-24): an error in a hand-written object, a [WarningInvalidObject] warning in one
// read from the API server. Names with control characters are quoted in messages.
//
// A large kubectl dump can be read in parallel: with [Options.Workers], documents and the items
// of lists are decoded on several goroutines, with the same result and the same first error as
// on one.
//
// With [Options.Lean] (D-16), every Node and Pod keeps only what the plan, explain and
// rollout.Progress read (identity, labels, owner references, timestamps, a pod's node name,
// required node affinity, phase and conditions, what the scheduler's verdict reads, a node's
// taints and conditions, the latest managedFields time), its
// repeated strings shared: a kubectl dump's objects then take about half its YAML instead of
// twice it, and plans are the same.
//
// Inputs are streamed: a file is checked in one pass (size, NUL bytes, UTF-8) and then split as
// it is read again, and documents and the items of lists (in kubectl's YAML layout, or a
// top-level JSON "items" array) are decoded in bounded batches, their text dropped, so that
// memory follows the objects read rather than the input. The items of a typed list printed
// without their own kind wait, as JSON, until the list's kind is read (kubectl's YAML prints
// kind after items). A list that fails to read this way is read again whole from its input,
// for the same error message as reading it whole; so a stream ([Input.Reader]) is held whole,
// and UTF-16 text is converted whole.
package manifest
