package manifest_test

import (
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/manifest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
)

const liveAgent = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
  uid: live-uid
  resourceVersion: "7"
  generation: 4
  labels: {app: agent, tier: node}
  annotations: {deprecated.daemonset.template.generation: "3", note: live}
spec:
  selector: {matchLabels: {app: agent}}
  minReadySeconds: 5
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:1}]}
status: {desiredNumberScheduled: 2, observedGeneration: 4}
`

// An applied DaemonSet replaces the live spec whole, merges its labels and annotations over the
// live ones and keeps the live identity and status; the generation moves on with a spec
// change and the template generation with a template change only (D-14).
func TestApplyOverlaysTheLiveDaemonSet(t *testing.T) {
	t.Parallel()
	applied := func(minReady, image string) string {
		return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, labels: {tier: infra}, annotations: {deprecated.daemonset.template.generation: "99"}}
spec:
  selector: {matchLabels: {app: agent}}
  minReadySeconds: ` + minReady + `
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: ` + image + `}]}
`
	}
	tests := []struct {
		name                 string
		applied              string
		wantGeneration       int64
		wantTemplateGen      string
		wantMinReady         int32
		wantContainerImage   string
		wantAppliedSourceDoc string
	}{
		{name: "the same spec changes no generation", applied: applied("5", "agent:1"), wantGeneration: 4, wantTemplateGen: "3", wantMinReady: 5, wantContainerImage: "agent:1"},
		{name: "a spec change outside the template moves the generation only", applied: applied("9", "agent:1"), wantGeneration: 5, wantTemplateGen: "3", wantMinReady: 9, wantContainerImage: "agent:1"},
		{name: "a template change moves both", applied: applied("5", "agent:2"), wantGeneration: 5, wantTemplateGen: "4", wantMinReady: 5, wantContainerImage: "agent:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			liveIn := []byte(liveAgent)
			got, err := manifest.ReadInputs([]manifest.Input{
				{Name: "live.yaml", Data: liveIn},
				{Name: "applied.yaml", Data: []byte(tt.applied), Apply: true},
			}, manifest.Options{})
			require.NoError(t, err)
			require.Equal(t, liveAgent, string(liveIn), "inputs are not modified")
			require.Len(t, got.Snapshot.DaemonSets, 1)
			ds := got.Snapshot.DaemonSets[0]
			require.EqualValues(t, "live-uid", ds.UID)
			require.Equal(t, "7", ds.ResourceVersion)
			require.EqualValues(t, 2, ds.Status.DesiredNumberScheduled)
			require.Equal(t, tt.wantGeneration, ds.Generation)
			require.Equal(t, map[string]string{"app": "agent", "tier": "infra"}, ds.Labels)
			require.Equal(t, map[string]string{appsv1.DeprecatedTemplateGeneration: tt.wantTemplateGen, "note": "live"}, ds.Annotations)
			require.Equal(t, tt.wantMinReady, ds.Spec.MinReadySeconds)
			require.Equal(t, tt.wantContainerImage, ds.Spec.Template.Spec.Containers[0].Image)
			require.Equal(t, "applied.yaml", got.Sources.DaemonSets[0].File)
			require.Empty(t, got.Warnings)
		})
	}
}

// A template change over a live DaemonSet without annotations, by a manifest without any,
// gives the template generation an annotation of its own (it panicked on the nil map).
func TestApplyWithoutAnnotations(t *testing.T) {
	t.Parallel()
	ds := func(extra, image string) string {
		return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system` + extra + `}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: ` + image + `}]}
`
	}
	got, err := manifest.ReadInputs([]manifest.Input{
		{Name: "live.yaml", Data: []byte(ds(`, uid: live-uid, resourceVersion: "3", generation: 2`, "agent:1"))},
		{Name: "applied.yaml", Data: []byte(ds("", "agent:2")), Apply: true},
	}, manifest.Options{})
	require.NoError(t, err)
	require.Len(t, got.Snapshot.DaemonSets, 1)
	d := got.Snapshot.DaemonSets[0]
	require.Equal(t, map[string]string{appsv1.DeprecatedTemplateGeneration: "1"}, d.Annotations)
	require.EqualValues(t, 3, d.Generation)
	require.Equal(t, "agent:2", d.Spec.Template.Spec.Containers[0].Image)
}

// A DaemonSet the live input lacks is added, created at generation 1; an applied input holds only
// DaemonSets, each once, and cannot change a live uid.
func TestApplyRefusals(t *testing.T) {
	t.Parallel()
	read := func(applied string) (*manifest.Result, error) {
		return manifest.ReadInputs([]manifest.Input{
			{Name: "live.yaml", Data: []byte(liveAgent)},
			{Name: "applied.yaml", Data: []byte(applied), Apply: true},
		}, manifest.Options{})
	}
	got, err := read(strings.ReplaceAll(strings.Replace(liveAgent, "uid: live-uid", "", 1), "name: agent", "name: other"))
	require.NoError(t, err)
	require.Len(t, got.Snapshot.DaemonSets, 2)
	require.Equal(t, "other", got.Snapshot.DaemonSets[1].Name)

	_, err = read("apiVersion: v1\nkind: Node\nmetadata: {name: worker}\n")
	require.EqualError(t, err, "applied.yaml: document 1: Node worker: only DaemonSets can be applied over the other inputs")
	_, err = read(liveAgent + "---\n" + liveAgent)
	require.ErrorContains(t, err, "Duplicate value")
	_, err = read(strings.Replace(liveAgent, "live-uid", "other-uid", 1))
	require.ErrorContains(t, err, "metadata.uid: other-uid is not the uid of the DaemonSet it is applied over (live-uid)")
}

// An applied DaemonSet no other input holds is added as new, as kubectl apply would create it,
// with a warning naming the DaemonSet it most likely means: a manifest without a namespace
// lands in "default", and a misspelt name is another DaemonSet.
func TestApplyNewDaemonSetIsWarnedAbout(t *testing.T) {
	t.Parallel()
	applied := func(meta string) string {
		return "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: " + meta + "\nspec:\n  selector: {matchLabels: {app: agent}}\n" +
			"  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: agent, image: agent:2}]}\n"
	}
	tests := []struct {
		name, meta  string
		wantMessage string
	}{
		{name: "no namespace names the same name elsewhere", meta: "{name: agent, uid: u}", wantMessage: "not in the input; planned as new (kube-system/agent exists)"},
		{name: "a misspelt name names the name meant", meta: "{name: agnet, namespace: kube-system, uid: u}", wantMessage: "not in the input; planned as new (kube-system/agent exists)"},
		{name: "a new name far from any is only said to be new", meta: "{name: node-exporter, namespace: monitoring, uid: u}", wantMessage: "not in the input; planned as new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := manifest.ReadInputs([]manifest.Input{
				{Name: "live.yaml", Data: []byte(liveAgent)},
				{Name: "applied.yaml", Data: []byte(applied(tt.meta)), Apply: true},
			}, manifest.Options{})
			require.NoError(t, err)
			require.Len(t, got.Snapshot.DaemonSets, 2, "the live DaemonSet and the new one")
			require.Len(t, got.Warnings, 1)
			require.Equal(t, manifest.WarningAppliedNew, got.Warnings[0].Reason)
			require.Equal(t, tt.wantMessage, got.Warnings[0].Message)
		})
	}
}
