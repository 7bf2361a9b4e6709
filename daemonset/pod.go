package daemonset

import (
	"strconv"

	"github.com/daemonsched/daemonsched/affinity"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// labelTemplateGeneration is the pod label carrying the template generation (POD-3) of the
// deprecated template-generation scheme, compared by UPD-3. The value comes from the
// DaemonSet's appsv1.DeprecatedTemplateGeneration annotation; the revision hash label is
// appsv1.DefaultDaemonSetUniqueLabelKey. Callers name it as upstream does, by k8s.io/api's
// extensions/v1beta1.DaemonSetTemplateGenerationKey (TestTemplateGenerationLabelIsKubernetes);
// it is not imported here for one string.
const labelTemplateGeneration = "pod-template-generation"

// daemonTolerations are the defaults of DEFTOL-1 in their merge order; the last one applies
// only to host-network pods.
var daemonTolerations = [...]v1.Toleration{
	{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
}

// mergeDaemonTolerations returns a new list: tols with the default daemon tolerations merged in
// (DEFTOL-1..3). Each default replaces, in place, every entry identical to it on key, operator,
// value and effect (tolerationSeconds is not part of the identity and is lost); a default
// without such an entry is appended. The network-unavailable default applies only with
// hostNetwork (DEFTOL-6). tols is not modified.
func mergeDaemonTolerations(tols []v1.Toleration, hostNetwork bool) []v1.Toleration {
	defaults := daemonTolerations[:len(daemonTolerations)-1]
	if hostNetwork {
		defaults = daemonTolerations[:]
	}
	out := make([]v1.Toleration, len(tols), len(tols)+len(defaults))
	for i := range tols {
		tols[i].DeepCopyInto(&out[i])
	}
	for _, d := range defaults {
		found := false
		for i := range out {
			// v1.Toleration.MatchToleration: the four identity fields. Upstream's "already
			// equal" shortcut compares a pointer with a value and never fires (DEFTOL-2).
			if out[i].Key == d.Key && out[i].Operator == d.Operator && out[i].Value == d.Value && out[i].Effect == d.Effect {
				out[i] = d
				found = true
			}
		}
		if !found {
			out = append(out, d)
		}
	}
	return out
}

// buildPrototype builds, once per Compile, the daemon pod without its hash label and without
// the node binding (POD-1..POD-7). As in the v1.36 controller (GetPodFromTemplate), labels,
// annotations and finalizers are always non-nil copies, even when the template has none.
//
// pod-template-generation (POD-3, audit S10) is the annotation as strconv.ParseInt reads it,
// written back in canonical decimal ("+7" and "007" give "7"), and it overwrites a template
// label of that name. When the annotation is absent or does not parse, upstream's
// CreatePodTemplate writes nothing, so a template-supplied pod-template-generation label survives
// (inert: UPD-3 compares the label only when the annotation parses).
func buildPrototype(ds *appsv1.DaemonSet, tolerations []v1.Toleration) *v1.Pod {
	tmpl := &ds.Spec.Template
	labels := make(map[string]string, len(tmpl.Labels)+2)
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	if g, ok := templateGeneration(ds); ok {
		labels[labelTemplateGeneration] = strconv.FormatInt(g, 10)
	}
	annotations := make(map[string]string, len(tmpl.Annotations))
	for k, v := range tmpl.Annotations {
		annotations[k] = v
	}
	finalizers := make([]string, len(tmpl.Finalizers))
	copy(finalizers, tmpl.Finalizers)

	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    podsPrefix(ds.Name),
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     annotations,
			Finalizers:      finalizers,
			OwnerReferences: []metav1.OwnerReference{controllerRef(ds)},
		},
	}
	tmpl.Spec.DeepCopyInto(&pod.Spec)
	// Bound once here to a placeholder name: newPod's deep copy then only writes the node name
	// in, instead of copying the template's affinity and then BindToNode copying it again.
	pod.Spec.Affinity = affinity.BindToNode(pod.Spec.Affinity, "")
	pod.Spec.Tolerations = make([]v1.Toleration, len(tolerations))
	for i := range tolerations {
		tolerations[i].DeepCopyInto(&pod.Spec.Tolerations[i])
	}
	return pod
}

// podsPrefix is the generateName of a daemon pod (POD-1): "<name>-", unless that fails pod-name
// validation as a prefix, then the bare name (pkg/controller getPodsPrefix). Only a DaemonSet name
// that API validation rejects can fail (VAL-22: the plan takes the object as stored).
func podsPrefix(name string) string {
	prefix := name + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		return name
	}
	return prefix
}

// controllerRef is the owner reference of POD-5, also added by adoption (OWN-4).
func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         "apps/v1",
		Kind:               "DaemonSet",
		Name:               ds.Name,
		UID:                ds.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// NewPod returns the daemon pod the controller would submit for nodeName (POD-1..POD-8), with
// metadata.namespace set to the DaemonSet's (D-3). Its controller-revision-hash is the one
// computed from the template (UPD-15): NewPod sees no ControllerRevisions, so when the snapshot
// holds a matching revision with another hash label (UPD-14, D-6) the pods of [Planner.Plan]
// carry that label instead. Each call returns a new object that shares nothing with the
// Planner or with other pods. Nothing in this module calls it: it is for simulators and
// autoscalers that want the pod a new, hypothetical node would get without planning a snapshot.
func (p *Planner) NewPod(nodeName string) *v1.Pod { return p.newPod(nodeName, p.digest.hash()) }

// newPod builds the daemon pod for nodeName with hash as its revision hash: a deep copy of the
// prototype, the hash label (only when non-empty, as upstream CreatePodTemplate, so with an
// empty hash a template-supplied hash label survives; audit S7, S10) and the node binding of
// POD-6. A pod left without any label is never submitted (Planner.createRefused).
func (p *Planner) newPod(nodeName, hash string) *v1.Pod {
	pod := p.proto.DeepCopy()
	if hash != "" {
		pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	bindCopy(pod, nodeName)
	return pod
}

// bindCopy writes nodeName into the POD-6 binding of pod, a deep copy of the prototype, which
// holds the binding with the name left out (buildPrototype).
func bindCopy(pod *v1.Pod, nodeName string) {
	required := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	required.NodeSelectorTerms[0].MatchFields[0].Values[0] = nodeName
}
