package daemonset

// Internal tests: currentRevision and revisionOutcome are unexported. The revision patch
// (UPD-16), the ControllerRevision a sync creates, and how the current revision is found
// (UPD-14, UPD-21).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/internal/apitest"
	"github.com/daemonsched/daemonsched/selector"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// revDS is the DaemonSet of the revision tests: foo in default, selector app=d.
func revDS() *appsv1.DaemonSet {
	return apitest.DaemonSet(apitest.Rolling(apitest.Int(1), nil), func(ds *appsv1.DaemonSet) {
		ds.UID = "ds-uid"
		ds.Annotations = map[string]string{"note": "x"}
		ds.Spec.Template.Spec.Containers[0].Image = "img:1"
		ds.Spec.Template.Spec.RestartPolicy = "" // the pinned patch bytes have none
	})
}

// revPatchIndependently builds the UPD-16 patch another way than revisionPatch: the whole
// DaemonSet is encoded, decoded with json.Number (which keeps every number's text), given
// "$patch", and encoded again.
func revPatchIndependently(t *testing.T, ds *appsv1.DaemonSet) []byte {
	t.Helper()
	whole, err := json.Marshal(ds)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(whole))
	dec.UseNumber()
	var obj map[string]any
	require.NoError(t, dec.Decode(&obj))
	tmpl := obj["spec"].(map[string]any)["template"].(map[string]any)
	tmpl["$patch"] = "replace"
	out, err := json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
	require.NoError(t, err)
	return out
}

func TestRevisionPatch(t *testing.T) {
	t.Parallel()
	t.Run("UPD-16 the patch of a small DaemonSet has exactly these bytes", func(t *testing.T) {
		got, err := revisionPatch(revDS(), NewestVersion())
		require.NoError(t, err)
		want := `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"d"}},` +
			`"spec":{"containers":[{"image":"img:1","name":"c","resources":{}}]}}}}`
		require.Equal(t, want, string(got))
	})
	templates := revTemplates()
	for _, name := range []string{"empty", "typical", "empty tolerations", "nil tolerations", "creation time"} {
		t.Run("UPD-16 the patch equals an independent computation for the "+name+" template", func(t *testing.T) {
			ds := revDS()
			ds.Spec.Template = templates[name]
			ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, v1.Container{
				Name: "unicode-é-<&>", Image: "x", Args: []string{"\u2028", "\"quoted\"", "\x7f"},
				Resources: v1.ResourceRequirements{Limits: v1.ResourceList{"example.com/big": resource.MustParse("9007199254740993")}},
			})
			ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](1 << 62)
			ds.Status.NumberReady = 3
			before := ds.DeepCopy()
			got, err := revisionPatch(ds, NewestVersion())
			require.NoError(t, err)
			require.Equal(t, string(revPatchIndependently(t, ds)), string(got))
			if diff := cmp.Diff(before, ds); diff != "" {
				t.Errorf("revisionPatch mutated the DaemonSet (-before +after):\n%s", diff)
			}
		})
	}
	t.Run("UPD-16 SCN-107 strategy, minReadySeconds, selector and status leave the patch unchanged", func(t *testing.T) {
		a, err := revisionPatch(revDS(), NewestVersion())
		require.NoError(t, err)
		ds := revDS()
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		ds.Spec.MinReadySeconds = 10
		ds.Spec.Selector.MatchLabels["extra"] = "y"
		ds.Status.CollisionCount = ptr.To[int32](4)
		ds.Annotations = map[string]string{"changed": "yes"}
		b, err := revisionPatch(ds, NewestVersion())
		require.NoError(t, err)
		require.Equal(t, string(a), string(b))
	})
	t.Run("UPD-16 large integers stay integral", func(t *testing.T) {
		ds := revDS()
		ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](9007199254740993)
		got, err := revisionPatch(ds, NewestVersion())
		require.NoError(t, err)
		require.Contains(t, string(got), `"activeDeadlineSeconds":9007199254740993`)
	})
}

func TestNewRevision(t *testing.T) {
	t.Parallel()
	ds := revDS()
	before := ds.DeepCopy()
	got, err := NewRevision(ds, "abc", 3)
	require.NoError(t, err)
	patch, err := revisionPatch(ds, NewestVersion())
	require.NoError(t, err)
	want := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "foo-abc",
			Namespace:   "default",
			Labels:      map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: "abc"},
			Annotations: map[string]string{"note": "x"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: "foo", UID: "ds-uid",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: 3,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewRevision() mismatch (-want +got):\n%s", diff)
	}
	got.Labels["mutated"] = "y"
	got.Annotations["mutated"] = "y"
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("NewRevision shares maps with the DaemonSet (-before +after):\n%s", diff)
	}
}

// revOwned returns a revision of ds named name with the given data source, revision number and
// hash label (none when hash is "-"), controlled by ds.
func revOwned(t *testing.T, ds *appsv1.DaemonSet, name string, number int64, hash string) *appsv1.ControllerRevision {
	t.Helper()
	r, err := NewRevision(ds, "unused", number)
	require.NoError(t, err)
	r.Name = name
	if hash == "-" {
		delete(r.Labels, appsv1.DefaultDaemonSetUniqueLabelKey)
	} else {
		r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	return r
}

// revOldTemplate is ds with another image: its revisions are not current for ds.
func revOldTemplate(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	old := ds.DeepCopy()
	old.Spec.Template.Spec.Containers[0].Image = "img:0"
	return old
}

func TestCurrentRevision(t *testing.T) {
	t.Parallel()
	ds := revDS()
	fresh := v1363.ComputeHash(&ds.Spec.Template, nil)
	old := revOldTemplate(ds)
	mod := func(r *appsv1.ControllerRevision, f func(*appsv1.ControllerRevision)) *appsv1.ControllerRevision {
		f(r)
		return r
	}
	type want struct {
		hash, name        string
		revision          int64
		create, collision bool
		old, duplicates   []string
	}
	tests := []struct {
		name      string
		ds        *appsv1.DaemonSet
		revisions func(t *testing.T) []*appsv1.ControllerRevision
		want      want
	}{
		{name: "D-6 UPD-15 no revisions gives the fresh hash and a new revision 1",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision { return nil },
			want:      want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "UPD-14 SCN-104 a matching owned revision gives its label even when it differs from the fresh hash",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-custom", 4, "custom")}
			},
			want: want{hash: "custom", name: "foo-custom", revision: 4}},
		{name: "UPD-14 a matching revision without the hash label gives its name",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-unlabelled", 1, "-")}
			},
			want: want{hash: "foo-unlabelled", name: "foo-unlabelled", revision: 1}},
		{name: "UPD-14 a matching revision with an empty hash label gives the empty hash",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-empty", 1, "")}
			},
			want: want{hash: "", name: "foo-empty", revision: 1}},
		{name: "UPD-14 only old revisions give the fresh hash and the next revision number",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, old, "foo-old5", 5, "old5"), revOwned(t, old, "foo-old2", 2, "old2")}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 6, create: true, old: []string{"foo-old2", "foo-old5"}}},
		{name: "UPD-14 a current revision numbered below the old ones is bumped",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-cur", 1, "cur"), revOwned(t, old, "foo-old", 7, "old")}
			},
			want: want{hash: "cur", name: "foo-cur", revision: 8, old: []string{"foo-old"}}},
		{name: "UPD-14 among several current revisions the highest revision wins",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-a", 2, "a"), revOwned(t, ds, "foo-b", 9, "b"), revOwned(t, ds, "foo-c", 3, "c")}
			},
			want: want{hash: "b", name: "foo-b", revision: 9, duplicates: []string{"foo-a", "foo-c"}}},
		{name: "D-1 UPD-14 among equally numbered current revisions the smallest name wins",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-z", 3, "z"), revOwned(t, ds, "foo-m", 3, "m"), revOwned(t, ds, "foo-y", 3, "y")}
			},
			want: want{hash: "m", name: "foo-m", revision: 3, duplicates: []string{"foo-y", "foo-z"}}},
		{name: "OWN-12 a matching revision controlled by another uid is not claimed",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-other", 3, "other"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].UID = "another-uid"
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "OWN-12 a controller reference with the DaemonSet uid claims whatever its kind and name",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-rs", 3, "rs"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].Kind = "ReplicaSet"
					r.OwnerReferences[0].Name = "bar"
				})}
			},
			want: want{hash: "rs", name: "foo-rs", revision: 3}},
		{name: "OWN-12 an owned revision whose labels the selector no longer matches is released",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-released", 3, "released"), func(r *appsv1.ControllerRevision) {
					r.Labels["app"] = "other"
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "OWN-12 a terminating owned revision is still claimed",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-dying", 3, "dying"), func(r *appsv1.ControllerRevision) {
					r.DeletionTimestamp = &metav1.Time{}
				})}
			},
			want: want{hash: "dying", name: "foo-dying", revision: 3}},
		{name: "OWN-12 a matching orphan is adopted",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-orphan", 2, "orphan"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences = nil
				})}
			},
			want: want{hash: "orphan", name: "foo-orphan", revision: 2}},
		{name: "OWN-12 an owner reference that is not a controller leaves an orphan",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-weak", 2, "weak"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].UID = "another-uid"
					r.OwnerReferences[0].Controller = ptr.To(false)
				})}
			},
			want: want{hash: "weak", name: "foo-weak", revision: 2}},
		{name: "OWN-12 a terminating orphan is not adopted",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-orphan", 2, "orphan"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences = nil
					r.DeletionTimestamp = &metav1.Time{}
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "OWN-12 an orphan the selector does not match is not adopted",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-orphan", 2, "orphan"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences = nil
					r.Labels = nil
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "OWN-12 a revision in another namespace is invisible",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-elsewhere", 2, "elsewhere"), func(r *appsv1.ControllerRevision) {
					r.Namespace = "other"
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "nil revisions are skipped",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{nil, revOwned(t, ds, "foo-x", 1, "x"), nil}
			},
			want: want{hash: "x", name: "foo-x", revision: 1}},
		{name: "UPD-21 D-10 an old claimed revision holding the new name is a collision",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, old, "foo-"+fresh, 1, fresh)}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 2, collision: true, old: []string{"foo-" + fresh}}},
		{name: "UPD-21 D-10 a revision of another owner holding the new name is a collision",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, old, "foo-"+fresh, 1, fresh), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].UID = "another-uid"
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, collision: true}},
		{name: "UPD-21 a terminating orphan holding the new name with other data is a collision",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, old, "foo-"+fresh, 1, fresh), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences = nil
					r.DeletionTimestamp = &metav1.Time{}
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, collision: true}},
		{name: "UPD-14 an unclaimed revision holding the new name with the same data is reused with its label",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-"+fresh, 4, "its-label"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].UID = "another-uid"
				})}
			},
			want: want{hash: "its-label", name: "foo-" + fresh, revision: 4}},
		{name: "UPD-14 a reused unclaimed revision without the hash label gives the empty hash as upstream",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, ds, "foo-"+fresh, 4, "-"), func(r *appsv1.ControllerRevision) {
					r.OwnerReferences[0].UID = "another-uid"
				})}
			},
			want: want{hash: "", name: "foo-" + fresh, revision: 4}},
		{name: "UPD-21 a revision of the new name in another namespace is no collision",
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{mod(revOwned(t, old, "foo-"+fresh, 1, fresh), func(r *appsv1.ControllerRevision) {
					r.Namespace = "other"
				})}
			},
			want: want{hash: fresh, name: "foo-" + fresh, revision: 1, create: true}},
		{name: "SCN-105 UPD-15 collisionCount enters the fresh hash",
			ds: func() *appsv1.DaemonSet { d := revDS(); d.Status.CollisionCount = ptr.To[int32](0); return d }(),
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, old, "foo-"+fresh, 1, fresh)}
			},
			want: want{hash: v1363.ComputeHash(&ds.Spec.Template, ptr.To[int32](0)), name: "foo-" + v1363.ComputeHash(&ds.Spec.Template, ptr.To[int32](0)),
				revision: 2, create: true, old: []string{"foo-" + fresh}}},
		{name: "SCN-107 UPD-16 a revision written before a strategy and minReadySeconds change is still current",
			ds: func() *appsv1.DaemonSet {
				d := revDS()
				d.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
				d.Spec.MinReadySeconds = 30
				return d
			}(),
			revisions: func(t *testing.T) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{revOwned(t, ds, "foo-before", 1, "before")}
			},
			want: want{hash: "before", name: "foo-before", revision: 1}},
	}
	sel, errs := selector.Compile(ds.Spec.Selector, field.NewPath("spec", "selector"))
	require.Empty(t, errs)
	names := func(rs []*appsv1.ControllerRevision) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := ds
			if tt.ds != nil {
				d = tt.ds
			}
			revs := tt.revisions(t)
			dsBefore := d.DeepCopy()
			var revsBefore []*appsv1.ControllerRevision
			for _, r := range revs {
				revsBefore = append(revsBefore, r.DeepCopy())
			}
			out := currentRevision(d, revs, sel, newTemplateDigest(d, Version{1, 36, 3}), nil)
			got := want{
				hash: out.hash, name: out.name, revision: out.revision, create: out.create, collision: out.collision,
				old: names(out.old), duplicates: names(out.duplicates),
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("currentRevision() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(dsBefore, d); diff != "" {
				t.Errorf("currentRevision mutated the DaemonSet (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(revsBefore, revs); diff != "" {
				t.Errorf("currentRevision mutated the revisions (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCurrentRevisionRoundTrip checks that the revision NewRevision builds for the outcome of
// a first sync is current in the next one (UPD-14 step 5, then step 2).
func TestCurrentRevisionRoundTrip(t *testing.T) {
	t.Parallel()
	ds := revDS()
	sel, errs := selector.Compile(ds.Spec.Selector, nil)
	require.Empty(t, errs)
	first := currentRevision(ds, nil, sel, newTemplateDigest(ds, Version{1, 36, 3}), nil)
	require.True(t, first.create)
	rev, err := NewRevision(ds, first.hash, first.revision)
	require.NoError(t, err)
	second := currentRevision(ds, []*appsv1.ControllerRevision{rev}, sel, newTemplateDigest(ds, Version{1, 36, 3}), nil)
	require.False(t, second.create)
	require.False(t, second.collision)
	require.Equal(t, first.hash, second.hash)
	require.Equal(t, first.name, second.name)
}

// TestCurrentRevisionNilSelector checks that a nil selector claims nothing (SEL-1): only the
// name lookup of UPD-21 still sees revisions.
func TestCurrentRevisionNilSelector(t *testing.T) {
	t.Parallel()
	ds := revDS()
	rev := revOwned(t, ds, "foo-custom", 3, "custom")
	out := currentRevision(ds, []*appsv1.ControllerRevision{rev}, nil, newTemplateDigest(ds, Version{1, 36, 3}), nil)
	require.Equal(t, v1363.ComputeHash(&ds.Spec.Template, nil), out.hash)
	require.True(t, out.create)
}

// BenchmarkCurrentRevision measures choosing among ten claimed revisions, one of them current
// (UPD-14), as Plan does once per sync.
func BenchmarkCurrentRevision(b *testing.B) {
	ds := revDS()
	old := revOldTemplate(ds)
	var revs []*appsv1.ControllerRevision
	for i := range 9 {
		r, _ := NewRevision(old, fmt.Sprint("old", i), int64(i+1))
		revs = append(revs, r)
	}
	cur, _ := NewRevision(ds, "cur", 10)
	revs = append(revs, cur)
	sel, _ := selector.Compile(ds.Spec.Selector, nil)
	b.ReportAllocs()
	for b.Loop() {
		revSinkHash = currentRevision(ds, revs, sel, newTemplateDigest(ds, Version{1, 36, 3}), nil).hash
	}
}

func TestRevisionFunctionsPanicOnNil(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "daemonset: NewRevision: nil DaemonSet", func() { _, _ = NewRevision(nil, "h", 1) })
}

// TestRevisionPatchAtEachRelease: until 1.33 a revision's data says the template's zero
// creation time, as null; from 1.34 it leaves it out, whatever k8s.io/api is linked (VER-12,
// UPD-16). A revision stored with the other releases' bytes is therefore not current, and the
// sync creates its own, as the release's controller does (its Match compares the bytes).
func TestRevisionPatchAtEachRelease(t *testing.T) {
	t.Parallel()
	const (
		until133 = `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"d"}},` +
			`"spec":{"containers":[{"image":"img:1","name":"c","resources":{}}]}}}}`
		from134 = `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"d"}},` +
			`"spec":{"containers":[{"image":"img:1","name":"c","resources":{}}]}}}}`
	)
	tests := []struct{ release, want, other string }{
		{"1.33.0", until133, from134},
		{"1.33.13", until133, from134},
		{"1.34.0", from134, until133},
		{"1.35", from134, until133},
		{"1.36", from134, until133},
		{"1.37", from134, until133},
	}
	for _, tt := range tests {
		t.Run("VER-12 UPD-16 at "+tt.release, func(t *testing.T) {
			v, err := ParseVersion(tt.release)
			require.NoError(t, err)
			ds := revDS()
			got, err := revisionPatch(ds, v)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))

			p, errs := Compile(ds, Options{Version: v, Now: time.Unix(1000, 0)})
			require.Empty(t, errs)
			nodes := []*v1.Node{apitest.Node("n0")}
			stored := func(raw string) []*appsv1.ControllerRevision {
				return []*appsv1.ControllerRevision{newRevision(ds, "stored", 1, []byte(raw))}
			}
			res := p.Plan(Snapshot{Nodes: nodes, Revisions: stored(tt.want)})
			require.Equal(t, "stored", res.RevisionHash, "the release's own bytes are current")
			require.True(t, res.Revisions == nil || len(res.Revisions.Create) == 0, "no revision created: %+v", res.Revisions)

			res = p.Plan(Snapshot{Nodes: nodes, Revisions: stored(tt.other)})
			require.Equal(t, v.ComputeHash(&ds.Spec.Template, nil), res.RevisionHash, "the other releases' bytes are not current")
			require.NotNil(t, res.Revisions)
			require.Len(t, res.Revisions.Create, 1)
			require.Equal(t, tt.want, string(res.Revisions.Create[0].Data.Raw))
		})
	}
	t.Run("VER-12 an ephemeral volume's claim template says its zero creation time as the release does", func(t *testing.T) {
		ds := revDS()
		ds.Spec.Template.Spec.Volumes = []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{
			Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{}}}}}
		for release, want := range map[string]string{
			"1.33.13": `"volumeClaimTemplate":{"metadata":{"creationTimestamp":null},`,
			"1.34.0":  `"volumeClaimTemplate":{"metadata":{},`,
		} {
			v, err := ParseVersion(release)
			require.NoError(t, err)
			got, err := revisionPatch(ds, v)
			require.NoError(t, err)
			require.Contains(t, string(got), want, release)
		}
	})
	t.Run("VER-12 a creation time that is set is written alike at every release", func(t *testing.T) {
		ds := revDS()
		ds.Spec.Template.CreationTimestamp = metav1.Unix(1000, 0)
		var want string
		for _, v := range SupportedVersions() {
			got, err := revisionPatch(ds, v)
			require.NoError(t, err)
			require.Contains(t, string(got), `"creationTimestamp":"`)
			if want == "" {
				want = string(got)
			}
			require.Equal(t, want, string(got), "at %s", v)
		}
	})
}

// TestVersionNewRevision: a release's revision carries that release's bytes (VER-12), so it is
// current in a plan at that release; NewRevision is the newest release's.
func TestVersionNewRevision(t *testing.T) {
	t.Parallel()
	for _, v := range SupportedVersions() {
		ds := revDS()
		rev, err := v.NewRevision(ds, "stored", 1)
		require.NoError(t, err)
		want, err := revisionPatch(ds, v)
		require.NoError(t, err)
		require.Equal(t, string(want), string(rev.Data.Raw), "VER-12 at %s", v)
		p, errs := Compile(ds, Options{Version: v, Now: time.Unix(1000, 0)})
		require.Empty(t, errs)
		res := p.Plan(Snapshot{Nodes: []*v1.Node{apitest.Node("n0")}, Revisions: []*appsv1.ControllerRevision{rev}})
		require.Equal(t, "stored", res.RevisionHash, "UPD-16 at %s", v)
	}
	newest, err := NewRevision(revDS(), "h", 1)
	require.NoError(t, err)
	at, err := NewestVersion().NewRevision(revDS(), "h", 1)
	require.NoError(t, err)
	require.Equal(t, at, newest)
}

// templateMetas finds every ObjectMeta a PodTemplateSpec embeds (VER-12): walked in the linked
// types, the JSON paths of ObjectMeta are exactly the two it reads, so a k8s.io/api that embeds
// another fails here before a release's revision data can silently differ.
func TestTemplateMetasAreEveryObjectMeta(t *testing.T) {
	t.Parallel()
	var paths []string
	var walk func(ty reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(ty reflect.Type, path string, seen map[reflect.Type]bool) {
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			walk(ty.Elem(), path, seen)
			return
		case reflect.Struct:
		default:
			return
		}
		if ty == reflect.TypeFor[metav1.ObjectMeta]() {
			paths = append(paths, path)
			return
		}
		if seen[ty] {
			return
		}
		seen[ty] = true
		defer delete(seen, ty)
		for f := range ty.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				walk(f.Type, path, seen)
				continue
			}
			walk(f.Type, path+"."+name, seen)
		}
	}
	walk(reflect.TypeFor[v1.PodTemplateSpec](), "", map[reflect.Type]bool{})
	require.Equal(t, []string{".metadata", ".spec.volumes.ephemeral.volumeClaimTemplate.metadata"}, paths)

	template := map[string]any{
		"metadata": map[string]any{"a": 1},
		"spec": map[string]any{"volumes": []any{
			map[string]any{"name": "x"},
			map[string]any{"ephemeral": map[string]any{"volumeClaimTemplate": map[string]any{"metadata": map[string]any{"b": 2}}}},
		}},
	}
	require.Equal(t, []map[string]any{{"a": 1}, {"b": 2}}, templateMetas(template))
}
