package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkRevisions compares the candidate's revision writes with the expected ones (UPD-14,
// UPD-21, UPD-22, OWN-12). A candidate without revisions is compared only when required
// (Options.Revisions). Created and updated revisions are compared by what the controller writes:
// namespace, name, labels, annotations, owner references, revision number and data (as JSON,
// whitespace aside, since a plan printed with indentation cannot keep the stored bytes); uid,
// resourceVersion and type meta are not compared. Deletions, adoptions, releases and relabels
// (of revisions and of pods) are compared as sets: their order is upstream's list order, which nothing fixes.
func checkRevisions(key string, want, got *daemonset.RevisionWrites, opts Options) []Mismatch {
	if got == nil && !opts.Revisions {
		return nil
	}
	var w, g daemonset.RevisionWrites
	if want != nil {
		w = *want
	}
	if got != nil {
		g = *got
	}
	var out []Mismatch
	add := func(object, rule, format string, args ...any) {
		out = append(out, Mismatch{DaemonSet: key, Action: "revisions", Object: object, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	objects := func(field, rule string, want, got []*appsv1.ControllerRevision) {
		wm, gm := revisionsByName(want), revisionsByName(got)
		for _, name := range unionKeys(wm, gm) {
			wr, wok := wm[name]
			gr, gok := gm[name]
			switch {
			case !gok:
				add(name, rule, "missing %s of revision %s", field, name)
			case !wok:
				add(name, rule, "unexpected %s of revision %s", field, name)
			default:
				if d := gocmp.Diff(comparableRevision(wr), comparableRevision(gr), cmpopts.EquateEmpty()); d != "" {
					out = append(out, Mismatch{DaemonSet: key, Action: "revisions", Object: name, Rule: rule,
						Message: fmt.Sprintf("the %s of revision %s differs", field, name), Diff: d})
				}
			}
		}
	}
	objects("create", "UPD-14", w.Create, g.Create)
	objects("update", "UPD-14", w.Update, g.Update)
	refs := func(field, rule string, want, got []daemonset.ObjectRef) {
		name := func(r daemonset.ObjectRef) string { return r.Namespace + "/" + r.Name }
		compareSets(field, rule, mapSlice(want, name), mapSlice(got, name), add)
	}
	refs("delete", "UPD-14", w.Delete, g.Delete)
	refs("cleanup", "UPD-22", w.Cleanup, g.Cleanup)
	refs("adopt", "OWN-12", w.Adopt, g.Adopt)
	refs("release", "OWN-12", w.Release, g.Release)
	relabel := func(r daemonset.Relabel) string { return r.Namespace + "/" + r.Name + "=" + r.Hash }
	relabelRev := func(r daemonset.Relabel) string { return r.Namespace + "/" + r.Name + "=" + r.Hash }
	compareSets("relabel", "UPD-14", mapSlice(w.Relabel, relabelRev), mapSlice(g.Relabel, relabelRev), add)
	compareSets("relabelPods", "UPD-14", mapSlice(w.RelabelPods, relabel), mapSlice(g.RelabelPods, relabel), add)
	return out
}

func compareSets(field, rule string, want, got []string, add func(object, rule, format string, args ...any)) {
	for _, x := range want {
		if !slices.Contains(got, x) {
			add(x, rule, "missing %s %s", field, x)
		}
	}
	for _, x := range got {
		if !slices.Contains(want, x) {
			add(x, rule, "unexpected %s %s", field, x)
		}
	}
}

func mapSlice[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	slices.Sort(out)
	return out
}

func revisionsByName(rs []*appsv1.ControllerRevision) map[string]*appsv1.ControllerRevision {
	m := make(map[string]*appsv1.ControllerRevision, len(rs))
	for _, r := range rs {
		if r != nil {
			m[r.Namespace+"/"+r.Name] = r
		}
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// comparableRevision is the part of r a controller's write decides, with the data compacted.
func comparableRevision(r *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	data := r.Data.Raw
	var buf bytes.Buffer
	if json.Compact(&buf, data) == nil {
		data = buf.Bytes()
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name, Labels: r.Labels,
			Annotations: r.Annotations, OwnerReferences: r.OwnerReferences},
		Data:     runtime.RawExtension{Raw: data},
		Revision: r.Revision,
	}
}
