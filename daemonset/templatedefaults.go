package daemonset

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// WithTemplateDefaults returns a copy of ds whose pod template is as the API server of release v
// stores it when the DaemonSet is created (DFLT-3): the core/v1 defaults of every field of the
// template, and every empty list or map of the template dropped (nil), as the stored object
// comes back without them. The revision hash of a hand-written manifest is then the one the
// cluster computes (v.ComputeHash, UPD-17). Fields that are set, valid or not, are kept. ds is
// not modified; a nil ds gives nil. The zero Version is the newest release.
//
// The defaults are those of k8s/pkg/apis/core/v1 for a pod template: restartPolicy Always,
// dnsPolicy ClusterFirst, schedulerName default-scheduler, terminationGracePeriodSeconds 30,
// securityContext {}; for every container (init and ephemeral ones too) the image pull policy by
// image tag (Always for "latest" or no tag, else IfNotPresent), terminationMessagePath and
// -Policy, port protocol TCP, the fieldRef apiVersion v1 and fileKeyRef optional false of env,
// the probes' timing, HTTP path "/" and scheme HTTP, and gRPC service ""; for volumes the
// emptyDir of a volume without source, the modes of secret, configMap, downwardAPI and projected
// volumes, the token expiration of projected service account tokens, the hostPath type "", the
// defaults of iscsi, rbd, azureDisk, scaleIO, ephemeral claims and image volumes; and every
// resource quantity rounded up to the millis.
//
// Fields of feature gates that are off by default in release v are dropped, as its API server
// drops them from a new template (VER-11, with VER-10 for image volumes and ADM-8 for
// spec.resources): [Options.WithTemplateDefaults] with FeatureGates set or a stored template
// models the rest.
func (v Version) WithTemplateDefaults(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	return Options{Version: v}.WithTemplateDefaults(ds, nil)
}

// WithTemplateDefaults returns a copy of ds whose pod template is as the API server of the
// release and feature gates of o stores it ([Version.WithTemplateDefaults], DFLT-3): with the
// defaults of that release, and without the fields of every gate that is off (VER-11), unless
// stored, the DaemonSet ds replaces in an update, already uses them in its template (the
// strategy's PrepareForUpdate passes the old template to DropDisabledTemplateFields). stored is
// nil on create. With ImageVolume off (before 1.35 by default, VER-10) no image volume's
// pullPolicy is defaulted. The gates are read as [Options.Enabled] reads them. Neither argument
// is modified; a nil ds gives nil.
func (o Options) WithTemplateDefaults(ds, stored *appsv1.DaemonSet) *appsv1.DaemonSet {
	if ds == nil {
		return nil
	}
	out := ds.DeepCopy()
	spec := &out.Spec.Template.Spec
	imageVolumes := o.Enabled(GateImageVolume)
	defaultPodSpec(spec, imageVolumes)
	var old *v1.PodSpec
	if stored != nil {
		old = &stored.Spec.Template.Spec
	}
	o.dropDisabledFields(spec, old)
	if o.release().AtLeast(1, 37, 0) {
		dropInitContainerAnnotations(out.Spec.Template.Annotations)
	}
	dropEmpty(reflect.ValueOf(&out.Spec.Template).Elem())
	return out
}

// dropImageVolumes removes the image volumes of spec and the volume mounts of every container
// (init and ephemeral ones too) that name one, as the API server of a release whose ImageVolume
// gate is off does to a new template, or to an updated one whose stored template has none
// (pkg/api/pod: dropImageVolumes, called by the DaemonSet strategy's PrepareForCreate and
// PrepareForUpdate). Mounts are matched by name alone, as there.
func dropImageVolumes(spec *v1.PodSpec) {
	var dropped []string
	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(vol v1.Volume) bool {
		if vol.Image == nil {
			return false
		}
		dropped = append(dropped, vol.Name)
		return true
	})
	if len(dropped) == 0 {
		return
	}
	keep := func(mounts []v1.VolumeMount) []v1.VolumeMount {
		return slices.DeleteFunc(mounts, func(m v1.VolumeMount) bool { return slices.Contains(dropped, m.Name) })
	}
	eachContainer(spec, func(c *v1.Container) { c.VolumeMounts = keep(c.VolumeMounts) })
}

// eachContainer calls f with every container of spec: the init containers, the containers, then
// the ephemeral containers (their common part, which has a container's shape).
func eachContainer(spec *v1.PodSpec, f func(*v1.Container)) {
	for i := range spec.InitContainers {
		f(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		f(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		f((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// defaultPodSpec applies the pod defaults to spec; imageVolumes says whether the release's
// ImageVolume gate is on, without which an image volume's pullPolicy is not defaulted.
func defaultPodSpec(spec *v1.PodSpec, imageVolumes bool) {
	// serviceAccount is the deprecated alias of serviceAccountName: storage keeps the two equal,
	// the newer name winning when both are set (conversion through the internal types in every
	// release, SetDefaults_PodSpec as well from 1.37).
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = v1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = v1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &v1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo[int64](v1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = v1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i], imageVolumes)
	}
	eachContainer(spec, defaultContainer)
	roundUp(spec.Overhead)
	if spec.Resources != nil {
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

func defaultContainer(c *v1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = v1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = v1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = v1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if from := c.Env[i].ValueFrom; from != nil {
			defaultFieldRef(from.FieldRef)
			if from.FileKeyRef != nil && from.FileKeyRef.Optional == nil {
				from.FileKeyRef.Optional = ptrTo(false)
			}
		}
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	for _, p := range []*v1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if c.Lifecycle != nil {
		for _, h := range []*v1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *v1.Probe) {
	if p == nil {
		return
	}
	for _, f := range []struct {
		v   *int32
		def int32
	}{{&p.TimeoutSeconds, 1}, {&p.PeriodSeconds, 10}, {&p.SuccessThreshold, 1}, {&p.FailureThreshold, 3}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

func defaultHTTPGet(h *v1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = v1.URISchemeHTTP
	}
}

func defaultFieldRef(f *v1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

func defaultVolume(vol *v1.Volume, imageVolumes bool) {
	src := &vol.VolumeSource
	if reflect.ValueOf(*src).IsZero() {
		src.EmptyDir = &v1.EmptyDirVolumeSource{}
	}
	if imageVolumes && src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicy(src.Image.Reference)
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptrTo(v1.HostPathUnset)
	}
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptrTo(v1.SecretVolumeSourceDefaultMode)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptrTo(v1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := src.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			d.DefaultMode = ptrTo(v1.DownwardAPIVolumeSourceDefaultMode)
		}
		for i := range d.Items {
			defaultFieldRef(d.Items[i].FieldRef)
		}
	}
	if p := src.Projected; p != nil {
		if p.DefaultMode == nil {
			p.DefaultMode = ptrTo(v1.ProjectedVolumeSourceDefaultMode)
		}
		for _, s := range p.Sources {
			if s.DownwardAPI != nil {
				for i := range s.DownwardAPI.Items {
					defaultFieldRef(s.DownwardAPI.Items[i].FieldRef)
				}
			}
			if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
				s.ServiceAccountToken.ExpirationSeconds = ptrTo[int64](3600) // one hour
			}
		}
	}
	defaultVolumePlugins(src)
}

// defaultVolumePlugins defaults the fields of the in-tree volume plugins that have some.
func defaultVolumePlugins(src *v1.VolumeSource) {
	setString := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	if src.ISCSI != nil {
		setString(&src.ISCSI.ISCSIInterface, "default")
	}
	if r := src.RBD; r != nil {
		setString(&r.RBDPool, "rbd")
		setString(&r.RadosUser, "admin")
		setString(&r.Keyring, "/etc/ceph/keyring")
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			a.CachingMode = ptrTo(v1.AzureDataDiskCachingReadWrite)
		}
		if a.FSType == nil {
			a.FSType = ptrTo("ext4")
		}
		if a.ReadOnly == nil {
			a.ReadOnly = ptrTo(false)
		}
		if a.Kind == nil {
			a.Kind = ptrTo(v1.AzureSharedBlobDisk)
		}
	}
	if s := src.ScaleIO; s != nil {
		setString(&s.StorageMode, "ThinProvisioned")
		setString(&s.FSType, "xfs")
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
		}
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

// roundUp rounds every quantity of l up to the millis, as the API server stores them.
func roundUp(l v1.ResourceList) {
	for name, q := range l {
		q.RoundUp(resource.Milli)
		l[name] = q
	}
}

// pullPolicy is the image pull policy of an image reference without one: Always when its tag is
// "latest" or it has neither tag nor digest, IfNotPresent otherwise, and for a reference that
// does not parse.
func pullPolicy(image string) v1.PullPolicy {
	if imageTag(image) == "latest" {
		return v1.PullAlways
	}
	return v1.PullIfNotPresent
}

// The grammar of container image references (the distribution project's): a name of lower-case
// path components, optionally after a registry host with port, then an optional tag and an
// optional digest.
var (
	imageReference = regexp.MustCompile(`^` +
		`((?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?/)?` + // registry
		`([a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)` + // path
		`(?::([\w][\w.-]{0,127}))?` + // tag
		`(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`) // digest
	hexDigest    = regexp.MustCompile(`^[a-f0-9]{64}$`)
	digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
)

// imageTag returns the tag an image reference pulls: its tag, "latest" when it has neither tag
// nor digest, "" when it has only a digest or does not parse. A reference whose first
// component is not a registry (no "." or ":", not localhost, lower-case) is on Docker Hub, where
// a one-component name is in library/.
func imageTag(image string) string {
	if hexDigest.MatchString(image) {
		return "" // an image ID is not a name
	}
	registry, rest := "docker.io", image
	if i := strings.IndexByte(image, '/'); i >= 0 {
		if first := image[:i]; strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first {
			registry, rest = first, image[i+1:]
		}
	}
	if registry == "index.docker.io" {
		registry = "docker.io"
	}
	if registry == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	if repo, _, _ := strings.Cut(rest, ":"); strings.ToLower(repo) != repo {
		return ""
	}
	m := imageReference.FindStringSubmatch(registry + "/" + rest)
	if m == nil || len(m[1])+len(m[2]) > 255 {
		return ""
	}
	if d := m[4]; d != "" {
		alg, hex, _ := strings.Cut(d, ":")
		if n, ok := digestHexLen[alg]; !ok || len(hex) != n || strings.ToLower(hex) != hex {
			return ""
		}
	}
	if m[3] == "" && m[4] == "" {
		return "latest"
	}
	return m[3]
}

func ptrTo[T any](v T) *T { return &v }

// dropEmpty sets every empty slice and map reachable from v (addressable) to nil, through
// exported fields, pointers, slices and maps of structs.
func dropEmpty(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			dropEmpty(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				dropEmpty(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if v.Len() == 0 {
			v.SetZero()
			return
		}
		for i := range v.Len() {
			dropEmpty(v.Index(i))
		}
	case reflect.Map:
		if !v.IsNil() && v.Len() == 0 {
			v.SetZero()
		}
	}
}
