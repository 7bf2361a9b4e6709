package daemonset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// WithTemplateDefaults applies the pod-template defaults and drops empty collections (DFLT-3);
// set values are kept; the input is not modified. The differential test against upstream's own
// defaulting is internal/upstreamtest's TestTemplateDefaultsAreTheStoredObject.
func TestWithTemplateDefaults(t *testing.T) {
	in := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
		NodeSelector: map[string]string{},
		Tolerations:  []v1.Toleration{},
		DNSPolicy:    v1.DNSDefault,
		Containers: []v1.Container{{
			Name: "a", Image: "agent", Env: []v1.EnvVar{},
			Ports:         []v1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: v1.ProtocolUDP}},
			Resources:     v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("0.0001")}},
			LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{}}, PeriodSeconds: 5},
		}, {Name: "b", Image: "registry.example.com/b:1.0", ImagePullPolicy: v1.PullNever}},
		Volumes: []v1.Volume{{Name: "scratch"}, {Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}},
	}}}}
	before := in.DeepCopy()
	got := (Version{}).WithTemplateDefaults(in)
	if diff := cmp.Diff(before, in); diff != "" {
		t.Fatalf("input modified:\n%s", diff)
	}
	want := v1.PodSpec{
		DNSPolicy: v1.DNSDefault, RestartPolicy: v1.RestartPolicyAlways, SchedulerName: v1.DefaultSchedulerName,
		TerminationGracePeriodSeconds: ptr.To[int64](30), SecurityContext: &v1.PodSecurityContext{},
		Containers: []v1.Container{{
			Name: "a", Image: "agent", ImagePullPolicy: v1.PullAlways,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: v1.TerminationMessageReadFile,
			Ports:     []v1.ContainerPort{{ContainerPort: 80, Protocol: v1.ProtocolTCP}, {ContainerPort: 53, Protocol: v1.ProtocolUDP}},
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1m")}},
			LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Scheme: v1.URISchemeHTTP}},
				PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
		}, {
			Name: "b", Image: "registry.example.com/b:1.0", ImagePullPolicy: v1.PullNever,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: v1.TerminationMessageReadFile,
		}},
		Volumes: []v1.Volume{
			{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
			{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](0o644)}}},
		},
	}
	if diff := cmp.Diff(want, got.Spec.Template.Spec); diff != "" {
		t.Errorf("defaulted template mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got, (Version{}).WithTemplateDefaults(got)); diff != "" {
		t.Errorf("not idempotent:\n%s", diff)
	}
	if (Version{}).WithTemplateDefaults(nil) != nil {
		t.Error("nil gives nil")
	}
}

// TestTemplateDefaultsServiceAccountAlias (DFLT-3): storage keeps serviceAccount, the deprecated
// alias, equal to serviceAccountName, the newer field winning; both are in the template's hash.
func TestTemplateDefaultsServiceAccountAlias(t *testing.T) {
	for _, tc := range []struct {
		name, saName, sa, want string
	}{
		{"neither", "", "", ""},
		{"the name alone", "agent", "", "agent"},
		{"the alias alone", "", "legacy", "legacy"},
		{"both, the name wins", "agent", "legacy", "agent"},
	} {
		ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
			ServiceAccountName: tc.saName, DeprecatedServiceAccount: tc.sa,
			Containers: []v1.Container{{Name: "a", Image: "agent:1"}},
		}}}}
		got := (Version{}).WithTemplateDefaults(ds).Spec.Template.Spec
		if got.ServiceAccountName != tc.want || got.DeprecatedServiceAccount != tc.want {
			t.Errorf("%s: serviceAccountName %q, serviceAccount %q, want both %q", tc.name, got.ServiceAccountName, got.DeprecatedServiceAccount, tc.want)
		}
	}
}

// The pull policy reads the tag as container runtimes do: no tag is latest, a digest alone has
// none, and a reference that does not parse has none either.
func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"nginx": "latest", "nginx:1.27": "1.27", "nginx:latest": "latest", "localhost:5000/app": "latest",
		"registry.example.com:5000/team/app:v2": "v2", "app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "",
		"NGINX": "", "app:": "", "": "", "Registry.example.com/app": "latest", "registry.example.com/App": "",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

// TestTemplateDefaultsImageVolumeByRelease: the ImageVolume gate is off by default before 1.35,
// so there the API server drops a new template's image volumes and their mounts and defaults no
// pull policy; from 1.35 it keeps them and defaults the pull policy by tag (DFLT-3, VER-10). The
// template hash of each release follows (VER-2).
func TestTemplateDefaultsImageVolumeByRelease(t *testing.T) {
	mounts := func(names ...string) []v1.VolumeMount {
		var out []v1.VolumeMount
		for _, n := range names {
			out = append(out, v1.VolumeMount{Name: n, MountPath: "/" + n})
		}
		return out
	}
	template := func(policy v1.PullPolicy) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
			InitContainers:      []v1.Container{{Name: "i", Image: "init:1", VolumeMounts: mounts("model")}},
			Containers:          []v1.Container{{Name: "a", Image: "agent:1", VolumeMounts: mounts("cfg", "model")}},
			EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e", Image: "debug:1", VolumeMounts: mounts("model")}}},
			Volumes: []v1.Volume{
				{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "models/llm", PullPolicy: policy}}},
				{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
			},
		}}}}
	}
	cfg := v1.Volume{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](0o644)}}}
	model := func(policy v1.PullPolicy) v1.Volume {
		return v1.Volume{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "models/llm", PullPolicy: policy}}}
	}
	tests := []struct {
		name        string
		version     string
		policy      v1.PullPolicy
		wantVolumes []v1.Volume
		wantMounts  [3][]v1.VolumeMount // init, regular, ephemeral container
	}{
		{name: "1.33 drops the image volume and every mount of it (VER-10)", version: "1.33",
			wantVolumes: []v1.Volume{cfg}, wantMounts: [3][]v1.VolumeMount{nil, mounts("cfg"), nil}},
		{name: "1.34 drops the image volume and every mount of it (VER-10)", version: "1.34.4",
			wantVolumes: []v1.Volume{cfg}, wantMounts: [3][]v1.VolumeMount{nil, mounts("cfg"), nil}},
		{name: "1.34 drops an image volume whose pull policy is set (VER-10)", version: "1.34.0", policy: v1.PullNever,
			wantVolumes: []v1.Volume{cfg}, wantMounts: [3][]v1.VolumeMount{nil, mounts("cfg"), nil}},
		{name: "1.35 keeps the image volume and defaults its pull policy by tag (DFLT-3)", version: "1.35.0",
			wantVolumes: []v1.Volume{model(v1.PullAlways), cfg}, wantMounts: [3][]v1.VolumeMount{mounts("model"), mounts("cfg", "model"), mounts("model")}},
		{name: "1.35 keeps a set pull policy (DFLT-3)", version: "1.35", policy: v1.PullNever,
			wantVolumes: []v1.Volume{model(v1.PullNever), cfg}, wantMounts: [3][]v1.VolumeMount{mounts("model"), mounts("cfg", "model"), mounts("model")}},
		{name: "the zero Version is the newest release and keeps the image volume (DFLT-3)",
			wantVolumes: []v1.Volume{model(v1.PullAlways), cfg}, wantMounts: [3][]v1.VolumeMount{mounts("model"), mounts("cfg", "model"), mounts("model")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Version
			if tt.version != "" {
				var err error
				v, err = ParseVersion(tt.version)
				if err != nil {
					t.Fatal(err)
				}
			}
			in := template(tt.policy)
			before := in.DeepCopy()
			got := v.WithTemplateDefaults(in)
			if diff := cmp.Diff(before, in); diff != "" {
				t.Fatalf("input modified:\n%s", diff)
			}
			spec := got.Spec.Template.Spec
			if diff := cmp.Diff(tt.wantVolumes, spec.Volumes); diff != "" {
				t.Errorf("volumes mismatch (-want +got):\n%s", diff)
			}
			gotMounts := [3][]v1.VolumeMount{spec.InitContainers[0].VolumeMounts, spec.Containers[0].VolumeMounts, spec.EphemeralContainers[0].VolumeMounts}
			if diff := cmp.Diff(tt.wantMounts, gotMounts); diff != "" {
				t.Errorf("volume mounts mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(got, v.WithTemplateDefaults(got)); diff != "" {
				t.Errorf("not idempotent:\n%s", diff)
			}
			// The hash is of the stored template: before 1.35 the image volume plays no part.
			without := in.DeepCopy()
			tmpl := &without.Spec.Template.Spec
			tmpl.Volumes = tmpl.Volumes[1:]
			tmpl.InitContainers[0].VolumeMounts, tmpl.EphemeralContainers[0].VolumeMounts = nil, nil
			tmpl.Containers[0].VolumeMounts = mounts("cfg")
			same := v.ComputeHash(&got.Spec.Template, nil) == v.ComputeHash(&v.WithTemplateDefaults(without).Spec.Template, nil)
			if wantSame := len(tt.wantVolumes) == 1; same != wantSame {
				t.Errorf("hash equal to the template's without the image volume: %v, want %v", same, wantSame)
			}
		})
	}
}
