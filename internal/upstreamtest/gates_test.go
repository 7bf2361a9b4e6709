package upstreamtest

import (
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	validationfield "k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// tableGates returns every gate the library models, in any supported release, sorted.
func tableGates() []daemonset.Gate {
	var out []daemonset.Gate
	for _, v := range daemonset.SupportedVersions() {
		out = append(out, v.Gates()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gateLocked reports whether the library locks gate g at release v: CheckFeatureGates refuses
// setting it against its default with a Forbidden error (VER-5), the only way the package
// offers to read the lock.
func gateLocked(t *testing.T, v daemonset.Version, g daemonset.Gate) bool {
	t.Helper()
	def, _ := v.GateDefault(g)
	errs := daemonset.Options{Version: v, FeatureGates: daemonset.FeatureGates{g: !def}}.CheckFeatureGates(validationfield.NewPath("featureGates"))
	switch {
	case len(errs) == 0:
		return false
	case len(errs) == 1 && errs[0].Type == validationfield.ErrorTypeForbidden:
		return true
	}
	t.Fatalf("gate %s at %s: CheckFeatureGates(%t) = %v, want nothing or one Forbidden error", g, v, !def, errs)
	return false
}

// The gate table (daemonset/gates.go) agrees with the linked release's kube_features.go (VER-5):
// each gate the release knows has upstream's default and lock, and each it does not know is
// absent upstream.
func TestGateTableAsUpstream(t *testing.T) {
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	known := release.Gates()
	for _, g := range tableGates() {
		spec, upstream := all[featuregate.Feature(g)]
		if !slices.Contains(known, g) {
			if upstream {
				t.Errorf("gate %s at %s: unknown to the library, upstream knows it (default %t, locked %t)", g, release, spec.Default, spec.LockToDefault)
			}
			continue
		}
		if !upstream {
			t.Errorf("gate %s at %s: known to the library, unknown upstream", g, release)
			continue
		}
		def, _ := release.GateDefault(g)
		want := struct{ Default, Locked bool }{spec.Default, spec.LockToDefault}
		got := struct{ Default, Locked bool }{def, gateLocked(t, release, g)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("gate %s at %s mismatch (-upstream +daemonsched):\n%s", g, release, diff)
		}
	}
}

// With every modelled gate that is on by default and not locked turned off, the API server
// drops the fields it keeps at the defaults, and so does the library given the same gates
// (VER-5, VER-11): the twin of TestTemplateDefaultsWithTheGatesOn, checked whole against the
// release's own code.
func TestTemplateDefaultsWithTheGatesOff(t *testing.T) {
	gates := turnGates(t, false)
	if len(gates) == 0 {
		t.Skipf("%s: no modelled gate is on by default and unlocked", release)
	}
	checkTemplateDefaultsWith(t, gates)
}

// turnGates sets to on every modelled gate of the linked release whose default is the other
// value and that the release does not lock (only GA gates are locked, and on): in the API
// server's gates for the duration of t and in the gates it returns for the library (VER-5,
// VER-11).
func turnGates(t *testing.T, on bool) daemonset.FeatureGates {
	t.Helper()
	gates := daemonset.FeatureGates{}
	for _, g := range release.Gates() {
		if def, _ := release.GateDefault(g); def != on && !gateLocked(t, release, g) {
			gates[g] = on
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(g), on)
		}
	}
	return gates
}

// checkTemplateDefaultsWith compares the template the API server stores with the library's
// defaulting under gates, on 1000 random DaemonSets, whole.
func checkTemplateDefaultsWith(t *testing.T, gates daemonset.FeatureGates) {
	t.Helper()
	opts := daemonset.Options{Version: release, FeatureGates: gates}
	for seed := range uint64(1000) {
		ds := randomDaemonSet(seed)
		want := stored(t, ds)
		got := opts.WithTemplateDefaults(daemonset.WithDefaults(ds), nil)
		if diff := cmp.Diff(want.Spec.Template, got.Spec.Template, fieldsV1Raw); diff != "" {
			t.Fatalf("seed %d, gates %v: template mismatch (-stored +daemonsched):\n%s", seed, gates, diff)
		}
	}
}
