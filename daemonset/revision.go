package daemonset

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/rand"
)

// ComputeHash returns the controller-revision-hash of template and collisionCount exactly as the
// v1.36 controller computes it (UPD-15): FNV-1a (32 bits) over the go-spew dump of the template
// value, then, when collisionCount is non-nil, the count as 4 little-endian bytes and 4 zero
// bytes; the sum is printed in decimal and each digit mapped into "456789bcdf". A nil
// collisionCount and a pointer to 0 give different hashes (SCN-105), and so do an empty and a
// nil slice or map anywhere in the template (UPD-17, SCN-106). Only the template counts:
// strategy, minReadySeconds and status play no part (SCN-107).
//
// ComputeHash panics if template is nil.
func ComputeHash(template *v1.PodTemplateSpec, collisionCount *int32) string {
	if template == nil {
		panic("daemonset: ComputeHash: nil template")
	}
	h := fnv.New32a()
	// As k8s/pkg/util/hash DeepHashObject, the dumped value is the template itself, not a pointer.
	writeHashDump(h, *template)
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		h.Write(b[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// RevisionPatch returns the bytes a v1.36 ControllerRevision of ds stores in data.raw, which
// are also what decides whether a revision is current (UPD-16): the JSON object
// {"spec":{"template":T}} where T is ds.Spec.Template as JSON with the extra key
// "$patch":"replace", every object's keys sorted and integers written as integers. Only the
// template matters, so nothing else of ds changes the bytes.
//
// As in pkg/controller/daemon getPatch, the JSON is decoded with apimachinery's json package
// (which keeps integers integral) and encoded again with encoding/json. The template is encoded
// on its own rather than as part of the whole object: encoding/json writes a nested value
// exactly as it writes it alone, so the bytes are the same. The error is that of encoding/json;
// no value of the k8s.io/api types makes it fail. RevisionPatch panics if ds is nil.
func RevisionPatch(ds *appsv1.DaemonSet) ([]byte, error) {
	if ds == nil {
		panic("daemonset: RevisionPatch: nil DaemonSet")
	}
	raw, err := json.Marshal(&ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := utiljson.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// NewRevision returns the ControllerRevision the v1.36 controller creates for ds when none is
// current (pkg/controller/daemon snapshot; UPD-14 step 5): named <ds name>-<hash> in ds's
// namespace, labelled with the template labels plus controller-revision-hash, annotated with
// ds's annotations, controlled by ds (apps/v1 DaemonSet, blockOwnerDeletion), holding
// RevisionPatch(ds) and the given revision number. hash is normally ComputeHash of the template
// and status.collisionCount. The maps are copies: changing the result never changes ds.
// NewRevision panics if ds is nil.
func NewRevision(ds *appsv1.DaemonSet, hash string, revision int64) (*appsv1.ControllerRevision, error) {
	patch, err := RevisionPatch(ds)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(ds.Spec.Template.Labels)
	if labels == nil {
		labels = make(map[string]string, 1)
	}
	labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ds.Name + "-" + hash,
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     maps.Clone(ds.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: revision,
	}, nil
}

// revisionOutcome is the result of choosing the current revision (UPD-14, D-6, D-10).
type revisionOutcome struct {
	hash string
	// collision is true when a revision named <ds>-<hash> exists with other data (UPD-21).
	collision bool
	// name is the current revision's name: the existing one's, or <ds>-<hash> for the revision
	// the controller would create (or reuse) this sync.
	name string
	// revision is the number the current revision carries after this sync: its own, bumped to
	// one more than the highest other claimed revision if lower (UPD-14 step 4), or that number
	// for a new revision (step 5).
	revision int64
	// create is true when no revision of that name exists: the controller creates one.
	create bool
	// old are the claimed revisions that are not current, by revision number then name; they
	// are the candidates of history clean-up (UPD-22).
	old []*appsv1.ControllerRevision
	// duplicates are the other current claimed revisions, which the controller deletes after
	// relabelling pods to the kept one's hash (UPD-14 step 3), by name.
	duplicates []*appsv1.ControllerRevision
}

// currentRevision claims the revisions of ds (OWN-12) and returns the current hash (UPD-14;
// UPD-15 when none matches). sel is the compiled DaemonSet selector; a nil sel matches nothing.
// Nil entries of revisions are skipped. Nothing is mutated: where the controller would write
// the missing hash label onto a claimed revision (UPD-14 step 1), the revision's name is used as
// its hash instead.
//
// When no claimed revision is current, the controller creates <ds>-<hash>; if any revision of
// that name exists in the namespace, claimed or not (the controller asks the API server, not its
// claimed set), it is reused when its data matches and is otherwise a collision (UPD-21, D-10).
// A reused revision's hash is its controller-revision-hash label as stored, even if missing
// (then the hash is empty), as in pkg/controller/daemon syncDaemonSet.
func currentRevision(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, sel *selector.Selector) revisionOutcome {
	// A patch that cannot be built matches nothing; it cannot happen with the k8s.io/api types.
	patch, patchErr := RevisionPatch(ds)
	matches := func(r *appsv1.ControllerRevision) bool {
		return patchErr == nil && string(r.Data.Raw) == string(patch)
	}

	var current, old []*appsv1.ControllerRevision
	for _, r := range revisions {
		if r == nil || !claimsRevision(ds, r, sel) {
			continue
		}
		if matches(r) {
			current = append(current, r)
		} else {
			old = append(old, r)
		}
	}
	slices.SortFunc(old, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Revision, b.Revision), strings.Compare(a.Name, b.Name))
	})
	next := int64(1)
	for _, r := range old {
		next = max(next, r.Revision+1)
	}

	if len(current) > 0 {
		// Highest revision wins; among equals upstream keeps the last one listed, which is
		// arbitrary, so the smallest name is kept instead (D-1).
		slices.SortFunc(current, func(a, b *appsv1.ControllerRevision) int {
			return cmp.Or(cmp.Compare(b.Revision, a.Revision), strings.Compare(a.Name, b.Name))
		})
		keep := current[0]
		hash, ok := keep.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		if !ok {
			hash = keep.Name
		}
		dups := current[1:]
		slices.SortFunc(dups, func(a, b *appsv1.ControllerRevision) int { return strings.Compare(a.Name, b.Name) })
		return revisionOutcome{
			hash:       hash,
			name:       keep.Name,
			revision:   max(keep.Revision, next),
			old:        old,
			duplicates: dups,
		}
	}

	hash := ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	out := revisionOutcome{hash: hash, name: ds.Name + "-" + hash, revision: next, create: true, old: old}
	for _, r := range revisions {
		if r == nil || r.Namespace != ds.Namespace || r.Name != out.name {
			continue
		}
		out.create = false
		if !matches(r) {
			out.collision = true
			return out
		}
		// The controller continues with the revision it found, as it is stored.
		out.hash = r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		out.revision = r.Revision
		return out
	}
	return out
}

// claimsRevision applies OWN-12 to one revision, as the controller's ControllerRefManager does
// for ControllerRevisions: it must be in ds's namespace; if it has a controller reference, that
// reference must carry ds's uid (kind and name are not checked) and the selector must match its
// labels (otherwise it is released); an orphan is adopted when the selector matches and it is
// not being deleted. A DaemonSet being deleted is never planned (SYNC-4), so its rule for
// adoption is not needed here.
func claimsRevision(ds *appsv1.DaemonSet, r *appsv1.ControllerRevision, sel *selector.Selector) bool {
	if r.Namespace != ds.Namespace {
		return false
	}
	if ref := metav1.GetControllerOfNoCopy(r); ref != nil {
		return ref.UID == ds.UID && sel.Matches(r.Labels)
	}
	return r.DeletionTimestamp == nil && sel.Matches(r.Labels)
}

// writeHashDump writes to w the text that k8s.io/apimachinery/pkg/util/dump.ForHash (go-spew's
// "%#v" with methods disabled and map keys sorted) returns for v, byte for byte. The hash needs go-spew's exact output, and go-spew is not a requirement of
// this module's go.mod, so its formatter is re-implemented here for the values the k8s.io/api
// types can hold: it follows pointers (writing "<shown>" for a pointer already being printed),
// prints struct field names, sorts map keys of primitive kinds, and omits a type name where
// go-spew omits it (slice elements, map keys and values, pointed-to values) with the same state
// machine, quirks included. revision_spew_test.go (build tag speworacle) checks it against
// dump.ForHash on random templates; TestComputeHashGolden pins hashes it produced.
func writeHashDump(w io.Writer, v any) {
	// The text is built in one buffer and written once: a typical template dumps to about
	// 4 KB in some 800 pieces, and writing each piece to a hash.Hash (which has no WriteString)
	// cost one allocation per piece.
	d := hashDumper{buf: make([]byte, 0, 8192), seen: map[uintptr]int{}}
	if v == nil {
		d.str("(interface {})<nil>")
	} else {
		d.value(reflect.ValueOf(v))
	}
	w.Write(d.buf)
}

// hashDumper is the state of writeHashDump: the pointers on the current path with the depth
// at which they were met, the nesting depth, and whether the next type name is left out.
type hashDumper struct {
	buf      []byte
	seen     map[uintptr]int
	depth    int
	skipType bool
}

func (d *hashDumper) str(s string) { d.buf = append(d.buf, s...) }

// typeName writes "(", n asterisks, the name of t and ")".
func (d *hashDumper) typeName(stars int, t reflect.Type) {
	d.buf = append(d.buf, '(')
	for range stars {
		d.buf = append(d.buf, '*')
	}
	d.buf = append(d.buf, t.String()...)
	d.buf = append(d.buf, ')')
}

// unpack replaces a non-nil interface by its content; an interface always brings its type
// name back.
func (d *hashDumper) unpack(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Interface {
		d.skipType = false
		if !v.IsNil() {
			v = v.Elem()
		}
	}
	return v
}

func (d *hashDumper) value(v reflect.Value) {
	kind := v.Kind()
	switch kind {
	case reflect.Invalid:
		d.str("<invalid>")
		return
	case reflect.Pointer:
		d.pointer(v)
		return
	}
	if !d.skipType {
		d.typeName(0, v.Type())
	}
	d.skipType = false
	switch kind {
	case reflect.Bool:
		d.buf = strconv.AppendBool(d.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.buf = strconv.AppendInt(d.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		d.buf = strconv.AppendUint(d.buf, v.Uint(), 10)
	case reflect.Float32:
		d.str(strconv.FormatFloat(v.Float(), 'g', -1, 32))
	case reflect.Float64:
		d.str(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		bits := 64
		if kind == reflect.Complex64 {
			bits = 32
		}
		c := v.Complex()
		sign := ""
		if imag(c) >= 0 {
			sign = "+"
		}
		d.str("(" + strconv.FormatFloat(real(c), 'g', -1, bits) + sign + strconv.FormatFloat(imag(c), 'g', -1, bits) + "i)")
	case reflect.String:
		d.str(v.String())
	case reflect.Interface:
		// Only a nil interface gets here; unpack replaced the others.
		d.str("<nil>")
	case reflect.Slice, reflect.Array:
		if kind == reflect.Slice && v.IsNil() {
			d.str("<nil>")
			return
		}
		d.str("[")
		d.depth++
		for i := range v.Len() {
			if i > 0 {
				d.str(" ")
			}
			d.skipType = true
			d.value(d.unpack(v.Index(i)))
		}
		d.depth--
		d.str("]")
	case reflect.Map:
		if v.IsNil() {
			d.str("<nil>")
			return
		}
		d.str("map[")
		d.depth++
		keys := v.MapKeys()
		slices.SortFunc(keys, compareMapKeys)
		for i, k := range keys {
			if i > 0 {
				d.str(" ")
			}
			d.skipType = true
			d.value(d.unpack(k))
			d.str(":")
			d.skipType = true
			d.value(d.unpack(v.MapIndex(k)))
		}
		d.depth--
		d.str("]")
	case reflect.Struct:
		d.str("{")
		d.depth++
		t := v.Type()
		for i := range v.NumField() {
			if i > 0 {
				d.str(" ")
			}
			d.str(t.Field(i).Name)
			d.str(":")
			d.value(d.unpack(v.Field(i)))
		}
		d.depth--
		d.str("}")
	default:
		// Uintptr, UnsafePointer, Chan and Func print addresses; no k8s.io/api type holds them.
		d.str(fmt.Sprintf("%#x", v.Pointer()))
	}
}

// pointer follows a chain of pointers (and interfaces between them) to the value, as go-spew
// does, noting each address so that a cycle prints "<shown>" instead of recursing.
func (d *hashDumper) pointer(v reflect.Value) {
	if v.IsNil() && d.skipType {
		d.str("<nil>")
		return
	}
	for addr, depth := range d.seen {
		if depth >= d.depth {
			delete(d.seen, addr)
		}
	}
	isNil, cycle, indirects := false, false, 0
	e := v
	for e.Kind() == reflect.Pointer {
		if e.IsNil() {
			isNil = true
			break
		}
		indirects++
		addr := e.Pointer()
		if depth, ok := d.seen[addr]; ok && depth < d.depth {
			cycle = true
			indirects--
			break
		}
		d.seen[addr] = d.depth
		e = e.Elem()
		if e.Kind() == reflect.Interface {
			if e.IsNil() {
				isNil = true
				break
			}
			e = e.Elem()
		}
	}
	if !d.skipType {
		d.typeName(indirects, e.Type())
	} else {
		if isNil || cycle {
			indirects += strings.Count(e.Type().String(), "*")
		}
		d.str("<")
		for range indirects {
			d.str("*")
		}
		d.str(">")
	}
	switch {
	case isNil:
		d.str("<nil>")
	case cycle:
		d.str("<shown>")
	default:
		d.skipType = true
		d.value(e)
	}
}

// compareMapKeys orders map keys as go-spew's SortKeys does for keys of primitive kinds, the
// only ones k8s.io/api maps have (strings, mostly); other kinds fall back to reflect's String.
func compareMapKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.Bool:
		return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	default:
		return strings.Compare(a.String(), b.String())
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
