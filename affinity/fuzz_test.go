package affinity_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/affinity"
)

// Shape bits of FuzzCompile: which parts of the pod spec exist.
const (
	shapeNodeSelector = 1 << iota // spec.nodeSelector holds nsKey: nsVal
	shapeAffinity                 // affinity.nodeAffinity.required is set
	shapeExprTerm                 // a term with the expression
	shapeFieldTerm                // the field requirement joins the expression's term, or its own term if none
	shapeEmptyTerm                // an empty term comes first
	shapeSecondTerm               // a second term, matchFields metadata.name In [nodeName]
)

// FuzzCompile builds a pod spec with a node selector and required node affinity from the
// fuzzer's values, and a node with one label. Properties: nothing panics; Compile, Validate,
// BindToNode and TargetNodeName never mutate their inputs; Matches agrees with component-helpers'
// GetRequiredNodeAffinity(pod).Match; Explain agrees with Matches.
func FuzzCompile(f *testing.F) {
	type seed struct {
		shape                uint8
		nsKey, nsVal         string
		eKey, eOp, eVal      string
		nVals                uint8
		fKey, fOp, fVal      string
		nodeName, lKey, lVal string
	}
	seeds := []seed{
		// no constraint at all (NSEL-1, AFF-1).
		{nodeName: "n0"},
		// node selector satisfied (NSEL-2).
		{shape: shapeNodeSelector, nsKey: "disk", nsVal: "ssd", nodeName: "n0", lKey: "disk", lVal: "ssd"},
		// node selector with an empty value needs the label present and empty (NSEL-2, SCN-04).
		{shape: shapeNodeSelector, nsKey: "gpu", nsVal: "", nodeName: "n0"},
		// required selector with zero terms matches nothing (AFF-2).
		{shape: shapeAffinity, nodeName: "n0"},
		// only an empty term matches nothing (AFF-4).
		{shape: shapeAffinity | shapeEmptyTerm, nodeName: "n0"},
		// In on a node label (AFF-6).
		{shape: shapeAffinity | shapeExprTerm, eKey: "zone", eOp: "In", eVal: "a", nVals: 1, nodeName: "n0", lKey: "zone", lVal: "a"},
		// Gt against a value with leading zeros (AFF-7, SCN-10).
		{shape: shapeAffinity | shapeExprTerm, eKey: "cpus", eOp: "Gt", eVal: "8", nVals: 1, nodeName: "n0", lKey: "cpus", lVal: "016"},
		// Lt with a non-integer breaks the term (AFF-8, SCN-11).
		{shape: shapeAffinity | shapeExprTerm, eKey: "cpus", eOp: "Lt", eVal: "x", nVals: 1, nodeName: "n0", lKey: "cpus", lVal: "1"},
		// Gt with two values breaks the term (AFF-7).
		{shape: shapeAffinity | shapeExprTerm, eKey: "cpus", eOp: "Gt", eVal: "1", nVals: 2, nodeName: "n0", lKey: "cpus", lVal: "5"},
		// a broken term does not stop a later good one (AFF-8, SCN-07).
		{shape: shapeAffinity | shapeExprTerm | shapeSecondTerm, eKey: "zone", eOp: "Foo", eVal: "a", nVals: 1, nodeName: "n0"},
		// Exists with a value breaks the term (AFF-8, SCN-08).
		{shape: shapeAffinity | shapeExprTerm, eKey: "x", eOp: "Exists", eVal: "bad", nVals: 1, nodeName: "n0", lKey: "x", lVal: "1"},
		// an invalid key breaks the term (AFF-8).
		{shape: shapeAffinity | shapeExprTerm, eKey: "/x", eOp: "Exists", nodeName: "n0", lKey: "/x"},
		// expression and field ANDed in one term (AFF-5, SCN-06).
		{shape: shapeAffinity | shapeExprTerm | shapeFieldTerm, eKey: "zone", eOp: "In", eVal: "a", nVals: 1, fKey: "metadata.name", fOp: "In", fVal: "n2", nodeName: "n2", lKey: "zone", lVal: "a"},
		// metadata.name NotIn (AFF-9, SCN-12).
		{shape: shapeAffinity | shapeFieldTerm, fKey: "metadata.name", fOp: "NotIn", fVal: "n0", nodeName: "n1"},
		// unknown field key reads as "" (AFF-9, SCN-13, Surprise 14).
		{shape: shapeAffinity | shapeFieldTerm, fKey: "metadata.uid", fOp: "In", fVal: "", nodeName: "n1"},
		// matchFields Exists breaks the term (AFF-9).
		{shape: shapeAffinity | shapeFieldTerm, fKey: "metadata.name", fOp: "Exists", nodeName: "n1"},
		// a node without a name skips matchFields (AFF-10).
		{shape: shapeAffinity | shapeFieldTerm, fKey: "metadata.name", fOp: "In", fVal: "n0", nodeName: ""},
		// matchExpressions on metadata.name test a label (AFF-11, SCN-14, Surprise 34).
		{shape: shapeAffinity | shapeExprTerm, eKey: "metadata.name", eOp: "In", eVal: "n0", nVals: 1, nodeName: "n0"},
		// node selector and affinity both required (AFF-12, SCN-16).
		{shape: shapeNodeSelector | shapeAffinity | shapeExprTerm, nsKey: "disk", nsVal: "ssd", eKey: "zone", eOp: "In", eVal: "a", nVals: 1, nodeName: "n0", lKey: "zone", lVal: "a"},
	}
	for _, s := range seeds {
		f.Add(s.shape, s.nsKey, s.nsVal, s.eKey, s.eOp, s.eVal, s.nVals, s.fKey, s.fOp, s.fVal, s.nodeName, s.lKey, s.lVal)
	}
	f.Fuzz(func(t *testing.T, shape uint8, nsKey, nsVal, eKey, eOp, eVal string, nVals uint8, fKey, fOp, fVal, nodeName, lKey, lVal string) {
		spec := &v1.PodSpec{}
		if shape&shapeNodeSelector != 0 {
			spec.NodeSelector = map[string]string{nsKey: nsVal}
		}
		if shape&shapeAffinity != 0 {
			var terms []v1.NodeSelectorTerm
			if shape&shapeEmptyTerm != 0 {
				terms = append(terms, v1.NodeSelectorTerm{})
			}
			var term v1.NodeSelectorTerm
			if shape&shapeExprTerm != 0 {
				term.MatchExpressions = []v1.NodeSelectorRequirement{{Key: eKey, Operator: v1.NodeSelectorOperator(eOp), Values: []string{eVal, eVal, "1"}[:nVals%4]}}
			}
			if shape&shapeFieldTerm != 0 {
				term.MatchFields = []v1.NodeSelectorRequirement{{Key: fKey, Operator: v1.NodeSelectorOperator(fOp), Values: []string{fVal}}}
			}
			if shape&(shapeExprTerm|shapeFieldTerm) != 0 {
				terms = append(terms, term)
			}
			if shape&shapeSecondTerm != 0 {
				terms = append(terms, fields(req("metadata.name", "In", nodeName)))
			}
			spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
			}}
		}
		n := &v1.Node{}
		n.Name = nodeName
		if lKey != "" || lVal != "" {
			n.Labels = map[string]string{lKey: lVal}
		}
		nodes := []*v1.Node{n, {}, node(nodeName, nsKey, nsVal, eKey, eVal)}
		nodes[1].Name = fVal
		if msg, _, _ := checkAgainstUpstream(spec, nodes); msg != "" {
			t.Fatalf("spec %+v: %s", spec, msg)
		}
		checkNoMutation(t, spec, nodeName)
	})
}

// checkNoMutation runs the exported functions that read a spec and checks that none changed
// it.
func checkNoMutation(t *testing.T, spec *v1.PodSpec, nodeName string) {
	t.Helper()
	before := spec.DeepCopy()
	_ = affinity.Validate(spec, field.NewPath("spec"))
	_ = affinity.BindToNode(spec.Affinity, nodeName)
	_, _ = affinity.TargetNodeName(&v1.Pod{Spec: *spec})
	_ = affinity.Compile(spec, nil).Explain(&v1.Node{})
	if !reflect.DeepEqual(before, spec) {
		t.Fatalf("an exported function mutated the spec (-before +after):\n%s", cmp.Diff(before, spec))
	}
}
