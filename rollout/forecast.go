package rollout

import (
	"slices"
	"time"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/reasonrule"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ForecastOptions are the inputs of Forecast that are not API objects.
type ForecastOptions struct {
	// Now is when the forecast starts. Required.
	Now time.Time
	// Kubelet is the kubelet model; Seed seeds its draws.
	Kubelet Kubelet
	Seed    uint64
	// Model is the sync model; the default is SyncObserved.
	Model SyncModel
	// Horizon bounds the forecast; 0 means 24 hours.
	Horizon time.Duration
	// Resync is the period of the controller's informer resync, as Options.Resync: the first
	// comes Resync after Now; 0 models none.
	Resync time.Duration
	// Workers is passed to every plan.
	Workers int
	// Version is the Kubernetes release whose controller syncs (daemonset.Options.Version);
	// the zero Version is the default release.
	Version daemonset.Version
	// FeatureGates sets feature gates over the release's defaults, as Options.FeatureGates:
	// the update of ds, every plan and the final judgement (Progress) decide with them, as
	// the plan of package daemonset does. A gate the release does not know is an error at
	// opts.featureGates; nil keeps the defaults.
	FeatureGates daemonset.FeatureGates
	// Scheduler binds created pods; nil binds every pod to its node when the node exists.
	// FilterScheduler judges them with the scheduler's filters (SCHED-9).
	Scheduler Scheduler
}

// ForecastStep is one sync of the forecast that acts.
type ForecastStep struct {
	// After is the time from the start of the forecast.
	After   time.Duration `json:"after"`
	Created int           `json:"created"`
	Deleted int           `json:"deleted"`
	// Replaced counts the deletions of the rolling update (old pods making way, UPD-8, UPD-11).
	Replaced int `json:"replaced"`
	// UpToDate and Available are the status the sync wrote.
	UpToDate  int32 `json:"upToDate"`
	Available int32 `json:"available"`
}

// ForecastResult is what Forecast predicts.
type ForecastResult struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// RevisionHash is the revision the rollout goes to.
	RevisionHash string         `json:"revisionHash"`
	Steps        []ForecastStep `json:"steps"`
	// Complete says that the rollout completes within the horizon, Duration when.
	Complete bool          `json:"complete"`
	Duration time.Duration `json:"duration"`
	// Final judges the cluster where the forecast ends: when the rollout cannot finish, it
	// names the blocking nodes and why (Final.Blocking).
	Final *Report `json:"final"`
}

// Forecast predicts the rollout of ds, a template change or the DaemonSet as it is in s (a
// rollout under way), under the kubelet model (ROLL-10): the syncs that act in order, the pods
// each replaces, when it completes, or, when it cannot, the nodes that block it and why. It
// simulates with Simulate and judges the end with Progress. Pods of s that are on their way
// (not Ready, not stuck) turn Ready after a start-up delay from opts.Now; pods waiting in a
// state they do not leave by themselves (CrashLoopBackOff, ErrImagePull, ...) stay there.
//
// A ds whose spec differs from the DaemonSet of its namespace and name in s is first updated
// over it as the API server updates it ([apiserver.Update], D-14): the generation and the
// template generation move on as the DaemonSet strategy moves them, whatever ds says, and an
// update the API server refuses (an immutable selector changed, a selector that does not match
// the template, ...) is the error, with its paths. The pod template is taken as given
// (apiserver.Options.SkipTemplateDefaults): it is as the snapshot's templates were read. The
// update is validated as opts.Version's API server validates it, with opts.FeatureGates.
func Forecast(s daemonset.Snapshot, ds *appsv1.DaemonSet, opts ForecastOptions) (*ForecastResult, error) {
	if opts.Now.IsZero() {
		return nil, field.Required(field.NewPath("opts", "now"), "the instant the forecast starts")
	}
	if errs := (daemonset.Options{Version: opts.Version, FeatureGates: opts.FeatureGates}).CheckFeatureGates(field.NewPath("opts", "featureGates")); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	if i := slices.IndexFunc(s.DaemonSets, func(d *appsv1.DaemonSet) bool {
		return d.Namespace == ds.Namespace && d.Name == ds.Name
	}); i >= 0 && !equality.Semantic.DeepEqual(s.DaemonSets[i].Spec, ds.Spec) {
		updated, errs := apiserver.Update(s.DaemonSets[i], ds, apiserver.Options{Version: opts.Version, FeatureGates: opts.FeatureGates, SkipTemplateDefaults: true})
		if len(errs) > 0 {
			return nil, errlist.Aggregate(errs)
		}
		ds = updated
	}
	sm, err := newSim(s, ds, Options{Start: opts.Now, Seed: opts.Seed, Kubelet: opts.Kubelet, Model: opts.Model,
		Horizon: opts.Horizon, Resync: opts.Resync, Workers: opts.Workers, Version: opts.Version, FeatureGates: opts.FeatureGates, Scheduler: opts.Scheduler})
	if err != nil {
		return nil, err
	}
	traj, err := sm.run()
	if err != nil {
		return nil, err
	}
	final := traj.End.DaemonSets[slices.IndexFunc(traj.End.DaemonSets, func(d *appsv1.DaemonSet) bool {
		return d.Namespace == ds.Namespace && d.Name == ds.Name
	})]
	rep, err := Progress(traj.End, final, ProgressOptions{Now: traj.EndTime, Workers: opts.Workers, Version: opts.Version, FeatureGates: opts.FeatureGates})
	if err != nil {
		return nil, err
	}
	if (traj.Quiescent || sm.idle) && rep.State == StateProgressing {
		// Nothing more would happen (before the horizon, but the next resync), yet the rollout
		// goes on: no sync is queued (ROLL-5; under maxSurge with minReadySeconds a surge pod
		// can turn available with none), so it waits for an event or its informers' resync.
		rep.Message += "; " + noSyncQueued(sm)
	}
	out := &ForecastResult{Namespace: ds.Namespace, Name: ds.Name, RevisionHash: rep.RevisionHash,
		Steps: []ForecastStep{}, Final: rep, Complete: rep.State == StateComplete}
	for _, st := range traj.Acting() {
		fs := ForecastStep{After: st.At.Sub(opts.Now), Created: len(st.Create), Deleted: len(st.Delete),
			UpToDate: st.Status.UpdatedNumberScheduled, Available: st.Status.NumberAvailable}
		for _, d := range st.Delete {
			if e, _ := reasonrule.Of(string(d.Reason)); e.Replaces {
				fs.Replaced++
			}
		}
		out.Steps = append(out.Steps, fs)
	}
	if out.Complete {
		out.Duration = traj.LastChange.Sub(opts.Now)
	}
	return out, nil
}

// noSyncQueued says, for a forecast that ends with no sync queued, what would queue one:
// an event, or else only the informers' resync, when the next one comes if sm models it.
func noSyncQueued(sm *sim) string {
	const msg = "no sync is queued: the controller acts at its next event on the DaemonSet, its pods or nodes; without one, only "
	at, ok := sm.nextResync()
	if !ok {
		return msg + "its informers' resync queues it again (every 12h to 24h under kube-controller-manager's default --min-resync-period; ForecastOptions.Resync models it) (ROLL-5)"
	}
	return msg + "its informers' next resync queues it again, at " + at.Format(time.RFC3339) +
		" (" + at.Sub(sm.opts.Start).String() + " after the start) (ROLL-5)"
}
