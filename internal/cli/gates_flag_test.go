package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// TestFeatureGatesFlag checks how --feature-gates is read, as kube-controller-manager reads
// its own: Name=BOOL pairs, the flag given twice sets both (VER-5).
func TestFeatureGatesFlag(t *testing.T) {
	const tt10, stale = daemonset.GateTaintTolerationComparisonOperators, daemonset.GateStaleControllerConsistencyDaemonSet
	tests := []struct {
		name    string
		values  []string
		want    daemonset.FeatureGates
		wantErr string
	}{
		{name: "one gate on (VER-5)", values: []string{"TaintTolerationComparisonOperators=true"}, want: daemonset.FeatureGates{tt10: true}},
		{name: "two gates with spaces (VER-5)", values: []string{" TaintTolerationComparisonOperators = false , StaleControllerConsistencyDaemonSet=true"}, want: daemonset.FeatureGates{tt10: false, stale: true}},
		{name: "the flag given twice sets both, the later value winning (VER-5)", values: []string{"TaintTolerationComparisonOperators=true", "StaleControllerConsistencyDaemonSet=false,TaintTolerationComparisonOperators=false"}, want: daemonset.FeatureGates{tt10: false, stale: false}},
		{name: "an empty value sets nothing (VER-5)", values: []string{""}},
		{name: "a pair without = is an error (VER-5)", values: []string{"TaintTolerationComparisonOperators"}, wantErr: `"TaintTolerationComparisonOperators": want Name=true or Name=false`},
		{name: "a value not a bool is an error (VER-5)", values: []string{"TaintTolerationComparisonOperators=yes"}, wantErr: `"TaintTolerationComparisonOperators=yes": the value of TaintTolerationComparisonOperators is not true or false`},
		{name: "a gate no release knows is an error with the likely one (VER-5)", values: []string{"StaleControllerConsistencyDaemonset=true"}, wantErr: `unknown feature gate "StaleControllerConsistencyDaemonset": the gates that change a decision are AtomicWriteVolumeUserFields, ClusterTrustBundleProjection, ContainerRestartRules, ContainerStopSignals, DynamicResourceAllocation, EmptyDirVolumeMode, EnvFiles, EvictionRequestAPI, GRPCContainerProbeTLS, GenericWorkload, H2CContainerProbe, HostnameOverride, ImageVolume, PodCertificateRequest, PodLevelResources, StaleControllerConsistencyDaemonSet, TaintTolerationComparisonOperators, VolumeBindMountOptions; did you mean StaleControllerConsistencyDaemonSet?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f gatesFlag
			var err error
			for _, v := range tt.values {
				if err = f.Set(v); err != nil {
					break
				}
			}
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, f.gates); diff != "" {
				t.Errorf("gates mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFeatureGatesFlagByRelease: a gate the release modelled does not know is a usage error
// naming the gate and the release; one it knows is not (VER-5).
func TestFeatureGatesFlagByRelease(t *testing.T) {
	tests := []struct {
		name    string
		release string
		gates   string // "": TaintTolerationComparisonOperators=true
		wantErr string
	}{
		{name: "1.34 does not know TaintTolerationComparisonOperators (VER-5)", release: "1.34", wantErr: "--feature-gates: Kubernetes 1.34.4 does not know the feature gate TaintTolerationComparisonOperators (it knows only ClusterTrustBundleProjection, ContainerRestartRules, ContainerStopSignals, DynamicResourceAllocation, EnvFiles, HostnameOverride, ImageVolume, PodCertificateRequest, PodLevelResources); choose a later --kubernetes-version"},
		{name: "1.35 knows TaintTolerationComparisonOperators (VER-5)", release: "1.35.0"},
		{name: "1.37 knows it (VER-5)", release: "1.37"},
		{name: "1.33 may turn PodLevelResources on (VER-5, ADM-8)", release: "1.33", gates: "PodLevelResources=true,ImageVolume=true"},
		{name: "1.36 refuses ImageVolume off: GA and locked (VER-5)", release: "1.36", gates: "ImageVolume=false",
			wantErr: `--feature-gates[ImageVolume]: Forbidden: locked to true in Kubernetes 1.36.3 (GA): it cannot be set to false`},
		{name: "1.36 allows ImageVolume on, its locked default (VER-5)", release: "1.36", gates: "ImageVolume=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f gatesFlag
			require.NoError(t, f.Set(orDefault(tt.gates)))
			v, err := daemonset.ParseVersion(tt.release)
			require.NoError(t, err)
			err = f.check(v)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

// TestEveryReleasedCommandTakesGates checks that every command taking --kubernetes-version
// takes --feature-gates too, or, where its questions carry no gates (conformance run and
// serve), refuses it with the reason rather than as an unknown flag (VER-5).
func TestEveryReleasedCommandTakesGates(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("kubernetes-version") != nil {
			seen++
			require.NotNil(t, c.Flags().Lookup("feature-gates"), "%s takes --kubernetes-version but not --feature-gates", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(&env{out: new(bytes.Buffer)}))
	require.Greater(t, seen, 8, "the commands that model a release")

	for _, sub := range []string{"run", "serve"} {
		args := []string{"conformance", sub, "--feature-gates", "TaintTolerationComparisonOperators=true"}
		if sub == "run" {
			args = append(args, "--", "./no-such-program")
		}
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitUsage, run(args, strings.NewReader(""), &stdout, &stderr))
		require.Contains(t, stderr.String(), "conformance "+sub+" takes no feature gates: every conformance case holds at its release's default gates")
		require.Empty(t, stdout.String())
	}
}

func orDefault(gates string) string {
	if gates == "" {
		return "TaintTolerationComparisonOperators=true"
	}
	return gates
}
