package daemonset

// Internal tests: the helpers under test are unexported (STYLE section 6).

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// ruT0 is the instant every test pod of the rolling-update tests turned Ready, unless told.
var ruT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ruAt(sec float64) time.Time { return ruT0.Add(time.Duration(sec * float64(time.Second))) }

func ruPodWithConditions(conds ...v1.PodCondition) *v1.Pod {
	return &v1.Pod{Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: conds}}
}

func ruReadyCond(status v1.ConditionStatus, since time.Time) v1.PodCondition {
	return v1.PodCondition{Type: v1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(since)}
}

// factsOf reads pod as a plan does (judge.facts), for a DaemonSet ds with current hash hash,
// at now.
func factsOf(pod *v1.Pod, hash string, ds *appsv1.DaemonSet, now time.Time) podFacts {
	j := newJudge(ds, hash, Options{Version: v1363, Now: now})
	return j.facts(pod, false)
}

// The rules written out plainly, without the plan's helpers: the oracles of the random tests
// (TestPodFactsAgreeWithTheRules, the rolling-update reference model).

// ruleReady is UPD-13: the first condition of type Ready has status True.
func ruleReady(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// ruleAvailable is UPD-12: Ready, and minReadySeconds 0 or a non-zero transition time at least
// minReadySeconds before now.
func ruleAvailable(pod *v1.Pod, minReady int32, now time.Time) bool {
	if !ruleReady(pod) {
		return false
	}
	if minReady == 0 {
		return true
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return !c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).After(now)
		}
	}
	return false
}

// ruleUpdated is UPD-3: the hash label equals a non-empty hash, or the template generation
// annotation parses and the pod's generation label is its canonical decimal.
func ruleUpdated(pod *v1.Pod, hash string, ds *appsv1.DaemonSet) bool {
	if hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
		return true
	}
	gen, err := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	return err == nil && pod.Labels[labelTemplateGeneration] == strconv.FormatInt(gen, 10)
}

func TestIsPodReady(t *testing.T) {
	t.Parallel()
	terminating := ruPodWithConditions(ruReadyCond(v1.ConditionTrue, ruT0))
	terminating.DeletionTimestamp = &metav1.Time{Time: ruT0}
	terminating.Status.Phase = v1.PodFailed
	tests := []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{name: "UPD-13 pod without conditions is not ready", pod: ruPodWithConditions(), want: false},
		{name: "UPD-13 Ready True is ready", pod: ruPodWithConditions(ruReadyCond(v1.ConditionTrue, ruT0)), want: true},
		{name: "UPD-13 Ready False is not ready", pod: ruPodWithConditions(ruReadyCond(v1.ConditionFalse, ruT0)), want: false},
		{name: "UPD-13 Ready Unknown is not ready", pod: ruPodWithConditions(ruReadyCond(v1.ConditionUnknown, ruT0)), want: false},
		{
			name: "UPD-13 only the first Ready condition counts",
			pod:  ruPodWithConditions(ruReadyCond(v1.ConditionFalse, ruT0), ruReadyCond(v1.ConditionTrue, ruT0)),
			want: false,
		},
		{
			name: "UPD-13 other condition types are skipped",
			pod: ruPodWithConditions(
				v1.PodCondition{Type: v1.ContainersReady, Status: v1.ConditionFalse},
				ruReadyCond(v1.ConditionTrue, ruT0)),
			want: true,
		},
		{
			name: "UPD-13 ContainersReady alone is not ready",
			pod:  ruPodWithConditions(v1.PodCondition{Type: v1.ContainersReady, Status: v1.ConditionTrue}),
			want: false,
		},
		{name: "UPD-13 a terminating failed pod with a stale Ready True is ready", pod: terminating, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, factsOf(tt.pod, "", &appsv1.DaemonSet{}, ruT0).has(factReady))
			require.Equal(t, tt.want, IsPodReady(tt.pod), "the exported form")
			require.Equal(t, tt.want, ruleReady(tt.pod), "the oracle")
		})
	}
}

func TestIsPodAvailable(t *testing.T) {
	t.Parallel()
	ready100 := ruPodWithConditions(ruReadyCond(v1.ConditionTrue, ruAt(100)))
	readyZero := ruPodWithConditions(v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue})
	tests := []struct {
		name     string
		pod      *v1.Pod
		minReady int32
		now      time.Time
		want     bool
	}{
		{name: "UPD-12 minReadySeconds 0 and Ready is available at once", pod: ready100, minReady: 0, now: ruAt(100), want: true},
		{name: "UPD-12 minReadySeconds 0 ignores a zero lastTransitionTime", pod: readyZero, minReady: 0, now: ruAt(0), want: true},
		{name: "UPD-12 not Ready is never available", pod: ruPodWithConditions(ruReadyCond(v1.ConditionFalse, ruAt(0))), minReady: 0, now: ruAt(1000), want: false},
		{name: "UPD-12 SCN-99 one second before the boundary is not available", pod: ready100, minReady: 10, now: ruAt(109), want: false},
		{name: "UPD-12 SCN-99 the boundary instant is available", pod: ready100, minReady: 10, now: ruAt(110), want: true},
		{name: "UPD-12 SCN-99 after the boundary is available", pod: ready100, minReady: 10, now: ruAt(111), want: true},
		{name: "UPD-12 one nanosecond before the boundary is not available", pod: ready100, minReady: 10, now: ruAt(110).Add(-time.Nanosecond), want: false},
		{name: "UPD-12 SCN-100 Ready with zero lastTransitionTime and minReadySeconds 10 is never available", pod: readyZero, minReady: 10, now: ruAt(1e6), want: false},
		{name: "UPD-12 a negative minReadySeconds moves the boundary into the past", pod: ready100, minReady: -5, now: ruAt(95), want: true},
		{name: "UPD-12 a negative minReadySeconds still needs a transition time", pod: readyZero, minReady: -5, now: ruAt(95), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds := &appsv1.DaemonSet{}
			ds.Spec.MinReadySeconds = tt.minReady
			require.Equal(t, tt.want, factsOf(tt.pod, "", ds, tt.now).has(factAvailable))
			require.Equal(t, tt.want, NewestVersion().IsPodAvailable(tt.pod, tt.minReady, tt.now), "the exported form")
			require.Equal(t, tt.want, ruleAvailable(tt.pod, tt.minReady, tt.now), "the oracle")
		})
	}
}

func TestIsPodUpdated(t *testing.T) {
	t.Parallel()
	pod := func(labels map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels}}
	}
	dsWithGen := func(gen string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: gen}}}
	}
	hashLabel := appsv1.DefaultDaemonSetUniqueLabelKey
	tests := []struct {
		name string
		pod  *v1.Pod
		hash string
		ds   *appsv1.DaemonSet
		want bool
	}{
		{name: "UPD-3 matching hash label is updated", pod: pod(map[string]string{hashLabel: "abc"}), hash: "abc", ds: &appsv1.DaemonSet{}, want: true},
		{name: "UPD-3 other hash label is old", pod: pod(map[string]string{hashLabel: "old"}), hash: "abc", ds: &appsv1.DaemonSet{}, want: false},
		{name: "UPD-3 missing labels mean old", pod: pod(nil), hash: "abc", ds: &appsv1.DaemonSet{}, want: false},
		{name: "UPD-3 an empty hash never matches, even an empty label", pod: pod(map[string]string{hashLabel: ""}), hash: "", ds: &appsv1.DaemonSet{}, want: false},
		{name: "UPD-3 SCN-81 old hash but pod-template-generation equal to the annotation is updated", pod: pod(map[string]string{hashLabel: "old", labelTemplateGeneration: "5"}), hash: "abc", ds: dsWithGen("5"), want: true},
		{name: "UPD-3 the annotation is compared in canonical decimal", pod: pod(map[string]string{labelTemplateGeneration: "5"}), hash: "abc", ds: dsWithGen("05"), want: true},
		{name: "UPD-3 a non-canonical label never matches", pod: pod(map[string]string{labelTemplateGeneration: "05"}), hash: "abc", ds: dsWithGen("05"), want: false},
		{name: "UPD-3 a plus-signed annotation parses", pod: pod(map[string]string{labelTemplateGeneration: "5"}), hash: "abc", ds: dsWithGen("+5"), want: true},
		{name: "UPD-3 a negative annotation matches its decimal", pod: pod(map[string]string{labelTemplateGeneration: "-3"}), hash: "abc", ds: dsWithGen("-3"), want: true},
		{name: "UPD-3 a large annotation matches its decimal", pod: pod(map[string]string{labelTemplateGeneration: "1234567890123"}), hash: "abc", ds: dsWithGen("1234567890123"), want: true},
		{name: "UPD-3 an unparsable annotation is ignored", pod: pod(map[string]string{labelTemplateGeneration: "x"}), hash: "abc", ds: dsWithGen("x"), want: false},
		{name: "UPD-3 an annotation beyond int64 is ignored", pod: pod(map[string]string{labelTemplateGeneration: "99999999999999999999"}), hash: "abc", ds: dsWithGen("99999999999999999999"), want: false},
		{name: "UPD-3 a generation label without the annotation is old", pod: pod(map[string]string{labelTemplateGeneration: "5"}), hash: "abc", ds: &appsv1.DaemonSet{}, want: false},
		{name: "UPD-3 the annotation without a pod label is old", pod: pod(map[string]string{hashLabel: "old"}), hash: "abc", ds: dsWithGen("5"), want: false},
		{name: "UPD-3 an empty hash does not match a pod without the label", pod: pod(map[string]string{"app": "x"}), hash: "", ds: &appsv1.DaemonSet{}, want: false},
		{name: "UPD-3 the generation matches even with an empty hash", pod: pod(map[string]string{labelTemplateGeneration: "7"}), hash: "", ds: dsWithGen("7"), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, factsOf(tt.pod, tt.hash, tt.ds, ruT0).has(factUpdated))
			require.Equal(t, tt.want, IsPodUpdated(tt.ds, tt.hash, tt.pod), "the exported form")
			require.Equal(t, tt.want, ruleUpdated(tt.pod, tt.hash, tt.ds), "the oracle")
		})
	}
}

// TestPodFactsAgreeWithTheRules checks every bit the plan reads instead of the pod against
// the rule it stands for, on random pods: deletion (DIFF-3), phase (DIFF-3, DIFF-17), Ready
// (UPD-13), available at now (UPD-12), the hash label as DIFF-6 compares it (a missing label
// equals an empty hash), updated (UPD-3), controlled and scheduled; the rules as ruleReady,
// ruleAvailable and ruleUpdated write them.
func TestPodFactsAgreeWithTheRules(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 1))
	hashes := []string{"", "h1", "h2"}
	gens := []string{"", "7", "07", "x"}
	now := ruAt(100)
	for range 20000 {
		ds := &appsv1.DaemonSet{}
		ds.Spec.MinReadySeconds = []int32{0, 10, 200, -5}[r.IntN(4)]
		if g := gens[r.IntN(len(gens))]; g != "" {
			ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: g}
		}
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		if h := hashes[r.IntN(len(hashes))]; h != "" || r.IntN(2) == 0 {
			pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h
		}
		if g := gens[r.IntN(len(gens))]; g != "" || r.IntN(2) == 0 {
			pod.Labels[labelTemplateGeneration] = g
		}
		if r.IntN(4) == 0 {
			pod.DeletionTimestamp = &metav1.Time{Time: ruT0}
		}
		pod.Status.Phase = []v1.PodPhase{v1.PodRunning, v1.PodFailed, v1.PodSucceeded, v1.PodPending}[r.IntN(4)]
		for range r.IntN(3) {
			c := ruReadyCond([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse}[r.IntN(2)], ruAt(float64(r.IntN(200))))
			if r.IntN(4) == 0 {
				c.Type = v1.PodScheduled
			}
			if r.IntN(6) == 0 {
				c.LastTransitionTime = metav1.Time{}
			}
			pod.Status.Conditions = append(pod.Status.Conditions, c)
		}
		if r.IntN(2) == 0 {
			pod.Spec.NodeName = "n1"
		}
		hash := hashes[r.IntN(len(hashes))]
		controlled := r.IntN(2) == 0

		j := newJudge(ds, hash, Options{Version: v1363, Now: now})
		f := j.facts(pod, controlled)

		want := map[podFacts]bool{
			factTerminating: pod.DeletionTimestamp != nil,
			factFailed:      pod.Status.Phase == v1.PodFailed,
			factSucceeded:   pod.Status.Phase == v1.PodSucceeded,
			factReady:       ruleReady(pod),
			factAvailable:   ruleAvailable(pod, ds.Spec.MinReadySeconds, now),
			factHashLabel:   pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash,
			factUpdated:     ruleUpdated(pod, hash, ds),
			factControlled:  controlled,
			factScheduled:   pod.Spec.NodeName != "",
		}
		for bit, w := range want {
			require.Equal(t, w, f.has(bit), "fact %b of pod %+v with hash %q, DaemonSet %+v", bit, pod, hash, ds)
		}
	}
}

// The plan computes UPD-3 once per pod with the template generation formatted once per sync,
// so reading a pod allocates nothing even for a generation that needs formatting.
func TestPodFactsAllocateNothing(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "123456"}}}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelTemplateGeneration: "123456"}}}
	j := newJudge(ds, "abc", Options{Version: v1363})
	var got podFacts
	allocs := testing.AllocsPerRun(100, func() { got = j.facts(pod, false) })
	require.True(t, got.has(factUpdated))
	require.Zero(t, allocs)
}

// ruStrategy builds a DaemonSet ns/ds with the RollingUpdate strategy and the given budgets.
func ruStrategy(mu, ms *intstr.IntOrString) *appsv1.DaemonSet {
	return apitest.DaemonSet(apitest.Rolling(mu, ms), func(ds *appsv1.DaemonSet) { ds.Namespace, ds.Name = "ns", "ds" })
}

func ruNilRollingUpdate() *appsv1.DaemonSet {
	ds := ruStrategy(nil, nil)
	ds.Spec.UpdateStrategy.RollingUpdate = nil
	return ds
}

func TestAllowsSurge(t *testing.T) {
	t.Parallel()
	onDelete := ruStrategy(apitest.Int(0), apitest.Int(1))
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want bool
	}{
		{name: "DIFF-9 maxSurge 1 allows surge", ds: ruStrategy(apitest.Int(0), apitest.Int(1)), want: true},
		{name: "DIFF-9 maxSurge 1% rounds up to one node", ds: ruStrategy(apitest.Int(0), apitest.Str("1%")), want: true},
		{name: "DIFF-9 maxSurge 0 does not allow surge", ds: ruStrategy(apitest.Int(1), apitest.Int(0)), want: false},
		{name: "DIFF-9 maxSurge 0% does not allow surge", ds: ruStrategy(apitest.Int(1), apitest.Str("0%")), want: false},
		{name: "DIFF-9 negative maxSurge does not allow surge", ds: ruStrategy(apitest.Int(1), apitest.Int(-1)), want: false},
		{name: "DIFF-9 negative percentage does not allow surge", ds: ruStrategy(apitest.Int(1), apitest.Str("-50%")), want: false},
		{name: "DIFF-9 an unresolvable maxSurge does not allow surge", ds: ruStrategy(apitest.Int(1), apitest.Str("5")), want: false},
		{name: "DIFF-9 nil maxSurge does not allow surge", ds: ruStrategy(apitest.Int(1), nil), want: false},
		{name: "DIFF-9 a nil maxUnavailable does not matter", ds: ruStrategy(nil, apitest.Int(1)), want: true},
		{name: "DIFF-9 nil rollingUpdate does not allow surge", ds: ruNilRollingUpdate(), want: false},
		{name: "DIFF-9 OnDelete never allows surge", ds: onDelete, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, allowsSurge(tt.ds))
		})
	}
}

func TestRollingBudgets(t *testing.T) {
	t.Parallel()
	onDelete := ruStrategy(nil, nil)
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	tests := []struct {
		name            string
		ds              *appsv1.DaemonSet
		desired         int
		wantMU, wantMS  int
		wantErrContains string
	}{
		{name: "UPD-5 integers are taken as they are", ds: ruStrategy(apitest.Int(2), apitest.Int(0)), desired: 5, wantMU: 2},
		{name: "UPD-5 integers above desired are kept", ds: ruStrategy(apitest.Int(0), apitest.Int(9)), desired: 5, wantMS: 9},
		{name: "UPD-5 SCN-77 1% of 3 rounds up to 1", ds: ruStrategy(apitest.Str("1%"), nil), desired: 3, wantMU: 1},
		{name: "UPD-5 SCN-77 10% of 5 rounds up to 1", ds: ruStrategy(apitest.Str("10%"), nil), desired: 5, wantMU: 1},
		{name: "UPD-5 SCN-77 50% of 5 rounds up to 3", ds: ruStrategy(apitest.Str("50%"), nil), desired: 5, wantMU: 3},
		{name: "UPD-5 SCN-77 99% of 3 rounds up to 3", ds: ruStrategy(apitest.Str("99%"), nil), desired: 3, wantMU: 3},
		{name: "UPD-5 100% of 4 is 4", ds: ruStrategy(apitest.Str("100%"), nil), desired: 4, wantMU: 4},
		{name: "UPD-5 10% of 10 is exactly 1", ds: ruStrategy(apitest.Str("10%"), nil), desired: 10, wantMU: 1},
		{name: "UPD-5 10% of 11 rounds up to 2", ds: ruStrategy(apitest.Str("10%"), nil), desired: 11, wantMU: 2},
		{name: "UPD-5 200% of 3 is 6", ds: ruStrategy(apitest.Str("200%"), nil), desired: 3, wantMU: 6},
		{name: "UPD-5 SCN-92 maxSurge 25% of 4 is 1", ds: ruStrategy(apitest.Int(0), apitest.Str("25%")), desired: 4, wantMS: 1},
		{name: "UPD-5 SCN-92 maxSurge 100% of 4 is 4", ds: ruStrategy(apitest.Int(0), apitest.Str("100%")), desired: 4, wantMS: 4},
		{name: "UPD-5 maxSurge 1% of 1000 rounds up to 10", ds: ruStrategy(apitest.Int(0), apitest.Str("1%")), desired: 1000, wantMS: 10},
		{name: "UPD-5 maxUnavailable 0 with surge stays 0", ds: ruStrategy(apitest.Int(0), apitest.Int(1)), desired: 3, wantMU: 0, wantMS: 1},
		{name: "UPD-5 a nil maxSurge means 0", ds: ruStrategy(apitest.Int(2), nil), desired: 3, wantMU: 2},
		{name: "UPD-5 SCN-80 a negative maxUnavailable is used as it is", ds: ruStrategy(apitest.Int(-1), nil), desired: 3, wantMU: -1},
		{name: "UPD-5 a negative maxSurge is used as it is", ds: ruStrategy(apitest.Int(0), apitest.Int(-2)), desired: 3, wantMS: -2},
		{name: "UPD-5 a negative percentage rounds up towards 0, then UPD-6 applies", ds: ruStrategy(apitest.Str("-10%"), nil), desired: 5, wantMU: 1},
		{name: "UPD-5 a plus-signed percentage parses like upstream's strconv.Atoi", ds: ruStrategy(apitest.Str("+10%"), nil), desired: 5, wantMU: 1},
		{name: "UPD-5 a percentage with leading zeros parses", ds: ruStrategy(apitest.Str("050%"), nil), desired: 5, wantMU: 3},
		{name: "UPD-5 a percentage with a space is an error", ds: ruStrategy(apitest.Str(" 10%"), nil), desired: 5, wantErrContains: "invalid value for MaxUnavailable"},
		{name: "UPD-5 a bare percent sign is an error", ds: ruStrategy(apitest.Str("%"), nil), desired: 5, wantErrContains: "invalid value for MaxUnavailable"},
		{name: "UPD-5 -50% of 1 rounds up to 0, so UPD-6 applies", ds: ruStrategy(apitest.Int(0), apitest.Str("-50%")), desired: 1, wantMU: 1},
		{name: "UPD-5 UPD-7 -50% of 3 rounds up to -1, a negative maxSurge that selects the surge algorithm", ds: ruStrategy(apitest.Int(0), apitest.Str("-50%")), desired: 3, wantMS: -1},
		{name: "UPD-5 a percentage of 0 desired nodes is 0", ds: ruStrategy(apitest.Str("50%"), apitest.Str("50%")), desired: 0},
		{name: "UPD-5 SCN-79 nil maxUnavailable with rollingUpdate present is an error", ds: ruStrategy(nil, apitest.Int(1)), desired: 3, wantErrContains: "invalid value for MaxUnavailable: nil value for IntOrString"},
		{name: "UPD-5 SCN-79 maxUnavailable \"2\" is an error", ds: ruStrategy(apitest.Str("2"), nil), desired: 3, wantErrContains: "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"},
		{name: "UPD-5 maxUnavailable \"x%\" is an error", ds: ruStrategy(apitest.Str("x%"), nil), desired: 3, wantErrContains: "invalid value for MaxUnavailable: invalid value for IntOrString: invalid value \"x%\""},
		{name: "UPD-5 maxSurge \"5\" is an error", ds: ruStrategy(apitest.Int(0), apitest.Str("5")), desired: 3, wantErrContains: "invalid value for MaxSurge: invalid value for IntOrString: invalid type: string is not a percentage"},
		{name: "UPD-5 maxUnavailable is resolved before maxSurge", ds: ruStrategy(apitest.Str("5"), apitest.Str("5")), desired: 3, wantErrContains: "MaxUnavailable"},
		{name: "UPD-6 SCN-78 0 and 0 become maxUnavailable 1", ds: ruStrategy(apitest.Int(0), apitest.Int(0)), desired: 3, wantMU: 1},
		{name: "UPD-6 SCN-78 0% and 0% become maxUnavailable 1", ds: ruStrategy(apitest.Str("0%"), apitest.Str("0%")), desired: 3, wantMU: 1},
		{name: "UPD-6 SCN-78 a nil rollingUpdate becomes maxUnavailable 1", ds: ruNilRollingUpdate(), desired: 3, wantMU: 1},
		{name: "UPD-6 does not apply without desired nodes", ds: ruNilRollingUpdate(), desired: 0},
		{name: "UPD-6 a non-RollingUpdate type resolves like a nil rollingUpdate", ds: onDelete, desired: 2, wantMU: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mu, ms, err := rollingBudgets(tt.ds, tt.desired)
			if tt.wantErrContains != "" {
				require.ErrorContains(t, err, tt.wantErrContains)
				require.Zero(t, mu)
				require.Zero(t, ms)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantMU, mu, "maxUnavailable")
			require.Equal(t, tt.wantMS, ms, "maxSurge")
		})
	}
}

// v1363 is the release the package's internal tests pin their plans to (see builders_test.go).
var v1363 = Version{1, 36, 3}

// TestTemplateGenerationLabelIsKubernetes: the label POD-3 writes and UPD-3 compares is the
// key upstream's controller uses, which callers name by k8s.io/api's constant.
func TestTemplateGenerationLabelIsKubernetes(t *testing.T) {
	t.Parallel()
	require.Equal(t, extensionsv1beta1.DaemonSetTemplateGenerationKey, labelTemplateGeneration)
}
