package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/daemonsched/daemonsched/internal/printable"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// addApplied keeps a DaemonSet of an input marked [Input.Apply]; other kinds are refused there.
func (in *collector) addApplied(d decoded) error {
	ds, ok := d.obj.(*appsv1.DaemonSet)
	if !ok {
		return fmt.Errorf("%s: only DaemonSets can be applied over the other inputs", d.where())
	}
	in.applied = append(in.applied, located[*appsv1.DaemonSet]{ds, d.src})
	return nil
}

// overlay applies the DaemonSets of the Apply inputs over those of the others, as `kubectl
// diff` shows what `kubectl apply` would store (D-14): a DaemonSet of the same namespace and name
// keeps its uid, creationTimestamp, resourceVersion and status, takes the applied spec whole,
// merges the applied labels and annotations over its own, and moves to the next generation when
// the spec changes; a DaemonSet the others do not hold is added as a new one. Two applied
// DaemonSets of one name are an error.
func (in *collector) overlay() error {
	if err := duplicates(in.applied, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name }, "DaemonSet"); err != nil {
		return err
	}
	live := make(map[[2]string]int, len(in.daemonSets))
	for i, d := range in.daemonSets {
		live[[2]string{d.obj.Namespace, d.obj.Name}] = i
	}
	for _, a := range in.applied {
		i, ok := live[[2]string{a.obj.Namespace, a.obj.Name}]
		if !ok {
			in.newApplied = append(in.newApplied, Warning{
				Reason: WarningAppliedNew, Source: a.src, APIVersion: a.obj.APIVersion, Kind: "DaemonSet",
				Namespace: a.obj.Namespace, Name: a.obj.Name,
				Message: "not in the input; planned as new" + closestLive(a.obj, slices.Collect(maps.Keys(live))),
			})
			in.daemonSets = append(in.daemonSets, located[*appsv1.DaemonSet]{created(a.obj), a.src})
			continue
		}
		merged, err := applyOver(in.daemonSets[i].obj, a.obj, in.opts)
		if err != nil {
			return fmt.Errorf("%v: DaemonSet %s/%s: %w", a.src, printable.Quote(a.obj.Namespace), printable.Quote(a.obj.Name), err)
		}
		in.daemonSets[i] = located[*appsv1.DaemonSet]{merged, a.src}
	}
	return nil
}

// applyOver returns live with the spec of applied and their labels and annotations merged
// (applied's win); neither is modified. Both are defaulted as opts says before their specs are
// compared.
func applyOver(live, applied *appsv1.DaemonSet, opts Options) (*appsv1.DaemonSet, error) {
	if applied.UID != "" && applied.UID != live.UID {
		return nil, fmt.Errorf("metadata.uid: %s is not the uid of the DaemonSet it is applied over (%s)", applied.UID, live.UID)
	}
	live, spec := defaulted(live, opts), defaulted(applied, opts)
	out := live.DeepCopy()
	out.Spec = *spec.Spec.DeepCopy()
	out.Labels = mergeStrings(live.Labels, applied.Labels)
	out.Annotations = mergeStrings(live.Annotations, applied.Annotations)
	// An update cannot set the template generation: it stays the live one, and moves on with
	// the generation when the template changes.
	templateGeneration, _ := strconv.ParseInt(live.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	switch {
	case !equality.Semantic.DeepEqual(live.Spec.Template, out.Spec.Template):
		templateGeneration++
		out.Generation = live.Generation + 1
	case !equality.Semantic.DeepEqual(live.Spec, out.Spec):
		out.Generation = live.Generation + 1
	}
	delete(out.Annotations, appsv1.DeprecatedTemplateGeneration)
	if templateGeneration > 0 {
		// Neither object may have had annotations.
		out.Annotations = mergeStrings(out.Annotations, map[string]string{appsv1.DeprecatedTemplateGeneration: strconv.FormatInt(templateGeneration, 10)})
	}
	return out, nil
}

// created returns ds as the API server creates it: at generation 1 and template generation 1
// unless it says otherwise. ds is not modified.
func created(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	out := ds.DeepCopy()
	if out.Generation == 0 {
		out.Generation = 1
	}
	if _, ok := out.Annotations[appsv1.DeprecatedTemplateGeneration]; !ok {
		out.Annotations = mergeStrings(out.Annotations, map[string]string{appsv1.DeprecatedTemplateGeneration: "1"})
	}
	return out
}

// mergeStrings returns a copy of a with b's entries added over it; nil when both are empty.
func mergeStrings(a, b map[string]string) map[string]string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make(map[string]string, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// closestLive returns " (NAMESPACE/NAME exists)" for the DaemonSet of live that an applied one
// most likely means: the one of the same name in another namespace (a manifest without
// metadata.namespace lands in "default"), else the one whose namespace/name is a typo of its
// own; "" when there is none.
func closestLive(applied *appsv1.DaemonSet, live [][2]string) string {
	slices.SortFunc(live, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	names := make([]string, len(live))
	for i, k := range live {
		if k[1] == applied.Name {
			return " (" + printable.Quote(k[0]) + "/" + printable.Quote(k[1]) + " exists)"
		}
		names[i] = k[0] + "/" + k[1]
	}
	if s := closest(applied.Namespace+"/"+applied.Name, names); s != "" {
		return " (" + printable.Quote(s) + " exists)"
	}
	return ""
}
