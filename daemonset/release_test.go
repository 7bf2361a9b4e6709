package daemonset_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

func mustVersion(t testing.TB, s string) daemonset.Version {
	t.Helper()
	v, err := daemonset.ParseVersion(s)
	require.NoError(t, err)
	return v
}

// releaseOpts are the default test options at release s.
func releaseOpts(t testing.TB, s string) daemonset.Options {
	o := opts()
	o.Version = mustVersion(t, s)
	return o
}

// releasePod is pod with the hash label of release v's current hash of newDS(), so that the
// plan at v sees it updated.
func releasePod(v daemonset.Version, name, nodeName string, mods ...podMod) *v1.Pod {
	ds := newDS()
	h := v.ComputeHash(&ds.Spec.Template, nil)
	return pod(name, nodeName, append([]podMod{hashLabel(h)}, mods...)...)
}

// TestAvailabilityByRelease pins VER-3: a pod exactly minReadySeconds after its Ready
// transition is available from 1.34.0 on and not in 1.33; before it, never; after it, always.
// The exported helper and the plan's status agree in every release.
func TestAvailabilityByRelease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		release string
		readyAt int64 // with minReadySeconds 10 and Now 1000
		want    bool
	}{
		{name: "VER-3 1.33.0 the boundary instant is not available", release: "1.33.0", readyAt: 990, want: false},
		{name: "VER-3 1.33.13 the boundary instant is not available", release: "1.33.13", readyAt: 990, want: false},
		{name: "VER-3 1.33.13 one second after the boundary is available", release: "1.33.13", readyAt: 989, want: true},
		{name: "VER-3 1.33.13 before the boundary is not available", release: "1.33.13", readyAt: 991, want: false},
		{name: "VER-3 1.34.0 the boundary instant is available", release: "1.34.0", readyAt: 990, want: true},
		{name: "VER-3 1.34.4 the boundary instant is available", release: "1.34.4", readyAt: 990, want: true},
		{name: "VER-3 1.35.4 the boundary instant is available", release: "1.35.4", readyAt: 990, want: true},
		{name: "VER-3 1.36.3 the boundary instant is available", release: "1.36.3", readyAt: 990, want: true},
		{name: "VER-3 1.37.2 the boundary instant is available", release: "1.37.2", readyAt: 990, want: true},
		{name: "VER-3 1.37.2 before the boundary is not available", release: "1.37.2", readyAt: 991, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := releaseOpts(t, tt.release)
			ds := newDS()
			ds.Spec.MinReadySeconds = 10
			p := releasePod(o.Version, "p", "n0", readyAt(tt.readyAt))
			require.Equal(t, tt.want, o.Version.IsPodAvailable(p, 10, now1000), "Version.IsPodAvailable")

			res, err := daemonset.Plan(ds, nodes(1), []*v1.Pod{p}, o)
			require.NoError(t, err)
			var want int32
			if tt.want {
				want = 1
			}
			require.Equal(t, want, res.Status.NumberAvailable, "the plan's status")
			require.Equal(t, 1-want, res.Status.NumberUnavailable, "the plan's status")
		})
	}
	// The zero Version is the default release's rule.
	p := pod("p", "n0", readyAt(990))
	require.Equal(t, daemonset.NewestVersion().IsPodAvailable(p, 10, now1000), daemonset.Version{}.IsPodAvailable(p, 10, now1000))
}

// TestOwnershipByRelease pins VER-4: 1.33.0-1.33.5 and 1.34.0-1.34.1 own a pod by its
// controller reference's uid alone, so a reference with the DaemonSet's uid under another kind,
// name or namespace is the DaemonSet's; 1.33.6+, 1.34.2+ and 1.35+ compare namespace, kind,
// name and uid (OWN-1). Orphans in another namespace are never adopted (OWN-4).
func TestOwnershipByRelease(t *testing.T) {
	t.Parallel()
	otherKind := owners(ownedBy("ReplicaSet", "foo", "uid-foo", true))
	otherName := owners(ownedBy("DaemonSet", "bar", "uid-foo", true))
	byUIDAlone := []string{"1.33.0", "1.33.5", "1.34.0", "1.34.1"}
	byFullKey := []string{"1.33.6", "1.33.13", "1.34.2", "1.34.4", "1.35.0", "1.35.4", "1.36.3", "1.37.2"}
	var tests []scenario
	for _, r := range byUIDAlone {
		o := releaseOpts(t, r)
		v := o.Version
		tests = append(tests,
			scenario{name: fmt.Sprintf("VER-4 %s another kind with the uid is owned and fills its node", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", otherKind)},
				want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
			scenario{name: fmt.Sprintf("VER-4 %s another name with the uid is owned, and released when it does not match", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", otherName, podLabels(map[string]string{"app": "x"}))},
				want: withRelease(sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1)), "p")},
			scenario{name: fmt.Sprintf("VER-4 %s a pod in another namespace with the uid is owned", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", namespace("other"))},
				want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
			scenario{name: fmt.Sprintf("VER-4 %s an orphan in another namespace is still not adopted", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", namespace("other"), orphan)},
				want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		)
	}
	for _, r := range byFullKey {
		o := releaseOpts(t, r)
		v := o.Version
		tests = append(tests,
			scenario{name: fmt.Sprintf("VER-4 %s another kind with the uid is invisible", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", otherKind)},
				want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
			scenario{name: fmt.Sprintf("VER-4 %s another name with the uid is invisible", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", otherName, podLabels(map[string]string{"app": "x"}))},
				want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
			scenario{name: fmt.Sprintf("VER-4 %s a pod in another namespace with the uid is invisible", r), opts: &o,
				nodes: nodes(1), pods: []*v1.Pod{releasePod(v, "p", "n0", namespace("other"))},
				want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		)
	}
	runScenarios(t, tests)

	ds := newDS()
	for _, r := range append(byUIDAlone, byFullKey...) {
		v := mustVersion(t, r)
		alone := r == "1.33.0" || r == "1.33.5" || r == "1.34.0" || r == "1.34.1"
		for _, mod := range []podMod{otherKind, otherName, namespace("other")} {
			require.Equal(t, alone, v.IsControlledBy(pod("p", "n0", mod), ds), "Version.IsControlledBy %s", r)
		}
		require.True(t, v.IsControlledBy(pod("p", "n0"), ds), "Version.IsControlledBy %s", r)
		require.False(t, v.IsControlledBy(pod("p", "n0", owners(ownedBy("DaemonSet", "foo", "uid-bar", true))), ds), "another uid, %s", r)
	}
}

// TestFeatureGatesByRelease pins VER-5: which gates each release knows, their defaults, that a
// setting overrides the default, and that a gate the release does not know is refused.
func TestFeatureGatesByRelease(t *testing.T) {
	t.Parallel()
	const tol, stale = daemonset.GateTaintTolerationComparisonOperators, daemonset.GateStaleControllerConsistencyDaemonSet
	gatesPath := field.NewPath("spec", "featureGates")
	const plr, img = daemonset.GatePodLevelResources, daemonset.GateImageVolume
	tests := []struct {
		name      string
		release   string
		gates     daemonset.FeatureGates
		wantKnown []daemonset.Gate
		wantOn    map[daemonset.Gate]bool
		wantErrs  field.ErrorList
	}{
		{name: "VER-5 1.33 knows neither gate", release: "1.33.13", wantOn: map[daemonset.Gate]bool{tol: false, stale: false}},
		{name: "VER-5 1.34 knows neither gate", release: "1.34.4", wantOn: map[daemonset.Gate]bool{tol: false, stale: false}},
		{name: "VER-5 1.35 knows the comparison operators, off", release: "1.35.4", wantKnown: []daemonset.Gate{tol},
			wantOn: map[daemonset.Gate]bool{tol: false, stale: false}},
		{name: "VER-5 1.36 adds the consistency gate, on", release: "1.36.3", wantKnown: []daemonset.Gate{stale, tol},
			wantOn: map[daemonset.Gate]bool{tol: false, stale: true}},
		{name: "VER-5 1.37 keeps both defaults", release: "1.37.2", wantKnown: []daemonset.Gate{stale, tol},
			wantOn: map[daemonset.Gate]bool{tol: false, stale: true}},
		{name: "VER-5 a setting overrides the default", release: "1.37.2", gates: daemonset.FeatureGates{tol: true, stale: false},
			wantKnown: []daemonset.Gate{stale, tol}, wantOn: map[daemonset.Gate]bool{tol: true, stale: false}},
		{name: "VER-5 setting the default is allowed", release: "1.35.0", gates: daemonset.FeatureGates{tol: false},
			wantKnown: []daemonset.Gate{tol}, wantOn: map[daemonset.Gate]bool{tol: false, stale: false}},
		{name: "VER-5 a gate set on a release that does not know it is refused at its key", release: "1.34.4", gates: daemonset.FeatureGates{tol: true},
			wantErrs: field.ErrorList{field.NotSupported[daemonset.Gate](gatesPath.Key(string(tol)), tol, nil)}},
		{name: "VER-5 the consistency gate is unknown to 1.35", release: "1.35.4", gates: daemonset.FeatureGates{stale: true, tol: true},
			wantKnown: []daemonset.Gate{tol},
			wantErrs:  field.ErrorList{field.NotSupported[daemonset.Gate](gatesPath.Key(string(stale)), stale, nil)}},
		{name: "VER-5 an unknown name is refused", release: "1.37.2", gates: daemonset.FeatureGates{"NoSuchGate": true},
			wantKnown: []daemonset.Gate{stale, tol},
			wantErrs:  field.ErrorList{field.NotSupported[daemonset.Gate](gatesPath.Key("NoSuchGate"), daemonset.Gate("NoSuchGate"), nil)}},
		{name: "VER-5 PodLevelResources is off in 1.33 and can be turned on", release: "1.33.13", gates: daemonset.FeatureGates{plr: true},
			wantOn: map[daemonset.Gate]bool{plr: true, img: false}},
		{name: "VER-5 PodLevelResources is on from 1.34", release: "1.34.0", wantOn: map[daemonset.Gate]bool{plr: true, img: false}},
		{name: "VER-5 ImageVolume is on in 1.35 and can be turned off", release: "1.35.4", gates: daemonset.FeatureGates{img: false}, wantKnown: []daemonset.Gate{tol},
			wantOn: map[daemonset.Gate]bool{plr: true, img: false}},
		{name: "VER-5 ImageVolume is locked on from 1.36: turning it off is refused", release: "1.36.3", gates: daemonset.FeatureGates{img: false},
			wantKnown: []daemonset.Gate{stale, tol},
			wantErrs:  field.ErrorList{field.Forbidden(gatesPath.Key(string(img)), "")}},
		{name: "VER-5 a locked gate may be set to its default", release: "1.37.2", gates: daemonset.FeatureGates{img: true, daemonset.GateHostnameOverride: true},
			wantKnown: []daemonset.Gate{stale, tol}, wantOn: map[daemonset.Gate]bool{img: true, daemonset.GateHostnameOverride: true}},
		{name: "VER-5 HostnameOverride is locked from 1.37 only", release: "1.36.3", gates: daemonset.FeatureGates{daemonset.GateHostnameOverride: false},
			wantKnown: []daemonset.Gate{stale, tol}, wantOn: map[daemonset.Gate]bool{daemonset.GateHostnameOverride: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := releaseOpts(t, tt.release)
			o.FeatureGates = tt.gates
			// wantKnown lists the gates that decide a plan; the others keep template fields
			// (VER-11, TestTemplateDropsByRelease).
			known := slices.DeleteFunc(o.Version.Gates(), func(g daemonset.Gate) bool { return g != tol && g != stale })
			if diff := cmp.Diff(tt.wantKnown, known, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Gates() mismatch (-want +got):\n%s", diff)
			}
			errs := o.CheckFeatureGates(gatesPath)
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
			if len(tt.wantErrs) > 0 {
				want := "daemonset: Kubernetes " + tt.release + ": " + o.CheckFeatureGates(field.NewPath("Options", "FeatureGates")).ToAggregate().Error()
				require.PanicsWithValue(t, want, func() { _, _ = daemonset.Compile(newDS(), o) })
				return
			}
			for g, want := range tt.wantOn {
				require.Equal(t, want, o.Enabled(g), "Enabled(%s)", g)
			}
		})
	}
}

// TestComparisonGateDecidesByRelease: TAINT-10's Lt toleration tolerates the taint only when
// the gate is on; 1.33 and 1.34, which have no such operator, behave as the gate off does, and
// validation reports the operator there (VAL-17, VER-5).
func TestComparisonGateDecidesByRelease(t *testing.T) {
	t.Parallel()
	ds := newDS()
	ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "level", Operator: "Lt", Value: "5", Effect: v1.TaintEffectNoSchedule}}
	n := node("n0")
	n.Spec.Taints = []v1.Taint{{Key: "level", Value: "3", Effect: v1.TaintEffectNoSchedule}}
	for _, tt := range []struct {
		release string
		gate    *bool
		wantRun bool
	}{
		{"1.33.13", nil, false}, {"1.34.4", nil, false}, {"1.35.4", nil, false},
		{"1.35.4", ptr.To(true), true}, {"1.36.3", ptr.To(true), true}, {"1.37.2", nil, false}, {"1.37.2", ptr.To(true), true},
	} {
		o := releaseOpts(t, tt.release)
		if tt.gate != nil {
			o.FeatureGates = daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: *tt.gate}
		}
		p, errs := daemonset.Compile(ds, o)
		require.Equal(t, tt.wantRun, p.Eligibility(n).ShouldRun, "%s gate %v", tt.release, tt.gate)
		require.Equal(t, !tt.wantRun, len(errs) > 0, "%s gate %v: validation reports Lt unless the gate is on", tt.release, tt.gate)
	}
}

// TestValidateImageVolumeByRelease: from 1.37 an image volume of the template needs a
// reference; until 1.36 it does not (VER-7).
func TestValidateImageVolumeByRelease(t *testing.T) {
	t.Parallel()
	ds := newDS()
	ds.Spec.Template.Spec.Volumes = []v1.Volume{
		{Name: "ok", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "registry.example/data:1"}}},
		{Name: "empty", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{}}},
		{Name: "other", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
	}
	dsCopy := ds.DeepCopy()
	for _, tt := range []struct {
		release  string
		wantErrs field.ErrorList
	}{
		{"1.33.13", nil}, {"1.35.4", nil}, {"1.36.3", nil},
		{"1.37.0", field.ErrorList{field.Required(field.NewPath("spec", "template", "spec", "volumes").Index(1).Child("image", "reference"), "")}},
		{"1.37.2", field.ErrorList{field.Required(field.NewPath("spec", "template", "spec", "volumes").Index(1).Child("image", "reference"), "")}},
	} {
		t.Run("VER-7 "+tt.release, func(t *testing.T) {
			errs := daemonset.Validate(ds, daemonset.Options{Version: mustVersion(t, tt.release)})
			field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, tt.wantErrs, errs)
		})
	}
	if diff := cmp.Diff(dsCopy, ds); diff != "" {
		t.Errorf("Validate mutated its input (-before +after):\n%s", diff)
	}
}

// TestDefaultVersionIsTheNewest: the zero Options.Version plans as the newest release, 1.37.2
// (VER-1): its hash and its rules.
func TestDefaultVersionIsTheNewest(t *testing.T) {
	t.Parallel()
	ds := newDS()
	o := opts()
	o.Version = daemonset.Version{}
	got, err := daemonset.Plan(ds, nodes(1), nil, o)
	require.NoError(t, err)
	o.Version = daemonset.NewestVersion()
	want, err := daemonset.Plan(ds, nodes(1), nil, o)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Plan() at the zero Version mismatch (-newest +zero):\n%s", diff)
	}
	require.Equal(t, daemonset.NewestVersion().ComputeHash(&ds.Spec.Template, nil), got.RevisionHash)
}
