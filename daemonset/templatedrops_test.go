package daemonset_test

import (
	"slices"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// gatedTemplate is a DaemonSet whose template sets a field of every gate VER-11 lists.
func gatedTemplate() *appsv1.DaemonSet {
	sidecar := v1.ContainerRestartPolicyAlways
	probe := func() *v1.Probe {
		return &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: intstrPort, Protocol: ptr.To(v1.HTTPProtocolHTTP2)}}}
	}
	grpc := &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000, Mode: ptr.To(v1.GRPCProbeModeTLS)}}}
	return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
		Resources:          &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}},
		ResourceClaims:     []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu")}},
		HostnameOverride:   ptr.To("host"),
		SchedulingGroup:    &v1.PodSchedulingGroup{PodGroupName: ptr.To("group")},
		EvictionResponders: []v1.EvictionResponder{{Name: "acme.io/drain"}},
		InitContainers: []v1.Container{
			{Name: "sidecar", Image: "s:1", RestartPolicy: &sidecar},
		},
		Containers: []v1.Container{{
			Name: "a", Image: "agent:1",
			Resources:          v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "gpu"}}},
			RestartPolicy:      &sidecar,
			RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestart, ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}},
			Env:                []v1.EnvVar{{Name: "E", ValueFrom: &v1.EnvVarSource{FileKeyRef: &v1.FileKeySelector{VolumeName: "cfg", Path: "env", Key: "E"}}}},
			Lifecycle:          &v1.Lifecycle{StopSignal: ptr.To(v1.SIGUSR1)},
			LivenessProbe:      probe(),
			ReadinessProbe:     grpc,
			VolumeMounts:       []v1.VolumeMount{{Name: "model", MountPath: "/m"}, {Name: "cfg", MountPath: "/c", BindMountOptions: []string{string(v1.BindMountOptionNoExec)}}},
		}},
		Volumes: []v1.Volume{
			{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "models/llm:1", PullPolicy: v1.PullIfNotPresent}}},
			{Name: "cfg", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Mode: ptr.To[int32](0o700)}}},
			{Name: "sec", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr.To[int32](0o644), DefaultUser: ptr.To[int64](1000)}}},
			{Name: "proj", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{DefaultMode: ptr.To[int32](0o644), Sources: []v1.VolumeProjection{
				{ClusterTrustBundle: &v1.ClusterTrustBundleProjection{Name: ptr.To("bundle"), Path: "ca.pem"}},
				{PodCertificate: &v1.PodCertificateProjection{SignerName: "acme.io/s", KeyType: "ED25519", CredentialBundlePath: "cred.pem"}},
			}}}},
		},
	}}}}
}

var intstrPort = intstr.FromInt32(8080)

// gatedFields says, for each gate of VER-11, whether its field is in a stored template.
var gatedFields = map[daemonset.Gate]func(*v1.PodSpec) bool{
	daemonset.GatePodLevelResources:         func(s *v1.PodSpec) bool { return s.Resources != nil },
	daemonset.GateDynamicResourceAllocation: func(s *v1.PodSpec) bool { return s.ResourceClaims != nil || s.Containers[0].Resources.Claims != nil },
	daemonset.GateHostnameOverride:          func(s *v1.PodSpec) bool { return s.HostnameOverride != nil },
	daemonset.GateGenericWorkload:           func(s *v1.PodSpec) bool { return s.SchedulingGroup != nil },
	daemonset.GateEvictionRequestAPI:        func(s *v1.PodSpec) bool { return s.EvictionResponders != nil },
	daemonset.GateContainerRestartRules: func(s *v1.PodSpec) bool {
		return s.Containers[0].RestartPolicy != nil || s.Containers[0].RestartPolicyRules != nil
	},
	daemonset.GateEnvFiles:                     func(s *v1.PodSpec) bool { return s.Containers[0].Env[0].ValueFrom.FileKeyRef != nil },
	daemonset.GateContainerStopSignals:         func(s *v1.PodSpec) bool { return s.Containers[0].Lifecycle != nil },
	daemonset.GateH2CContainerProbe:            func(s *v1.PodSpec) bool { return s.Containers[0].LivenessProbe.HTTPGet.Protocol != nil },
	daemonset.GateGRPCContainerProbeTLS:        func(s *v1.PodSpec) bool { return s.Containers[0].ReadinessProbe.GRPC.Mode != nil },
	daemonset.GateVolumeBindMountOptions:       func(s *v1.PodSpec) bool { return slices.ContainsFunc(s.Containers[0].VolumeMounts, hasBindOptions) },
	daemonset.GateImageVolume:                  func(s *v1.PodSpec) bool { return s.Volumes[0].Name == "model" },
	daemonset.GateEmptyDirVolumeMode:           func(s *v1.PodSpec) bool { return volume(s, "cfg").EmptyDir.Mode != nil },
	daemonset.GateAtomicWriteVolumeUserFields:  func(s *v1.PodSpec) bool { return volume(s, "sec").Secret.DefaultUser != nil },
	daemonset.GateClusterTrustBundleProjection: func(s *v1.PodSpec) bool { return volume(s, "proj").Projected.Sources[0].ClusterTrustBundle != nil },
	daemonset.GatePodCertificateRequest:        func(s *v1.PodSpec) bool { return volume(s, "proj").Projected.Sources[1].PodCertificate != nil },
}

func hasBindOptions(m v1.VolumeMount) bool { return m.BindMountOptions != nil }

func volume(s *v1.PodSpec, name string) v1.Volume {
	i := slices.IndexFunc(s.Volumes, func(v v1.Volume) bool { return v.Name == name })
	return s.Volumes[i]
}

// TestTemplateDropsByRelease pins VER-11: the template fields each release's API server drops
// at its default gates, that a gate turned on keeps them, and that an update keeps a field the
// stored template already uses (VER-10 for image volumes, ADM-8 for spec.resources).
func TestTemplateDropsByRelease(t *testing.T) {
	t.Parallel()
	type g = daemonset.Gate
	const (
		plr, dra, ctb, stop, img   = daemonset.GatePodLevelResources, daemonset.GateDynamicResourceAllocation, daemonset.GateClusterTrustBundleProjection, daemonset.GateContainerStopSignals, daemonset.GateImageVolume
		rules, env, host, cert, wl = daemonset.GateContainerRestartRules, daemonset.GateEnvFiles, daemonset.GateHostnameOverride, daemonset.GatePodCertificateRequest, daemonset.GateGenericWorkload
		user, mode, evict, tls     = daemonset.GateAtomicWriteVolumeUserFields, daemonset.GateEmptyDirVolumeMode, daemonset.GateEvictionRequestAPI, daemonset.GateGRPCContainerProbeTLS
		h2c, bind                  = daemonset.GateH2CContainerProbe, daemonset.GateVolumeBindMountOptions
	)
	tests := []struct {
		name        string
		release     string
		gates       daemonset.FeatureGates
		stored      func(*appsv1.DaemonSet) // the stored template of an update; nil: a create
		wantDropped []g
	}{
		{name: "VER-11 1.33 drops pod-level resources, claims, trust bundles, stop signals and image volumes", release: "1.33.13",
			wantDropped: []g{plr, dra, ctb, stop, img}},
		{name: "VER-11 1.34 drops the alpha fields of 1.34 and trust bundles, stop signals, image volumes", release: "1.34.4",
			wantDropped: []g{ctb, stop, img, rules, env, host, cert}},
		{name: "VER-11 1.35 drops trust bundles, pod certificates, stop signals and the scheduling group", release: "1.35.4",
			wantDropped: []g{ctb, stop, cert, wl}},
		{name: "VER-11 1.36 drops as 1.35", release: "1.36.3", wantDropped: []g{ctb, stop, cert, wl}},
		{name: "VER-11 1.37 drops its alpha fields, stop signals and the scheduling group", release: "1.37.2",
			wantDropped: []g{stop, wl, user, mode, evict, tls, h2c, bind}},
		{name: "VER-11 1.33 with the gates on keeps their fields", release: "1.33.13",
			gates: daemonset.FeatureGates{plr: true, dra: true, ctb: true, img: true}, wantDropped: []g{stop}},
		{name: "VER-11 1.37 with every alpha gate on keeps every field", release: "1.37.2",
			gates: daemonset.FeatureGates{stop: true, wl: true, user: true, mode: true, evict: true, tls: true, h2c: true, bind: true}},
		{name: "VER-11 1.34 with a default gate turned off drops its field", release: "1.34.4", gates: daemonset.FeatureGates{plr: false, dra: false},
			wantDropped: []g{plr, dra, ctb, stop, img, rules, env, host, cert}},
		{name: "VER-11 an update at 1.33 keeps every field the stored template uses", release: "1.33.13",
			stored: func(*appsv1.DaemonSet) {}},
		{name: "VER-11 an update at 1.37 keeps only the fields the stored template uses", release: "1.37.2",
			stored: func(ds *appsv1.DaemonSet) {
				spec := &ds.Spec.Template.Spec
				spec.SchedulingGroup = nil
				spec.Containers[0].Lifecycle = nil
				spec.Containers[0].VolumeMounts[1].BindMountOptions = nil
				spec.Volumes[1].EmptyDir.Mode = nil
			},
			wantDropped: []g{stop, wl, bind, mode}},
		{name: "VER-10 an update at 1.34 keeps image volumes the stored template has", release: "1.34.4",
			stored: func(ds *appsv1.DaemonSet) {
				spec := &ds.Spec.Template.Spec
				spec.HostnameOverride = nil
				spec.Volumes = spec.Volumes[:1]
			},
			wantDropped: []g{ctb, host, cert}},
		{name: "ADM-8 an update at 1.33 whose stored template sets empty pod-level resources drops them", release: "1.33.13",
			stored: func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Resources = &v1.ResourceRequirements{}
				ds.Spec.Template.Spec.ResourceClaims = nil
			},
			wantDropped: []g{plr, dra}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := daemonset.Options{Version: mustVersion(t, tt.release), FeatureGates: tt.gates}
			require.Empty(t, opts.CheckFeatureGates(field.NewPath("gates")))
			in := gatedTemplate()
			before := in.DeepCopy()
			var stored *appsv1.DaemonSet
			if tt.stored != nil {
				stored = gatedTemplate()
				tt.stored(stored)
			}
			got := opts.WithTemplateDefaults(in, stored)
			if diff := cmp.Diff(before, in); diff != "" {
				t.Fatalf("WithTemplateDefaults() modified its input (-before +after):\n%s", diff)
			}
			var dropped []g
			for gate, has := range gatedFields {
				if !has(&got.Spec.Template.Spec) {
					dropped = append(dropped, gate)
				}
			}
			slices.Sort(dropped)
			want := slices.Clone(tt.wantDropped)
			slices.Sort(want)
			if diff := cmp.Diff(want, dropped); diff != "" {
				t.Errorf("dropped gates mismatch (-want +got):\n%s", diff)
			}
			// The containers keep their other fields, and a sidecar's Always.
			spec := got.Spec.Template.Spec
			require.Equal(t, v1.ContainerRestartPolicyAlways, *spec.InitContainers[0].RestartPolicy, "an init container's Always is never dropped")
			require.Equal(t, "agent:1", spec.Containers[0].Image)
		})
	}
}

// TestTemplateDropsInitContainerAnnotations: from 1.37 the legacy init-container annotations
// are dropped from a template whatever the gates (VER-11); 1.36 keeps them.
func TestTemplateDropsInitContainerAnnotations(t *testing.T) {
	t.Parallel()
	ds := gatedTemplate()
	ds.Spec.Template.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]", "keep": "x"}
	got := mustVersion(t, "1.37.2").WithTemplateDefaults(ds)
	require.Equal(t, map[string]string{"keep": "x"}, got.Spec.Template.Annotations)
	got = mustVersion(t, "1.36.3").WithTemplateDefaults(ds)
	require.Equal(t, ds.Spec.Template.Annotations, got.Spec.Template.Annotations)
}
