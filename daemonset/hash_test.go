package daemonset

// The hash of each release (VER-2): the linked release against the upstream formula, pinned
// values per release, and the table covering every supported release.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	"github.com/daemonsched/daemonsched/internal/hashdump"
)

func mustVersion(t testing.TB, s string) Version {
	t.Helper()
	v, err := ParseVersion(s)
	require.NoError(t, err)
	return v
}

// linkedVersion is the release whose types the linked k8s.io/api has (1.36 with v0.36.3),
// at its newest supported patch.
func linkedVersion(t testing.TB) Version {
	t.Helper()
	minor, err := hashdump.Linked(hashdump.Fields(), reflect.TypeFor[v1.PodTemplateSpec](), hashdump.Oldest, hashdump.Newest)
	require.NoError(t, err)
	return mustVersion(t, fmt.Sprintf("1.%d", minor))
}

// TestComputeHashForLinkedReleaseIsTheUpstreamFormula checks ComputeHashFor the linked
// release (every patch) against the UPD-15 formula over dump.ForHash of the linked k8s.io/api
// (v0.36.3; the same holds with v0.37.2 linked), on the pinned templates and 500 random ones,
// with several collision counts.
func TestComputeHashForLinkedReleaseIsTheUpstreamFormula(t *testing.T) {
	t.Parallel()
	counts := []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](-1), ptr.To[int32](1 << 30)}
	linked := linkedVersion(t)
	versions := []Version{linked, mustVersion(t, fmt.Sprintf("1.%d.0", linked.Minor())), mustVersion(t, fmt.Sprintf("1.%d.1", linked.Minor()))}
	check := func(name string, tmpl *v1.PodTemplateSpec, cc *int32) {
		want := revUpstreamHash(tmpl, cc)
		for _, v := range versions {
			if got := v.ComputeHash(tmpl, cc); got != want {
				t.Fatalf("%s: ComputeHashFor(%s) = %s, upstream formula %s", name, v, got, want)
			}
		}
	}
	for name, tmpl := range revTemplates() {
		for _, cc := range counts {
			check(name, &tmpl, cc)
		}
	}
	f := revTemplateFiller(23)
	for i := range 500 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		check(fmt.Sprint("random template ", i), &tmpl, counts[i%len(counts)])
	}
}

// releaseGolden pins each release's hash of the pinned templates. The 1.36 values are the
// upstream formula's with k8s.io/api v0.36.3 linked (TestComputeHashForLinkedReleaseIsTheUpstreamFormula);
// every release's, 1.36 included, are those of its own k8s.io/api (testdata/releasehash.json,
// TestReleaseHashCorpus).
var releaseGolden = []struct {
	template string
	version  string
	want     string
}{
	{"empty", "1.33", "6f75fc469d"},
	{"empty", "1.34", "79d57d8d7d"},
	{"empty", "1.35", "7dbfdbdbc9"},
	{"empty", "1.36", "85748b7f68"},
	{"empty", "1.37", "54f4c57dcb"},
	{"typical", "1.33", "6c544fd799"},
	{"typical", "1.34", "6b66cffddd"},
	{"typical", "1.35", "7549647db5"},
	{"typical", "1.36", "848cdb76f4"},
	{"typical", "1.37", "6bbdbbdc7d"},
}

func TestComputeHashForGolden(t *testing.T) {
	t.Parallel()
	templates := revTemplates()
	for _, tt := range releaseGolden {
		t.Run(fmt.Sprintf("VER-2 %s template hashed as release %s", tt.template, tt.version), func(t *testing.T) {
			t.Parallel()
			tmpl := templates[tt.template]
			before := tmpl.DeepCopy()
			got := mustVersion(t, tt.version).ComputeHash(&tmpl, nil)
			require.Equal(t, tt.want, got)
			require.Empty(t, strings.Trim(got, "456789bcdf"), "UPD-15 hashes use the digits 456789bcdf only")
			if diff := cmp.Diff(before, &tmpl); diff != "" {
				t.Errorf("ComputeHashFor mutated the template (-before +after):\n%s", diff)
			}
		})
	}
}

// TestComputeHashForProperties checks what needs no pinned value.
func TestComputeHashForProperties(t *testing.T) {
	t.Parallel()
	typical := revTemplates()["typical"]
	t.Run("VER-2 every supported release hashes the same template differently", func(t *testing.T) {
		seen := map[string]Version{}
		for _, v := range SupportedVersions() {
			h := v.ComputeHash(&typical, nil)
			if other, ok := seen[h]; ok {
				t.Fatalf("releases %s and %s both hash the typical template to %s", other, v, h)
			}
			seen[h] = v
		}
	})
	t.Run("VER-2 the patch release does not change the hash", func(t *testing.T) {
		for _, v := range SupportedVersions() {
			first := mustVersion(t, fmt.Sprintf("1.%d.0", v.Minor()))
			require.Equal(t, v.ComputeHash(&typical, nil), first.ComputeHash(&typical, nil), "release %s", v)
		}
	})
	t.Run("VER-2 ComputeHash is release 1.36.3's hash", func(t *testing.T) {
		require.Equal(t, mustVersion(t, "1.36.3").ComputeHash(&typical, ptr.To[int32](2)), v1363.ComputeHash(&typical, ptr.To[int32](2)))
	})
	t.Run("VER-2 a field a release lacks is left out of its hash", func(t *testing.T) {
		// PodSpec.HostnameOverride is new in 1.34 (fields_gen.go): 1.33's API server drops it.
		with := *typical.DeepCopy()
		with.Spec.HostnameOverride = ptr.To("h")
		v133, v136 := mustVersion(t, "1.33"), mustVersion(t, "1.36")
		require.Equal(t, v133.ComputeHash(&typical, nil), v133.ComputeHash(&with, nil))
		require.NotEqual(t, v136.ComputeHash(&typical, nil), v136.ComputeHash(&with, nil))
	})
	t.Run("ComputeHash panics on a nil template", func(t *testing.T) {
		require.PanicsWithValue(t, "daemonset: Version.ComputeHash: nil template", func() { NewestVersion().ComputeHash(nil, nil) })
	})
	t.Run("the zero Version hashes as the newest release", func(t *testing.T) {
		require.Equal(t, NewestVersion().ComputeHash(&typical, nil), Version{}.ComputeHash(&typical, nil))
	})
}

// TestSupportedVersionsHaveHashFields checks that internal/hashdump's generated table covers
// exactly the supported minors, so that every supported release has its hash.
func TestSupportedVersionsHaveHashFields(t *testing.T) {
	t.Parallel()
	supported := SupportedVersions()
	require.Equal(t, hashdump.Oldest, supported[0].Minor())
	require.Equal(t, hashdump.Newest, supported[len(supported)-1].Minor())
	require.Len(t, supported, hashdump.Newest-hashdump.Oldest+1)
}

var updateReleaseHashes = flag.Bool("update-release-hashes", false,
	"rewrite the templates of daemonset/testdata/releasehash.json (then run testdata/releasehash/ref.sh)")

// releaseHashEntry is one case of testdata/releasehash.json: a template as JSON and, by
// release, the hash computed by testdata/releasehash/ref.sh with that release's own k8s.io/api.
type releaseHashEntry struct {
	Name           string            `json:"name"`
	CollisionCount *int32            `json:"collisionCount"`
	Template       json.RawMessage   `json:"template"`
	Hash           map[string]string `json:"hash"`
}

// releaseHashTemplates are the corpus's templates: the pinned ones and 60 random ones with
// every field of k8s.io/api v0.36.3 drawn but managedFields (times left zero: a decoded time is in the Local
// zone, whose dump depends on the machine).
func releaseHashTemplates() []releaseHashEntry {
	var out []releaseHashEntry
	add := func(name string, tmpl *v1.PodTemplateSpec, cc *int32) {
		raw, err := json.Marshal(tmpl)
		if err != nil {
			panic(err)
		}
		out = append(out, releaseHashEntry{Name: name, CollisionCount: cc, Template: raw, Hash: map[string]string{}})
	}
	templates := revTemplates()
	for _, name := range []string{"empty", "typical"} {
		tmpl := templates[name]
		add(name, &tmpl, nil)
		add(name+" with collisionCount 3", &tmpl, ptr.To[int32](3))
	}
	f := revTemplateFiller(37).NilChance(0.5).NumElements(1, 1).Funcs(
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Time{} })
	for i := range 60 {
		var tmpl v1.PodTemplateSpec
		f.Fill(&tmpl)
		tmpl.ManagedFields = nil // random bytes are no valid FieldsV1 JSON
		add(fmt.Sprint("random ", i), &tmpl, nil)
	}
	return out
}

// TestReleaseHashCorpus checks ComputeHashFor of every supported release against the hashes
// each release's own k8s.io/api gives for the same JSON (testdata/releasehash/ref.sh): the
// template is decoded into the linked types here, into that release's there (fields a
// release lacks are dropped), so the test covers fields left out and fields spelt as zero.
func TestReleaseHashCorpus(t *testing.T) {
	t.Parallel()
	const path = "testdata/releasehash.json"
	if *updateReleaseHashes {
		data, err := json.MarshalIndent(releaseHashTemplates(), "", "\t")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
		t.Logf("wrote %s: now run testdata/releasehash/ref.sh", path)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var corpus []releaseHashEntry
	require.NoError(t, json.Unmarshal(data, &corpus))
	require.NotEmpty(t, corpus)
	for _, e := range corpus {
		var tmpl v1.PodTemplateSpec
		require.NoError(t, json.Unmarshal(e.Template, &tmpl), e.Name)
		for _, v := range SupportedVersions() {
			release := fmt.Sprintf("1.%d", v.Minor())
			want, ok := e.Hash[release]
			require.True(t, ok, "%s: no %s hash in %s: run testdata/releasehash/ref.sh", e.Name, release, path)
			require.Equal(t, want, v.ComputeHash(&tmpl, e.CollisionCount), "%s hashed as release %s", e.Name, release)
		}
	}
}

func ExampleVersion_ComputeHash() {
	tmpl := &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}}
	for _, release := range []string{"1.36", "1.37"} {
		version, err := ParseVersion(release)
		if err != nil {
			panic(err)
		}
		// The same template hashes differently in each release, whatever k8s.io/api is linked.
		fmt.Println(version, version.ComputeHash(tmpl, nil))
	}
	// Output:
	// 1.36.3 7f88ddc98d
	// 1.37.2 645b9dd696
}
