package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// lint -o sarif is a SARIF 2.1.0 log code scanning accepts: one run, every rule in the driver,
// each result naming a rule of the driver by id and index, with a level SARIF knows, a message
// and the manifest file the DaemonSet came from (LINT-10).
func TestLintSARIF(t *testing.T) {
	t.Parallel()
	manifests := filepath.Join("testdata", "manifests")
	seen := map[string]bool{}
	regions := map[string][2]int{}
	var ids []string
	// The lint cluster has a finding of every rule but the scheduler's LINT-11 and LINT-12,
	// which the scheduler cluster has.
	for _, in := range []struct {
		args []string
		file string
	}{
		{[]string{"-f", filepath.Join(manifests, "lint-cluster.yaml"), "--apply", filepath.Join(manifests, "lint-agents.yaml")}, "lint-agents.yaml"},
		{[]string{"-f", filepath.Join(manifests, "sched-cluster.yaml")}, "sched-cluster.yaml"},
	} {
		args := append(append([]string{"lint"}, in.args...), "--now", "2026-11-27T12:00:00Z", "-o", "sarif")
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitLintFindings, run(args, nil, &stdout, &stderr), stderr.String())

		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string `json:"name"`
						Rules []struct {
							ID                   string `json:"id"`
							DefaultConfiguration struct {
								Level string `json:"level"`
							} `json:"defaultConfiguration"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Level     string `json:"level"`
					Message   struct {
						Text string `json:"text"`
					} `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region *struct {
								StartLine   int `json:"startLine"`
								StartColumn int `json:"startColumn"`
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
					Properties struct {
						DaemonSet string `json:"daemonSet"`
						Field     string `json:"field"`
					} `json:"properties"`
				} `json:"results"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &log))
		require.Equal(t, "2.1.0", log.Version)
		require.Len(t, log.Runs, 1)
		run := log.Runs[0]
		require.Equal(t, "daemonsched", run.Tool.Driver.Name)
		ids = nil
		for _, r := range run.Tool.Driver.Rules {
			ids = append(ids, r.ID)
			require.Contains(t, []string{"error", "warning", "note"}, r.DefaultConfiguration.Level)
		}
		require.Equal(t, []string{"LINT-1", "LINT-2", "LINT-3", "LINT-4", "LINT-5", "LINT-6", "LINT-7", "LINT-8", "LINT-11", "LINT-12"}, ids)
		for _, res := range run.Results {
			seen[res.RuleID] = true
			require.Equal(t, res.RuleID, ids[res.RuleIndex])
			require.Contains(t, []string{"error", "warning"}, res.Level)
			require.NotEmpty(t, res.Message.Text)
			require.Len(t, res.Locations, 1)
			require.Equal(t, filepath.ToSlash(filepath.Join(manifests, in.file)), res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			require.NotNil(t, res.Locations[0].PhysicalLocation.Region, "every finding of a file has its region")
			regions[in.file+" "+res.Properties.DaemonSet+" "+res.Properties.Field] = [2]int{
				res.Locations[0].PhysicalLocation.Region.StartLine, res.Locations[0].PhysicalLocation.Region.StartColumn}
		}
	}
	for _, id := range ids {
		require.True(t, seen[id], "the golden cluster has no finding of %s", id)
	}
	// Regions are the file's lines, across its documents (LINT-10): the field's key, or the
	// closest parent the manifest writes when it does not write the field.
	for key, want := range map[string][2]int{
		"lint-agents.yaml node-exporter spec.revisionHistoryLimit":                            {7, 3},   // first document
		"lint-agents.yaml node-exporter spec.updateStrategy.rollingUpdate.maxSurge":           {10, 40}, // in a flow mapping
		"lint-agents.yaml net-agent spec.template.spec.containers[0].resources.requests[cpu]": {35, 32}, // second document
		"lint-agents.yaml net-agent spec.template.spec.priorityClassName":                     {31, 5},  // not written: its parent
		"lint-agents.yaml log-collector spec.updateStrategy.rollingUpdate.maxUnavailable":     {54, 1},  // fourth document, only spec written
		"sched-cluster.yaml node-agent spec.template.spec.containers[0].ports[0].hostPort":    {89, 39}, // the ninth document
	} {
		require.Equal(t, want, regions[key], key)
	}
}
