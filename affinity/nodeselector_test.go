package affinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/affinity"
)

// TestNodeSelectorAlone checks that Evaluate judges spec.nodeSelector alone (NSEL-1, NSEL-2),
// whatever the required node affinity says (AFF-12).
func TestNodeSelectorAlone(t *testing.T) {
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
			require.Equal(t, tt.want, r.Evaluate(node) != affinity.NodeSelectorMismatch)
			if !tt.want {
				require.False(t, r.Matches(node), "Matches must fail when the node selector does")
			}
		})
	}
}

// TestEvaluate checks that Evaluate names the half that rejected the node: the node selector
// first (AFF-12), else the required node affinity (AFF-2, AFF-3).
func TestEvaluate(t *testing.T) {
	t.Parallel()
	zoneA := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
		}},
	}}
	noTerm := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{},
	}}
	tests := []struct {
		name   string
		spec   *v1.PodSpec
		labels map[string]string
		want   affinity.Outcome
	}{
		{name: "NSEL-1 AFF-1 no constraint matches", spec: &v1.PodSpec{}, want: affinity.Match},
		{name: "a nil spec matches", want: affinity.Match},
		{name: "NSEL-2 AFF-3 both halves hold", spec: &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: zoneA},
			labels: map[string]string{"disk": "ssd", "zone": "a"}, want: affinity.Match},
		{name: "AFF-12 the node selector is named first when both halves fail",
			spec:   &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: zoneA},
			labels: map[string]string{"disk": "hdd", "zone": "b"}, want: affinity.NodeSelectorMismatch},
		{name: "AFF-3 the affinity is named when only it fails",
			spec:   &v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Affinity: zoneA},
			labels: map[string]string{"disk": "ssd", "zone": "b"}, want: affinity.AffinityMismatch},
		{name: "AFF-2 zero terms are an affinity mismatch", spec: &v1.PodSpec{Affinity: noTerm},
			want: affinity.AffinityMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: tt.labels}}
			r := affinity.Compile(tt.spec, nil)
			require.Equal(t, tt.want, r.Evaluate(node))
			require.Equal(t, tt.want == affinity.Match, r.Matches(node))
		})
	}
	t.Run("a nil Required matches every node", func(t *testing.T) {
		t.Parallel()
		var r *affinity.Required
		require.Equal(t, affinity.Match, r.Evaluate(&v1.Node{}))
	})
	t.Run("a nil node panics", func(t *testing.T) {
		t.Parallel()
		require.Panics(t, func() { affinity.Compile(&v1.PodSpec{}, nil).Evaluate(nil) })
		require.Panics(t, func() { (*affinity.Required)(nil).Evaluate(nil) })
	})
	t.Run("Outcome names its constants", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "Match", affinity.Match.String())
		require.Equal(t, "NodeSelectorMismatch", affinity.NodeSelectorMismatch.String())
		require.Equal(t, "AffinityMismatch", affinity.AffinityMismatch.String())
		require.Equal(t, "Outcome(7)", affinity.Outcome(7).String())
	})
}
