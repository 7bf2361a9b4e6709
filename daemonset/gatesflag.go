package daemonset

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// String writes the gates set as kube-controller-manager's --feature-gates takes them,
// Name=true,Other=false, sorted by name. With Set, *FeatureGates is a flag.Value.
func (g *FeatureGates) String() string {
	if g == nil {
		return ""
	}
	parts := make([]string, 0, len(*g))
	for _, name := range slices.Sorted(maps.Keys(*g)) {
		parts = append(parts, fmt.Sprintf("%s=%t", name, (*g)[name]))
	}
	return strings.Join(parts, ",")
}

// Set reads s as kube-controller-manager's and kube-apiserver's --feature-gates:
// comma-separated Name=BOOL pairs, each added to g (a flag given twice sets the gates of
// both); on an error g is left as it was. A gate no supported release models is an error
// naming the gates that are; whether the release modelled knows a gate is
// [Options.CheckFeatureGates]'s question, once that release is known.
func (g *FeatureGates) Set(s string) error {
	known := NewestVersion().Gates() // the newest release knows every gate modelled
	read := FeatureGates{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("%q: want Name=true or Name=false", pair)
		}
		name = strings.TrimSpace(name)
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("%q: the value of %s is not true or false", pair, name)
		}
		if !slices.Contains(known, Gate(name)) {
			return unknownGateError{name: name, known: known}
		}
		read[Gate(name)] = on
	}
	if len(read) == 0 {
		return nil
	}
	if *g == nil {
		*g = FeatureGates{}
	}
	maps.Copy(*g, read)
	return nil
}

// unknownGateError is Set's error for a gate no supported release models. Its method
// UnknownGate names the gate, for a caller that suggests the one meant (errors.As with an
// interface{ UnknownGate() string }).
type unknownGateError struct {
	name  string
	known []Gate
}

func (e unknownGateError) Error() string {
	names := make([]string, len(e.known))
	for i, g := range e.known {
		names[i] = string(g)
	}
	return fmt.Sprintf("unknown feature gate %q: the gates that change a decision are %s", e.name, strings.Join(names, ", "))
}

// UnknownGate returns the name of the gate not known.
func (e unknownGateError) UnknownGate() string { return e.name }
