package rollout

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestIncrementalUpdated holds the simulation's fast path to UPD-3 as the plan reads it: an
// empty hash makes no pod updated, and the template generation is compared in canonical
// decimal ("01" is generation 1).
func TestIncrementalUpdated(t *testing.T) {
	gen := func(g string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: g}}}
	}
	pod := func(labels map[string]string) *v1.Pod { return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: labels}} }
	hashKey, genKey := appsv1.DefaultDaemonSetUniqueLabelKey, daemonset.LabelTemplateGeneration
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		hash string
		pod  *v1.Pod
		want bool
	}{
		{"UPD-3 the current hash", &appsv1.DaemonSet{}, "h1", pod(map[string]string{hashKey: "h1"}), true},
		{"UPD-3 another hash", &appsv1.DaemonSet{}, "h1", pod(map[string]string{hashKey: "h0"}), false},
		{"UPD-3 an empty hash makes no pod updated", &appsv1.DaemonSet{}, "", pod(map[string]string{"app": "a"}), false},
		{"UPD-3 an empty hash label is not the empty hash", &appsv1.DaemonSet{}, "", pod(map[string]string{hashKey: ""}), false},
		{"UPD-3 generation 01 is generation 1", gen("01"), "h1", pod(map[string]string{genKey: "1"}), true},
		{"UPD-3 a label 01 is not canonical", gen("01"), "h1", pod(map[string]string{genKey: "01"}), false},
		{"UPD-3 an unparsable annotation is ignored", gen("x"), "h1", pod(map[string]string{genKey: "x"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc := &incremental{ds: tt.ds, hash: tt.hash}
			if got := inc.updated(tt.pod); got != tt.want {
				t.Fatalf("updated = %v, want %v", got, tt.want)
			}
			if got := daemonset.IsPodUpdated(tt.ds, tt.hash, tt.pod); got != tt.want {
				t.Fatalf("daemonset.IsPodUpdated = %v, want %v", got, tt.want)
			}
		})
	}
}
