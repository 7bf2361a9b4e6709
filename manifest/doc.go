// Package manifest reads Kubernetes manifests and kubectl dumps (YAML or JSON, several
// documents, kind: List and typed lists) into a [daemonset.Snapshot], decoding objects into the
// v1.36 API types as the v1.36 controller decodes them. It never contacts an API server and
// never reads a clock: [Latest] gives a reproducible "now" from the objects themselves.
//
// [Read], [ReadFiles] and [ReadInputs] return a [Result]: the snapshot, where each object was
// read ([Source]), and [Warning] values for what was skipped or dropped. Hand-written manifests
// get the D-4 and D-5 defaults (see [Defaults]) unless [Options.SkipDefaults] says otherwise.
//
// A large kubectl dump can be read in parallel: with [Options.Workers], documents and the items
// of lists are decoded on several goroutines, with the same result and the same first error as
// on one.
package manifest
