package manifest_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/manifest"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

const handWritten = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-1, labels: {app: agent}}
`

// The D-4 and D-5 defaults apply by default, each one can be skipped, and a skipped default
// leaves the object as written.
func TestDefaultsCanBeSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		skip          manifest.Defaults
		wantNamespace string
		wantStrategy  appsv1.DaemonSetUpdateStrategyType
		wantLimit     *int32
		wantUID       bool
	}{
		{name: "every default applies by default", wantNamespace: "default", wantStrategy: appsv1.RollingUpdateDaemonSetStrategyType, wantLimit: ptr.To[int32](10), wantUID: true},
		{name: "skipping the namespace default leaves namespaces empty", skip: manifest.DefaultNamespace, wantStrategy: appsv1.RollingUpdateDaemonSetStrategyType, wantLimit: ptr.To[int32](10), wantUID: true},
		{name: "skipping the API defaults leaves the strategy empty", skip: manifest.DefaultDaemonSetFields, wantNamespace: "default", wantUID: true},
		{name: "skipping the uid default leaves the uid empty, without a warning", skip: manifest.DefaultUID, wantNamespace: "default", wantStrategy: appsv1.RollingUpdateDaemonSetStrategyType, wantLimit: ptr.To[int32](10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := manifest.Read("ds.yaml", strings.NewReader(handWritten), manifest.Options{SkipDefaults: tt.skip})
			require.NoError(t, err)
			ds, pod := got.Snapshot.DaemonSets[0], got.Snapshot.Pods[0]
			require.Equal(t, tt.wantNamespace, ds.Namespace)
			require.Equal(t, tt.wantNamespace, pod.Namespace)
			require.Equal(t, tt.wantStrategy, ds.Spec.UpdateStrategy.Type)
			if diff := cmp.Diff(tt.wantLimit, ds.Spec.RevisionHistoryLimit); diff != "" {
				t.Errorf("revisionHistoryLimit mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, tt.wantUID, ds.UID != "")
			var uidWarnings []string
			for _, w := range got.Warnings {
				if w.Reason == manifest.WarningDerivedUID {
					uidWarnings = append(uidWarnings, w.String())
				}
			}
			if !tt.wantUID {
				require.Empty(t, uidWarnings)
				return
			}
			require.Equal(t, []string{"ds.yaml: document 1: DaemonSet " + strings.TrimPrefix(tt.wantNamespace+"/", "/") + "agent: metadata.uid: not set, using " +
				string(ds.UID) + " (derived from namespace and name); pods belong to it only if their ownerReferences carry this uid"}, uidWarnings)
		})
	}
}

// A DaemonSet manifest without uid read with a dump of its cluster takes the uid of the
// same-named DaemonSet that owns pods there (D-5), so that its plan does not duplicate every
// pod; pods of another namespace, of another kind of owner or not the controller's do not count,
// and owners of two uids leave the derived uid.
func TestManifestAdoptsTheUIDOfItsPods(t *testing.T) {
	t.Parallel()
	pod := func(name, ns, kind, owner, uid string, controller bool) string {
		return `---
apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: ` + ns + `
  ownerReferences: [{apiVersion: apps/v1, kind: ` + kind + `, name: ` + owner + `, uid: ` + uid + `, controller: ` + strconv.FormatBool(controller) + `}]
`
	}
	ds := `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:1}]}
`
	tests := []struct {
		name       string
		pods       string
		wantUID    string
		wantReason manifest.WarningReason
	}{
		{name: "one owner uid is adopted", pods: pod("a", "kube-system", "DaemonSet", "agent", "u-1", true) + pod("b", "kube-system", "DaemonSet", "agent", "u-1", true),
			wantUID: "u-1", wantReason: manifest.WarningAdoptedUID},
		{name: "another namespace does not count", pods: pod("a", "default", "DaemonSet", "agent", "u-1", true), wantReason: manifest.WarningDerivedUID},
		{name: "another owner kind does not count", pods: pod("a", "kube-system", "ReplicaSet", "agent", "u-1", true), wantReason: manifest.WarningDerivedUID},
		{name: "a reference that is not the controller does not count", pods: pod("a", "kube-system", "DaemonSet", "agent", "u-1", false), wantReason: manifest.WarningDerivedUID},
		{name: "two owner uids are ambiguous", pods: pod("a", "kube-system", "DaemonSet", "agent", "u-1", true) + pod("b", "kube-system", "DaemonSet", "agent", "u-2", true),
			wantReason: manifest.WarningDerivedUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := manifest.Read("in.yaml", strings.NewReader(ds+tt.pods), manifest.Options{})
			require.NoError(t, err)
			uid := string(got.Snapshot.DaemonSets[0].UID)
			if tt.wantUID != "" {
				require.Equal(t, tt.wantUID, uid)
			} else {
				require.NotContains(t, []string{"", "u-1", "u-2"}, uid)
			}
			var reasons []manifest.WarningReason
			for _, w := range got.Warnings {
				reasons = append(reasons, w.Reason)
			}
			require.Equal(t, []manifest.WarningReason{tt.wantReason}, reasons)
		})
	}
}

// The zero Options reads as the daemonsched command does, pod-template defaults included, so a
// hand-written manifest hashes as the cluster hashes it (D-4; the zero value used to keep the
// template as written); skipping DefaultPodTemplate keeps it as written, as the conformance
// corpus reads it.
func TestZeroOptionsApplyPodTemplateDefaults(t *testing.T) {
	t.Parallel()
	got, err := manifest.Read("ds.yaml", strings.NewReader(handWritten), manifest.Options{})
	require.NoError(t, err)
	spec := got.Snapshot.DaemonSets[0].Spec.Template.Spec
	require.Equal(t, v1.RestartPolicyAlways, spec.RestartPolicy)
	require.Equal(t, v1.DNSClusterFirst, spec.DNSPolicy)
	require.Equal(t, v1.DefaultSchedulerName, spec.SchedulerName)

	got, err = manifest.Read("ds.yaml", strings.NewReader(handWritten), manifest.Options{SkipDefaults: manifest.DefaultPodTemplate})
	require.NoError(t, err)
	spec = got.Snapshot.DaemonSets[0].Spec.Template.Spec
	require.Empty(t, spec.RestartPolicy)
	require.Empty(t, spec.SchedulerName)
}

// The pod-template defaults are those of Options.Version's API server (DFLT-3): before 1.35 it
// drops a new template's image volumes and the mounts of them (VER-10), from 1.35 it keeps them
// and defaults their pull policy; the zero Version is the newest release.
func TestPodTemplateDefaultsAtTheRelease(t *testing.T) {
	t.Parallel()
	const withImageVolume = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: agent, image: agent:1, volumeMounts: [{name: models, mountPath: /models}]}
      volumes:
      - {name: models, image: {reference: registry.example.com/models:v1}}
`
	tests := []struct {
		name        string
		version     string
		wantVolumes []v1.Volume
	}{
		{name: "1.34 drops the image volume (VER-10)", version: "1.34"},
		{name: "1.35 keeps it and defaults its pull policy (DFLT-3)", version: "1.35",
			wantVolumes: []v1.Volume{{Name: "models", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "registry.example.com/models:v1", PullPolicy: v1.PullIfNotPresent}}}}},
		{name: "the zero Version is the newest and keeps it (DFLT-3)",
			wantVolumes: []v1.Volume{{Name: "models", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "registry.example.com/models:v1", PullPolicy: v1.PullIfNotPresent}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var opts manifest.Options
			if tt.version != "" {
				require.NoError(t, opts.Version.UnmarshalText([]byte(tt.version)))
			}
			got, err := manifest.Read("ds.yaml", strings.NewReader(withImageVolume), opts)
			require.NoError(t, err)
			spec := got.Snapshot.DaemonSets[0].Spec.Template.Spec
			if diff := cmp.Diff(tt.wantVolumes, spec.Volumes); diff != "" {
				t.Errorf("volumes mismatch (-want +got):\n%s", diff)
			}
			require.Equal(t, len(tt.wantVolumes), len(spec.Containers[0].VolumeMounts), "mounts of the image volume")
		})
	}
}
