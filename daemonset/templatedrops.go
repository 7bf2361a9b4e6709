package daemonset

import (
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// templateDrops are the fields of a pod template that the API server of a release drops when
// the gate that guards them is off and the template it replaces does not use them already
// (VER-11): the DaemonSet strategy's PrepareForCreate and PrepareForUpdate call pkg/api/pod's
// DropDisabledTemplateFields, with no old template on create. Each entry names the fields it
// drops and the ones whose use keeps them (its helper *InUse there), or functions where the
// rule is not a plain list. A gate the release does not know drops nothing: the release's
// types lack the field, so its hash never reads it (VER-2).
var templateDrops = [...]struct {
	gate  Gate
	drops []fieldPath
	uses  []fieldPath // nil: drops
	inUse func(*v1.PodSpec) bool
	drop  func(*v1.PodSpec)
}{
	{gate: GatePodLevelResources, drops: paths(fieldPath{"Resources"}),
		uses: paths(fieldPath{"Resources", "Requests"}, fieldPath{"Resources", "Limits"})},
	{gate: GateDynamicResourceAllocation, drops: append(paths(fieldPath{"ResourceClaims"}), containers("Resources", "Claims")...),
		uses: paths(fieldPath{"ResourceClaims"})},
	{gate: GateClusterTrustBundleProjection, drops: paths(fieldPath{"Volumes", "Projected", "Sources", "ClusterTrustBundle"})},
	{gate: GatePodCertificateRequest, drops: paths(fieldPath{"Volumes", "Projected", "Sources", "PodCertificate"})},
	{gate: GateAtomicWriteVolumeUserFields, inUse: atomicWriteUserFieldsInUse, drop: dropAtomicWriteUserFields},
	// 1.35's workloadRef became 1.36's schedulingGroup: each release's types have one of them.
	{gate: GateGenericWorkload, drops: paths(fieldPath{"WorkloadRef"}, fieldPath{"SchedulingGroup"})},
	{gate: GateGRPCContainerProbeTLS, drops: slices.Concat(containers("LivenessProbe", "GRPC", "Mode"),
		containers("ReadinessProbe", "GRPC", "Mode"), containers("StartupProbe", "GRPC", "Mode"))},
	{gate: GateEvictionRequestAPI, drops: paths(fieldPath{"EvictionResponders"})},
	{gate: GateContainerRestartRules, inUse: restartRulesInUse, drop: dropRestartRules},
	{gate: GateEmptyDirVolumeMode, drops: paths(fieldPath{"Volumes", "EmptyDir", "Mode"})},
	{gate: GateVolumeBindMountOptions, drops: containers("VolumeMounts", "BindMountOptions")},
	{gate: GateHostnameOverride, drops: paths(fieldPath{"HostnameOverride"})},
	{gate: GateEnvFiles, drops: containers("Env", "ValueFrom", "FileKeyRef")},
	{gate: GateImageVolume, uses: paths(fieldPath{"Volumes", "Image"}), drop: dropImageVolumes},
	{gate: GateContainerStopSignals, uses: containers("Lifecycle", "StopSignal"), drop: dropStopSignals},
	{gate: GateH2CContainerProbe, drops: slices.Concat(containers("LivenessProbe", "HTTPGet", "Protocol"),
		containers("ReadinessProbe", "HTTPGet", "Protocol"), containers("StartupProbe", "HTTPGet", "Protocol"),
		containers("Lifecycle", "PostStart", "HTTPGet", "Protocol"), containers("Lifecycle", "PreStop", "HTTPGet", "Protocol"))},
}

// dropDisabledFields drops from spec, in place, the fields of the gates that are off in o
// (VER-11), keeping those that old, the template spec replaces (nil on create), already uses.
func (o Options) dropDisabledFields(spec, old *v1.PodSpec) {
	for _, d := range templateDrops {
		if _, known := o.release().GateDefault(d.gate); !known || o.Enabled(d.gate) {
			continue
		}
		if old != nil {
			switch {
			case d.inUse != nil:
				if d.inUse(old) {
					continue
				}
			case d.uses != nil && anySet(old, d.uses), d.uses == nil && anySet(old, d.drops):
				continue
			}
		}
		if d.drop != nil {
			d.drop(spec)
			continue
		}
		for _, p := range d.drops {
			p.visit(reflect.ValueOf(spec).Elem(), func(v reflect.Value) { v.SetZero() })
		}
	}
}

// fieldPath names a field under v1.PodSpec by the Go names of the fields that lead to it. A
// slice on the way is walked element by element, a nil pointer ends the walk, and a name the
// linked k8s.io/api lacks reaches nothing: the fields are named, not referenced, so that the
// library still compiles against the k8s.io/api of each supported release, as
// internal/upstreamtest builds it (VER-8), whose types lack the newer fields.
type fieldPath []string

func paths(p ...fieldPath) []fieldPath { return p }

// containers names the field at rest in every init, regular and ephemeral container.
func containers(rest ...string) []fieldPath {
	var out []fieldPath
	for _, list := range []string{"InitContainers", "Containers", "EphemeralContainers"} {
		out = append(out, append(fieldPath{list}, rest...))
	}
	return out
}

// visit calls f on every value p reaches from v.
func (p fieldPath) visit(v reflect.Value, f func(reflect.Value)) {
	if len(p) == 0 {
		f(v)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p.visit(v.Elem(), f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			p.visit(v.Index(i), f)
		}
	case reflect.Struct:
		if fv := v.FieldByName(p[0]); fv.IsValid() {
			p[1:].visit(fv, f)
		}
	}
}

// isSet reports whether v is in use: a list or map with an element, anything else not zero.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	}
	return !v.IsZero()
}

// anySet reports whether any field of ps is set in spec.
func anySet(spec *v1.PodSpec, ps []fieldPath) bool {
	set := false
	for _, p := range ps {
		p.visit(reflect.ValueOf(spec).Elem(), func(v reflect.Value) { set = set || isSet(v) })
	}
	return set
}

// dropStopSignals drops every container's lifecycle.stopSignal, and the lifecycle it leaves
// empty (pkg/api/pod: dropContainerStopSignals).
func dropStopSignals(spec *v1.PodSpec) {
	eachContainer(spec, func(c *v1.Container) {
		if l := c.Lifecycle; l != nil && l.StopSignal != nil {
			l.StopSignal = nil
			if *l == (v1.Lifecycle{}) {
				c.Lifecycle = nil
			}
		}
	})
}

// restartRulesInUse is pkg/api/pod's containerRestartRulesInUse: an init container whose
// restartPolicy is not Always or that has restartPolicyRules, or a regular container with a
// restartPolicy (ephemeral containers and regular containers' rules do not count).
func restartRulesInUse(spec *v1.PodSpec) bool {
	for _, c := range spec.InitContainers {
		rules := false
		fieldPath{"RestartPolicyRules"}.visit(reflect.ValueOf(&c).Elem(), func(v reflect.Value) { rules = isSet(v) })
		if rules || c.RestartPolicy != nil && *c.RestartPolicy != v1.ContainerRestartPolicyAlways {
			return true
		}
	}
	return slices.ContainsFunc(spec.Containers, func(c v1.Container) bool { return c.RestartPolicy != nil })
}

// dropRestartRules is pkg/api/pod's dropContainerRestartRules: every container's
// restartPolicyRules, and its restartPolicy but an init container's Always (a sidecar).
func dropRestartRules(spec *v1.PodSpec) {
	for i, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy != v1.ContainerRestartPolicyAlways {
			spec.InitContainers[i].RestartPolicy = nil
		}
	}
	for i := range spec.Containers {
		spec.Containers[i].RestartPolicy = nil
	}
	for i := range spec.EphemeralContainers {
		spec.EphemeralContainers[i].RestartPolicy = nil
	}
	for _, p := range containers("RestartPolicyRules") {
		p.visit(reflect.ValueOf(spec).Elem(), func(v reflect.Value) { v.SetZero() })
	}
}

// atomicWriteUserFields calls f on the defaultUser and user fields of every volume, as
// pkg/api/pod's dropDisabledAtomicWriteVolumeUserFields reaches them: of a volume, only its
// first source of secret, configMap, downwardAPI and projected; of a projected source, only
// its first of secret, downwardAPI, configMap, serviceAccountToken, clusterTrustBundle and
// podCertificate.
func atomicWriteUserFields(spec *v1.PodSpec, f func(reflect.Value)) {
	first := func(v reflect.Value, names ...string) (string, reflect.Value) {
		for _, n := range names {
			if fv := v.FieldByName(n); fv.IsValid() && !fv.IsNil() {
				return n, fv
			}
		}
		return "", reflect.Value{}
	}
	items := fieldPath{"Items", "User"}
	for i := range spec.Volumes {
		name, src := first(reflect.ValueOf(&spec.Volumes[i].VolumeSource).Elem(), "Secret", "ConfigMap", "DownwardAPI", "Projected")
		if name == "" {
			continue
		}
		fieldPath{"DefaultUser"}.visit(src, f)
		if name != "Projected" {
			items.visit(src, f)
			continue
		}
		sources := src.Elem().FieldByName("Sources")
		for j := range sources.Len() {
			switch name, s := first(sources.Index(j), "Secret", "DownwardAPI", "ConfigMap", "ServiceAccountToken", "ClusterTrustBundle", "PodCertificate"); name {
			case "":
			case "Secret", "DownwardAPI", "ConfigMap":
				items.visit(s, f)
			default:
				fieldPath{"User"}.visit(s, f)
			}
		}
	}
}

func atomicWriteUserFieldsInUse(spec *v1.PodSpec) bool {
	set := false
	atomicWriteUserFields(spec, func(v reflect.Value) { set = set || isSet(v) })
	return set
}

func dropAtomicWriteUserFields(spec *v1.PodSpec) {
	atomicWriteUserFields(spec, func(v reflect.Value) { v.SetZero() })
}

// dropInitContainerAnnotations drops from a template's annotations the legacy init-container
// annotations, which the API server drops from 1.37 whatever the gates (pkg/api/pod:
// DropInitContainerAnnotations, VER-11).
func dropInitContainerAnnotations(annotations map[string]string) {
	for _, k := range [...]string{
		"pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
		"pod.beta.kubernetes.io/init-container-statuses", "pod.alpha.kubernetes.io/init-container-statuses",
	} {
		delete(annotations, k)
	}
}
