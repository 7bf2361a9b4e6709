package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// A case whose expectations hold for some releases only (most often because its pods and
// revisions carry one minor's template hash, VER-2) gets counterparts: the same scenario for
// the release groups it does not hold at, its pods and revisions carrying that release's
// hashes, its expectations that release's plans (VER-1). So every supported release runs the
// same number of cases in every profile (TestEveryReleaseRunsEveryScenario), and an
// implementation is checked as much at the default release as at the corpus's own.

// counterparts returns the counterparts of case c, newest release first: for each release
// group (releaseGroups) c does not hold at, unless an earlier counterpart already does, the
// case at the group's newest release. c's snapshot is only read.
func counterparts(t *testing.T, c Case) []Case {
	t.Helper()
	own, err := c.release()
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	groups := corpusGroups(t)
	var out []Case
	held := func(v daemonset.Version) bool {
		for _, x := range append([]Case{c}, out...) {
			ok, err := x.HoldsAt(v)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				return true
			}
		}
		return false
	}
	for i := len(groups) - 1; i >= 0; i-- {
		rep := groups[i][len(groups[i])-1]
		if held(rep) {
			continue
		}
		out = append(out, counterpartAt(t, c, s, own, rep))
	}
	return out
}

// counterpartAt is case c, which holds at release own, as a case of release v: its objects
// with every template hash of own's (that of each DaemonSet's template, at each collision
// count up to its status's) replaced by v's, in pod and revision labels and names, and
// expectations computed at v. s is c's snapshot.
func counterpartAt(t *testing.T, c Case, s daemonset.Snapshot, own, v daemonset.Version) Case {
	t.Helper()
	hashes := hashesAt(s, own, v)
	data := revisionDataAt(t, s, own, v)
	objs := make([]json.RawMessage, 0, len(c.Objects))
	for i, raw := range c.Objects {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("case %s: objects[%d]: %v", c.Name, i, err)
		}
		if kind := m["kind"]; kind == "Pod" || kind == "ControllerRevision" {
			if meta, ok := m["metadata"].(map[string]any); ok {
				retargetMeta(meta, hashes)
			}
		}
		if kind := m["kind"]; kind == "ControllerRevision" && m["data"] != nil {
			if to, ok := data[canonicalJSON(t, m["data"])]; ok {
				m["data"] = to
			}
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, data)
	}
	minor := fmt.Sprintf("%d.%d", v.Major(), v.Minor())
	release := minor
	if v != newestPatchOf(v) {
		release = v.String()
	}
	cp := Case{
		Name: c.Name + "-k8s-" + strings.ReplaceAll(release, ".", "-"),
		Source: fmt.Sprintf("counterpart of case %s for Kubernetes %s (conformance/counterparts_test.go): its objects with %s's template hashes, "+
			"its expectations the project's plan at %s; the case's source: %s", c.Name, release, minor, v, c.Source),
		Kubernetes: "v" + v.String(),
		Surprises:  c.Surprises,
		Now:        c.Now,
		BurstLimit: c.BurstLimit,
		Objects:    objs,
	}
	description := c.Description + " (Kubernetes " + release + "'s counterpart of " + c.Name + ": the same objects with that release's template hashes, and its controller's plan.)"
	finish(t, &cp, description, c.Profile, c.Rules...)
	return cp
}

// hashesAt maps the template hashes of release own to those of release v: that of each
// DaemonSet of s, at each collision count up to its status's.
func hashesAt(s daemonset.Snapshot, own, v daemonset.Version) map[string]string {
	hashes := map[string]string{}
	for _, ds := range s.DaemonSets {
		var top int32
		if ds.Status.CollisionCount != nil {
			top = *ds.Status.CollisionCount
		}
		hashes[own.ComputeHash(&ds.Spec.Template, nil)] = v.ComputeHash(&ds.Spec.Template, nil)
		for n := int32(0); n <= top; n++ {
			hashes[own.ComputeHash(&ds.Spec.Template, &n)] = v.ComputeHash(&ds.Spec.Template, &n)
		}
	}
	return hashes
}

// revisionDataAt maps the data of the revision each DaemonSet of s has at release own to its
// data at release v, each read from the revision a sync at that release creates when none is
// stored: the bytes differ between releases (VER-12), and a release's controller finds a
// revision current only by its own bytes, so a counterpart's revisions carry v's. The keys are
// canonicalJSON of the data.
func revisionDataAt(t *testing.T, s daemonset.Snapshot, own, v daemonset.Version) map[string]any {
	t.Helper()
	created := func(ds *appsv1.DaemonSet, at daemonset.Version) (any, bool) {
		// A cluster plan, as the corpus's, plans what Compile refuses (SYNC-5, VAL-*).
		c, err := daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}}.Plan(daemonset.Options{Version: at, Now: time.Unix(0, 0)})
		if err != nil || len(c.DaemonSets) != 1 {
			return nil, false
		}
		res := c.DaemonSets[0]
		if res.Revisions == nil || len(res.Revisions.Create) != 1 {
			return nil, false
		}
		var out any
		if err := json.Unmarshal(res.Revisions.Create[0].Data.Raw, &out); err != nil {
			t.Fatal(err)
		}
		return out, true
	}
	out := map[string]any{}
	for _, ds := range s.DaemonSets {
		from, ok := created(ds, own)
		to, ok2 := created(ds, v)
		if ok && ok2 {
			out[canonicalJSON(t, from)] = to
		}
	}
	return out
}

// canonicalJSON is x as encoding/json writes it, map keys sorted.
func canonicalJSON(t *testing.T, x any) string {
	t.Helper()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// retargetMeta replaces, in an object's metadata, a template hash that is a key of hashes with
// its value: the controller-revision-hash label, and a name that ends with -HASH.
func retargetMeta(meta map[string]any, hashes map[string]string) {
	if labels, ok := meta["labels"].(map[string]any); ok {
		if h, ok := labels[appsv1.DefaultDaemonSetUniqueLabelKey].(string); ok {
			if to, ok := hashes[h]; ok {
				labels[appsv1.DefaultDaemonSetUniqueLabelKey] = to
			}
		}
	}
	if name, ok := meta["name"].(string); ok {
		if i := strings.LastIndex(name, "-"); i >= 0 {
			if to, ok := hashes[name[i+1:]]; ok {
				meta["name"] = name[:i+1] + to
			}
		}
	}
}

// counterpartName matches the suffix counterparts add to their case's name.
var counterpartName = regexp.MustCompile(`-k8s-1-[0-9]+(-[0-9]+)?$`)

// TestEveryReleaseRunsEveryScenario: at every supported release, every patch included, each
// scenario of the corpus (a case and its counterparts) holds exactly once, so every profile
// runs the same number of cases whatever the release (VER-9: conformance run
// --kubernetes-version).
func TestEveryReleaseRunsEveryScenario(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	scenarios := map[string]string{} // scenario: profile
	for _, c := range cases {
		base := counterpartName.ReplaceAllString(c.Name, "")
		if p, ok := scenarios[base]; ok && p != c.Profile {
			t.Errorf("case %s is in profile %s, its scenario %s in %s", c.Name, c.Profile, base, p)
		}
		scenarios[base] = c.Profile
	}
	perProfile := map[string]int{}
	for _, p := range scenarios {
		perProfile[p]++
	}
	for _, v := range allReleases() {
		held := map[string][]string{}
		counts := map[string]int{}
		for _, c := range cases {
			ok, err := c.HoldsAt(v)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				base := counterpartName.ReplaceAllString(c.Name, "")
				held[base] = append(held[base], c.Name)
				counts[c.Profile]++
			}
		}
		for base := range scenarios {
			if len(held[base]) != 1 {
				t.Errorf("at %s, scenario %s holds in %d cases %v, want 1", v, base, len(held[base]), held[base])
			}
		}
		for _, p := range Profiles() {
			if counts[p] != perProfile[p] {
				t.Errorf("at %s, profile %s runs %d cases, want %d (one per scenario)", v, p, counts[p], perProfile[p])
			}
		}
	}
}

// TestCounterpartsAreTheSameScenario: a counterpart of a case that holds within one minor
// (its pods carry that minor's hash, VER-2) expects what the case expects, up to the template
// hashes and the revision data (VER-12): the same creates, deletes, adoptions, status and
// revision writes. The exceptions are
// the 1.33 counterparts whose pods become available at minReadySeconds on the dot, which
// 1.33 counts one second later (VER-3); they must differ, so that the list stays current.
func TestCounterpartsAreTheSameScenario(t *testing.T) {
	availableLaterIn133 := map[string]bool{"generated-06-k8s-1-33": true, "generated-12-k8s-1-33": true}
	byName := corpusByName(t)
	n := 0
	for name, cp := range byName {
		base, ok := byName[counterpartName.ReplaceAllString(name, "")]
		if !ok || base.Name == name {
			continue
		}
		if len(base.Releases) != 1 || strings.Count(base.Releases[0], ".") != 1 || strings.Contains(base.Releases[0], "-") {
			continue // it holds across minors: another rule (VER-3, VER-4) sets it apart, not the hash
		}
		n++
		own, err := base.release()
		if err != nil {
			t.Fatal(err)
		}
		v, err := cp.release()
		if err != nil {
			t.Fatal(err)
		}
		s, err := base.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		want := string(mustMarshal(t, base.expectations()))
		for from, to := range hashesAt(s, own, v) {
			want = strings.ReplaceAll(want, `"`+from+`"`, `"`+to+`"`)
			want = strings.ReplaceAll(want, `-`+from+`"`, `-`+to+`"`)
		}
		for from, to := range revisionDataAt(t, s, own, v) {
			want = strings.ReplaceAll(want, from, canonicalJSON(t, to))
		}
		got := string(mustMarshal(t, cp.expectations()))
		if availableLaterIn133[name] {
			if got == want {
				t.Errorf("counterpart %s expects what %s does: it is no exception of VER-3", name, base.Name)
			}
			continue
		}
		if got != want {
			t.Errorf("counterpart %s expects other than %s with %s's hashes:\n%s", name, base.Name, v, cmp.Diff(want, got))
		}
	}
	if n < 37*4 {
		t.Errorf("%d counterparts compared, want the 4 of each of the 37 cases that hold for 1.36 alone", n)
	}
}
