package affinity

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BindToNode returns a copy of a with its required node affinity replaced by the single term
// matchFields metadata.name In [nodeName] (POD-6). a is not modified.
//
// The four cases of POD-6(b), as pkg/controller/daemon/util ReplaceDaemonSetPodNodeNameNodeAffinity:
// a nil a gives an affinity holding only that required selector; a nil nodeAffinity is set to
// it (pod affinity and anti-affinity are kept); a nil required selector is set (preferred terms
// are kept); an existing required selector has its whole term list replaced by the one term,
// dropping the user's required terms. The result is a deep copy and shares nothing mutable
// with a.
func BindToNode(a *v1.Affinity, nodeName string) *v1.Affinity {
	out := a.DeepCopy()
	if out == nil {
		out = &v1.Affinity{}
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &v1.NodeAffinity{}
	}
	terms := []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{
			Key:      metav1.ObjectNameField,
			Operator: v1.NodeSelectorOpIn,
			Values:   []string{nodeName},
		}},
	}}
	if out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
	}
	out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms
	return out
}

// TargetNodeName returns the node a daemon pod is meant for (OWN-9): spec.nodeName, else the
// single value of the first metadata.name In matchFields requirement of its required affinity.
//
// As pkg/controller/daemon/util GetTargetNodeName: terms are searched in order and, inside a
// term, matchFields in order; the first entry with key metadata.name and operator In decides.
// If that entry has zero or several values there is no target (false), even if a later entry
// would have one. A single empty value is returned as ("", true), because upstream returns it
// without error. TargetNodeName panics if pod is nil.
func TargetNodeName(pod *v1.Pod) (string, bool) {
	if pod == nil {
		panic("affinity: TargetNodeName called with a nil pod")
	}
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, true
	}
	ns := requiredSelector(pod.Spec.Affinity)
	if ns == nil {
		return "", false
	}
	for _, t := range ns.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == metav1.ObjectNameField && f.Operator == v1.NodeSelectorOpIn {
				if len(f.Values) != 1 {
					return "", false
				}
				return f.Values[0], true
			}
		}
	}
	return "", false
}
