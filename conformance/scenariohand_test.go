package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The SCN scenarios and Surprises whose daemonset tests are not scenario tables (the created
// pod, the revision hash, the rolling-update tables), and the regressions of the fidelity
// differences of docs/upstream-differences.md without a case elsewhere. Each states what was
// checked against the SCN entry (or the difference's section) in check.

const scenarioSource = "hand-written from docs/rules/scenarios.md %s (replayed on the v1.36.3 controller when the rules were written); choice sets from daemonset.Orders"

func scnSource(id string) string { return fmt.Sprintf(scenarioSource, id) }

const regressionSource = "regression of a fidelity difference (docs/upstream-differences.md, %s); " + handSource

// shape renders what a DaemonSet's expectation states, in the words of the SCN entries:
// "create n1,n2", "delete UPD-9 2 of ns/o1,ns/o2", "status 3/0/0/0/0/0/3", "skipped X".
func shape(e Expected) string {
	var parts []string
	if e.Skipped != "" {
		parts = append(parts, "skipped "+string(e.Skipped))
	}
	o := e.Orders.choices() // none for a nil Orders
	for _, side := range []struct {
		verb string
		cls  []actionClass
	}{{"create", o.Creates}, {"delete", o.Deletes}} {
		for _, cl := range side.cls {
			s := side.verb + " "
			if cl.Rule != "" {
				s += fmt.Sprintf("%s %d of ", cl.Rule, cl.Take)
			}
			parts = append(parts, s+strings.Join(candidateKeys(cl), ","))
		}
	}
	if st := e.Status; st != nil {
		parts = append(parts, fmt.Sprintf("status %d/%d/%d/%d/%d/%d/%d", st.DesiredNumberScheduled, st.CurrentNumberScheduled,
			st.NumberMisscheduled, st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable, st.NumberUnavailable))
	}
	return strings.Join(parts, "; ")
}

// wantShape is a check that the one DaemonSet's expectation has the given shape.
func wantShape(want string) func([]Expected) string {
	return func(e []Expected) string {
		if got := shape(e[0]); got != want {
			return fmt.Sprintf("got %q, want %q", got, want)
		}
		return ""
	}
}

// createdPod is the pod the one DaemonSet creates on the first node it creates on.
func createdPod(e []Expected) *v1.Pod {
	o := e[0].Orders.choices()
	if len(o.Creates) == 0 || len(o.Creates[0].Groups) == 0 {
		return nil
	}
	return o.Creates[0].Groups[0].Parts[0].Creates[0].Pod
}

func podCheck(f func(p *v1.Pod) string) func([]Expected) string {
	return func(e []Expected) string {
		p := createdPod(e)
		if p == nil {
			return "no create"
		}
		return f(p)
	}
}

func oldPods(hash string, nodes ...string) []*v1.Pod {
	var out []*v1.Pod
	for _, n := range nodes {
		out = append(out, handPod(hash+"-"+n, n, hash, v1.PodRunning, true))
	}
	return out
}

func rollingStrings(mu, ms string) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		u, s := intstr.Parse(mu), intstr.Parse(ms)
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &u, MaxSurge: &s}}
	}
}

// younger makes p the surge pod created after the old one beside it (STAT-5 reads the oldest).
func younger(p *v1.Pod) *v1.Pod {
	p.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.Add(5 * time.Minute))
	return p
}

func readyAt(p *v1.Pod, t time.Time) *v1.Pod {
	p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(t)
	return p
}

func one(ds *appsv1.DaemonSet, nodes []*v1.Node, pods ...*v1.Pod) daemonset.Snapshot {
	return daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes, Pods: pods}
}

func hashOf(ds *appsv1.DaemonSet) string {
	return v1363.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

func scenarioHandCases() []handCase {
	return slices.Concat(podScenarioCases(), rollingScenarioCases(), revisionScenarioCases(), choiceCases())
}

func podScenarioCases() []handCase {
	affinityDS := handDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 5, Preference: v1.NodeSelectorTerm{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "disk", Operator: v1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}},
		}}
	})
	zoned := handNodes("n1")
	zoned[0].Labels["zone"] = "a"
	seconds := int64(300)
	tolerDS := handDS(func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.HostNetwork = true
		ds.Spec.Template.Spec.Tolerations = []v1.Toleration{
			{Key: "a", Operator: v1.TolerationOpExists},
			{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &seconds},
			{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpEqual, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &seconds},
		}
	})
	generation := func(v string) *appsv1.DaemonSet {
		return handDS(func(ds *appsv1.DaemonSet) {
			ds.Annotations = map[string]string{"deprecated.daemonset.template.generation": v}
		})
	}
	return []handCase{
		{name: "scn-35-plain-template-pod", profile: "placement", source: scnSource("SCN-35"), rules: []string{"SCN-35", "POD-1", "POD-3", "POD-5", "POD-6", "D-3"},
			description: "A plain template on one node: the pod has generateName ds-, the template labels and the hash, one controller reference, the six default tolerations and an affinity that is the node's matchFields term only.",
			snapshot:    one(handDS(), handNodes("n1")),
			check: podCheck(func(p *v1.Pod) string {
				aff := p.Spec.Affinity
				if p.GenerateName != "ds-" || len(p.Labels) != 2 || len(p.OwnerReferences) != 1 || len(p.Spec.Tolerations) != 6 || aff == nil || aff.NodeAffinity == nil ||
					len(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) != 1 ||
					aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0] != "n1" {
					return fmt.Sprintf("pod %+v", p)
				}
				return ""
			})},
		{name: "scn-36-template-generation-label", profile: "placement", source: scnSource("SCN-36"), rules: []string{"SCN-36", "POD-3"},
			description: "The annotation deprecated.daemonset.template.generation \"7\" becomes the pod label pod-template-generation \"7\".",
			snapshot:    one(generation("7"), handNodes("n1")),
			check: podCheck(func(p *v1.Pod) string {
				if p.Labels["pod-template-generation"] != "7" {
					return fmt.Sprintf("labels %v", p.Labels)
				}
				return ""
			})},
		{name: "scn-36-template-generation-not-a-number", profile: "placement", source: scnSource("SCN-36"), rules: []string{"SCN-36", "POD-3"},
			description: "The annotation deprecated.daemonset.template.generation \"abc\" is not a number: the pod has no pod-template-generation label.",
			snapshot:    one(generation("abc"), handNodes("n1")),
			check: podCheck(func(p *v1.Pod) string {
				if _, ok := p.Labels["pod-template-generation"]; ok {
					return fmt.Sprintf("labels %v", p.Labels)
				}
				return ""
			})},
		{name: "scn-37-required-terms-replaced", profile: "placement", source: scnSource("SCN-37"), rules: []string{"SCN-37", "POD-6"}, surprises: []int{12},
			description: "Template required affinity zone In [a] plus a preferred term: the pod's required terms are replaced by the single matchFields term of its node; the preferred term stays.",
			snapshot:    one(affinityDS, zoned),
			check: podCheck(func(p *v1.Pod) string {
				na := p.Spec.Affinity.NodeAffinity
				terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
				if len(terms) != 1 || len(terms[0].MatchExpressions) != 0 || len(terms[0].MatchFields) != 1 || len(na.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
					return fmt.Sprintf("affinity %+v", na)
				}
				return ""
			})},
		{name: "scn-38-default-tolerations", profile: "placement", source: scnSource("SCN-38"), rules: []string{"SCN-38", "DEFTOL-2", "DEFTOL-3"}, surprises: []int{11},
			description: "Template tolerations a Exists, not-ready Exists NoExecute 300s and unreachable Equal NoExecute 300s, with hostNetwork: the not-ready toleration loses its seconds (it is identical to a default one), the unreachable one keeps them and the default unreachable Exists is added, with disk, memory, pid, unschedulable and network-unavailable.",
			snapshot:    one(tolerDS, handNodes("n1")),
			check: podCheck(func(p *v1.Pod) string {
				var got []string
				for _, t := range p.Spec.Tolerations {
					s := fmt.Sprintf("%s %s %s", t.Key, t.Operator, t.Effect)
					if t.TolerationSeconds != nil {
						s += fmt.Sprintf(" %ds", *t.TolerationSeconds)
					}
					got = append(got, s)
				}
				want := []string{"a Exists ", "node.kubernetes.io/not-ready Exists NoExecute", "node.kubernetes.io/unreachable Equal NoExecute 300s",
					"node.kubernetes.io/unreachable Exists NoExecute", "node.kubernetes.io/disk-pressure Exists NoSchedule",
					"node.kubernetes.io/memory-pressure Exists NoSchedule", "node.kubernetes.io/pid-pressure Exists NoSchedule",
					"node.kubernetes.io/unschedulable Exists NoSchedule", "node.kubernetes.io/network-unavailable Exists NoSchedule"}
				if !equal(got, want...) {
					return fmt.Sprintf("tolerations %q", got)
				}
				return ""
			})},
		{name: "scn-39-template-metadata-carried", profile: "placement", source: scnSource("SCN-39"), rules: []string{"SCN-39", "POD-4"},
			description: "Template metadata with a name, a namespace and the finalizer x/y: the pod carries the finalizer only.",
			snapshot: one(handDS(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Name, ds.Spec.Template.Namespace, ds.Spec.Template.Finalizers = "tpl", "elsewhere", []string{"x/y"}
			}), handNodes("n1")),
			check: podCheck(func(p *v1.Pod) string {
				if p.Name != "" || p.Namespace != "ns" || !equal(p.Finalizers, "x/y") {
					return fmt.Sprintf("metadata %+v", p.ObjectMeta)
				}
				return ""
			})},
	}
}

func rollingScenarioCases() []handCase {
	roll2 := func() *appsv1.DaemonSet { return handDS(rolling(2, 0)) }
	surge1 := func(mods ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
		return handDS(append([]func(*appsv1.DaemonSet){rolling(0, 1)}, mods...)...)
	}
	newHash := hashOf(handDS())
	tainted := handNodes("n0", "n1", "n2")
	tainted[0].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}
	scn93 := func(n0Ready, n2Ready bool) daemonset.Snapshot {
		o := handPod("old-n0", "n0", "old", v1.PodRunning, true)
		if !n0Ready {
			o = unready(o)
		}
		n2 := handPod("new-n2", "n2", newHash, v1.PodRunning, true)
		if !n2Ready {
			n2 = unready(n2)
		}
		return one(surge1(), tainted, o, handPod("new-n1", "n1", newHash, v1.PodRunning, true), n2)
	}
	minReady := surge1(func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 15 })
	scn91 := func(readyFor time.Duration) daemonset.Snapshot {
		return one(minReady, handNodes("n1"), handPod("old-n1", "n1", "old", v1.PodRunning, true),
			readyAt(younger(handPod("new-n1", "n1", newHash, v1.PodRunning, true)), epoch.Add(-readyFor)))
	}
	missing := handPod("old-gone", "gone", "old", v1.PodRunning, true)
	return []handCase{
		{name: "scn-73-two-of-six", profile: "rolling", source: scnSource("SCN-73"), rules: []string{"SCN-73", "UPD-9", "UPD-8", "D-1"},
			description: "Six nodes, every pod old and Ready, maxUnavailable 2: exactly two old pods are deleted, any two.",
			snapshot:    one(roll2(), handNodes("n0", "n1", "n2", "n3", "n4", "n5"), oldPods("old", "n0", "n1", "n2", "n3", "n4", "n5")...),
			check:       wantShape("delete UPD-9 2 of ns/old-n0,ns/old-n1,ns/old-n2,ns/old-n3,ns/old-n4,ns/old-n5; status 6/6/0/6/0/6/0")},
		{name: "scn-74-unavailable-new-pod-spends-the-budget", profile: "rolling", source: scnSource("SCN-74"), rules: []string{"SCN-74", "UPD-8", "UPD-9", "D-1"},
			description: "Five nodes: n0 has a new pod that is not Ready, n1 to n4 old Ready pods, maxUnavailable 2: n0 spends one unit, so exactly one old pod is deleted.",
			snapshot: one(roll2(), handNodes("n0", "n1", "n2", "n3", "n4"),
				append(oldPods("old", "n1", "n2", "n3", "n4"), unready(handPod("new-n0", "n0", newHash, v1.PodRunning, true)))...),
			check: wantShape("delete UPD-9 1 of ns/old-n1,ns/old-n2,ns/old-n3,ns/old-n4; status 5/5/0/4/1/4/1")},
		{name: "scn-79-max-unavailable-integer-string", profile: "rolling", source: scnSource("SCN-79"), rules: []string{"SCN-79", "UPD-5", "SYNC-6"},
			description: "maxUnavailable \"2\", a string that is not a percentage: the rolling step fails with no action; the status is unaffected.",
			snapshot: one(handDS(func(ds *appsv1.DaemonSet) {
				mu := intstr.FromString("2")
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu}}
			}), handNodes("n0", "n1"), oldPods("old", "n0", "n1")...),
			check: wantShape("status 2/2/0/2/0/2/0")},
		{name: "scn-80-negative-max-unavailable", profile: "rolling", source: scnSource("SCN-80"), rules: []string{"SCN-80", "UPD-5"},
			description: "maxUnavailable -1: no deletion.",
			snapshot:    one(handDS(rolling(-1, 0)), handNodes("n0", "n1"), oldPods("old", "n0", "n1")...),
			check:       wantShape("status 2/2/0/2/0/2/0")},
		{name: "scn-82-on-delete-keeps-old-pods", profile: "rolling", source: scnSource("SCN-82"), rules: []string{"SCN-82", "UPD-1"},
			description: "OnDelete with two old Ready pods: nothing happens; updated 0.",
			snapshot:    one(handDS(), handNodes("n0", "n1"), oldPods("old", "n0", "n1")...),
			check:       wantShape("status 2/2/0/2/0/2/0")},
		{name: "scn-86-surge-one-of-four", profile: "rolling", source: scnSource("SCN-86"), rules: []string{"SCN-86", "UPD-11", "UPD-23", "D-1"},
			description: "Four nodes, every pod old and Ready, maxSurge 1: a create on exactly one node, any one; no delete.",
			snapshot:    one(surge1(), handNodes("n0", "n1", "n2", "n3"), oldPods("old", "n0", "n1", "n2", "n3")...),
			check:       wantShape("create UPD-23 1 of n0,n1,n2,n3; status 4/4/0/4/0/4/0")},
		{name: "scn-87-surge-unready-old-node-first", profile: "rolling", source: scnSource("SCN-87"), rules: []string{"SCN-87", "UPD-11", "UPD-23", "D-1"},
			description: "Four nodes of old Ready pods except n1, whose old pod is not Ready, maxSurge 1: a create on n1, and on one more node.",
			snapshot: one(surge1(), handNodes("n0", "n1", "n2", "n3"),
				append(oldPods("old", "n0", "n2", "n3"), unready(handPod("old-n1", "n1", "old", v1.PodRunning, true)))...),
			check: wantShape("create n1; create UPD-23 1 of n0,n2,n3; status 4/4/0/3/0/3/1")},
		{name: "scn-88-surge-pending-uses-the-budget", profile: "rolling", source: scnSource("SCN-88"), rules: []string{"SCN-88", "UPD-11"},
			description: "n0 has an old Ready pod beside a new pod that is not Ready, n1 an old Ready pod, n2 an old pod that is not Ready, maxSurge 1: nothing more on n0 and no other surge, but n2 still gets its create.",
			snapshot: one(surge1(), handNodes("n0", "n1", "n2"), handPod("old-n0", "n0", "old", v1.PodRunning, true),
				unready(younger(handPod("new-n0", "n0", newHash, v1.PodRunning, true))), handPod("old-n1", "n1", "old", v1.PodRunning, true),
				unready(handPod("old-n2", "n2", "old", v1.PodRunning, true))),
			check: wantShape("create n2; status 3/3/0/2/0/2/1")},
		{name: "scn-91-min-ready-seconds-not-yet", profile: "rolling", source: scnSource("SCN-91"), rules: []string{"SCN-91", "DIFF-6", "UPD-12"},
			description: "minReadySeconds 15, a new pod Ready for 10 s beside an old Ready pod: both stay.",
			snapshot:    scn91(10 * time.Second),
			check:       wantShape("status 1/1/0/1/0/1/0")},
		{name: "scn-91-min-ready-seconds-at-the-boundary", profile: "rolling", source: scnSource("SCN-91"), rules: []string{"SCN-91", "DIFF-6", "UPD-12"}, surprises: []int{33},
			description: "minReadySeconds 15, a new pod Ready for exactly 15 s beside an old Ready pod: the new pod is available (the boundary is inclusive), so the old one is deleted.",
			snapshot:    scn91(15 * time.Second),
			check:       wantShape("delete ns/old-n1; status 1/1/0/1/0/1/0")},
		{name: "scn-92-surge-25-percent-of-four", profile: "rolling", source: scnSource("SCN-92"), rules: []string{"SCN-92", "UPD-5", "UPD-23", "D-1"},
			description: "maxSurge 25% of four nodes of old Ready pods: one create.",
			snapshot:    one(handDS(rollingStrings("0", "25%")), handNodes("n0", "n1", "n2", "n3"), oldPods("old", "n0", "n1", "n2", "n3")...),
			check:       wantShape("create UPD-23 1 of n0,n1,n2,n3; status 4/4/0/4/0/4/0")},
		{name: "scn-92-surge-100-percent-of-four", profile: "rolling", source: scnSource("SCN-92"), rules: []string{"SCN-92", "UPD-5", "UPD-11"},
			description: "maxSurge 100% of four nodes of old Ready pods: four creates.",
			snapshot:    one(handDS(rollingStrings("0", "100%")), handNodes("n0", "n1", "n2", "n3"), oldPods("old", "n0", "n1", "n2", "n3")...),
			check:       wantShape("create n0,n1,n2,n3; status 4/4/0/4/0/4/0")},
		{name: "scn-93-surge-ineligible-old-pod-goes", profile: "rolling", source: scnSource("SCN-93"), rules: []string{"SCN-93", "UPD-11", "ELIG-4", "STAT-4"},
			description: "n0 is NoSchedule-tainted and holds an old Ready pod, n1 and n2 new Ready pods, maxSurge 1: n0's pod is deleted; desired 2, misscheduled 1.",
			snapshot:    scn93(true, true),
			check:       wantShape("delete ns/old-n0; status 2/2/1/2/2/2/0")},
		{name: "scn-94-surge-waits-for-unready-new-pod", profile: "rolling", source: scnSource("SCN-94"), rules: []string{"SCN-94", "UPD-11"},
			description: "As SCN-93, but n2's new pod is not Ready: it spends the surge budget, and nothing happens.",
			snapshot:    scn93(true, false),
			check:       wantShape("status 2/2/1/1/2/1/1")},
		{name: "scn-95-surge-unready-ineligible-old-pod-goes", profile: "rolling", source: scnSource("SCN-95"), rules: []string{"SCN-95", "UPD-11"},
			description: "As SCN-93, but n0's old pod is not Ready: it is deleted.",
			snapshot:    scn93(false, true),
			check:       wantShape("delete ns/old-n0; status 2/2/1/2/2/2/0")},
		{name: "surprise-32-observed-generation-after-a-failed-step", profile: "status", source: scnSource("SCN-96 and SCN-102"), rules: []string{"STAT-8", "UPD-11", "SYNC-6"}, surprises: []int{32},
			description: "Generation 4, maxSurge 1 and an old pod bound to a node missing from the snapshot: the rolling step fails with no action, yet the status is written with observedGeneration 4.",
			snapshot: one(surge1(func(ds *appsv1.DaemonSet) { ds.Generation = 4 }), handNodes("n1"),
				handPod("old-n1", "n1", "old", v1.PodRunning, true), missing),
			check: func(e []Expected) string {
				if e[0].Status == nil || e[0].Status.ObservedGeneration != 4 || e[0].RollingUpdate == nil || e[0].RollingUpdate.Error == "" {
					return fmt.Sprintf("%+v", e[0])
				}
				return ""
			}},
		{name: "scn-102-observed-generation", profile: "status", source: scnSource("SCN-102"), rules: []string{"SCN-102", "STAT-8"},
			description: "metadata.generation 5: observedGeneration 5 in the computed status.",
			snapshot:    one(handDS(func(ds *appsv1.DaemonSet) { ds.Generation = 5 }), handNodes("n1"), handPod("p-n1", "n1", newHash, v1.PodRunning, true)),
			check: func(e []Expected) string {
				if e[0].Status == nil || e[0].Status.ObservedGeneration != 5 {
					return fmt.Sprintf("%+v", e[0].Status)
				}
				return ""
			}},
		{name: "regression-upd-8-running-budget", profile: "rolling", source: fmt.Sprintf(regressionSource, "UPD-8 and UPD-11"), rules: []string{"UPD-8", "UPD-9", "D-1"},
			description: "maxUnavailable 3, five nodes: one new pod that is not Ready (one unit spent) and four old Ready pods: exactly clamp(3 - 1, 0, 4) = 2 old pods go, whatever order the nodes are walked in.",
			snapshot: one(handDS(rolling(3, 0)), handNodes("n0", "n1", "n2", "n3", "n4"),
				append(oldPods("old", "n1", "n2", "n3", "n4"), unready(handPod("new-n0", "n0", newHash, v1.PodRunning, true)))...),
			check: wantShape("delete UPD-9 2 of ns/old-n1,ns/old-n2,ns/old-n3,ns/old-n4; status 5/5/0/4/1/4/1")},
	}
}

func revisionScenarioCases() []handCase {
	customDS := handDS()
	custom, err := daemonset.NewRevision(customDS, "custom", 1)
	if err != nil {
		panic(err)
	}
	named := func(name, uid string, collision *int32) *appsv1.DaemonSet {
		return handDS(func(ds *appsv1.DaemonSet) {
			ds.Name, ds.UID, ds.Status.CollisionCount = name, types.UID("uid-"+uid), collision
			ds.Spec.Selector.MatchLabels = map[string]string{"app": "d", "ds": name}
			ds.Spec.Template.Labels = map[string]string{"app": "d", "ds": name}
		})
	}
	colOne := int32(1)
	nilDS, oneDS := named("a", "a", nil), named("b", "b", &colOne)
	// The same template once rolled out with OnDelete and minReadySeconds 0, now with a rolling
	// strategy and minReadySeconds 30: the revision's data is the template only (UPD-16).
	before := handDS()
	after := handDS(rolling(1, 0), func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 30 })
	rev, err := daemonset.NewRevision(before, hashOf(before), 1)
	if err != nil {
		panic(err)
	}
	return []handCase{
		{name: "scn-104-matching-revision-label", profile: "diff", source: scnSource("SCN-104"), rules: []string{"SCN-104", "UPD-14", "DIFF-2"}, surprises: []int{29},
			description: "A ControllerRevision whose data matches the template, labelled controller-revision-hash custom: the created pod carries custom, not the template's hash.",
			snapshot:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{customDS}, Nodes: handNodes("n1"), Revisions: []*appsv1.ControllerRevision{custom}},
			check: podCheck(func(p *v1.Pod) string {
				if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != "custom" {
					return fmt.Sprintf("labels %v", p.Labels)
				}
				return ""
			})},
		{name: "scn-105-collision-count-changes-the-hash", profile: "diff", source: scnSource("SCN-105"), rules: []string{"SCN-105", "UPD-15", "DIFF-2"}, surprises: []int{30},
			description: "Two DaemonSets with the same template, one without collisionCount and one with collisionCount 1: their pods carry different hash labels.",
			snapshot:    daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{nilDS, oneDS}, Nodes: handNodes("n1")},
			check: func(e []Expected) string {
				if len(e) != 2 || e[0].RevisionHash == e[1].RevisionHash || e[0].RevisionHash != hashOf(nilDS) || e[1].RevisionHash != hashOf(oneDS) {
					return fmt.Sprintf("%+v", e)
				}
				return ""
			}},
		{name: "scn-107-strategy-change-keeps-the-hash", profile: "rolling", source: scnSource("SCN-107"), rules: []string{"SCN-107", "UPD-16", "UPD-14"},
			description: "The template's revision was written under OnDelete; the DaemonSet now has a rolling strategy and minReadySeconds 30: the revision still matches, its hash is current, and nothing rolls.",
			snapshot: daemonset.Snapshot{DaemonSets: []*appsv1.DaemonSet{after}, Nodes: handNodes("n1", "n2"),
				Pods: oldPods(hashOf(before), "n1", "n2"), Revisions: []*appsv1.ControllerRevision{rev}},
			check: func(e []Expected) string {
				if e[0].RevisionHash != hashOf(before) || shape(e[0]) != "status 2/2/0/2/2/2/0" {
					return fmt.Sprintf("%s %s", e[0].RevisionHash, shape(e[0]))
				}
				return ""
			}},
	}
}

// TestScenarioHandCasesHold asserts, for each hand-written scenario case, what its SCN entry
// (or its fidelity difference) states, so that a regenerated corpus cannot drift from it.
func TestScenarioHandCasesHold(t *testing.T) {
	byName := corpusByName(t)
	for _, h := range scenarioHandCases() {
		c, ok := byName[h.name]
		if !ok {
			t.Errorf("no case %s in the corpus", h.name)
			continue
		}
		if msg := h.check(c.Expected); msg != "" {
			t.Errorf("%s: %s", h.name, msg)
		}
	}
}
