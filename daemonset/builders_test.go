package daemonset_test

// Builders of the test objects, shared by every external test of the package. The conventions
// of newDS, node and pod: DS foo in namespace default, selector and template labels app=d,
// strategy OnDelete unless said, nodes untainted and unlabelled, pods controlled by the DS with
// the current hash, Running, not Ready; now = 1000. The rt variants: DaemonSet rt in namespace
// ns, selector and template labels app=rt, OnDelete unless a case says otherwise, pods
// controlled by it, Running and not Ready.

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/apitest"
)

var now1000 = time.Unix(1000, 0).UTC()

func opts() daemonset.Options { return daemonset.Options{Version: v1363, Now: now1000} }

// ---- builders ----

// The builders other packages' tests and the package's internal tests share live in
// internal/apitest; these are their short names here.
var (
	newDS   = apitest.DaemonSet
	rolling = apitest.Rolling
	ios     = apitest.Int
	iostr   = apitest.Str
	node    = apitest.Node
	labels  = apitest.Labels
	taint   = apitest.Taint

	expr      = apitest.Requirement
	term      = apitest.Term
	fieldTerm = apitest.FieldTerm
)

type dsMod = func(*appsv1.DaemonSet)

var surgeDS = rolling(ios(0), ios(1))

func nodeSelector(kv ...string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			ds.Spec.Template.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func requiredTerms(terms ...v1.NodeSelectorTerm) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Affinity = apitest.RequiredAffinity(terms...) }
}

func tolerations(tols ...v1.Toleration) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Tolerations = tols }
}

func hostNet(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }

func minReadySeconds(s int32) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = s }
}

func annotateGeneration(g string) dsMod {
	return func(ds *appsv1.DaemonSet) {
		ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: g}
	}
}

func withNodeName(name string) dsMod {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = name }
}

func tol(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect) v1.Toleration {
	return v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

type nodeMod = func(*v1.Node)

func nodes(k int) []*v1.Node {
	out := make([]*v1.Node, k)
	for i := range out {
		out[i] = node(fmt.Sprintf("n%d", i))
	}
	return out
}

func numberedNodes(prefix string, k int) []*v1.Node {
	out := make([]*v1.Node, k)
	for i := range out {
		out[i] = node(fmt.Sprintf("%s%03d", prefix, i))
	}
	return out
}

func sortedNames(prefix string, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	slices.Sort(out)
	return out
}

var (
	noSchedule = taint("k", "v", v1.TaintEffectNoSchedule) // ELIG-4: shouldRun false, continue true
	noExecute  = taint("k", "v", v1.TaintEffectNoExecute)  // TAINT-5: neither flag
)

type podMod = func(*v1.Pod)

// pod is a daemon pod of the default DS bound to nodeName, with the current hash of newDS()
// (callers with another template use hashOf), phase Running, not Ready.
func pod(name, nodeName string, mods ...podMod) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			Labels:            map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: defaultHash()},
			OwnerReferences:   []metav1.OwnerReference{ownedBy("DaemonSet", "foo", "uid-foo", true)},
			CreationTimestamp: metav1.Unix(1, 0),
		},
		Spec:   v1.PodSpec{NodeName: nodeName},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func ownedBy(kind, name string, uid types.UID, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(controller)}
}

// defaultHash is the current hash of newDS(), computed once: hashing dumps the whole template.
var defaultHash = sync.OnceValue(func() string { return hashOf(newDS()) })

func hashOf(ds *appsv1.DaemonSet) string {
	return v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

func phase(ph v1.PodPhase) podMod { return func(p *v1.Pod) { p.Status.Phase = ph } }

func created(sec int64) podMod { return func(p *v1.Pod) { p.CreationTimestamp = metav1.Unix(sec, 0) } }

func terminating(p *v1.Pod) { p.DeletionTimestamp = ptr.To(metav1.Unix(500, 0)) }

func hashLabel(h string) podMod {
	return func(p *v1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = h }
}

func oldHash(p *v1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "old" }

func podLabels(l map[string]string) podMod { return func(p *v1.Pod) { p.Labels = l } }

func orphan(p *v1.Pod) { p.OwnerReferences = nil }

func owners(refs ...metav1.OwnerReference) podMod {
	return func(p *v1.Pod) { p.OwnerReferences = refs }
}

func namespace(ns string) podMod { return func(p *v1.Pod) { p.Namespace = ns } }

// readyAt makes the pod Ready=True with lastTransitionTime sec (0: unset).
func readyAt(sec int64) podMod {
	return func(p *v1.Pod) {
		c := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
		if sec != 0 {
			c.LastTransitionTime = metav1.Unix(sec, 0)
		}
		p.Status.Conditions = append(p.Status.Conditions, c)
	}
}

var ready = readyAt(1)

// unscheduledFor drops spec.nodeName and aims the pod at target through required affinity,
// as the controller's own pods are before scheduling (OWN-9).
func unscheduledFor(target string) podMod {
	return func(p *v1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				fieldTerm(expr("metadata.name", v1.NodeSelectorOpIn, target)),
			}},
		}}
	}
}

// ---- plan summary ----

func genLabel(g string) podMod {
	return func(p *v1.Pod) { p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey] = g }
}

func noHashLabel(p *v1.Pod) { delete(p.Labels, appsv1.DefaultDaemonSetUniqueLabelKey) }

// revisionFor returns a ControllerRevision owned by ds whose data matches ds's template
// (UPD-16), labelled with hash.
func revisionFor(t *testing.T, ds *appsv1.DaemonSet, hash string, number int64) *appsv1.ControllerRevision {
	t.Helper()
	raw, err := json.Marshal(ds)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(raw, &obj))
	tmpl := obj["spec"].(map[string]any)["template"].(map[string]any)
	tmpl["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
	require.NoError(t, err)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace,
			Labels:          map[string]string{"app": "d", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{ownedBy("DaemonSet", ds.Name, ds.UID, true)},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: number,
	}
}

func compiled(ds *appsv1.DaemonSet, now time.Time) *daemonset.Planner {
	p, _ := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: now})
	return p
}

// rtDS is newDS under its own identity (ns/rt, generation 3), without typeMeta or
// revisionHistoryLimit: the DaemonSet of the rule tables.
func rtDS(mods ...dsMod) *appsv1.DaemonSet {
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.TypeMeta = metav1.TypeMeta{}
		ds.Name, ds.Namespace, ds.UID, ds.Generation = "rt", "ns", "uid-rt", 3
		ds.Spec.Selector.MatchLabels = map[string]string{"app": "rt"}
		ds.Spec.Template.Labels = map[string]string{"app": "rt"}
		ds.Spec.RevisionHistoryLimit = nil
	})
	for _, m := range mods {
		m(ds)
	}
	return ds
}

// rtPod is pod under rtDS's identity: a pod of rtDS() bound to nodeName carrying hash, Running,
// not Ready, created at 1.
func rtPod(name, nodeName, hash string, mods ...podMod) *v1.Pod {
	identity := []podMod{
		namespace("ns"),
		podLabels(map[string]string{"app": "rt", appsv1.DefaultDaemonSetUniqueLabelKey: hash}),
		owners(ownedBy("DaemonSet", "rt", "uid-rt", true)),
	}
	return pod(name, nodeName, append(identity, mods...)...)
}

// Taints of key dedicated, as the rule tables put them on nodes with withTaints.
var (
	dedicatedNoSchedule = v1.Taint{Key: "dedicated", Effect: v1.TaintEffectNoSchedule}
	dedicatedNoExecute  = v1.Taint{Key: "dedicated", Effect: v1.TaintEffectNoExecute}
)

// withTaints puts taints on the node, in order.
func withTaints(taints ...v1.Taint) nodeMod {
	return func(n *v1.Node) { n.Spec.Taints = append(n.Spec.Taints, taints...) }
}

// hasExistsToleration reports whether tols holds an Exists toleration of key and effect.
func hasExistsToleration(tols []v1.Toleration, key string, effect v1.TaintEffect) bool {
	return slices.ContainsFunc(tols, func(tol v1.Toleration) bool {
		return tol.Key == key && tol.Effect == effect && tol.Operator == v1.TolerationOpExists
	})
}

// v1363 is the release the package's tests pin their plans to: their hashes (ComputeHash is
// 1.36.3's) and pinned outputs are 1.36.3's. Tests at other releases and at the default say so
// (release_test.go).
var v1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()
