package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// exampleName names the built-in example cluster in messages.
const exampleName = "example/cluster.yaml"

//go:embed example/cluster.yaml
var exampleCluster []byte

// load reads every file ("-" is stdin; the built-in example when there is none) with the
// manifest package, which applies the hand-written-manifest rules of D-4 and D-5.
func load(files []string, stdin io.Reader, opts manifest.Options) (*manifest.Result, error) {
	if i := slices.Index(files, "-"); i >= 0 && slices.Contains(files[i+1:], "-") {
		return nil, errors.New("-f -: stdin can be read only once")
	}
	var inputs []manifest.Input
	if len(files) == 0 {
		inputs = append(inputs, manifest.Input{Name: exampleName, Data: exampleCluster})
	}
	for _, f := range files {
		if f == "-" {
			inputs = append(inputs, manifest.Input{Name: "stdin", Reader: stdin})
		} else {
			inputs = append(inputs, manifest.Input{Path: f})
		}
	}
	return manifest.ReadInputs(inputs, opts)
}

// validate returns, one error each, what API validation would reject in the DaemonSets of in
// that keep says to check.
func validate(in *manifest.Result, keep func(*appsv1.DaemonSet) bool, opts daemonset.Options) problemList {
	var problems problemList
	for i, ds := range in.Snapshot.DaemonSets {
		if !keep(ds) {
			continue
		}
		for _, e := range daemonset.Validate(ds, opts) {
			problems = append(problems, fmt.Errorf("%v: DaemonSet %s/%s: %w", in.Sources.DaemonSets[i], ds.Namespace, ds.Name, e))
		}
	}
	return problems
}

// warn writes the reading warnings, then the validation problems, one line each.
func warn(w io.Writer, in *manifest.Result, problems problemList) {
	for _, wa := range in.Warnings {
		fmt.Fprintf(w, "daemonsched: warning: %v\n", wa)
	}
	for _, p := range problems {
		fmt.Fprintf(w, "daemonsched: warning: %v\n", p)
	}
}

// findNode returns the node of in named name, or nil.
func findNode(in *manifest.Result, name string) *v1.Node {
	for _, n := range in.Snapshot.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}
