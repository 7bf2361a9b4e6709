// Package apitest builds the Kubernetes objects the project's tests share: one DaemonSet, nodes
// with labels and taints, and the IntOrString budgets of a rolling update. Every builder returns
// a new object that shares nothing with earlier ones, and takes mods that change it in order.
// It is for tests only; it imports no package of this module, so that the tests inside
// daemonset can use it too.
package apitest

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// DaemonSet returns the tests' DaemonSet, then applies mods: foo in namespace default (uid
// uid-foo, generation 1), selector and template labels app=d, one container c running img with
// restartPolicy Always, strategy OnDelete, revisionHistoryLimit 10.
func DaemonSet(mods ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default", UID: "uid-foo", Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec: v1.PodSpec{
					RestartPolicy: v1.RestartPolicyAlways,
					Containers:    []v1.Container{{Name: "c", Image: "img"}},
				},
			},
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			RevisionHistoryLimit: ptr.To[int32](10),
		},
	}
	for _, m := range mods {
		m(ds)
	}
	return ds
}

// Rolling sets the RollingUpdate strategy with the given budgets; nil leaves a budget unset.
func Rolling(maxUnavailable, maxSurge *intstr.IntOrString) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
			Type:          appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge},
		}
	}
}

// Int is an integer budget.
func Int(i int) *intstr.IntOrString { return ptr.To(intstr.FromInt32(int32(i))) }

// Str is a string budget, such as "10%" (or a malformed one).
func Str(s string) *intstr.IntOrString { return ptr.To(intstr.FromString(s)) }

// Node returns a node named name with no labels and no taints, then applies mods.
func Node(name string, mods ...func(*v1.Node)) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, m := range mods {
		m(n)
	}
	return n
}

// Labels adds labels given as key, value pairs to a node.
func Labels(kv ...string) func(*v1.Node) {
	return func(n *v1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

// Taint appends a taint to a node.
func Taint(key, value string, effect v1.TaintEffect) func(*v1.Node) {
	return func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	}
}

// Requirement is a node selector requirement.
func Requirement(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// Term is a node selector term made of matchExpressions only.
func Term(exprs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: exprs}
}

// FieldTerm is a node selector term made of matchFields only.
func FieldTerm(fields ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchFields: fields}
}

// RequiredAffinity is a required node affinity (requiredDuringSchedulingIgnoredDuringExecution)
// with terms; no terms gives a required selector that matches no node.
func RequiredAffinity(terms ...v1.NodeSelectorTerm) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}
}
