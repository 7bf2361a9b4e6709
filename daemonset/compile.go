package daemonset

import (
	"maps"
	"sync"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/selector"
	"github.com/daemonsched/daemonsched/taints"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Planner is a compiled DaemonSet. It is immutable and safe for concurrent use: everything the
// plan needs per node or per pod (selector, placement, merged tolerations, daemon pod prototype)
// is computed once by [Compile].
type Planner struct {
	ds   *appsv1.DaemonSet // as given; never modified
	opts Options
	errs field.ErrorList

	// skip is the rule under which every sync of this DaemonSet does nothing
	// (SkipSelectingAll, SkipBeingDeleted, SkipInvalidSelector), or "".
	skip Skip

	sel *selector.Selector // nil when the selector does not convert (SYNC-5)
	req *affinity.Required
	// nodeName is spec.template.spec.nodeName (ELIG-2).
	nodeName string

	// tolerations is the template's list with the default daemon tolerations merged in
	// (DEFTOL-1..3); tols is its compiled form (TAINT-8).
	tolerations []v1.Toleration
	tols        *taints.Tolerations

	// proto is the daemon pod without its hash label and without the node binding (POD-1..7).
	proto *v1.Pod
	// digest is the template's revision patch and hash (UPD-15, UPD-16), computed on first
	// use: hashing dumps the whole template, and Plan takes its hash from the revisions when the
	// snapshot has a current one.
	digest templateDigest

	// pool recycles the working memory of Plan (planScratch).
	pool *sync.Pool
}

// Compile compiles ds. errs lists what API validation would reject (VAL-*); the Planner is
// returned even then and plans the object as stored, as the controller would (VAL-22, D-4).
//
// The Planner keeps ds, which must not be modified while the Planner is in use (the same
// contract as objects from an informer cache); everything derived from it is copied.
//
// Compile panics on misuse: a nil ds, a zero opts.Now, or a negative opts.Workers.
func Compile(ds *appsv1.DaemonSet, opts Options) (*Planner, field.ErrorList) {
	opts.Check()
	if ds == nil {
		panic("daemonset: nil DaemonSet")
	}
	p := &Planner{ds: ds, opts: opts, pool: &sync.Pool{}}
	p.errs = Validate(ds, opts)

	// The selector is converted even when SYNC-3 or SYNC-4 applies, so that the Planner is
	// complete; only the order of the skip checks follows SYNC-2.
	sel, selErrs := selector.Compile(ds.Spec.Selector, field.NewPath("spec", "selector"))
	if len(selErrs) == 0 {
		p.sel = sel
	}
	switch {
	case isSelectingAll(ds.Spec.Selector):
		p.skip = SkipSelectingAll
	case ds.DeletionTimestamp != nil:
		p.skip = SkipBeingDeleted
	case len(selErrs) > 0:
		p.skip = SkipInvalidSelector
	}

	spec := &ds.Spec.Template.Spec
	p.req = affinity.Compile(spec, field.NewPath("spec", "template", "spec"))
	p.nodeName = spec.NodeName

	p.tolerations = mergeDaemonTolerations(spec.Tolerations, spec.HostNetwork)
	p.tols = taints.Compile(p.tolerations, taints.Options{ComparisonOperators: opts.Enabled(GateTaintTolerationComparisonOperators)})

	p.proto = buildPrototype(ds, p.tolerations)
	p.digest = newTemplateDigest(ds, opts.release())
	return p, p.errs
}

// isSelectingAll is the SYNC-3 guard: Go deep equality with an empty LabelSelector, so a
// non-nil empty matchLabels map or matchExpressions slice does not trip it.
func isSelectingAll(ls *metav1.LabelSelector) bool {
	return ls != nil && ls.MatchLabels == nil && ls.MatchExpressions == nil
}

// Check panics, naming the field, when opts is a programming error: a zero Now, a negative
// Workers, or a feature gate the release does not know (a negative BurstLimit asks for no
// cap). Compile, Plan and Snapshot.Plan call it; so do the packages
// built on this one (fleet) before any work, so that misuse is caught even when there is
// nothing to compile.
func (opts Options) Check() {
	if opts.Now.IsZero() {
		panic("daemonset: Options.Now is zero")
	}
	if opts.Workers < 0 {
		panic("daemonset: negative Options.Workers")
	}
	// The path is built only for gates: Planner.At checks the options of every sync.
	if len(opts.FeatureGates) > 0 {
		if errs := opts.CheckFeatureGates(field.NewPath("Options", "FeatureGates")); len(errs) > 0 {
			panic("daemonset: Kubernetes " + opts.release().String() + ": " + errlist.Aggregate(errs).Error())
		}
	}
}

// Version returns the Kubernetes release the Planner plans as: Options.Version, or the default
// release when that is zero (VER-1). Code that applies a version-dependent rule beside a plan
// ([Version.IsPodAvailable], [Version.IsControlledBy]) asks it.
func (p *Planner) Version() Version { return p.opts.release() }

// Enabled reports whether feature gate g is on for the Planner ([Options.Enabled]). Code that
// applies a gated rule beside a plan (fleet's requests and admission, ADM-8) asks it.
func (p *Planner) Enabled(g Gate) bool { return p.opts.Enabled(g) }

// FeatureGates returns a copy of the gates the Planner was compiled with
// (Options.FeatureGates): what a scheduler or API server model of the same cluster takes.
func (p *Planner) FeatureGates() FeatureGates { return maps.Clone(p.opts.FeatureGates) }

// DaemonSet returns the DaemonSet the Planner was compiled from. It must not be modified. Code
// that holds only Planners (the many-DaemonSet layer) reads names and specs through it.
func (p *Planner) DaemonSet() *appsv1.DaemonSet { return p.ds }

// Tolerations returns the template's tolerations merged with the default daemon tolerations
// (DEFTOL-1..3), compiled: what decides the taint part of eligibility (ELIG-4, ELIG-5). Two
// Planners whose templates have equal tolerations and hostNetwork decide taints alike, so a
// caller deciding many DaemonSets may evaluate one such value for all of them. It is shared,
// immutable and safe for concurrent use.
func (p *Planner) Tolerations() *taints.Tolerations { return p.tols }
