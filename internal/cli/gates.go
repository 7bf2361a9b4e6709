package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// gatesFlag is --feature-gates: feature gates set over the defaults of the release a command
// models (VER-5), written as kube-controller-manager's --feature-gates is,
// Name=true,Other=false; the flag given twice sets the gates of both.
type gatesFlag struct{ gates daemonset.FeatureGates }

func (f *gatesFlag) Type() string { return "Name=BOOL,..." }

// String writes the gates set, sorted by name.
func (f *gatesFlag) String() string { return f.gates.String() }

// Set reads Name=BOOL pairs as daemonset.FeatureGates does, naming the gate an unknown one is
// a typo of. Whether the release modelled knows a gate is checked once that release is known
// (check).
func (f *gatesFlag) Set(s string) error {
	err := f.gates.Set(s)
	var unknown interface{ UnknownGate() string }
	if errors.As(err, &unknown) {
		known := daemonset.NewestVersion().Gates()
		names := make([]string, len(known))
		for i, g := range known {
			names[i] = string(g)
		}
		return fmt.Errorf("%w%s", err, didYouMean(unknown.UnknownGate(), names))
	}
	return err
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
	if errs := (daemonset.Options{Version: v, FeatureGates: f.gates}).CheckFeatureGates(field.NewPath("--feature-gates")); len(errs) > 0 {
		return usagef("%v", errlist.Aggregate(errs))
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
