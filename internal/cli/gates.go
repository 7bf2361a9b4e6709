package cli

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/spf13/pflag"
)

// gatesFlag is --feature-gates: feature gates set over the defaults of the release a command
// models (VER-5), written as kube-controller-manager's --feature-gates is,
// Name=true,Other=false; the flag given twice sets the gates of both.
type gatesFlag struct{ gates daemonset.FeatureGates }

func (f *gatesFlag) Type() string { return "Name=BOOL,..." }

// String writes the gates set, sorted by name.
func (f *gatesFlag) String() string {
	parts := make([]string, 0, len(f.gates))
	for _, g := range slices.Sorted(maps.Keys(f.gates)) {
		parts = append(parts, fmt.Sprintf("%s=%t", g, f.gates[g]))
	}
	return strings.Join(parts, ",")
}

// Set reads Name=BOOL pairs. A gate no supported release knows is an error naming the known
// ones; whether the release modelled knows it is checked once that release is known (check).
func (f *gatesFlag) Set(s string) error {
	known := daemonset.NewestVersion().Gates() // every gate is known to the newest release
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
		if !slices.Contains(known, daemonset.Gate(name)) {
			names := make([]string, len(known))
			for i, g := range known {
				names[i] = string(g)
			}
			return fmt.Errorf("unknown feature gate %q: the gates that change a decision are %s%s", name, gateNames(known), didYouMean(name, names))
		}
		if f.gates == nil {
			f.gates = daemonset.FeatureGates{}
		}
		f.gates[daemonset.Gate(name)] = on
	}
	return nil
}

// check returns the usage error of gates the release v does not know.
func (f *gatesFlag) check(v daemonset.Version) error {
	for _, g := range slices.Sorted(maps.Keys(f.gates)) {
		if _, known := v.GateDefault(g); !known {
			knows := "none of the gates modelled"
			if gs := v.Gates(); len(gs) > 0 {
				knows = "only " + gateNames(gs)
			}
			return usagef("--feature-gates: Kubernetes %s does not know the feature gate %s (it knows %s); choose a later --kubernetes-version", v, g, knows)
		}
	}
	// A gate the release locks to its default (GA) is refused set otherwise, as kube-apiserver
	// refuses to start with it (VER-5).
	if err := (daemonset.Options{Version: v, FeatureGates: f.gates}).CheckFeatureGates(); err != nil {
		return usagef("--feature-gates: %v", err)
	}
	return nil
}

// gateNames lists gates by name, comma-separated.
func gateNames(gs []daemonset.Gate) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

// addGatesFlag registers --feature-gates on fs.
func addGatesFlag(fs *pflag.FlagSet, f *gatesFlag) {
	fs.Var(f, "feature-gates", "set Kubernetes feature gates over the defaults of the release modelled, as Name=true,Other=false: "+
		gateNames(daemonset.NewestVersion().Gates()))
}
