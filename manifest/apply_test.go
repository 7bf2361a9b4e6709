package manifest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
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

// An applied DaemonSet is merged into the live one as kubectl apply merges it (the live object
// has no last-applied configuration, so nothing is removed): its labels and annotations over
// the live ones, the live identity and status kept; the generation moves on with a spec change
// and the template generation with a template change only (D-14).
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
		// The typed object cannot tell minReadySeconds: 0 from an absent field; kubectl sends
		// the file's JSON, whose 0 replaces the live 5 (the live object has no last-applied
		// configuration, so an absent field would keep it).
		{name: "D-14 a spelt-out zero replaces the live value as kubectl sends it", applied: applied("0", "agent:1"), wantGeneration: 5, wantTemplateGen: "3", wantMinReady: 0, wantContainerImage: "agent:1"},
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
			require.Contains(t, ds.Annotations, v1.LastAppliedConfigAnnotation, "kubectl records what it applied")
			delete(ds.Annotations, v1.LastAppliedConfigAnnotation)
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
	delete(d.Annotations, v1.LastAppliedConfigAnnotation)
	require.Equal(t, map[string]string{appsv1.DeprecatedTemplateGeneration: "1"}, d.Annotations)
	require.EqualValues(t, 3, d.Generation)
	require.Equal(t, "agent:2", d.Spec.Template.Spec.Containers[0].Image)
}

// A DaemonSet the live input lacks is added, created at generation 1; an applied input applies
// each DaemonSet once, and cannot change a live uid (D-14).
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

	_, err = read(liveAgent + "---\n" + liveAgent)
	require.ErrorContains(t, err, "Duplicate value")
	_, err = read(strings.Replace(liveAgent, "live-uid", "other-uid", 1))
	require.EqualError(t, err, `applied.yaml: document 1: DaemonSet kube-system/agent: the API server would refuse this update: metadata.uid: Invalid value: "other-uid": field is immutable`)
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

// What kubectl apply (client-side) does with the manifest is what is planned (D-14): the API
// server's refusals are errors with its messages, and what only the live object holds stays.
func TestApplyAsTheAPIServer(t *testing.T) {
	t.Parallel()
	const stored = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
  uid: live-uid
  resourceVersion: "7"
  generation: 4
  annotations:
    deprecated.daemonset.template.generation: "3"
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"annotations":{},"name":"agent","namespace":"kube-system"},"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"image":"agent:1","name":"agent"}]}}}}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}
  revisionHistoryLimit: 10
  template:
    metadata:
      labels: {app: agent}
      annotations: {kubectl.kubernetes.io/restartedAt: "2026-11-27T10:00:00Z"}
    spec: {containers: [{name: agent, image: agent:1}]}
`
	applied := func(selector, labels, strategy string) string {
		return "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  selector: {matchLabels: " + selector + "}\n" +
			strategy + "  template:\n    metadata: {labels: " + labels + "}\n    spec: {containers: [{name: agent, image: agent:1}]}\n"
	}
	tests := []struct {
		name    string
		applied string
		wantErr string
	}{
		{name: "the manifest applied unchanged after rollout restart changes nothing", applied: applied("{app: agent}", "{app: agent}", "")},
		{name: "a changed selector is refused as immutable", applied: applied("{app: agent2}", "{app: agent2}", ""),
			wantErr: `applied.yaml: document 1: DaemonSet kube-system/agent: the API server would refuse this update: spec.selector: Invalid value: {"matchLabels":{"app":"agent2"}}: field is immutable`},
		{name: "a selector that does not match the template labels is refused", applied: applied("{app: agent}", "{app: other}", ""),
			wantErr: `applied.yaml: document 1: DaemonSet kube-system/agent: the API server would refuse this update: spec.template.metadata.labels: Invalid value: {"app":"other"}: selector does not match template labels`},
		{name: "maxSurge beside the live maxUnavailable is refused", applied: applied("{app: agent}", "{app: agent}", "  updateStrategy: {rollingUpdate: {maxSurge: 1}}\n"),
			wantErr: `applied.yaml: document 1: DaemonSet kube-system/agent: the API server would refuse this update: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := manifest.ReadInputs([]manifest.Input{
				{Name: "live.yaml", Data: []byte(stored)},
				{Name: "applied.yaml", Data: []byte(tt.applied), Apply: true},
			}, manifest.Options{})
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			live, err := manifest.ReadInputs([]manifest.Input{{Name: "live.yaml", Data: []byte(stored)}}, manifest.Options{})
			require.NoError(t, err)
			if diff := cmp.Diff(live.Snapshot.DaemonSets, got.Snapshot.DaemonSets); diff != "" {
				t.Errorf("applied (-live +applied):\n%s", diff)
			}
		})
	}
}

// kubectl's habits (D-14): -n (Input.Namespace) gives an applied DaemonSet without a namespace
// its namespace; the other kinds of a bundle are skipped with one counted warning per kind;
// every DaemonSet of the bundle is applied.
func TestApplyBundle(t *testing.T) {
	t.Parallel()
	const bundle = `apiVersion: v1
kind: ServiceAccount
metadata: {name: agent}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: agent}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: agent-2}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:2}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: exporter}
spec:
  selector: {matchLabels: {app: exporter}}
  template:
    metadata: {labels: {app: exporter}}
    spec: {containers: [{name: exporter, image: exporter:1}]}
`
	// Lean reading (the plan's) takes an object's identity from the decoded object; the
	// namespace of an applied manifest without one is still -n's, not the default.
	for _, opts := range []manifest.Options{{}, {Lean: true}} {
		t.Run(fmt.Sprintf("lean=%v", opts.Lean), func(t *testing.T) {
			got, err := manifest.ReadInputs([]manifest.Input{
				{Name: "live.yaml", Data: []byte(liveAgent)},
				{Name: "bundle.yaml", Data: []byte(bundle), Apply: true, Namespace: "kube-system"},
			}, opts)
			require.NoError(t, err)
			require.Len(t, got.Snapshot.DaemonSets, 2)
			agent, exporter := got.Snapshot.DaemonSets[0], got.Snapshot.DaemonSets[1]
			require.Equal(t, "kube-system/agent", agent.Namespace+"/"+agent.Name)
			require.Equal(t, "agent:2", agent.Spec.Template.Spec.Containers[0].Image)
			require.EqualValues(t, "live-uid", agent.UID)
			require.Equal(t, "kube-system/exporter", exporter.Namespace+"/"+exporter.Name)
			require.EqualValues(t, 1, exporter.Generation)
			require.Len(t, got.Warnings, 3)
			require.Equal(t, "bundle.yaml: document 1: ServiceAccount kube-system/agent and 2 more: skipped: only the DaemonSets of an applied input are applied, not 1 ServiceAccount, 2 ClusterRole",
				got.Warnings[0].String())
			require.Equal(t, manifest.WarningDerivedUID, got.Warnings[1].Reason, "exporter")
			require.Equal(t, manifest.WarningAppliedNew, got.Warnings[2].Reason, "exporter")
		})
	}
}

// An applied DaemonSet is admitted by the API server of the release asked for: a template with
// an empty image-volume reference is refused from 1.37 on, the default, and created at 1.36
// (VER-7, D-14).
func TestApplyValidatesAtTheRelease(t *testing.T) {
	t.Parallel()
	applied := strings.Replace(strings.Replace(liveAgent, "uid: live-uid", "", 1), "name: agent\n", "name: imaged\n", 1)
	applied = strings.Replace(applied, "image: agent:1}]}", "image: agent:1}], volumes: [{name: data, image: {}}]}", 1)
	inputs := []manifest.Input{
		{Name: "live.yaml", Data: []byte(liveAgent)},
		{Name: "applied.yaml", Data: []byte(applied), Apply: true},
	}
	for _, tt := range []struct {
		name    string
		release string
		wantErr string
	}{
		{name: "the default release, 1.37, refuses the empty reference (VER-7)", wantErr: `applied.yaml: document 1: DaemonSet kube-system/imaged: the API server would refuse this create: spec.template.spec.volumes[0].image.reference: Required value`},
		{name: "1.37.0 refuses the empty reference (VER-7)", release: "1.37.0", wantErr: `spec.template.spec.volumes[0].image.reference: Required value`},
		{name: "1.36 creates it (VER-7)", release: "1.36"},
		{name: "1.33 creates it (VER-7)", release: "1.33"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts manifest.Options
			if tt.release != "" {
				v, err := daemonset.ParseVersion(tt.release)
				require.NoError(t, err)
				opts.Version = v
			}
			got, err := manifest.ReadInputs(inputs, opts)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, got.Snapshot.DaemonSets, 2)
			require.Equal(t, "imaged", got.Snapshot.DaemonSets[1].Name)
		})
	}
}
