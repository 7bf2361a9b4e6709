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
	got := WithTemplateDefaults(in)
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
	if diff := cmp.Diff(got, WithTemplateDefaults(got)); diff != "" {
		t.Errorf("not idempotent:\n%s", diff)
	}
	if WithTemplateDefaults(nil) != nil {
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
		got := WithTemplateDefaults(ds).Spec.Template.Spec
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
