package affinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/affinity"
)

// boundTerm is the single term BindToNode writes (POD-6).
func boundTerm(name string) []v1.NodeSelectorTerm {
	return []v1.NodeSelectorTerm{fields(req("metadata.name", "In", name))}
}

func TestBindToNode(t *testing.T) {
	t.Parallel()
	preferred := []v1.PreferredSchedulingTerm{{Weight: 5, Preference: exprs(req("zone", "In", "a"))}}
	podAffinity := &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone"}}}
	tests := []struct {
		name string
		in   *v1.Affinity
		want *v1.Affinity
	}{
		{name: "POD-6 nil affinity becomes a required selector with the one term",
			in:   nil,
			want: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: boundTerm("n1")}}}},
		{name: "POD-6 nil nodeAffinity is set and pod affinity is kept",
			in:   &v1.Affinity{PodAffinity: podAffinity},
			want: &v1.Affinity{PodAffinity: podAffinity, NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: boundTerm("n1")}}}},
		{name: "POD-6 nil required selector is set and preferred terms are kept",
			in:   &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}},
			want: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred, RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: boundTerm("n1")}}}},
		{name: "POD-6 Surprise 12: existing required terms are replaced, preferred terms kept",
			in: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: preferred,
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
					exprs(req("zone", "In", "a")), fields(req("metadata.name", "In", "n0")), {},
				}},
			}},
			want: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred, RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: boundTerm("n1")}}}},
		{name: "POD-6 a required selector with zero terms gets the one term",
			in:   &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}},
			want: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: boundTerm("n1")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.in.DeepCopy()
			got := affinity.BindToNode(tt.in, "n1")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("BindToNode() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("BindToNode() mutated its input (-before +after):\n%s", diff)
			}
			// The result shares nothing mutable with the input: scribbling over every
			// reachable field of the result leaves the input intact.
			scribble(got)
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("BindToNode() result shares memory with its input (-before +after):\n%s", diff)
			}
			name, ok := affinity.TargetNodeName(&v1.Pod{Spec: v1.PodSpec{Affinity: affinity.BindToNode(tt.in, "n1")}})
			require.True(t, ok, "OWN-9 a bound pod has a target")
			require.Equal(t, "n1", name)
		})
	}
}

// scribble overwrites the node affinity and pod affinity reachable from a.
func scribble(a *v1.Affinity) {
	if a.PodAffinity != nil {
		for i := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i].TopologyKey = "scribbled"
		}
	}
	na := a.NodeAffinity
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		p := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		p.Weight = -7
		for j := range p.Preference.MatchExpressions {
			p.Preference.MatchExpressions[j].Key = "scribbled"
			for k := range p.Preference.MatchExpressions[j].Values {
				p.Preference.MatchExpressions[j].Values[k] = "scribbled"
			}
		}
	}
	for i := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i].MatchFields[0].Values[0] = "scribbled"
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, v1.NodeSelectorTerm{})
}

func TestBindToNodeAdmitsOnlyThatNode(t *testing.T) {
	t.Parallel()
	spec := &v1.PodSpec{Affinity: affinity.BindToNode(required(exprs(req("zone", "In", "a"))).Affinity, "n1")}
	r := affinity.Compile(spec, nil)
	require.False(t, r.Matches(node("n0", "zone", "a")), "POD-10 the user's required terms are gone")
	require.True(t, r.Matches(node("n1", "zone", "b")), "POD-10 only the named node is admitted")
}

func TestTargetNodeName(t *testing.T) {
	t.Parallel()
	withTerms := func(nodeName string, terms ...v1.NodeSelectorTerm) *v1.Pod {
		pod := &v1.Pod{Spec: *required(terms...)}
		pod.Spec.NodeName = nodeName
		return pod
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantName string
		wantOK   bool
	}{
		{name: "OWN-9 spec.nodeName wins over affinity", pod: withTerms("n5", fields(req("metadata.name", "In", "n1"))), wantName: "n5", wantOK: true},
		{name: "OWN-9 SCN-54 no nodeName and no affinity: no target", pod: &v1.Pod{}, wantOK: false},
		{name: "OWN-9 nil nodeAffinity: no target", pod: &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{}}}, wantOK: false},
		{name: "OWN-9 nil required selector: no target", pod: &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}}}, wantOK: false},
		{name: "OWN-9 zero terms: no target", pod: withTerms(""), wantOK: false},
		{name: "OWN-9 the matchFields metadata.name In value is the target", pod: withTerms("", fields(req("metadata.name", "In", "n1"))), wantName: "n1", wantOK: true},
		{name: "OWN-9 the first term with such an entry decides",
			pod:      withTerms("", exprs(req("zone", "In", "a")), fields(req("metadata.name", "In", "n2")), fields(req("metadata.name", "In", "n3"))),
			wantName: "n2", wantOK: true},
		{name: "OWN-9 NotIn and other keys are skipped",
			pod:      withTerms("", fields(req("metadata.name", "NotIn", "n0"), req("metadata.uid", "In", "u"), req("metadata.name", "In", "n4"))),
			wantName: "n4", wantOK: true},
		{name: "OWN-9 matchExpressions on metadata.name do not count", pod: withTerms("", exprs(req("metadata.name", "In", "n1"))), wantOK: false},
		{name: "OWN-9 two values in the first such entry: no target, even if a later one is fine",
			pod:    withTerms("", fields(req("metadata.name", "In", "n1", "n2")), fields(req("metadata.name", "In", "n3"))),
			wantOK: false},
		{name: "OWN-9 zero values in the first such entry: no target", pod: withTerms("", fields(req("metadata.name", "In"))), wantOK: false},
		{name: "OWN-9 a single empty value is returned as the target, as upstream returns it without error",
			pod: withTerms("", fields(req("metadata.name", "In", ""))), wantName: "", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.pod.DeepCopy()
			name, ok := affinity.TargetNodeName(tt.pod)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantName, name)
			if diff := cmp.Diff(before, tt.pod); diff != "" {
				t.Errorf("TargetNodeName() mutated its input (-before +after):\n%s", diff)
			}
		})
	}
	require.PanicsWithValue(t, "affinity: TargetNodeName called with a nil pod", func() { affinity.TargetNodeName(nil) })
}
