package selector_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/selector"
)

// sinkBool keeps results alive so the compiler cannot drop the calls being measured.
var sinkBool bool

// realisticSelector is a DaemonSet-style selector: two matchLabels and three expressions.
func realisticSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{
		MatchLabels: map[string]string{"app.kubernetes.io/name": "fluentd", "app.kubernetes.io/component": "logging"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("environment", metav1.LabelSelectorOpIn, "production", "staging"),
			expr("canary", metav1.LabelSelectorOpDoesNotExist),
			expr("tier", metav1.LabelSelectorOpNotIn, "frontend", "cache"),
		},
	}
}

// realisticLabels is a pod label set of 15 labels that satisfies realisticSelector.
func realisticLabels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       "fluentd",
		"app.kubernetes.io/component":  "logging",
		"app.kubernetes.io/instance":   "fluentd-prod",
		"app.kubernetes.io/version":    "1.16.2",
		"app.kubernetes.io/part-of":    "observability",
		"app.kubernetes.io/managed-by": "helm",
		"helm.sh/chart":                "fluentd-0.5.2",
		"environment":                  "production",
		"tier":                         "backend",
		"team":                         "platform",
		"controller-revision-hash":     "7c9d8f6b5",
		"pod-template-generation":      "12",
		"cost-center":                  "cc-1042",
		"security.example.com/profile": "restricted",
		"release":                      "stable",
	}
}

// TestMatchesAllocatesNothing: the compiled hot path allocates nothing, on a match and on a
// non-match (STYLE section 3).
func TestMatchesAllocatesNothing(t *testing.T) {
	s, errs := selector.Compile(realisticSelector(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	match := realisticLabels()
	miss := realisticLabels()
	miss["tier"] = "frontend"
	for name, lbls := range map[string]map[string]string{"match": match, "miss": miss, "nil": nil} {
		if got := testing.AllocsPerRun(100, func() { sinkBool = s.Matches(lbls) }); got != 0 {
			t.Errorf("Matches (%s) allocates %v times per run, want 0", name, got)
		}
	}
	gt, errs := selector.NewRequirement("cpus", "Gt", []string{"8"}, selector.NodeSelectorOperators, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, v := range []string{"16", "abc", "99999999999999999999"} {
		lbls := map[string]string{"cpus": v}
		if got := testing.AllocsPerRun(100, func() { sinkBool = gt.Matches(lbls) }); got != 0 {
			t.Errorf("Requirement.Matches (Gt on %q) allocates %v times per run, want 0", v, got)
		}
	}
}

// sinkSelector keeps a compiled value alive in BenchmarkCompile.
var sinkSelector *selector.Selector
