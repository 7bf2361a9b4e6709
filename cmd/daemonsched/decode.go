package main

import (
	"bytes"
	"crypto/sha1"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// maxInputSize bounds one input file: a kubectl dump of a 5,000-node cluster is far below it.
const maxInputSize = 64 << 20

// exampleName names the built-in example cluster in messages.
const exampleName = "example/cluster.yaml"

//go:embed example/cluster.yaml
var exampleCluster []byte

// location says where an object came from: a file, the 1-based number of its document (blank
// and comment-only documents are not counted) and, inside a list, its index in items.
type location struct {
	file string
	doc  int
	item int // -1 outside a list
}

func (l location) String() string {
	if l.item < 0 {
		return fmt.Sprintf("%s: document %d", l.file, l.doc)
	}
	return fmt.Sprintf("%s: document %d: items[%d]", l.file, l.doc, l.item)
}

// located is a decoded object and where it came from.
type located[T any] struct {
	obj T
	loc location
}

// input is everything read from the files, in input order.
type input struct {
	daemonSets []located[*appsv1.DaemonSet]
	nodes      []located[*v1.Node]
	pods       []located[*v1.Pod]
	revisions  []located[*appsv1.ControllerRevision]

	skipped  []skippedKind
	warnings []string
}

// skippedKind counts the objects of one kind that are not read, for one warning line per kind.
type skippedKind struct {
	apiVersion, kind string
	count            int
	first            string // location and identity of the first one
}

// typeAndName is what is read from every document before it is decoded into its type.
type typeAndName struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

func (t typeAndName) identity() string {
	kind := t.Kind
	if kind == "" {
		kind = "object"
	}
	switch {
	case t.Metadata.Name == "":
		return kind + " (no name)"
	case t.Metadata.Namespace == "" && kind != "Node":
		// Namespaced objects without a namespace are in "default" (D-5).
		return kind + " " + metav1.NamespaceDefault + "/" + t.Metadata.Name
	case t.Metadata.Namespace == "":
		return kind + " " + t.Metadata.Name
	}
	return kind + " " + t.Metadata.Namespace + "/" + t.Metadata.Name
}

// list is a v1 List or a typed list (NodeList, ...) as kubectl and the API server print them.
type list struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []json.RawMessage `json:"items"`
}

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
}

// load reads every file (the built-in example when there is none) and checks the snapshot is
// consistent. It applies the hand-written-manifest rules of D-4 and D-5.
func load(files []string, stdin io.Reader) (*input, error) {
	in := &input{}
	if len(files) == 0 {
		if err := in.decodeFile(exampleName, exampleCluster); err != nil {
			return nil, err
		}
	}
	if i := slices.Index(files, "-"); i >= 0 && slices.Contains(files[i+1:], "-") {
		return nil, errors.New("-f -: stdin can be read only once")
	}
	for _, f := range files {
		var (
			data []byte
			err  error
			name = f
		)
		if f == "-" {
			name = "stdin"
			data, err = readLimited(name, stdin, maxInputSize)
		} else {
			data, err = readFile(f)
		}
		if err != nil {
			return nil, err
		}
		if err := in.decodeFile(name, data); err != nil {
			return nil, err
		}
	}
	if err := in.checkDuplicates(); err != nil {
		return nil, err
	}
	in.applyDefaults()
	return in, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxInputSize {
		return nil, fmt.Errorf("%s: file is larger than %d MiB", name, maxInputSize>>20)
	}
	return readLimited(name, f, maxInputSize)
}

// readLimited reads r to its end, or fails after limit bytes (a MiB multiple) without reading
// more than one byte past it; it guards stdin and files whose size Stat cannot tell.
func readLimited(name string, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: file is larger than %d MiB", name, limit>>20)
	}
	return data, nil
}

// decodeFile reads every document of one file.
func (in *input) decodeFile(name string, data []byte) error {
	docs, err := splitDocuments(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) == 0 {
		return fmt.Errorf("%s: no objects", name)
	}
	for i, doc := range docs {
		loc := location{file: name, doc: i + 1, item: -1}
		js := doc
		if !doc.json {
			js.data, err = yaml.YAMLToJSONStrict(doc.data)
			if err != nil {
				// The YAML parser reports lines relative to the document, on several lines.
				return fmt.Errorf("%v (from line %d): %s", loc, doc.line, strings.Join(strings.Fields(err.Error()), " "))
			}
		}
		if err := in.decodeObject(loc, js.data, ""); err != nil {
			return err
		}
	}
	return nil
}

// document is one document of a file, as YAML or as JSON.
type document struct {
	data []byte
	json bool
	line int // of the document's first line in the file, for YAML
}

// splitDocuments splits a JSON stream (a file starting with "{") into its values, and YAML at
// "---" lines. Blank and comment-only documents are dropped.
func splitDocuments(data []byte) ([]document, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if trimmed[0] == '{' {
		var docs []document
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for i := 1; ; i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				return docs, nil
			} else if err != nil {
				return nil, fmt.Errorf("document %d: %w", i, err)
			}
			docs = append(docs, document{data: raw, json: true})
		}
	}
	var (
		docs  []document
		cur   bytes.Buffer
		start = 1
		n     = 0
	)
	flush := func() {
		if !blankYAML(cur.Bytes()) {
			docs = append(docs, document{data: slices.Clone(cur.Bytes()), line: start})
		}
		cur.Reset()
	}
	for line := range bytes.Lines(data) {
		n++
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
			rest = bytes.TrimSpace(rest)
			if len(rest) == 0 || rest[0] == '#' {
				flush()
				start = n + 1
				continue
			}
		}
		cur.Write(line)
	}
	flush()
	return docs, nil
}

// blankYAML reports a document made only of blank lines and comments.
func blankYAML(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return false
		}
	}
	return true
}

// decodeObject decodes one object (JSON) found at loc. itemKind is the kind a typed list gives
// its items ("" outside typed lists).
func (in *input) decodeObject(loc location, data []byte, itemKind string) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return fmt.Errorf("%v: not an object", loc)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%v: not a Kubernetes object: want a mapping with apiVersion, kind and metadata", loc)
	}
	var tn typeAndName
	if err := json.Unmarshal(data, &tn); err != nil {
		// A malformed identity (say, a numeric name) is reported by the strict decoding below;
		// until then the object goes by what could be read.
		tn = typeAndName{}
		_ = json.Unmarshal(data, &struct {
			APIVersion *string `json:"apiVersion"`
			Kind       *string `json:"kind"`
		}{&tn.APIVersion, &tn.Kind})
	}
	if tn.Kind == "" && tn.APIVersion == "" && itemKind != "" {
		tn.Kind, tn.APIVersion = itemKind, kinds[itemKind]
	}
	where := fmt.Sprintf("%v: %s", loc, tn.identity())
	switch {
	case tn.Kind == "":
		return fmt.Errorf("%s: kind: Required value", where)
	case tn.APIVersion == "":
		return fmt.Errorf("%s: apiVersion: Required value", where)
	}
	want, known := kinds[tn.Kind]
	if !known {
		in.skip(tn, where)
		return nil
	}
	if tn.APIVersion != want {
		return fmt.Errorf("%s: apiVersion: Unsupported value: %q: supported values: %q", where, tn.APIVersion, want)
	}
	if tn.Metadata.Name == "" && !strings.HasSuffix(tn.Kind, "List") {
		return fmt.Errorf("%s: metadata.name: Required value", where)
	}
	switch tn.Kind {
	case "DaemonSet":
		ds := &appsv1.DaemonSet{}
		if err := decodeStrict(data, ds); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		setTypeMeta(&ds.TypeMeta, tn)
		setNamespace(&ds.ObjectMeta)
		in.daemonSets = append(in.daemonSets, located[*appsv1.DaemonSet]{ds, loc})
	case "ControllerRevision":
		cr := &appsv1.ControllerRevision{}
		if err := decodeStrict(data, cr); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		setTypeMeta(&cr.TypeMeta, tn)
		setNamespace(&cr.ObjectMeta)
		if err := canonicalData(cr); err != nil {
			return fmt.Errorf("%s: data: %w", where, err)
		}
		in.revisions = append(in.revisions, located[*appsv1.ControllerRevision]{cr, loc})
	case "Node":
		node := &v1.Node{}
		if err := decodeStrict(data, node); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		setTypeMeta(&node.TypeMeta, tn)
		in.nodes = append(in.nodes, located[*v1.Node]{node, loc})
	case "Pod":
		pod := &v1.Pod{}
		if err := decodeStrict(data, pod); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		setTypeMeta(&pod.TypeMeta, tn)
		setNamespace(&pod.ObjectMeta)
		in.pods = append(in.pods, located[*v1.Pod]{pod, loc})
	default: // a list
		if loc.item >= 0 {
			return fmt.Errorf("%s: a list inside a list is not supported", where)
		}
		var l list
		if err := decodeStrict(data, &l); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		itemKind := strings.TrimSuffix(tn.Kind, "List")
		if tn.Kind == "List" {
			itemKind = ""
		}
		for i, item := range l.Items {
			itemLoc := loc
			itemLoc.item = i
			if err := in.decodeObject(itemLoc, item, itemKind); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeStrict decodes data into obj, rejecting unknown and duplicate fields with their paths.
func decodeStrict(data []byte, obj any) error {
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		// "cannot unmarshal string into Go struct field PodSpec.spec.x of type int32" reads
		// "spec.x: cannot unmarshal string into int32".
		if m := typeErrorRE.FindStringSubmatch(msg); m != nil {
			msg = m[2] + ": cannot unmarshal " + m[1] + " into " + m[3]
		}
		return errors.New(msg)
	}
	if len(strictErrs) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(strictErrs))
	for _, e := range strictErrs {
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			// "unknown field \"spec.x\"" reads "spec.x: unknown field", like a field error.
			msg := strings.TrimSuffix(e.Error(), " \""+fe.FieldPath()+"\"")
			msgs = append(msgs, fe.FieldPath()+": "+msg)
			continue
		}
		msgs = append(msgs, e.Error())
	}
	return errors.New(strings.Join(msgs, "; "))
}

var typeErrorRE = regexp.MustCompile(`^cannot unmarshal (\S+) into Go struct field [^.\s]+\.(\S+) of type (\S+)$`)

// canonicalData rewrites a ControllerRevision's data as the controller stored it: compact JSON
// with sorted keys, as encoding/json writes a map (pkg/controller/daemon getPatch). The library
// compares these bytes with the template's (UPD-16), and kubectl prints them re-indented (-o
// json) or as YAML, so without this a revision read from `kubectl get -o json` would never be
// current and would even look like a hash collision (UPD-21).
func canonicalData(cr *appsv1.ControllerRevision) error {
	if len(cr.Data.Raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(cr.Data.Raw))
	dec.UseNumber() // integers stay integers, written back as they were
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	cr.Data.Raw = raw
	return nil
}

// setTypeMeta fills in the kind and apiVersion that typed-list items may leave out.
func setTypeMeta(tm *metav1.TypeMeta, tn typeAndName) {
	tm.APIVersion, tm.Kind = tn.APIVersion, tn.Kind
}

// setNamespace puts a namespaced object without namespace in "default", as kubectl does (D-5).
func setNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = metav1.NamespaceDefault
	}
}

func (in *input) skip(tn typeAndName, where string) {
	for i := range in.skipped {
		if s := &in.skipped[i]; s.apiVersion == tn.APIVersion && s.kind == tn.Kind {
			s.count++
			return
		}
	}
	in.skipped = append(in.skipped, skippedKind{apiVersion: tn.APIVersion, kind: tn.Kind, count: 1, first: where})
}

// checkDuplicates rejects a snapshot the API server could not hold: two objects of one kind
// with the same name (and namespace).
func (in *input) checkDuplicates() error {
	if err := duplicates(in.nodes, func(n *v1.Node) string { return n.Name }, "Node"); err != nil {
		return err
	}
	if err := duplicates(in.pods, func(p *v1.Pod) string { return p.Namespace + "/" + p.Name }, "Pod"); err != nil {
		return err
	}
	if err := duplicates(in.daemonSets, func(d *appsv1.DaemonSet) string { return d.Namespace + "/" + d.Name }, "DaemonSet"); err != nil {
		return err
	}
	return duplicates(in.revisions, func(r *appsv1.ControllerRevision) string { return r.Namespace + "/" + r.Name }, "ControllerRevision")
}

func duplicates[T any](objs []located[T], key func(T) string, kind string) error {
	seen := make(map[string]location, len(objs))
	for _, o := range objs {
		k := key(o.obj)
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%v: %s %s: metadata.name: Duplicate value: %q (first at %v)", o.loc, kind, k, k, first)
		}
		seen[k] = o.loc
	}
	return nil
}

// applyDefaults applies the DaemonSet API defaults (D-4) and gives every DaemonSet without a
// uid one derived from its namespace and name (D-5).
func (in *input) applyDefaults() {
	for i := range in.daemonSets {
		d := &in.daemonSets[i]
		d.obj = daemonset.WithDefaults(d.obj)
		if d.obj.UID == "" {
			d.obj.UID = nameUID(d.obj.Namespace, d.obj.Name)
			in.warnings = append(in.warnings, fmt.Sprintf(
				"%v: DaemonSet %s/%s: metadata.uid: not set, using %s (derived from namespace and name); pods belong to it only if their ownerReferences carry this uid",
				d.loc, d.obj.Namespace, d.obj.Name, d.obj.UID))
		}
	}
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

// writeWarnings writes the decoding warnings, one line each.
func (in *input) writeWarnings(w io.Writer) {
	for _, s := range in.skipped {
		more := ""
		if s.count > 1 {
			more = fmt.Sprintf(" and %d more", s.count-1)
		}
		fmt.Fprintf(w, "daemonsched: warning: %s%s: skipped: kind %s of apiVersion %s is not read (only apps/v1 DaemonSet and ControllerRevision, v1 Node and Pod)\n",
			s.first, more, s.kind, s.apiVersion)
	}
	for _, msg := range in.warnings {
		fmt.Fprintf(w, "daemonsched: warning: %s\n", msg)
	}
}

// validate returns, one error each, what API validation would reject in every DaemonSet.
func (in *input) validate(opts daemonset.Options) problemList {
	return in.validateSome(in.daemonSets, opts)
}

func (in *input) validateSome(dss []located[*appsv1.DaemonSet], opts daemonset.Options) problemList {
	var problems problemList
	for _, d := range dss {
		_, errs := daemonset.Compile(d.obj, opts)
		for _, e := range errs {
			problems = append(problems, fmt.Errorf("%v: DaemonSet %s/%s: %w", d.loc, d.obj.Namespace, d.obj.Name, e))
		}
	}
	return problems
}

// snapshot returns the objects for the library.
func (in *input) snapshot() daemonset.Snapshot {
	var s daemonset.Snapshot
	for _, d := range in.daemonSets {
		s.DaemonSets = append(s.DaemonSets, d.obj)
	}
	for _, n := range in.nodes {
		s.Nodes = append(s.Nodes, n.obj)
	}
	for _, p := range in.pods {
		s.Pods = append(s.Pods, p.obj)
	}
	for _, r := range in.revisions {
		s.Revisions = append(s.Revisions, r.obj)
	}
	return s
}

// node returns the node named name, or nil.
func (in *input) node(name string) *v1.Node {
	for _, n := range in.nodes {
		if n.obj.Name == name {
			return n.obj
		}
	}
	return nil
}

// latest is the default --now: the latest timestamp of the input (creationTimestamp, pod
// startTime, condition lastTransitionTime and node lastHeartbeatTime), or the Unix epoch.
func (in *input) latest() time.Time {
	var t time.Time
	see := func(m metav1.Time) {
		if m.Time.After(t) {
			t = m.Time
		}
	}
	for _, d := range in.daemonSets {
		see(d.obj.CreationTimestamp)
	}
	for _, r := range in.revisions {
		see(r.obj.CreationTimestamp)
	}
	for _, n := range in.nodes {
		see(n.obj.CreationTimestamp)
		for _, c := range n.obj.Status.Conditions {
			see(c.LastTransitionTime)
			see(c.LastHeartbeatTime)
		}
	}
	for _, p := range in.pods {
		see(p.obj.CreationTimestamp)
		if p.obj.Status.StartTime != nil {
			see(*p.obj.Status.StartTime)
		}
		for _, c := range p.obj.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}
