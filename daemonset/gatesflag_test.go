package daemonset_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
)

var _ flag.Value = (*daemonset.FeatureGates)(nil)

// TestFeatureGatesSet: --feature-gates as kube-controller-manager reads it (VER-5): pairs
// added over what was set, spaces ignored, a bad pair or an unknown gate an error that names
// it, and String writes them back sorted.
func TestFeatureGatesSet(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          []string
		want        string
		wantErr     string
		wantUnknown string
	}{
		{name: "one gate", in: []string{"TaintTolerationComparisonOperators=true"}, want: "TaintTolerationComparisonOperators=true"},
		{name: "two pairs, spaces, sorted", in: []string{" TaintTolerationComparisonOperators = true , StaleControllerConsistencyDaemonSet=false"},
			want: "StaleControllerConsistencyDaemonSet=false,TaintTolerationComparisonOperators=true"},
		{name: "given twice, the later wins", in: []string{"StaleControllerConsistencyDaemonSet=true", "StaleControllerConsistencyDaemonSet=false"},
			want: "StaleControllerConsistencyDaemonSet=false"},
		{name: "empty", in: []string{""}, want: ""},
		{name: "no value", in: []string{"TaintTolerationComparisonOperators"}, wantErr: `"TaintTolerationComparisonOperators": want Name=true or Name=false`},
		{name: "not a bool", in: []string{"TaintTolerationComparisonOperators=yes"}, wantErr: `"TaintTolerationComparisonOperators=yes": the value of TaintTolerationComparisonOperators is not true or false`},
		{name: "unknown", in: []string{"Nope=true"}, wantUnknown: "Nope",
			wantErr: `unknown feature gate "Nope": the gates that change a decision are AtomicWriteVolumeUserFields, `},
	} {
		var g daemonset.FeatureGates
		var err error
		for _, s := range tc.in {
			if err = g.Set(s); err != nil {
				break
			}
		}
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %s", tc.name, err, tc.wantErr)
			}
			var unknown interface{ UnknownGate() string }
			if got := errors.As(err, &unknown); got != (tc.wantUnknown != "") || got && unknown.UnknownGate() != tc.wantUnknown {
				t.Errorf("%s: unknown gate %v, want %q", tc.name, got, tc.wantUnknown)
			}
			continue
		}
		if err != nil || g.String() != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, g.String(), err, tc.want)
		}
	}
}

// TestFeatureGatesSetIsAllOrNothing: a value with a bad pair sets none of its pairs, and a
// locked gate set against its default keeps its default in Enabled (VER-5).
func TestFeatureGatesSetIsAllOrNothing(t *testing.T) {
	g := daemonset.FeatureGates{daemonset.GateEnvFiles: true}
	require.Error(t, g.Set("TaintTolerationComparisonOperators=true,Bogus=true"))
	require.Equal(t, daemonset.FeatureGates{daemonset.GateEnvFiles: true}, g)

	o := daemonset.Options{Version: daemonset.NewestVersion(), FeatureGates: daemonset.FeatureGates{daemonset.GateImageVolume: false}}
	require.True(t, o.Enabled(daemonset.GateImageVolume), "ImageVolume is locked on in 1.37")
	require.NotEmpty(t, o.CheckFeatureGates(nil))
}
