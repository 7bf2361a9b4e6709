package daemonset

// The revision hash (UPD-15, UPD-17): pinned values, properties, and the formula against an
// independent computation.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utildump "k8s.io/utils/dump"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"
)

// revTemplates are the templates whose hashes TestComputeHashGolden pins;
// TestComputeHashFormula recomputes every pinned value from the UPD-15 formula.
func revTemplates() map[string]v1.PodTemplateSpec {
	typical := v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{
				Name:  "agent",
				Image: "registry.example.com/agent:1.2.3",
				Resources: v1.ResourceRequirements{
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
				},
				Ports: []v1.ContainerPort{{ContainerPort: 9100, HostPort: 9100, Protocol: v1.ProtocolTCP}},
			}},
			NodeSelector:                  map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
			HostNetwork:                   true,
			RestartPolicy:                 v1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Tolerations: []v1.Toleration{
				{Key: "node-role.kubernetes.io/control-plane", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
				{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			},
			Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a", "b"}}},
				}}},
			}},
		},
	}
	emptyTolerations := typical
	emptyTolerations.Spec.Tolerations = []v1.Toleration{}
	noTolerations := typical
	noTolerations.Spec.Tolerations = nil
	withTime := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
		Labels:            map[string]string{"app": "d"},
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		Annotations:       map[string]string{"z": "1", "a": "<&>"},
	}}
	return map[string]v1.PodTemplateSpec{
		"empty":             {},
		"typical":           typical,
		"empty tolerations": emptyTolerations,
		"nil tolerations":   noTolerations,
		"creation time":     withTime,
	}
}

// revGolden pins ComputeHash (release 1.36.3, VER-2) for revTemplates and a few collision
// counts (nil, 0, 1, -1, 7), and ComputeHashFor release 1.37.2 beside it (want137). Each column
// was computed by the upstream formula with its release's k8s.io/api linked (v0.36.3, then
// v0.37.2); TestComputeHashFormula keeps checking the linked release's column against it.
var revGolden = []struct {
	template       string
	collisionCount *int32
	want           string
	want137        string
}{
	{"empty", nil, "85748b7f68", "54f4c57dcb"},
	{"empty", ptr.To[int32](0), "777dfcd544", "98789f664"},
	{"empty", ptr.To[int32](1), "b54bc767c", "6554565b97"},
	{"empty", ptr.To[int32](-1), "86946576b8", "6865669fbd"},
	{"typical", nil, "848cdb76f4", "6bbdbbdc7d"},
	{"typical", ptr.To[int32](0), "5f47544c74", "598c77f98"},
	{"typical", ptr.To[int32](7), "674d564c77", "99fc97f9c"},
	{"empty tolerations", nil, "59d77d9b97", "5555db745f"},
	{"nil tolerations", nil, "6f695f7fc6", "867cfcb848"},
	{"creation time", nil, "845f6bd4ff", "f9d688989"},
}

func TestComputeHashGolden(t *testing.T) {
	t.Parallel()
	templates := revTemplates()
	for _, tt := range revGolden {
		cc := "nil"
		if tt.collisionCount != nil {
			cc = fmt.Sprint(*tt.collisionCount)
		}
		t.Run(fmt.Sprintf("UPD-15 %s template with collisionCount %s", tt.template, cc), func(t *testing.T) {
			t.Parallel()
			tmpl := templates[tt.template]
			before := tmpl.DeepCopy()
			got := v1363.ComputeHash(&tmpl, tt.collisionCount)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.want137, NewestVersion().ComputeHash(&tmpl, tt.collisionCount), "VER-2 release 1.37.2")
			require.NotEmpty(t, got)
			require.Empty(t, strings.Trim(got, "456789bcdf"), "UPD-15 hashes use the digits 456789bcdf only")
			if diff := cmp.Diff(before, &tmpl); diff != "" {
				t.Errorf("ComputeHash mutated the template (-before +after):\n%s", diff)
			}
		})
	}
}

// TestComputeHashProperties checks the hash rules that need no pinned value.
func TestComputeHashProperties(t *testing.T) {
	t.Parallel()
	templates := revTemplates()
	typical := templates["typical"]

	t.Run("SCN-105 UPD-15 nil, 0 and 1 collision counts give three different hashes", func(t *testing.T) {
		hashes := map[string]bool{
			v1363.ComputeHash(&typical, nil):              true,
			v1363.ComputeHash(&typical, ptr.To[int32](0)): true,
			v1363.ComputeHash(&typical, ptr.To[int32](1)): true,
		}
		require.Len(t, hashes, 3)
	})
	t.Run("SCN-106 UPD-17 empty and nil tolerations hash differently", func(t *testing.T) {
		empty, absent := templates["empty tolerations"], templates["nil tolerations"]
		require.NotEqual(t, v1363.ComputeHash(&empty, nil), v1363.ComputeHash(&absent, nil))
	})
	t.Run("SCN-106 UPD-17 equal after normalising empty to nil", func(t *testing.T) {
		empty, absent := templates["empty tolerations"], templates["nil tolerations"]
		empty.Spec.Tolerations = nil
		require.Equal(t, v1363.ComputeHash(&absent, nil), v1363.ComputeHash(&empty, nil))
	})
	t.Run("UPD-19 every template change changes the hash", func(t *testing.T) {
		changed := *typical.DeepCopy()
		changed.Spec.Containers[0].Image = "registry.example.com/agent:1.2.4"
		require.NotEqual(t, v1363.ComputeHash(&typical, nil), v1363.ComputeHash(&changed, nil))
	})
	t.Run("UPD-15 equal templates in different memory hash equally", func(t *testing.T) {
		copied := *typical.DeepCopy()
		require.Equal(t, v1363.ComputeHash(&typical, nil), v1363.ComputeHash(&copied, nil))
	})
	t.Run("UPD-15 map insertion order does not matter", func(t *testing.T) {
		a := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		b := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		for i := range 50 {
			a.Labels[fmt.Sprint("k", i)] = "v"
			b.Labels[fmt.Sprint("k", 49-i)] = "v"
		}
		require.Equal(t, v1363.ComputeHash(&a, nil), v1363.ComputeHash(&b, nil))
	})
	t.Run("SCN-107 strategy and minReadySeconds play no part", func(t *testing.T) {
		ds := revDS()
		other := ds.DeepCopy()
		other.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		other.Spec.MinReadySeconds = 30
		require.Equal(t, v1363.ComputeHash(&ds.Spec.Template, nil), v1363.ComputeHash(&other.Spec.Template, nil))
	})
	t.Run("ComputeHash panics on a nil template", func(t *testing.T) {
		require.PanicsWithValue(t, "daemonset: Version.ComputeHash: nil template", func() { v1363.ComputeHash(nil, nil) })
	})
}

// revUpstreamHash is UPD-15 written from its definition, as k8s/pkg/controller ComputeHash
// and k8s/pkg/util/hash DeepHashObject define it: FNV-1a (32 bits, written out here) over
// go-spew's dump (k8s.io/utils/dump.ForHash), the collision count as 4 little-endian bytes and 4
// zero bytes, the decimal sum with digits mapped to "456789bcdf".
func revUpstreamHash(tmpl *v1.PodTemplateSpec, collisionCount *int32) string {
	data := []byte(fmt.Sprintf("%v", utildump.ForHash(*tmpl)))
	if collisionCount != nil {
		c := uint32(*collisionCount)
		data = append(data, byte(c), byte(c>>8), byte(c>>16), byte(c>>24), 0, 0, 0, 0)
	}
	sum := uint32(2166136261)
	for _, b := range data {
		sum ^= uint32(b)
		sum *= 16777619
	}
	digits := []byte(fmt.Sprint(sum))
	for i, d := range digits {
		digits[i] = "456789bcdf"[d-'0']
	}
	return string(digits)
}

// TestComputeHashFormula checks ComputeHashFor the release whose k8s.io/api is linked
// (1.37 since the bump to v0.37.2) against revUpstreamHash, which hashes the linked types, on
// the pinned templates and on 200 random ones (nil and empty collections, pointers,
// quantities, times), with several collision counts, and checks that release's column of
// revGolden and the example values against the formula. ComputeHash stays release 1.36.3's
// (VER-2): its pinned values were checked against the formula while v0.36.3 was linked, and
// TestReleaseHashCorpus keeps checking 1.36 against v0.36.3's own types.
func TestComputeHashFormula(t *testing.T) {
	t.Parallel()
	linked := linkedVersion(t)
	pinned := map[int]func(int) string{
		36: func(i int) string { return revGolden[i].want },
		37: func(i int) string { return revGolden[i].want137 },
	}
	examples := map[int][2]string{
		36: {"7f88ddc98d", "6bf7bd7768"}, // ExampleComputeHash
		37: {"645b9dd696", "6bb9d894d8"}, // ExampleComputeHashFor
	}
	want, ok := pinned[linked.Minor()]
	require.True(t, ok, "k8s.io/api of release %s is linked: pin its hashes in revGolden (the formula's values) and here", linked)
	counts := []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](-1), ptr.To[int32](1 << 30)}
	for name, tmpl := range revTemplates() {
		for _, cc := range counts {
			require.Equal(t, revUpstreamHash(&tmpl, cc), linked.ComputeHash(&tmpl, cc), "template %q, collisionCount %v", name, cc)
		}
	}
	templates := revTemplates()
	for i, tt := range revGolden {
		tmpl := templates[tt.template]
		require.Equal(t, revUpstreamHash(&tmpl, tt.collisionCount), want(i), "pinned %s hash of the %q template", linked, tt.template)
	}
	example := &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}}
	require.Equal(t, examples[linked.Minor()][0], revUpstreamHash(example, nil), "example template, release %s", linked)
	require.Equal(t, examples[linked.Minor()][1], revUpstreamHash(example, ptr.To[int32](0)), "example template, release %s", linked)
	require.Equal(t, examples[linked.Minor()][1], linked.ComputeHash(example, ptr.To[int32](0)), "example template, release %s", linked)

	f := revTemplateFiller(15)
	for i := range 200 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		cc := counts[i%len(counts)]
		if got, want := linked.ComputeHash(&tmpl, cc), revUpstreamHash(&tmpl, cc); got != want {
			t.Fatalf("random template %d: ComputeHashFor(%s) %s, upstream formula %s", i, linked, got, want)
		}
	}
}

// revTemplateFiller fills a whole v1.PodTemplateSpec at random: nil and empty collections,
// pointers, quantities, times and both kinds of IntOrString.
func revTemplateFiller(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).MaxDepth(8).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.NewTime(time.Unix(c.Int63n(1<<31), 0).UTC())
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(5))
			}
		},
	)
}

var revSinkHash string

// BenchmarkComputeHash measures the hash of a typical template (UPD-15), which Compile computes
// once per DaemonSet.
func BenchmarkComputeHash(b *testing.B) {
	tmpl := revTemplates()["typical"]
	b.ReportAllocs()
	for b.Loop() {
		revSinkHash = v1363.ComputeHash(&tmpl, nil)
	}
}

func ExampleVersion_ComputeHash_collisionCount() {
	tmpl := &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}}
	version, err := ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	var zero int32
	// A nil collisionCount and a pointer to 0 give different hashes (SCN-105).
	fmt.Println(version.ComputeHash(tmpl, nil))
	fmt.Println(version.ComputeHash(tmpl, &zero))
	// Output:
	// 7f88ddc98d
	// 6bf7bd7768
}
