package daemonset

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonsched/daemonsched/selector"
)

// FuzzRevision decodes a DaemonSet from JSON and checks the revision functions on it: no
// panic and no mutation; revisionPatch byte-equal to an independent computation (UPD-16);
// ComputeHash made of the digits 456789bcdf and equal for a deep copy (UPD-15); and the
// revision NewRevision builds for the fresh hash makes currentRevision return that hash with
// no collision, whether the selector claims it (UPD-14 step 2) or not (reused by name, step 5).
func FuzzRevision(f *testing.F) {
	for _, seed := range []string{
		// A plain DaemonSet: selector and template labels app=d.
		`{"metadata":{"name":"foo","namespace":"default","uid":"u"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
		// SCN-106: empty tolerations, which hash differently from none.
		`{"metadata":{"name":"foo"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"tolerations":[]}}}}`,
		// SCN-105: a collision count of 0.
		`{"metadata":{"name":"foo"},"spec":{"template":{}},"status":{"collisionCount":0}}`,
		// A selector that does not match the template: the revision is not claimed, only reused by name.
		`{"metadata":{"name":"foo"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"d"}}}}}`,
		// A nil selector: nothing is claimed (SEL-1).
		`{"metadata":{"name":"foo"},"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`,
		// Quantities, large integers, HTML characters and a timestamp inside the template.
		`{"metadata":{"name":"foo"},"spec":{"template":{"metadata":{"annotations":{"x":"<&>"},"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[{"name":"c","resources":{"requests":{"cpu":"100m","memory":"1.5Gi"}}}]}}}}`,
		// Strategy and status that must not change the patch (SCN-107).
		`{"metadata":{"name":"foo"},"spec":{"minReadySeconds":5,"updateStrategy":{"type":"OnDelete"},"template":{}},"status":{"numberReady":3}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ds appsv1.DaemonSet
		if err := json.Unmarshal(data, &ds); err != nil {
			return
		}
		before := ds.DeepCopy()

		patch, err := revisionPatch(&ds, NewestVersion())
		if err != nil {
			t.Fatalf("revisionPatch: %v", err)
		}
		if want := revPatchIndependently(t, &ds); string(want) != string(patch) {
			t.Fatalf("revisionPatch differs from the independent computation:\n got: %s\nwant: %s", patch, want)
		}

		hash := v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
		if hash == "" || strings.Trim(hash, "456789bcdf") != "" {
			t.Fatalf("ComputeHash = %q, want digits of 456789bcdf", hash)
		}
		if copied := before.DeepCopy(); v1363.ComputeHash(&copied.Spec.Template, copied.Status.CollisionCount) != hash {
			t.Fatalf("ComputeHash differs for a deep copy")
		}

		if sel, errs := selector.Compile(ds.Spec.Selector, nil); len(errs) == 0 {
			rev, err := NewRevision(&ds, hash, 1)
			if err != nil {
				t.Fatalf("NewRevision: %v", err)
			}
			out := currentRevision(&ds, []*appsv1.ControllerRevision{rev}, sel, newTemplateDigest(&ds, Version{1, 36, 3}), nil)
			if out.collision || out.create || out.hash != hash {
				t.Fatalf("currentRevision with its own new revision = %+v, want hash %q, no collision, no create", out, hash)
			}
		}
		if diff := cmp.Diff(before, &ds); diff != "" {
			t.Fatalf("the revision functions mutated the DaemonSet (-before +after):\n%s", diff)
		}
	})
}
