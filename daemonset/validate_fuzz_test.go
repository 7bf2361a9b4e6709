package daemonset_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
)

// FuzzValidate decodes a DaemonSet from JSON and validates it with both gate values: no panic,
// no mutation, every error rooted at metadata or spec, the same errors on a second call (as a
// set: upstream label validation follows map order), and WithDefaults removing every
// updateStrategy error that only the missing defaults caused (DFLT-1, VAL-11, VAL-12).
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		// A valid defaulted DaemonSet.
		`{"metadata":{"name":"foo","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},"revisionHistoryLimit":10}}`,
		// VAL-2: no selector.
		`{"metadata":{"name":"foo"},"spec":{"template":{"metadata":{"labels":{"app":"d"}}}}}`,
		// VAL-3 and VAL-4: an empty selector, then a bad operator.
		`{"metadata":{"name":"foo"},"spec":{"selector":{}}}`,
		`{"metadata":{"name":"foo"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]}}}`,
		// VAL-7, VAL-8: restartPolicy and activeDeadlineSeconds.
		`{"metadata":{"name":"foo"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"restartPolicy":"Never","activeDeadlineSeconds":0}}}}`,
		// VAL-13, VAL-14: bad percentages and both values set.
		`{"metadata":{"name":"foo"},"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"5.5%","maxSurge":"101%"}}}}`,
		`{"metadata":{"name":"foo"},"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":1}}}}`,
		// VAL-17: tolerations, Lt with a word.
		`{"metadata":{"name":"foo"},"spec":{"template":{"spec":{"tolerations":[{"operator":"Equal","value":"v"},{"key":"k","operator":"Lt","value":"x"}]}}}}`,
		// VAL-18, VAL-19: affinity without terms, bad node selector.
		`{"metadata":{"name":"foo"},"spec":{"template":{"spec":{"nodeSelector":{"bad key":"x"},"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}}}`,
		// DFLT-4: a template generation annotation that is not an integer.
		`{"metadata":{"name":"foo","annotations":{"deprecated.daemonset.template.generation":"x"}},"spec":{}}`,
	} {
		f.Add([]byte(seed))
	}
	render := func(errs field.ErrorList) []string {
		out := make([]string, 0, len(errs))
		for _, e := range errs {
			out = append(out, e.Error())
		}
		sort.Strings(out)
		return out
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ds appsv1.DaemonSet
		if err := json.Unmarshal(data, &ds); err != nil {
			return
		}
		before := ds.DeepCopy()
		for _, gate := range []bool{false, true} {
			opts := daemonset.Options{Version: v1363, FeatureGates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: gate}}
			errs := daemonset.Validate(&ds, opts)
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "metadata.") && !strings.HasPrefix(e.Field, "spec.") && e.Field != "spec" {
					t.Fatalf("error not rooted at the object: %v", e)
				}
			}
			if diff := cmp.Diff(render(errs), render(daemonset.Validate(&ds, opts))); diff != "" {
				t.Fatalf("Validate is not deterministic (-first +second):\n%s", diff)
			}
		}
		if ds.Spec.UpdateStrategy.Type == "" {
			for _, e := range daemonset.Validate(daemonset.WithDefaults(&ds), daemonset.Options{Version: v1363}) {
				if e.Field == "spec.updateStrategy" || e.Field == "spec.updateStrategy.rollingUpdate" {
					t.Fatalf("defaults left a strategy error: %v", e)
				}
			}
		}
		if diff := cmp.Diff(before, &ds); diff != "" {
			t.Fatalf("Validate or WithDefaults mutated the DaemonSet (-before +after):\n%s", diff)
		}
	})
}
