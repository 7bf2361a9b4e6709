package daemonset_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var templateSink *appsv1.DaemonSet

// BenchmarkWithTemplateDefaults defaults a typical agent template (two containers with probes,
// env and mounts, four volumes) at the newest release and at 1.33, where more gates are off.
func BenchmarkWithTemplateDefaults(b *testing.B) {
	c := func(name string) v1.Container {
		return v1.Container{Name: name, Image: "registry.k8s.io/" + name + ":1.0",
			Env:            []v1.EnvVar{{Name: "NODE", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			Resources:      v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}},
			LivenessProbe:  &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intstrPort}}},
			ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intstrPort}}},
			VolumeMounts:   []v1.VolumeMount{{Name: "cfg", MountPath: "/c"}, {Name: "logs", MountPath: "/l"}}}
	}
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
		Containers: []v1.Container{c("agent"), c("exporter")},
		Volumes: []v1.Volume{
			{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
			{Name: "logs", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/var/log"}}},
			{Name: "tok", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "t"}}}}}},
			{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
		},
	}}}}
	for _, r := range []string{"1.37.2", "1.33.13"} {
		v := mustVersion(b, r)
		b.Run("release="+r, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				templateSink = v.WithTemplateDefaults(ds)
			}
		})
	}
}
