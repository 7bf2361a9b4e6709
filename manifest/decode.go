package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	pool "github.com/daemonsched/daemonsched/internal/parallel"
	"github.com/daemonsched/daemonsched/internal/printable"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// kinds maps each kind read to its only supported apiVersion.
var kinds = map[string]string{
	"DaemonSet":              "apps/v1",
	"ControllerRevision":     "apps/v1",
	"Node":                   "v1",
	"Pod":                    "v1",
	"List":                   "v1",
	"DaemonSetList":          "apps/v1",
	"ControllerRevisionList": "apps/v1",
	"NodeList":               "v1",
	"PodList":                "v1",
	// Admission inputs of the what-if (admission.go).
	"LimitRange":       "v1",
	"LimitRangeList":   "v1",
	"RuntimeClass":     nodeV1,
	"RuntimeClassList": nodeV1,
}

func isListKind(kind string) bool {
	_, known := kinds[kind]
	return known && strings.HasSuffix(kind, "List")
}

// typeAndName is what is read from every document before it is decoded into its type.
type typeAndName struct {
	// partial is set when the identity could not be read whole (say, a name that is not a
	// string); the typed decoding then reports why.
	partial    bool   `json:"-"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// decoded is one object read from the input, or one skipped, or a list's own fields.
type decoded struct {
	src       Source
	tn        typeAndName
	namespace string // as messages show it
	obj       any    // *appsv1.DaemonSet, *appsv1.ControllerRevision, *v1.Node, *v1.Pod, *v1.LimitRange or *nodev1.RuntimeClass; nil otherwise
	skip      bool   // a kind that is not read
	unknown   []string
	invalid   field.ErrorList // what the API server would reject in a Node or Pod (VAL-24)
	raw       []byte          // the JSON of a DaemonSet of an Apply input, for apiserver.ApplyJSON; nil otherwise
}

// where names the object for messages: its source and identity. It is built only for a
// message: a list of 250,000 items would otherwise hold as many strings.
func (d decoded) where() string {
	return d.src.String() + ": " + identity(d.tn.Kind, d.namespace, d.tn.Metadata.Name)
}

// reader decodes documents; it is read-only but for the object count, shared by the
// goroutines of one input.
type reader struct {
	opts    Options
	objects *atomic.Int64 // of the input, against Limits.Objects
	// applying keeps the JSON of each DaemonSet (decoded.raw): the input is an Apply input,
	// whose spelt-out zeros the three-way merge must see (D-14).
	applying bool
	// labels and specs share the label maps and kept containers of lean pods, and the
	// allocatable of lean nodes (Options.Lean), for all of the read.
	labels *sharedLabels
	specs  *sharedSpecs
}

// rawOf returns a copy of data, the JSON of an object of kind, when the reader keeps it:
// buffers of the input are reused once it is decoded.
func (r reader) rawOf(kind string, data []byte) []byte {
	if !r.applying || kind != "DaemonSet" {
		return nil
	}
	return bytes.Clone(data)
}

// newReader returns a reader with opts, their limits defaulted.
func newReader(opts Options) reader {
	opts.Limits = opts.Limits.withDefaults()
	r := reader{opts: opts, objects: new(atomic.Int64)}
	if opts.Lean {
		r.labels, r.specs = newSharedLabels(), new(sharedSpecs)
	}
	return r
}

// lean trims obj as lean reading keeps it (leanObject), a pod's labels and containers and a
// node's allocatable shared with the objects read before it that have the same.
func (r reader) lean(obj typedObject) {
	leanObject(obj)
	if r.labels == nil {
		return
	}
	switch o := obj.(type) {
	case *v1.Pod:
		o.Labels = r.labels.share(o.Labels)
		r.specs.sharePod(o)
	case *v1.Node:
		r.specs.shareAllocatable(o)
	}
}

// count adds n objects to the input's count, and fails when they are more than the limit. The
// error names the input only, so that it is the same whichever goroutine counts last.
func (r reader) count(n int) error {
	if r.objects.Add(int64(n)) > int64(r.opts.Limits.Objects) {
		return errTooManyObjects
	}
	return nil
}

var errTooManyObjects = errors.New("too many objects")

// decodeInput reads every document of one input. Documents, and the items of lists, are decoded
// in parallel; what they hold is then added in input order, and the first error in input order
// is the one reported, so the outcome does not depend on scheduling.
func (in *collector) decodeInput(name string, data []byte) error {
	data, err := utf8Text(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := validUTF8(data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	docs, err := splitDocuments(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) == 0 {
		return fmt.Errorf("%s: no objects", name)
	}
	r := in.reader
	r.objects = new(atomic.Int64)
	tooMany := tooManyObjects(name, r.opts.Limits.Objects)
	if r.count(len(docs)) != nil {
		return tooMany
	}
	results := make([][]decoded, len(docs))
	errs := make([]error, len(docs))
	r.forEach(len(docs), func(i int) {
		results[i], errs[i] = r.decodeDocument(Source{File: name, Document: i + 1, Item: -1}, docs[i])
	})
	// Every document was decoded, or stopped at its list's count: the total is the same
	// whatever the scheduling, and so is the error.
	if r.objects.Load() > int64(r.opts.Limits.Objects) {
		return tooMany
	}
	for i := range docs {
		if errs[i] != nil {
			return errs[i]
		}
		for _, d := range results[i] {
			if err := in.add(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// forRange calls f on the ranges [lo, hi) that cover 0, ..., n-1, each on one of up to
// Options.Workers goroutines of the project's worker pool, and returns when all are done.
func (r reader) forRange(n int, f func(lo, hi int)) {
	pool.Run(pool.Workers(r.opts.Workers, n, 1), n, f)
}

// forEach calls f(0), ..., f(n-1) on up to Options.Workers goroutines of the project's worker
// pool and returns when all are done.
func (r reader) forEach(n int, f func(i int)) {
	pool.Run(pool.Workers(r.opts.Workers, n, 1), n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}

// decodeDocument decodes one document: its object, or the objects of a list.
func (r reader) decodeDocument(src Source, doc document) ([]decoded, error) {
	if len(doc.data) > r.opts.Limits.ObjectBytes && !listShaped(doc.data[:r.opts.Limits.ObjectBytes]) {
		// Not a list: one object, refused before it is parsed.
		return nil, r.tooLarge(src)
	}
	big := len(doc.data) > r.opts.Limits.ObjectBytes // and list-shaped
	if doc.json {
		var out []decoded
		var err error
		if big {
			var isList bool
			out, isList, err = r.decodeListValue(src, doc.data)
			if !isList && err == nil {
				return nil, r.tooLarge(src) // shaped as a list, but one object
			}
		} else {
			out, err = r.decodeValue(src, doc.data, "")
		}
		if err != nil {
			if se := jsonSyntaxError(src, doc); se != nil {
				return nil, se
			}
		}
		return out, err
	}
	if wrapper, items, ok := splitYAMLList(doc); ok {
		out, err := r.decodeYAMLList(src, wrapper, items)
		switch {
		case err == nil || errors.Is(err, errTooManyObjects):
			return out, err
		case big && errors.Is(err, errNotAList):
			return nil, r.tooLarge(src) // shaped as a list, but one object
		case errors.As(err, new(objectBytesError)):
			return nil, err // an item refused before it was parsed: parsing the whole would not help
		}
		if fe := (finalError{}); errors.As(err, &fe) {
			return nil, fe.error
		}
		// The whole document is read again below, giving the parser's own message (or a
		// success, should the items depend on each other, say through YAML aliases).
	}
	// sigs.k8s.io/yaml's strict conversion (yamlToJSON converts what it can directly, to the
	// same bytes), not apimachinery's util/yaml ToJSON: that one is the lenient conversion,
	// which keeps the last of a key given twice without a word (TestYAMLKeyGivenTwiceIsAnError).
	js, err := yamlToJSON(doc.data)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", src, yamlError(err, doc.line))
	}
	return r.decodeAsWritten(src, js, doc.data, "", true)
}

// decodeValue decodes one object (JSON) found at src, or the items of a list. itemKind is the
// kind a typed list gives its items ("" outside typed lists).
func (r reader) decodeValue(src Source, data []byte, itemKind string) ([]decoded, error) {
	return r.decodeWritten(src, data, itemKind, nil)
}

// decodeWritten is decodeValue of data converted from YAML whose value as written is written
// (writtenValue; nil for none, or JSON): the gate judges one object's quantities as written
// too, where it judges the quoted ones (gateQuantities, D-20). The items of a list are decoded
// without it, and judged after (decodeAsWritten).
func (r reader) decodeWritten(src Source, data []byte, itemKind string, written any) ([]decoded, error) {
	if src.Item < 0 && bytes.Contains(data, []byte(`"items"`)) {
		// Most likely a list (say, all of a dump): one pass reads it.
		if out, isList, err := r.decodeListValue(src, data); isList || err != nil {
			return out, err
		}
	}
	if written == nil {
		if out, ok := r.decodeFast(src, data, itemKind); ok {
			return out, nil
		}
	}
	// The identity is read and checked first, so that every problem is worded with the
	// object's identity and in a fixed order: kind, apiVersion, name, then the fields.
	d, err := r.identify(src, data, itemKind)
	if err != nil {
		return nil, err
	}
	tn := d.tn
	if _, known := kinds[tn.Kind]; !known {
		// A typo of a kind read (kind: Daemonset) would otherwise be skipped with a warning and
		// the plan made without the object: an error names the kind meant.
		if k := misspelledKind(tn.Kind, tn.APIVersion); k != "" {
			return nil, fmt.Errorf("%s: kind: unknown kind %s: did you mean %s?", d.where(), printable.Quote(strconv.Quote(tn.Kind)), k)
		}
		d.skip = true
		return []decoded{d}, nil
	}
	if isListKind(tn.Kind) {
		if src.Item >= 0 {
			return nil, fmt.Errorf("%s: a list inside a list is not supported", d.where())
		}
		out, _, err := r.decodeListValue(src, data)
		return out, err
	}
	if tn.Metadata.Name == "" && !tn.partial {
		return nil, fmt.Errorf("%s: %w", d.where(), field.Required(field.NewPath("metadata", "name"), ""))
	}
	if len(data) > r.opts.Limits.ObjectBytes {
		return nil, fmt.Errorf("%s: %w", d.where(), r.objectTooLarge())
	}
	obj := newObject(tn.Kind)
	if err := gateQuantities(data, written, obj, r.opts.Limits); err != nil {
		return nil, fmt.Errorf("%s: %w", d.where(), err)
	}
	if d.unknown, err = decodeStrict(data, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", d.where(), err)
	}
	if err := r.finish(obj, tn); err != nil {
		return nil, fmt.Errorf("%s: data: %w", d.where(), err) // only revision data fails
	}
	d.invalid = validateObject(obj)
	if r.opts.Lean {
		r.lean(obj)
	}
	// The identity read first and the object share their strings: a list of tiny objects
	// would otherwise hold each twice until it ends.
	if name := obj.GetName(); name == d.tn.Metadata.Name {
		d.tn.Metadata.Name = name
	}
	if ns := obj.GetNamespace(); ns == d.tn.Metadata.Namespace {
		d.tn.Metadata.Namespace = ns
	}
	if ns := obj.GetNamespace(); ns == d.namespace {
		d.namespace = ns
	}
	d.obj, d.raw = obj, r.rawOf(tn.Kind, data)
	return []decoded{d}, nil
}

// newObject returns an empty object of a kind that is read and is not a list.
func newObject(kind string) typedObject {
	switch kind {
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	case "ControllerRevision":
		return &appsv1.ControllerRevision{}
	case "Node":
		return &v1.Node{}
	case "Pod":
		return &v1.Pod{}
	}
	return newAdmissionObject(kind)
}

// identify reads the kind, apiVersion, name and namespace of one object (JSON) found at src and
// checks them. itemKind is the kind a typed list gives its items ("" outside typed lists).
func (r reader) identify(src Source, data []byte, itemKind string) (decoded, error) {
	var tn typeAndName
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return decoded{}, fmt.Errorf("%v: not an object", src)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return decoded{}, fmt.Errorf("%v: not a Kubernetes object: want a mapping with apiVersion, kind and metadata", src)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &tn); err != nil {
		// A malformed identity (say, a numeric name) is reported by the strict decoding that
		// follows; until then the object goes by what could be read.
		tn = typeAndName{partial: true}
		_ = kjson.UnmarshalCaseSensitivePreserveInts(data, &struct {
			APIVersion *string `json:"apiVersion"`
			Kind       *string `json:"kind"`
		}{&tn.APIVersion, &tn.Kind})
	}
	if tn.Kind == "" && tn.APIVersion == "" && itemKind != "" {
		tn.Kind, tn.APIVersion = itemKind, kinds[itemKind]
	}
	return r.checkIdentity(src, tn)
}

// checkIdentity returns the object tn at src, named for messages, and an error if tn has no
// kind, no apiVersion, or not the apiVersion of a kind that is read.
func (r reader) checkIdentity(src Source, tn typeAndName) (decoded, error) {
	ns := shownNamespace(tn.Kind, tn.Metadata.Namespace, r.opts)
	d := decoded{src: src, tn: tn, namespace: ns}
	switch {
	case tn.Kind == "":
		return d, fmt.Errorf("%s: %w", d.where(), field.Required(field.NewPath("kind"), ""))
	case tn.APIVersion == "":
		return d, fmt.Errorf("%s: %w", d.where(), field.Required(field.NewPath("apiVersion"), ""))
	}
	if want, known := kinds[tn.Kind]; known && tn.APIVersion != want {
		return d, fmt.Errorf("%s: %w", d.where(), field.NotSupported(field.NewPath("apiVersion"), tn.APIVersion, []string{want}))
	}
	return d, nil
}

// typedObject is what the kinds read have in common.
type typedObject interface {
	metav1.Object
	GetObjectKind() schema.ObjectKind
}

// finish sets the kind of an object decoded as tn (typed-list items may leave it out), puts a
// namespaced object without a namespace in "default", as kubectl does (D-5), and rewrites a
// ControllerRevision's data as the controller stored it.
func (r reader) finish(obj typedObject, tn typeAndName) error {
	obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(tn.APIVersion, tn.Kind))
	if namespaced(tn.Kind) && obj.GetNamespace() == "" && r.opts.applies(DefaultNamespace) {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	if cr, ok := obj.(*appsv1.ControllerRevision); ok {
		return canonicalData(cr)
	}
	return nil
}
