package manifest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/printable"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// addApplied keeps a DaemonSet of an input marked [Input.Apply], in the namespace of the input
// when it has none, as `kubectl apply -n` does. Other kinds are skipped, as a bundle of a
// DaemonSet with its ServiceAccount and ClusterRole holds them, with one counted warning per
// kind.
func (in *collector) addApplied(d decoded) error {
	ds, ok := d.obj.(*appsv1.DaemonSet)
	if !ok {
		in.skipApplied(d)
		return nil
	}
	if d.tn.Metadata.Namespace == "" && in.applyNamespace != "" {
		ds.Namespace = in.applyNamespace // the decoded object is the collector's own
	}
	in.applied = append(in.applied, located[*appsv1.DaemonSet]{ds, d.src})
	raw := d.raw
	if len(d.unknown) > 0 {
		// kubectl would have the API server refuse them (--validate=strict); read leniently,
		// the typed object (without them) is applied instead.
		raw = nil
	}
	in.appliedJSON = append(in.appliedJSON, raw)
	return nil
}

// appliedSkips counts the objects of one Apply input that are not DaemonSets, by kind in the
// order first seen, for the one warning that input gets.
type appliedSkips struct {
	warning int // index in collector.skipped; -1 before the first
	kinds   []string
	counts  []int
}

// skipApplied counts an object of an Apply input that is not a DaemonSet in the one warning of
// that input, which names the first such object and counts them by kind.
func (in *collector) skipApplied(d decoded) {
	sk := &in.applySkips
	if d.tn.Metadata.Namespace == "" && d.namespace != "" && in.applyNamespace != "" {
		d.namespace = in.applyNamespace
	}
	if sk.warning < 0 {
		sk.warning = len(in.skipped)
		in.skipped = append(in.skipped, d.warning(WarningSkippedKind, "", ""))
	} else {
		in.skipped[sk.warning].More++
	}
	kind := printable.Quote(d.tn.Kind)
	if i := slices.Index(sk.kinds, kind); i >= 0 {
		sk.counts[i]++
	} else {
		sk.kinds, sk.counts = append(sk.kinds, kind), append(sk.counts, 1)
	}
	parts := make([]string, len(sk.kinds))
	for i, k := range sk.kinds {
		parts[i] = strconv.Itoa(sk.counts[i]) + " " + k
	}
	in.skipped[sk.warning].Message = "skipped: only the DaemonSets of an applied input are applied, not " + strings.Join(parts, ", ")
}

// overlay applies the DaemonSets of the Apply inputs over those of the others as `kubectl
// apply` (client-side) would have the API server store them ([apiserver.ApplyJSON], D-14): the
// three-way merge of the file's JSON, as kubectl reads it, with the stored DaemonSet's
// last-applied configuration, the defaults, the update validation and the generation bumps; a
// DaemonSet the others do not hold is created. A DaemonSet with fields the types do not know
// (read leniently) is applied as the typed object ([apiserver.Apply]).
// A change the API server would refuse is an error with its paths and messages; so are two
// applied DaemonSets of one name.
func (in *collector) overlay() error {
	if err := duplicates(in.applied, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name }, "DaemonSet"); err != nil {
		return err
	}
	live := make(map[[2]string]int, len(in.daemonSets))
	for i, d := range in.daemonSets {
		live[[2]string{d.obj.Namespace, d.obj.Name}] = i
	}
	opts := apiserver.Options{Version: in.opts.Version, FeatureGates: in.opts.FeatureGates, SkipTemplateDefaults: !in.opts.applies(DefaultPodTemplate)}
	for j, a := range in.applied {
		var stored *appsv1.DaemonSet
		i, ok := live[[2]string{a.obj.Namespace, a.obj.Name}]
		if ok {
			// The API server holds it defaulted.
			stored = defaulted(in.daemonSets[i].obj, in.opts)
		}
		var merged *appsv1.DaemonSet
		var errs field.ErrorList
		if raw, err := withIdentity(in.appliedJSON[j], a.obj); err == nil && raw != nil {
			merged, errs = apiserver.ApplyJSON(stored, raw, opts)
		} else {
			merged, errs = apiserver.Apply(stored, a.obj, opts)
		}
		if len(errs) > 0 {
			verb := "update"
			if !ok {
				verb = "create"
			}
			return fmt.Errorf("%v: DaemonSet %s/%s: the API server would refuse this %s: %w", a.src,
				printable.Quote(a.obj.Namespace), printable.Quote(a.obj.Name), verb, errlist.Aggregate(errs))
		}
		if ok {
			in.daemonSets[i] = located[*appsv1.DaemonSet]{merged, a.src}
			continue
		}
		in.newApplied = append(in.newApplied, Warning{
			Reason: WarningAppliedNew, Source: a.src, APIVersion: a.obj.APIVersion, Kind: "DaemonSet",
			Namespace: a.obj.Namespace, Name: a.obj.Name,
			Message: "not in the input; planned as new" + closestLive(a.obj, slices.Collect(maps.Keys(live))),
		})
		in.daemonSets = append(in.daemonSets, located[*appsv1.DaemonSet]{merged, a.src})
	}
	return nil
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

// withIdentity returns raw, the JSON of an applied DaemonSet, with the namespace ds was given
// (-n, or DefaultNamespace) when raw has none, as kubectl sets it on the object before it
// computes the patch; nil when raw is nil.
func withIdentity(raw []byte, ds *appsv1.DaemonSet) ([]byte, error) {
	if raw == nil {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(m["metadata"], &meta); err != nil || meta == nil {
		return nil, fmt.Errorf("metadata is not an object")
	}
	var ns string
	if n, ok := meta["namespace"]; ok {
		if err := json.Unmarshal(n, &ns); err != nil {
			return nil, err
		}
	}
	if ns != "" || ds.Namespace == "" {
		return raw, nil
	}
	meta["namespace"], _ = json.Marshal(ds.Namespace)
	var err error
	if m["metadata"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
