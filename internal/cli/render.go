package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/printable"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// planDocument is what plan -o json|yaml prints, the oracle contract (README, "The JSON
// contract"): the instant the plan was made at, the versions that made it, and the plan of
// every DaemonSet, whose created pods carry apiVersion and kind so that they can be piped to
// kubectl create.
type planDocument struct {
	// Now is the instant of the sync (--now, or the latest time the input records), RFC 3339.
	Now string `json:"now"`
	// Version is daemonsched's version, as `daemonsched version` prints it.
	Version string `json:"version"`
	// Kubernetes is the release whose DaemonSet controller the plan models.
	Kubernetes string              `json:"kubernetes"`
	DaemonSets []*daemonset.Result `json:"daemonSets"`
	// Scheduler is, with --scheduler, the scheduler's verdict on each pod the plans create and
	// each unbound Pending pod of their DaemonSets (SCHED-7); absent without it, so the
	// contract's plans stay the library's.
	Scheduler []bindVerdict `json:"scheduler,omitempty"`
}

// podTypeMeta is what a created pod carries in the CLI's output and not in the library's
// Result: the controller builds its pods without it and client-go sets it on the wire.
var podTypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}

// newPlanDocument returns the document of c made at now by release's controller. c is not modified: the plans with
// creates are copied, and their pods shallow-copied to carry podTypeMeta.
func newPlanDocument(c *daemonset.ClusterResult, now time.Time, release daemonset.Version) planDocument {
	doc := planDocument{Now: formatNow(now), Version: buildVersion().Version, Kubernetes: kubernetesName(release),
		DaemonSets: make([]*daemonset.Result, len(c.DaemonSets))}
	for i, r := range c.DaemonSets {
		if r == nil || len(r.Create) == 0 {
			doc.DaemonSets[i] = r
			continue
		}
		cp := *r
		cp.Create = slices.Clone(r.Create)
		for j, cr := range cp.Create {
			if cr.Pod != nil {
				pod := *cr.Pod
				pod.TypeMeta = podTypeMeta
				cp.Create[j].Pod = &pod
			}
		}
		doc.DaemonSets[i] = &cp
	}
	return doc
}

// kubernetesName names release as every document prints it, the key kubernetes: "v1.37.2".
func kubernetesName(release daemonset.Version) string { return "v" + release.String() }

// formatNow writes an instant as the documents print it: RFC 3339 in UTC, with a fraction of a
// second only when it has one (readiness can turn on it, UPD-12).
func formatNow(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// q quotes a name or value read from the input when it holds a control or other non-graphic
// character, so that it can neither forge a line nor reach the terminal as an escape. It cuts
// one longer than nameBytes, which only an invalid name is: plan --lenient printed a 1.5 MB
// name whole in every row naming it (issue 25).
func q(s string) string { return printable.Quote(errlist.Cut(s, nameBytes)) }

// count says n noun, the noun plural unless n is 1: "1 DaemonSet", "2 DaemonSets", "0 pods".
func count(n int, noun string) string {
	return strconv.Itoa(n) + " " + agree(n, noun, noun+"s")
}

// agree returns one when n is 1, else many: the word that agrees with a count.
func agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// newTabWriter aligns columns as kubectl does.
func newTabWriter(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 6, 4, 3, ' ', 0) }

// skipText says in words what each Result.Skipped rule means; the rule ID follows the words.
var skipText = map[daemonset.Skip]string{
	daemonset.SkipSelectingAll:    "the selector is empty and would select every pod; the controller emits SelectingAll and does nothing",
	daemonset.SkipBeingDeleted:    "the DaemonSet is being deleted; the controller does nothing",
	daemonset.SkipInvalidSelector: "the selector cannot be converted; the sync fails before any pod work",
	daemonset.SkipHashCollision:   "a ControllerRevision of the current hash holds another template (hash collision); the sync stops",
}

// describeSkip says in words why the sync does nothing, then names the rule.
func describeSkip(s daemonset.Skip) string {
	text, ok := skipText[s]
	if !ok {
		text = "the controller does nothing"
	}
	return text + " (" + string(s) + ")"
}

// renderActions writes the plan of one DaemonSet, one action per line; unless wide, more than
// groupOver creates or deletes of one reason are one line with their count and first nodes.
// held names what holds the update budget when the rolling update finds nothing to do while old
// pods wait for it (budgetHolders), or is "".
func renderActions(w io.Writer, r *daemonset.Result, wide bool, held string) {
	fmt.Fprintf(w, "DaemonSet %s/%s", q(r.Namespace), q(r.Name))
	if r.RevisionHash != "" {
		fmt.Fprintf(w, " (revision %s)", q(r.RevisionHash))
	}
	fmt.Fprintf(w, ":%s\n", actionCounts(r))
	n := 0
	line := func(verb, format string, a ...any) {
		fmt.Fprintf(w, "  %-9s  "+format+"\n", append([]any{verb}, a...)...)
		n++
	}
	if r.Skipped != "" {
		line("SKIPPED", "%s", describeSkip(r.Skipped))
	}
	if r.CollisionCount != nil {
		line("COLLISION", "status.collisionCount becomes %d", *r.CollisionCount)
	}
	creates := make([]groupable, len(r.Create))
	for i, c := range r.Create {
		creates[i] = groupable{reasonText(c.Reason, c.Interchangeable), c.Node,
			fmt.Sprintf("pod on node %s (%s)", q(c.Node), reasonText(c.Reason, c.Interchangeable))}
	}
	writeGrouped(line, "CREATE", "pods", creates, wide)
	deletes := make([]groupable, len(r.Delete))
	for i, d := range r.Delete {
		node := ""
		if d.Node != "" {
			node = " on node " + q(d.Node)
		}
		deletes[i] = groupable{reasonText(d.Reason, d.Interchangeable), d.Node,
			fmt.Sprintf("%s/%s%s (%s)", q(d.Namespace), q(d.Name), node, reasonText(d.Reason, d.Interchangeable))}
	}
	writeGrouped(line, "DELETE", "pods", deletes, wide)
	for _, p := range r.Adopt {
		line("ADOPT", "%s/%s (orphan matching the selector gets this DaemonSet as controller)", q(p.Namespace), q(p.Name))
	}
	for _, p := range r.Release {
		line("RELEASE", "%s/%s (labels no longer match the selector)", q(p.Namespace), q(p.Name))
	}
	for _, c := range r.Conflicts {
		line("CONFLICT", "%s/%s (orphan this selector also matches; adopted by the older DaemonSet %s)", q(c.Namespace), q(c.Name), printable.Escape(c.AdoptedBy))
	}
	if ru := r.RollingUpdate; ru != nil {
		switch {
		case ru.Acted && len(r.Create)+len(r.Delete) == 0 && held != "":
			line("ROLLOUT", "waits: the update budget (maxUnavailable %d, maxSurge %d) is held by %s", ru.MaxUnavailable, ru.MaxSurge, held)
		case ru.Acted && len(r.Create)+len(r.Delete) == 0:
			line("ROLLOUT", "nothing to replace (maxUnavailable %d, maxSurge %d)", ru.MaxUnavailable, ru.MaxSurge)
		case ru.Acted:
			line("ROLLOUT", "acted (maxUnavailable %d, maxSurge %d)", ru.MaxUnavailable, ru.MaxSurge)
		case ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty && ru.BudgetError != "":
			line("ROLLOUT", "waits: the creates and deletes above come first (UPD-2), then stops: %s", printable.Escape(ru.BudgetError))
		case ru.Reason == daemonset.RollingReasonBaseDiffNotEmpty:
			line("ROLLOUT", "waits: the creates and deletes above come first (UPD-2; then maxUnavailable %d, maxSurge %d)", ru.MaxUnavailable, ru.MaxSurge)
		case ru.Reason == daemonset.RollingReasonOnDelete:
			line("ROLLOUT", "none: updateStrategy OnDelete replaces pods only when they are deleted")
		case ru.Error != "":
			line("ROLLOUT", "stopped: %s", printable.Escape(ru.Error))
		default:
			line("ROLLOUT", "waits: %s", ru.Reason)
		}
	}
	for _, e := range r.Events {
		// The message names the pod and node when there are any; without one, the line does.
		text := e.Message
		if text == "" {
			if e.Pod != "" {
				text += "pod " + q(e.Pod)
			}
			if e.Node != "" {
				text += " on node " + q(e.Node)
			}
		}
		line("EVENT", "%s %s: %s", e.Type, e.Reason, printable.Escape(strings.TrimSpace(text)))
	}
	// Capped as errors are (errlist): a DaemonSet with 20,000 invalid tolerations, planned
	// with --lenient, printed 20,000 lines (issue 25).
	errlist.Write(w, fmt.Sprintf("  %-9s  ", "INVALID"), len(r.Invalid), 0, func(i int) {
		line("INVALID", "%s", errlist.Cut(printable.Escape(r.Invalid[i]), errlist.LineBytes))
	})
	if n == 0 {
		line("NOTHING", "to do: every node that should run a daemon pod runs an up-to-date one")
	}
}

func reasonText(r daemonset.Reason, interchangeable bool) string {
	if interchangeable {
		return string(r) + ", one of equal candidates"
	}
	return string(r)
}

// renderExplain writes, for node and every DaemonSet of dss, whether a daemon pod would be
// created there, whether a running one may stay, why, and the DaemonSet's pods on the node.
func renderExplain(w io.Writer, node *v1.Node, dss []*appsv1.DaemonSet, pods []*v1.Pod, plan *daemonset.ClusterResult, opts daemonset.Options, bind *binder) {
	fmt.Fprintf(w, "Node %s\n", q(node.Name))
	if len(dss) == 0 {
		fmt.Fprintln(w, "\nNo DaemonSets in the input.")
		return
	}
	sorted := slices.Clone(dss)
	slices.SortFunc(sorted, func(a, b *appsv1.DaemonSet) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, ds := range sorted {
		p, _ := daemonset.Compile(ds, opts)
		ex := p.Explain(node)
		fmt.Fprintf(w, "\nDaemonSet %s/%s\n", q(ds.Namespace), q(ds.Name))
		tw := newTabWriter(w)
		fmt.Fprintf(tw, "  should run here:\t%s\n", yesNo(ex.ShouldRun, "yes", "no"))
		fmt.Fprintf(tw, "  running pod:\t%s\n", yesNo(ex.ShouldContinueRunning, "may stay", "would be deleted"))
		why := strings.Split(strings.TrimSpace(ex.String()), "\n")
		for i, l := range why {
			label := ""
			if i == 0 {
				label = "why:"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", label, printable.Escape(l))
		}
		owned := podsOnNode(p.Version(), ds, node.Name, pods)
		if len(owned) == 0 {
			fmt.Fprintf(tw, "  pods on the node:\tnone\n")
		}
		for i, pod := range owned {
			label := ""
			if i == 0 {
				label = "pods on the node:"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", label, describePod(pod))
		}
		for i, action := range nodeActions(plan, ds, node.Name) {
			label := ""
			if i == 0 {
				label = "this sync:"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", label, action)
		}
		for i, line := range bind.lines(p, ds, node, plan, pods) {
			label := ""
			if i == 0 {
				label = "scheduler:"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", label, line)
		}
		tw.Flush()
	}
}

// nodeActions lists what the plan of ds does on nodeName.
func nodeActions(plan *daemonset.ClusterResult, ds *appsv1.DaemonSet, nodeName string) []string {
	var out []string
	for _, r := range plan.DaemonSets {
		if r.Namespace != ds.Namespace || r.Name != ds.Name {
			continue
		}
		if r.Skipped != "" {
			out = append(out, "nothing: "+describeSkip(r.Skipped))
		}
		for _, c := range r.Create {
			if c.Node == nodeName {
				out = append(out, "CREATE a pod ("+reasonText(c.Reason, c.Interchangeable)+")")
			}
		}
		for _, d := range r.Delete {
			if d.Node == nodeName {
				out = append(out, "DELETE "+q(d.Namespace)+"/"+q(d.Name)+" ("+reasonText(d.Reason, d.Interchangeable)+")")
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "nothing")
	}
	return out
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// podsOnNode returns the pods of pods that ds controls in release v, the plan's
// (v.IsControlledBy: OWN-1, OWN-7, VER-4; the selector is not consulted, so a pod the sync would
// release is included) and that are meant for the node named nodeName (affinity.TargetNodeName:
// spec.nodeName or the node its required affinity binds it to, OWN-9), sorted by name, whether
// or not the sync keeps them:
// terminal pods being deleted, which the sync no longer groups by node (OWN-10), are included.
// Nil pods are passed over; pods is not modified.
func podsOnNode(v daemonset.Version, ds *appsv1.DaemonSet, nodeName string, pods []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, pod := range pods {
		if pod == nil || !v.IsControlledBy(pod, ds) {
			continue
		}
		if node, _ := affinity.TargetNodeName(pod); node != nodeName {
			continue
		}
		out = append(out, pod)
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// describePod says what matters about a daemon pod in one line; ready is UPD-13
// (daemonset.IsPodReady).
func describePod(pod *v1.Pod) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s/%s", q(pod.Namespace), q(pod.Name))
	phase := string(pod.Status.Phase)
	if phase == "" {
		phase = "Pending"
	}
	b.WriteString(" " + q(phase))
	b.WriteString(", " + yesNo(daemonset.IsPodReady(pod), "ready", "not ready"))
	if h, ok := pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; ok {
		b.WriteString(", revision " + q(h))
	}
	if g, ok := pod.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey]; ok {
		if _, err := strconv.Atoi(g); err == nil {
			b.WriteString(", template generation " + g)
		}
	}
	if pod.DeletionTimestamp != nil {
		b.WriteString(", terminating")
	}
	return b.String()
}
