package affinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/affinity"
)

// TestMatchesNodeSelector checks that MatchesNodeSelector judges spec.nodeSelector alone
// (NSEL-1, NSEL-2), whatever the required node affinity says (AFF-12).
func TestMatchesNodeSelector(t *testing.T) {
	t.Parallel()
	noTerm := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{},
	}}
	tests := []struct {
		name   string
		spec   v1.PodSpec
		labels map[string]string
		want   bool
	}{
		{name: "NSEL-1 no node selector holds on any node", want: true},
		{name: "NSEL-2 an exact label holds", spec: v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}},
			labels: map[string]string{"disk": "ssd"}, want: true},
		{name: "NSEL-2 another value fails", spec: v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}},
			labels: map[string]string{"disk": "hdd"}},
		{name: "NSEL-2 an empty value requires the label present", spec: v1.PodSpec{NodeSelector: map[string]string{"gpu": ""}},
			labels: map[string]string{}},
		{name: "AFF-12 an affinity that matches no node does not change the node selector's answer",
			spec:   v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: noTerm},
			labels: map[string]string{"disk": "ssd"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: tt.labels}}
			r := affinity.Compile(&tt.spec, nil)
			require.Equal(t, tt.want, r.MatchesNodeSelector(node))
			if !tt.want {
				require.False(t, r.Matches(node), "Matches must fail when the node selector does")
			}
		})
	}
}
