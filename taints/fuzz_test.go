package taints_test

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/taints"
)

// FuzzCompile compiles one toleration and checks it against one taint: no panic, no mutation of
// the input, Tolerates equal to v1.Toleration.ToleratesTaint and FirstUntolerated equal to
// component-helpers' FindMatchingUntoleratedTaint for every effect set, and Validate never
// panicking on the same input.
func FuzzCompile(f *testing.F) {
	type seed struct {
		key, op, value, effect         string
		seconds                        bool
		taintKey, taintValue, taintEff string
		gate                           bool
	}
	for _, s := range []seed{
		{"k", "Equal", "v", "NoSchedule", false, "k", "v", "NoSchedule", false},     // TAINT-1 exact match
		{"k", "", "w", "", false, "k", "v", "NoSchedule", false},                    // SCN-27 empty operator, other value
		{"", "Exists", "", "", false, "any", "x", "NoExecute", false},               // SCN-26 tolerate everything
		{"", "Equal", "v", "", false, "any", "v", "NoExecute", false},               // TAINT-2 empty key with Equal
		{"k", "Exists", "", "NoSchedule", false, "k", "", "NoExecute", false},       // SCN-28 effect mismatch
		{"k", "Exists", "", "NoExecute", true, "k", "", "NoExecute", false},         // SCN-29 tolerationSeconds ignored
		{"k", "Gt", "1", "", false, "k", "5", "NoSchedule", false},                  // SCN-30 Gt with the gate off
		{"k", "Gt", "1", "", false, "k", "5", "NoSchedule", true},                   // TAINT-10 Gt with the gate on
		{"k", "Lt", "10", "", false, "k", "016", "NoSchedule", true},                // TAINT-10 leading zero in the taint value
		{"k", "Lt", "-0", "", false, "k", "-5", "NoSchedule", true},                 // TAINT-10 -0 is not canonical
		{"k", "Gt", "0", "", false, "k", "9223372036854775808", "NoSchedule", true}, // TAINT-10 beyond int64
		{"k", "Lt", "0", "", false, "k", "-9223372036854775808", "NoExecute", true}, // TAINT-10 the int64 minimum
		{"k", "Foo", "v", "", false, "k", "v", "NoSchedule", false},                 // TAINT-1 unknown operator
		{"k", "Exists", "", "", false, "k", "", "PreferNoSchedule", false},          // TAINT-6 PreferNoSchedule never filtered in
		{"k", "Exists", "", "Bogus", false, "k", "", "Bogus", false},                // TAINT-6 unknown effects equal each other
		{"Bad Key!", "Exists", "x", "Nope", true, "", "", "", true},                 // VAL-17 everything invalid at once
	} {
		f.Add(s.key, s.op, s.value, s.effect, s.seconds, s.taintKey, s.taintValue, s.taintEff, s.gate)
	}
	f.Fuzz(func(t *testing.T, key, op, value, effect string, seconds bool, taintKey, taintValue, taintEffect string, gate bool) {
		tl := v1.Toleration{Key: key, Operator: v1.TolerationOperator(op), Value: value, Effect: v1.TaintEffect(effect)}
		if seconds {
			tl.TolerationSeconds = ptr.To[int64](30)
		}
		tols := []v1.Toleration{tl}
		orig := cloneTolerations(tols)
		tn := v1.Taint{Key: taintKey, Value: taintValue, Effect: v1.TaintEffect(taintEffect)}
		nodeTaints := []v1.Taint{tn}
		opts := taints.Options{ComparisonOperators: gate}

		compiled := taints.Compile(tols, opts)
		_ = taints.Validate(tols, field.NewPath("tolerations"), opts)
		if diff := cmp.Diff(orig, tols); diff != "" {
			t.Fatalf("Compile or Validate mutated its input (-before +after):\n%s", diff)
		}
		if got, want := compiled.Tolerates(&tn), tl.ToleratesTaint(logr.Discard(), &tn, gate); got != want {
			t.Fatalf("Tolerates(%+v) with %+v = %v, upstream %v", tn, tl, got, want)
		}
		for effects := taints.Effects(0); effects < 8; effects++ {
			got, gotOK := compiled.FirstUntolerated(nodeTaints, effects)
			want, wantOK := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), nodeTaints, tols, hasEffect(effects), gate)
			if gotOK != wantOK || !cmp.Equal(got, want) {
				t.Fatalf("FirstUntolerated(%v) = (%+v, %v), upstream (%+v, %v)", effects, got, gotOK, want, wantOK)
			}
		}
	})
}
