package taints_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/taints"
)

func taint(key, value string, effect v1.TaintEffect) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: effect}
}

func tol(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect) v1.Toleration {
	return v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

// daemonDefaults is the list the controller merges into every daemon pod (DEFTOL-1), written out
// here so that SCN-31..34 can be checked at the taint level.
func daemonDefaults(hostNetwork bool) []v1.Toleration {
	tols := []v1.Toleration{
		tol(v1.TaintNodeNotReady, v1.TolerationOpExists, "", v1.TaintEffectNoExecute),
		tol(v1.TaintNodeUnreachable, v1.TolerationOpExists, "", v1.TaintEffectNoExecute),
		tol(v1.TaintNodeDiskPressure, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
		tol(v1.TaintNodeMemoryPressure, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
		tol(v1.TaintNodePIDPressure, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
		tol(v1.TaintNodeUnschedulable, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule),
	}
	if hostNetwork {
		tols = append(tols, tol(v1.TaintNodeNetworkUnavailable, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule))
	}
	return tols
}

// TestLongKeysAreNotWildcards: the compiled matcher prefilters keys by a signature of their
// length and last bytes, where 0 stands for the empty key's wildcard (TAINT-1). A key of
// 65,536 bytes ending in two NUL bytes must not collapse to that signature: like every key
// but the empty one it tolerates only its own key, as v1.Toleration.ToleratesTaint does, even
// though validation rejects it (TAINT-2).
func TestLongKeysAreNotWildcards(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1 << 16, 2 << 16, 1<<16 + 1} {
		long := strings.Repeat("a", n-2) + "\x00\x00"
		tols := []v1.Toleration{tol(long, v1.TolerationOpExists, "", "")}
		compiled := taints.Compile(tols, taints.Options{})
		for _, tt := range []v1.Taint{taint("dedicated", "", v1.TaintEffectNoSchedule), taint(long, "", v1.TaintEffectNoExecute)} {
			want := tols[0].ToleratesTaint(logr.Discard(), &tt, false)
			require.Equal(t, want, compiled.Tolerates(&tt), "key of %d bytes against taint of %d bytes", n, len(tt.Key))
			_, untolerated := compiled.FirstUntolerated([]v1.Taint{tt}, taints.Placement)
			require.Equal(t, want, !untolerated, "key of %d bytes, FirstUntolerated", n)
			placement, _ := compiled.Untolerated([]v1.Taint{tt})
			require.Equal(t, want, placement < 0, "key of %d bytes, Untolerated", n)
		}
	}
}

func TestTolerates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tols  []v1.Toleration
		opts  taints.Options
		taint v1.Taint
		want  bool
	}{
		{name: "TAINT-1a toleration with another effect does not tolerate",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule)}, taint: taint("k", "", v1.TaintEffectNoExecute)},
		{name: "TAINT-1a toleration with an empty effect tolerates every effect",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "", "")}, taint: taint("k", "", v1.TaintEffectNoExecute), want: true},
		{name: "TAINT-1a toleration with an empty effect tolerates an unknown taint effect",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "", "")}, taint: taint("k", "", "Bogus"), want: true},
		{name: "TAINT-1a toleration with effect NoSchedule does not tolerate an effectless taint",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule)}, taint: taint("k", "", "")},
		{name: "TAINT-1b toleration with another key does not tolerate",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "", "")}, taint: taint("j", "", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1b key comparison is case sensitive",
			tols: []v1.Toleration{tol("K", v1.TolerationOpExists, "", "")}, taint: taint("k", "", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c SCN-26 empty key with Exists tolerates every taint",
			tols: []v1.Toleration{{Operator: v1.TolerationOpExists}}, taint: taint("any/key", "v", v1.TaintEffectNoExecute), want: true},
		{name: "TAINT-1c empty operator means Equal and equal values tolerate",
			tols: []v1.Toleration{tol("k", "", "v", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-1c SCN-27 empty operator with another value does not tolerate",
			tols: []v1.Toleration{tol("k", "", "w", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c Equal compares values byte for byte",
			tols: []v1.Toleration{tol("k", v1.TolerationOpEqual, "V", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c Equal with empty value tolerates an empty taint value",
			tols: []v1.Toleration{tol("k", v1.TolerationOpEqual, "", "")}, taint: taint("k", "", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-1c Exists ignores a value the toleration should not have",
			tols: []v1.Toleration{tol("k", v1.TolerationOpExists, "x", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-1c an unknown operator never tolerates",
			tols: []v1.Toleration{tol("k", "Foo", "v", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c operators are case sensitive so exists never tolerates",
			tols: []v1.Toleration{tol("k", "exists", "", "")}, taint: taint("k", "v", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c SCN-30 Gt with the gate off never tolerates",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "1", "")}, taint: taint("k", "5", v1.TaintEffectNoSchedule)},
		{name: "TAINT-1c Lt with the gate off never tolerates",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "9", "")}, taint: taint("k", "5", v1.TaintEffectNoSchedule)},
		{name: "TAINT-2 empty key with Equal tolerates any key with the same value",
			tols: []v1.Toleration{tol("", v1.TolerationOpEqual, "v", "")}, taint: taint("whatever", "v", v1.TaintEffectNoExecute), want: true},
		{name: "TAINT-2 empty key with empty operator and value tolerates any key with an empty value",
			tols: []v1.Toleration{{}}, taint: taint("whatever", "", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-2 empty key with Equal does not tolerate another value",
			tols: []v1.Toleration{tol("", v1.TolerationOpEqual, "v", "")}, taint: taint("whatever", "w", v1.TaintEffectNoExecute)},
		{name: "TAINT-3 one toleration of several is enough",
			tols:  []v1.Toleration{tol("a", v1.TolerationOpExists, "", ""), tol("k", "", "v", v1.TaintEffectNoSchedule)},
			taint: taint("k", "v", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-3 an empty list tolerates nothing",
			taint: taint("k", "v", v1.TaintEffectNoSchedule)},
		{name: "TAINT-7 SCN-29 tolerationSeconds does not limit toleration",
			tols:  []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](1)}},
			taint: v1.Taint{Key: "k", Effect: v1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}, want: true},
		{name: "TAINT-10 Gt tolerates a larger taint value with the gate on",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "1", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "5", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-10 Gt does not tolerate an equal taint value",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "5", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "5", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 Lt tolerates a smaller negative taint value",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "-3", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "-4", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-10 Lt does not tolerate a larger taint value",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "3", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "4", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 a taint value with a leading zero is not canonical",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "1", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "016", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 a toleration value with a plus sign is not canonical",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "+5", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "1", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 minus zero is not canonical",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "5", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "-0", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 zero is canonical",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "5", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "0", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-10 the int64 minimum is accepted",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "0", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "-9223372036854775808", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-10 a value beyond int64 never compares",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "0", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "9223372036854775808", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 a non numeric taint value is not tolerated but a later Exists still tolerates",
			tols: []v1.Toleration{tol("k", v1.TolerationOpGt, "0", ""), tol("k", v1.TolerationOpExists, "", "")},
			opts: taints.Options{ComparisonOperators: true}, taint: taint("k", "abc", v1.TaintEffectNoSchedule), want: true},
		{name: "TAINT-10 an empty toleration value never compares",
			tols: []v1.Toleration{tol("k", v1.TolerationOpLt, "", "")}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("k", "-1", v1.TaintEffectNoSchedule)},
		{name: "TAINT-10 empty key with Gt compares the value of any key",
			tols: []v1.Toleration{tol("", v1.TolerationOpGt, "10", v1.TaintEffectNoSchedule)}, opts: taints.Options{ComparisonOperators: true},
			taint: taint("cpus", "16", v1.TaintEffectNoSchedule), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := cloneTolerations(tt.tols)
			origTaint := *tt.taint.DeepCopy()
			got := taints.Compile(tt.tols, tt.opts).Tolerates(&tt.taint)
			require.Equal(t, tt.want, got)
			// The upstream function must agree with every row of the table.
			require.Equal(t, tt.want, corev1helpers.TolerationsTolerateTaint(logr.Discard(), tt.tols, &tt.taint, tt.opts.ComparisonOperators))
			if diff := cmp.Diff(orig, tt.tols); diff != "" {
				t.Errorf("Compile mutated tolerations (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(origTaint, tt.taint); diff != "" {
				t.Errorf("Tolerates mutated the taint (-before +after):\n%s", diff)
			}
		})
	}
}

func TestFirstUntolerated(t *testing.T) {
	t.Parallel()
	cp := taint("node-role.kubernetes.io/control-plane", "", v1.TaintEffectNoSchedule)
	gpu := taint("nvidia.com/gpu", "present", v1.TaintEffectNoSchedule)
	drain := taint("drain", "now", v1.TaintEffectNoExecute)
	tests := []struct {
		name    string
		tols    []v1.Toleration
		taints  []v1.Taint
		effects taints.Effects
		want    v1.Taint
		wantOK  bool
	}{
		{name: "TAINT-11 a node without taints leaves nothing untolerated whatever else it reports", effects: taints.Placement},
		{name: "TAINT-4 SCN-21 untolerated NoSchedule blocks placement",
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectNoSchedule)}, effects: taints.Placement,
			want: taint("k", "v", v1.TaintEffectNoSchedule), wantOK: true},
		{name: "TAINT-5 SCN-22 untolerated NoSchedule does not evict",
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectNoSchedule)}, effects: taints.Eviction},
		{name: "TAINT-4 untolerated NoExecute blocks placement",
			taints: []v1.Taint{taint("k", "", v1.TaintEffectNoExecute)}, effects: taints.Placement,
			want: taint("k", "", v1.TaintEffectNoExecute), wantOK: true},
		{name: "TAINT-5 SCN-23 untolerated NoExecute evicts",
			taints: []v1.Taint{taint("k", "", v1.TaintEffectNoExecute)}, effects: taints.Eviction,
			want: taint("k", "", v1.TaintEffectNoExecute), wantOK: true},
		{name: "TAINT-6 SCN-24 PreferNoSchedule neither blocks placement nor evicts",
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectPreferNoSchedule)}, effects: taints.Placement | taints.Eviction},
		{name: "TAINT-6 SCN-25 an unknown effect is never selected even by every bit",
			taints: []v1.Taint{taint("k", "v", "Bogus")}, effects: taints.NoSchedule | taints.PreferNoSchedule | taints.NoExecute},
		{name: "TAINT-6 an empty effect is never selected even by every bit",
			taints: []v1.Taint{taint("k", "v", "")}, effects: taints.NoSchedule | taints.PreferNoSchedule | taints.NoExecute},
		{name: "PreferNoSchedule is selected when the caller asks for it",
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectPreferNoSchedule)}, effects: taints.PreferNoSchedule,
			want: taint("k", "v", v1.TaintEffectPreferNoSchedule), wantOK: true},
		{name: "an empty effect set selects nothing",
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectNoExecute)}, effects: 0},
		{name: "TAINT-1 SCN-27 wrong value blocks placement",
			tols:   []v1.Toleration{tol("k", "", "w", "")},
			taints: []v1.Taint{taint("k", "v", v1.TaintEffectNoSchedule)}, effects: taints.Placement,
			want: taint("k", "v", v1.TaintEffectNoSchedule), wantOK: true},
		{name: "TAINT-1 SCN-28 NoSchedule toleration leaves NoExecute evicting",
			tols:   []v1.Toleration{tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule)},
			taints: []v1.Taint{taint("k", "", v1.TaintEffectNoExecute)}, effects: taints.Eviction,
			want: taint("k", "", v1.TaintEffectNoExecute), wantOK: true},
		{name: "TAINT-7 SCN-29 NoExecute toleration with seconds allows placement",
			tols:   []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](1)}},
			taints: []v1.Taint{taint("k", "", v1.TaintEffectNoExecute)}, effects: taints.Placement},
		{name: "TAINT-9 the first untolerated taint in node order is reported",
			tols:   []v1.Toleration{tol(cp.Key, v1.TolerationOpExists, "", "")},
			taints: []v1.Taint{cp, taint("p", "", v1.TaintEffectPreferNoSchedule), gpu, drain}, effects: taints.Placement,
			want: gpu, wantOK: true},
		{name: "TAINT-9 taints outside the effect set are skipped before later ones",
			taints: []v1.Taint{gpu, drain}, effects: taints.Eviction,
			want: drain, wantOK: true},
		{name: "TAINT-9 the returned taint keeps its timeAdded",
			taints:  []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}},
			effects: taints.Eviction, want: v1.Taint{Key: "k", Effect: v1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}, wantOK: true},
		{name: "TAINT-8 DEFTOL-7 SCN-31 the cordon taint is tolerated by the merged daemon defaults",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)}, effects: taints.Placement},
		{name: "DEFTOL-5 SCN-32 not-ready NoExecute is tolerated by the daemon defaults",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoExecute)}, effects: taints.Placement},
		{name: "DEFTOL-5 SCN-32 not-ready NoSchedule blocks placement despite the daemon defaults",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)}, effects: taints.Placement,
			want: taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule), wantOK: true},
		{name: "DEFTOL-5 SCN-32 not-ready NoSchedule does not evict",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)}, effects: taints.Eviction},
		{name: "DEFTOL-1 SCN-33 network-unavailable blocks placement without hostNetwork",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule)}, effects: taints.Placement,
			want: taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule), wantOK: true},
		{name: "DEFTOL-1 SCN-33 network-unavailable is tolerated with hostNetwork",
			tols:   daemonDefaults(true),
			taints: []v1.Taint{taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule)}, effects: taints.Placement},
		{name: "DEFTOL-5 SCN-34 out-of-service NoExecute evicts despite the daemon defaults",
			tols:   daemonDefaults(false),
			taints: []v1.Taint{taint(v1.TaintNodeOutOfService, "nodeshutdown", v1.TaintEffectNoExecute)}, effects: taints.Eviction,
			want: taint(v1.TaintNodeOutOfService, "nodeshutdown", v1.TaintEffectNoExecute), wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			origTols := cloneTolerations(tt.tols)
			origTaints := cloneTaints(tt.taints)
			compiled := taints.Compile(tt.tols, taints.Options{})
			got, ok := compiled.FirstUntolerated(tt.taints, tt.effects)
			require.Equal(t, tt.wantOK, ok)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FirstUntolerated() mismatch (-want +got):\n%s", diff)
			}
			upGot, upOK := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), tt.taints, tt.tols, hasEffect(tt.effects), false)
			require.Equal(t, upOK, ok, "upstream disagrees")
			if diff := cmp.Diff(upGot, got); diff != "" {
				t.Errorf("FirstUntolerated() differs from upstream (-upstream +got):\n%s", diff)
			}
			if diff := cmp.Diff(origTols, tt.tols); diff != "" {
				t.Errorf("Compile mutated tolerations (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(origTaints, tt.taints); diff != "" {
				t.Errorf("FirstUntolerated mutated taints (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCompileCopiesInput(t *testing.T) {
	t.Parallel()
	tols := []v1.Toleration{tol("k", v1.TolerationOpEqual, "v", v1.TaintEffectNoSchedule)}
	compiled := taints.Compile(tols, taints.Options{})
	tols[0].Value = "changed"
	require.True(t, compiled.Tolerates(&v1.Taint{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}),
		"a compiled value must not see later changes to the slice it was built from")
}

func TestNilTolerationsToleratesNothing(t *testing.T) {
	t.Parallel()
	var compiled *taints.Tolerations
	require.False(t, compiled.Tolerates(&v1.Taint{Key: "k", Effect: v1.TaintEffectNoSchedule}))
	got, ok := compiled.FirstUntolerated([]v1.Taint{taint("k", "", v1.TaintEffectNoSchedule)}, taints.Placement)
	require.True(t, ok)
	require.Equal(t, "k", got.Key)
}

func TestEffects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		effect     v1.TaintEffect
		want       taints.Effects
		inPlace    bool
		inEviction bool
	}{
		{name: "TAINT-4 TAINT-5 NoSchedule blocks placement only", effect: v1.TaintEffectNoSchedule, want: taints.NoSchedule, inPlace: true},
		{name: "TAINT-6 PreferNoSchedule is in neither controller set", effect: v1.TaintEffectPreferNoSchedule, want: taints.PreferNoSchedule},
		{name: "TAINT-4 TAINT-5 NoExecute blocks placement and evicts", effect: v1.TaintEffectNoExecute, want: taints.NoExecute, inPlace: true, inEviction: true},
		{name: "TAINT-6 an empty effect is the empty set", effect: ""},
		{name: "TAINT-6 an unknown effect is the empty set", effect: "NoScheduleNoAdmit"},
		{name: "TAINT-6 effects are case sensitive", effect: "noschedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// With no tolerations a taint is reported exactly when its effect is in the set.
			var none *taints.Tolerations
			node := []v1.Taint{taint("k", "", tt.effect)}
			for _, bit := range []taints.Effects{taints.NoSchedule, taints.PreferNoSchedule, taints.NoExecute} {
				_, ok := none.FirstUntolerated(node, bit)
				require.Equal(t, bit == tt.want, ok, "effect %q in set %v", tt.effect, bit)
			}
			_, inPlace := none.FirstUntolerated(node, taints.Placement)
			require.Equal(t, tt.inPlace, inPlace)
			_, inEviction := none.FirstUntolerated(node, taints.Eviction)
			require.Equal(t, tt.inEviction, inEviction)
		})
	}
}

func TestEffectsString(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", taints.Effects(0).String())
	require.Equal(t, "NoSchedule|NoExecute", taints.Placement.String())
	require.Equal(t, "NoSchedule|PreferNoSchedule|NoExecute", (taints.NoSchedule | taints.PreferNoSchedule | taints.NoExecute).String())
}

// hasEffect is the upstream-style filter function equivalent to an Effects set, written
// independently of the package's own effect mapping.
func hasEffect(effects taints.Effects) func(*v1.Taint) bool {
	bits := map[v1.TaintEffect]taints.Effects{
		v1.TaintEffectNoSchedule:       taints.NoSchedule,
		v1.TaintEffectPreferNoSchedule: taints.PreferNoSchedule,
		v1.TaintEffectNoExecute:        taints.NoExecute,
	}
	return func(t *v1.Taint) bool { return effects&bits[t.Effect] != 0 }
}

func cloneTolerations(tols []v1.Toleration) []v1.Toleration {
	if tols == nil {
		return nil
	}
	out := make([]v1.Toleration, len(tols))
	for i := range tols {
		tols[i].DeepCopyInto(&out[i])
	}
	return out
}

func cloneTaints(ts []v1.Taint) []v1.Taint {
	if ts == nil {
		return nil
	}
	out := make([]v1.Taint, len(ts))
	for i := range ts {
		ts[i].DeepCopyInto(&out[i])
	}
	return out
}

// Random inputs for the differential tests: small vocabularies so that keys, values and effects
// collide often, plus the numeric edge cases of TAINT-10 and random integers around them.
var (
	randKeys    = []string{"", "k", "j", "example.com/k", "K", "example.org/k", "k/"}
	randEffects = []v1.TaintEffect{"", v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute, "Bogus", "noexecute"}
	randOps     = []v1.TolerationOperator{"", v1.TolerationOpEqual, v1.TolerationOpExists, v1.TolerationOpLt, v1.TolerationOpGt, "Foo", "gt"}
	randValues  = []string{"", "v", "w", "0", "-0", "1", "-1", "5", "+5", "007", "10", "abc", "1e3", " 5", "5 ", "-",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"99999999999999999999", "0x10", "٣"}
)

func randValue(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return strconv.FormatInt(r.Int64N(21)-10, 10)
	}
	return randValues[r.IntN(len(randValues))]
}

func randToleration(r *rand.Rand) v1.Toleration {
	t := v1.Toleration{
		Key:      randKeys[r.IntN(len(randKeys))],
		Operator: randOps[r.IntN(len(randOps))],
		Value:    randValue(r),
		Effect:   randEffects[r.IntN(len(randEffects))],
	}
	if r.IntN(4) == 0 {
		t.TolerationSeconds = ptr.To(r.Int64N(600))
	}
	return t
}

func randTaint(r *rand.Rand) v1.Taint {
	return v1.Taint{
		Key:    randKeys[r.IntN(len(randKeys))],
		Value:  randValue(r),
		Effect: randEffects[r.IntN(len(randEffects))],
	}
}

// TestToleratesDifferential checks Tolerates against v1.Toleration.ToleratesTaint on 100,000
// random pairs for each value of the comparison gate (TAINT-1, TAINT-2, TAINT-10).
func TestToleratesDifferential(t *testing.T) {
	t.Parallel()
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("comparisonOperators=%v", gate), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, seedOf(gate)))
			opts := taints.Options{ComparisonOperators: gate}
			disagreements := 0
			for range 100_000 {
				tl := randToleration(r)
				tn := randTaint(r)
				want := tl.ToleratesTaint(logr.Discard(), &tn, gate)
				got := taints.Compile([]v1.Toleration{tl}, opts).Tolerates(&tn)
				if got != want {
					disagreements++
					if disagreements <= 10 {
						t.Errorf("toleration %+v, taint %+v: got %v, upstream %v", tl, tn, got, want)
					}
				}
			}
			require.Zero(t, disagreements)
		})
	}
}

// TestFirstUntoleratedDifferential checks FirstUntolerated against component-helpers'
// FindMatchingUntoleratedTaint with the same effect filter on 100,000 random nodes (0 to 4
// taints) and pods (0 to 6 tolerations) for each value of the gate (TAINT-3, TAINT-6, TAINT-9).
func TestFirstUntoleratedDifferential(t *testing.T) {
	t.Parallel()
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("comparisonOperators=%v", gate), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(2, seedOf(gate)))
			opts := taints.Options{ComparisonOperators: gate}
			disagreements := 0
			for range 100_000 {
				tols, nodeTaints := randCase(r)
				effects := taints.Effects(r.IntN(8))
				wantTaint, wantOK := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), nodeTaints, tols, hasEffect(effects), gate)
				gotTaint, gotOK := taints.Compile(tols, opts).FirstUntolerated(nodeTaints, effects)
				if gotOK != wantOK || !cmp.Equal(gotTaint, wantTaint) {
					disagreements++
					if disagreements <= 10 {
						t.Errorf("tolerations %+v, taints %+v, effects %v: got (%+v, %v), upstream (%+v, %v)",
							tols, nodeTaints, effects, gotTaint, gotOK, wantTaint, wantOK)
					}
				}
			}
			require.Zero(t, disagreements)
		})
	}
}

// seedOf gives each gate value its own fixed random stream.
func seedOf(gate bool) uint64 {
	if gate {
		return 1
	}
	return 0
}

// randCase draws a pod's tolerations (0 to 6) and a node's taints (0 to 4) for the
// differential tests.
func randCase(r *rand.Rand) ([]v1.Toleration, []v1.Taint) {
	tols := make([]v1.Toleration, r.IntN(7))
	for i := range tols {
		tols[i] = randToleration(r)
	}
	nodeTaints := make([]v1.Taint, r.IntN(5))
	for i := range nodeTaints {
		nodeTaints[i] = randTaint(r)
	}
	return tols, nodeTaints
}
