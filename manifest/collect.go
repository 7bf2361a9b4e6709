package manifest

import (
	"crypto/sha1"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// located is a decoded object and where it came from.
type located[T any] struct {
	obj T
	src Source
}

// collector gathers what the inputs hold, in input order.
type collector struct {
	opts       Options
	reader     reader
	daemonSets []located[*appsv1.DaemonSet]
	nodes      []located[*v1.Node]
	pods       []located[*v1.Pod]
	revisions  []located[*appsv1.ControllerRevision]
	admission  admissionCollector

	skipped    []Warning // one per apiVersion and kind
	unknown    []Warning // one per kind and field pattern
	invalid    []Warning // objects read from the API server that it would now reject
	uids       []Warning
	newApplied []Warning // Apply DaemonSets the other inputs do not hold

	applying       bool                         // the input being read is an Apply input
	applyNamespace string                       // its Input.Namespace
	applySkips     appliedSkips                 // its objects that are not DaemonSets
	applied        []located[*appsv1.DaemonSet] // the DaemonSets of Apply inputs, in input order
	appliedJSON    [][]byte                     // applied's JSON as the file spells it; nil where it has unknown fields
	skipIndex      map[[2]string]int            // apiVersion and kind to their index in skipped
	unkIndex       map[[2]string]int            // kind and field pattern to their index in unknown
}

func newCollector(opts Options) *collector {
	return &collector{
		opts: opts, reader: newReader(opts),
		skipIndex: map[[2]string]int{}, unkIndex: map[[2]string]int{},
	}
}

// add adds one decoded object, in input order.
func (in *collector) add(d decoded) error {
	if len(d.unknown) > 0 {
		obj, _ := d.obj.(metav1.Object)
		if in.opts.StrictFields || in.opts.StrictHandWritten && obj != nil && HandWritten(obj) {
			msgs := make([]string, len(d.unknown))
			for i, p := range d.unknown {
				msgs[i] = p + ": unknown field" + fieldSuggestion(reflect.TypeOf(d.obj), p)
			}
			return fmt.Errorf("%s: %s", d.where(), strings.Join(msgs, "; "))
		}
		for _, p := range d.unknown {
			in.unknownField(d, p)
		}
	}
	if len(d.invalid) > 0 {
		if !fromServer(d.obj.(metav1.Object)) && !in.opts.WarnInvalidObjects {
			msgs := make([]string, len(d.invalid))
			for i, e := range d.invalid {
				msgs[i] = shortened(e).Error()
			}
			return fmt.Errorf("%s: %s", d.where(), strings.Join(msgs, "; "))
		}
		for _, e := range d.invalid {
			in.invalid = append(in.invalid, d.warning(WarningInvalidObject, e.Field, shortened(e).ErrorBody()+" (the API server would refuse it today; read as stored)"))
		}
	}
	if in.applying && (d.obj != nil || d.skip) {
		return in.addApplied(d)
	}
	switch obj := d.obj.(type) {
	case *appsv1.DaemonSet:
		in.daemonSets = append(in.daemonSets, located[*appsv1.DaemonSet]{obj, d.src})
	case *appsv1.ControllerRevision:
		in.revisions = append(in.revisions, located[*appsv1.ControllerRevision]{obj, d.src})
	case *v1.Node:
		in.nodes = append(in.nodes, located[*v1.Node]{obj, d.src})
	case *v1.Pod:
		in.pods = append(in.pods, located[*v1.Pod]{obj, d.src})
	default:
		in.admission.add(obj, d.src)
	}
	if d.skip {
		in.skip(d)
	}
	return nil
}

// warning returns a warning about the object d.
func (d decoded) warning(reason WarningReason, field, message string) Warning {
	return Warning{
		Reason: reason, Source: d.src,
		APIVersion: d.tn.APIVersion, Kind: d.tn.Kind, Namespace: d.namespace, Name: d.tn.Metadata.Name,
		Field: field, Message: message,
	}
}

// unknownField adds a warning for an unknown field, or counts one more object with it: a map
// keeps this linear in the number of fields (50,000 distinct unknown fields once took 85 s).
func (in *collector) unknownField(d decoded, path string) {
	key := [2]string{d.tn.Kind, indexPattern(path)}
	if i, ok := in.unkIndex[key]; ok {
		in.unknown[i].More++
		return
	}
	in.unkIndex[key] = len(in.unknown)
	// The schema is the linked k8s.io/api's, the newest supported release's, whatever release
	// the snapshot is planned at.
	newest := daemonset.NewestVersion()
	in.unknown = append(in.unknown, d.warning(WarningUnknownField, path,
		fmt.Sprintf("unknown field in the Kubernetes %d.%d API, ignored as by the controller%s",
			newest.Major(), newest.Minor(), fieldSuggestion(reflect.TypeOf(d.obj), path))))
}

func (in *collector) skip(d decoded) {
	key := [2]string{d.tn.APIVersion, d.tn.Kind}
	if i, ok := in.skipIndex[key]; ok {
		in.skipped[i].More++
		return
	}
	in.skipIndex[key] = len(in.skipped)
	in.skipped = append(in.skipped, d.warning(WarningSkippedKind, "", fmt.Sprintf(
		"skipped: kind %s of apiVersion %s is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node, Pod and LimitRange, node.k8s.io/v1 RuntimeClass)",
		printable.Quote(d.tn.Kind), printable.Quote(d.tn.APIVersion))))
}

// checkDuplicates rejects a snapshot the API server could not hold: two objects of one kind
// with the same name (and namespace).
func (in *collector) checkDuplicates() error {
	if err := duplicates(in.nodes, func(n *v1.Node) string { return n.Name }, "Node"); err != nil {
		return err
	}
	if err := duplicates(in.pods, func(p *v1.Pod) string { return p.Namespace + "/" + p.Name }, "Pod"); err != nil {
		return err
	}
	if err := duplicates(in.daemonSets, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name }, "DaemonSet"); err != nil {
		return err
	}
	if err := duplicates(in.revisions, func(r *appsv1.ControllerRevision) string { return r.Namespace + "/" + r.Name }, "ControllerRevision"); err != nil {
		return err
	}
	return in.admission.checkDuplicates()
}

func duplicates[T any](objs []located[T], key func(T) string, kind string) error {
	seen := make(map[string]Source, len(objs))
	for _, o := range objs {
		k := key(o.obj)
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%v: %s %s: %w (first at %v)", o.src, kind, printable.Quote(k), field.Duplicate(field.NewPath("metadata", "name"), k), first)
		}
		seen[k] = o.src
	}
	return nil
}

// applyDefaults applies the DaemonSet API defaults (D-4) and gives every DaemonSet without a
// uid the uid of the same-named DaemonSet that owns pods in the input, or else one derived from
// its namespace and name (D-5), as opts asks. Each DaemonSet changed is a copy: decoded objects
// are the collector's own, but WithDefaults copies anyway.
func (in *collector) applyDefaults() {
	var owners map[[2]string][]types.UID
	for i := range in.daemonSets {
		d := &in.daemonSets[i]
		d.obj = defaulted(d.obj, in.opts)
		if d.obj.UID != "" || !in.opts.applies(DefaultUID) {
			continue
		}
		if owners == nil {
			owners = in.podOwners()
		}
		w := Warning{
			Source: d.src, APIVersion: d.obj.APIVersion, Kind: "DaemonSet", Namespace: d.obj.Namespace, Name: d.obj.Name,
			Field: "metadata.uid",
		}
		switch uids := owners[[2]string{d.obj.Namespace, d.obj.Name}]; len(uids) {
		case 1:
			d.obj.UID = uids[0]
			w.Reason = WarningAdoptedUID
			w.Message = fmt.Sprintf("not set, using %s, the uid of the DaemonSet of this name that owns pods in the input", d.obj.UID)
		default:
			d.obj.UID = nameUID(d.obj.Namespace, d.obj.Name)
			w.Reason = WarningDerivedUID
			w.Message = fmt.Sprintf("not set, using %s (derived from namespace and name); pods belong to it only if their ownerReferences carry this uid",
				d.obj.UID)
			if len(uids) > 1 {
				w.Message += fmt.Sprintf(" (pods in the input are owned by %d DaemonSets of this name, so none is adopted)", len(uids))
			}
		}
		in.uids = append(in.uids, w)
	}
}

// defaulted returns ds with the DaemonSet and pod-template defaults opts asks for; a copy if
// any applies.
func defaulted(ds *appsv1.DaemonSet, opts Options) *appsv1.DaemonSet {
	if opts.applies(DefaultDaemonSetFields) {
		ds = daemonset.WithDefaults(ds)
	}
	if opts.applies(DefaultPodTemplate) {
		ds = daemonset.Options{Version: opts.Version, FeatureGates: opts.FeatureGates}.WithTemplateDefaults(ds, nil)
	}
	return ds
}

// podOwners maps the namespace and name of every DaemonSet that controls pods of the input
// (the controller ownerReference of kind DaemonSet) to its distinct uids, sorted.
func (in *collector) podOwners() map[[2]string][]types.UID {
	owners := map[[2]string][]types.UID{}
	for _, p := range in.pods {
		ref := metav1.GetControllerOfNoCopy(p.obj)
		if ref == nil || ref.Kind != "DaemonSet" || ref.UID == "" || !strings.HasPrefix(ref.APIVersion, "apps/") {
			continue
		}
		k := [2]string{p.obj.Namespace, ref.Name}
		if !slices.Contains(owners[k], ref.UID) {
			owners[k] = append(owners[k], ref.UID)
			slices.Sort(owners[k])
		}
	}
	return owners
}

// uidNamespace is the name-space UUID of the uids nameUID derives (a random constant).
var uidNamespace = [16]byte{0x5b, 0x1e, 0x2a, 0x7c, 0x3d, 0x94, 0x4f, 0x0e, 0x9a, 0x61, 0x0c, 0xd2, 0x87, 0x45, 0x33, 0xf8}

// nameUID derives a uid from a DaemonSet's namespace and name, as a name-based (version 5,
// SHA-1) UUID, so that the same manifest always gets the same uid.
func nameUID(namespace, name string) types.UID {
	h := sha1.New()
	h.Write(uidNamespace[:])
	h.Write([]byte("daemonsets.apps/" + namespace + "/" + name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]))
}

// result returns what was collected.
func (in *collector) result() *Result {
	r := &Result{
		Snapshot: daemonset.Snapshot{
			DaemonSets: objects(in.daemonSets),
			Nodes:      objects(in.nodes),
			Pods:       objects(in.pods),
			Revisions:  objects(in.revisions),
		},
		Sources: Sources{
			DaemonSets: sources(in.daemonSets),
			Nodes:      sources(in.nodes),
			Pods:       sources(in.pods),
			Revisions:  sources(in.revisions),
		},
	}
	r.Admission = in.admission.result()
	for _, ws := range [][]Warning{in.skipped, in.unknown, in.invalid, in.uids, in.newApplied} {
		keep := min(len(ws), in.opts.Limits.Warnings-len(r.Warnings))
		r.Warnings = append(r.Warnings, ws[:keep]...)
		r.WarningsLeftOut += len(ws) - keep
	}
	return r
}

func objects[T any](l []located[T]) []T {
	out := make([]T, len(l))
	for i := range l {
		out[i] = l[i].obj
	}
	return out
}

func sources[T any](l []located[T]) []Source {
	out := make([]Source, len(l))
	for i := range l {
		out[i] = l[i].src
	}
	return out
}
