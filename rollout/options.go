package rollout

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
)

// SyncModel says when a sync sees its own writes (docs/sync-models.md).
type SyncModel int

const (
	// SyncObserved: the sync's writes are observed in time (ROLL-7): the base diff, then the
	// rolling-update step planned on the state after it, then the status of the state after
	// both. What the live controller usually does; the default of Simulate.
	SyncObserved SyncModel = iota
	// SyncUnobserved: the plan of package daemonset: the rolling step waits for a sync whose
	// base diff is empty (UPD-2) and the status counts the state before the sync (STAT-1).
	SyncUnobserved
)

func (m SyncModel) String() string {
	if m == SyncUnobserved {
		return "unobserved"
	}
	return "observed"
}

// EventType is a change Simulate makes to the cluster at a given time.
type EventType string

const (
	// EventNodeNotReady: the node stops reporting: condition Ready False, the not-ready taints
	// (NoSchedule and NoExecute) added, its pods marked not Ready, its kubelet stopped.
	EventNodeNotReady EventType = "NodeNotReady"
	// EventNodeReady: the node is back: condition and taints cleared, its pods restart
	// (a new start-up delay), its terminating pods go.
	EventNodeReady EventType = "NodeReady"
	// EventNodeAdded: Node joins the cluster (replacing a node of that name).
	EventNodeAdded EventType = "NodeAdded"
	// EventNodeRemoved: the node leaves; the pod garbage collector removes its pods.
	EventNodeRemoved EventType = "NodeRemoved"
	// EventDaemonSetUpdated: DaemonSet replaces the simulated DaemonSet's metadata and spec
	// (a template change, say); its status is kept.
	EventDaemonSetUpdated EventType = "DaemonSetUpdated"
)

// Event is a change at After from the start of the simulation.
type Event struct {
	After     time.Duration
	Type      EventType
	Node      string            // NodeNotReady, NodeReady, NodeRemoved
	NewNode   *v1.Node          // NodeAdded
	DaemonSet *appsv1.DaemonSet // DaemonSetUpdated
}

// Options are the inputs of Simulate that are not API objects.
type Options struct {
	// Start is the virtual clock's start. Required.
	Start time.Time
	// Seed seeds every random draw: the same seed gives the same trajectory.
	Seed uint64
	// Kubelet is the kubelet model.
	Kubelet Kubelet
	// Model is the sync model; the default is SyncObserved.
	Model SyncModel
	// BurstLimit caps each action list as the controller's BurstReplicas, as
	// [daemonset.Options.BurstLimit]: 0 means the controller's 250, a negative value
	// ([daemonset.NoBurstLimit]) no cap (D-18).
	BurstLimit int
	// Horizon ends the simulation that long after Start; 0 means 24 hours.
	Horizon time.Duration
	// Resync is the period of the controller's informer resync; 0 (the default) models none.
	// kube-controller-manager's informer factory draws one period in [--min-resync-period,
	// twice that), 12 h to 24 h by default, for every informer. At a resync the DaemonSet
	// informer's update handler queues the DaemonSet, while the pod, node and revision
	// handlers ignore it (their old and new objects are the same), so each resync is a sync.
	// The first comes Resync after Start, as if the informers started then: a running
	// controller's phase is unknown, and that is the latest its first resync can come. A
	// negative Resync is an error at opts.resync.
	Resync time.Duration
	// MaxSyncs ends the simulation after that many syncs; 0 means 1,000,000.
	MaxSyncs int
	// Events are changes at given times, applied in order of time, then of the slice.
	Events []Event
	// Scheduler binds created pods; nil binds every pod to its node when the node exists.
	Scheduler Scheduler
	// Workers is passed to every plan (daemonset.Options.Workers).
	Workers int
	// Version is the Kubernetes release whose controller syncs (daemonset.Options.Version);
	// the zero Version is the default release.
	Version daemonset.Version
	// FeatureGates sets feature gates over the release's defaults for every plan, as
	// daemonset.Options.FeatureGates (the Lt and Gt toleration operators, TAINT-10; VER-5):
	// nil keeps the defaults. A gate the release does not know is an error at
	// opts.featureGates. The map is only read.
	FeatureGates daemonset.FeatureGates
	// noIncremental makes every plan a whole-snapshot plan (tests compare the two).
	noIncremental bool
	// backoff is the failed-pod back-off in force at Start (tests); nil: none.
	backoff []daemonset.BackoffEntry

	// AfterSync, when set, is called after every sync with the step and the cluster as the
	// sync left it; the snapshot's slices are valid only during the call.
	AfterSync func(step Step, s daemonset.Snapshot)
}

// Step is one sync of the simulation.
type Step struct {
	At time.Time `json:"at"`
	// Create lists the nodes that got a pod, Delete the pods deleted, in the order of the plan(s).
	Create []string             `json:"create"`
	Delete []daemonset.Deletion `json:"delete"`
	// Adopt and Release count the pods adopted and released.
	Adopt   int `json:"adopt,omitempty"`
	Release int `json:"release,omitempty"`
	// RollingActed says that the rolling-update step ran (UPD-2); with SyncObserved it may run
	// after a non-empty base diff in the same sync.
	RollingActed bool `json:"rollingActed"`
	// HeldBack counts failed-pod deletions the back-off held back (ROLL-6).
	HeldBack int `json:"heldBack,omitempty"`
	// Status is the status the sync wrote.
	Status appsv1.DaemonSetStatus `json:"status"`
}

// Acted reports whether the sync created, deleted, adopted or released a pod.
func (s Step) Acted() bool { return len(s.Create)+len(s.Delete)+s.Adopt+s.Release > 0 }

// Trajectory is a simulation's outcome.
type Trajectory struct {
	Start time.Time
	// Steps are every sync, in order.
	Steps []Step
	// End is the cluster when the simulation ended, at EndTime.
	End     daemonset.Snapshot
	EndTime time.Time
	// LastChange is the last instant something changed: a write, a kubelet or node event.
	LastChange time.Time
	// Quiescent is true when the simulation ended because nothing more would happen, or with
	// Options.Resync nothing but resyncs that would find nothing new to do (the cluster as the
	// last sync planned it, no Ready pod waiting out minReadySeconds); false when Horizon or
	// MaxSyncs ended it.
	Quiescent bool
}

// Acting returns the steps that acted, in order.
func (t *Trajectory) Acting() []Step {
	var out []Step
	for _, s := range t.Steps {
		if s.Acted() {
			out = append(out, s)
		}
	}
	return out
}

// planOptions are the options of every plan of the simulation at now.
func (o Options) planOptions(now time.Time) daemonset.Options {
	return daemonset.Options{Now: now, BurstLimit: o.BurstLimit, Workers: o.Workers, Version: o.Version, FeatureGates: o.FeatureGates}
}

func checkOptions(opts Options, s daemonset.Snapshot, ds *appsv1.DaemonSet) field.ErrorList {
	var errs field.ErrorList
	root := field.NewPath("opts")
	if ds == nil {
		errs = append(errs, field.Required(field.NewPath("daemonSet"), "the DaemonSet to simulate"))
	}
	if len(s.Nodes) == 0 {
		errs = append(errs, field.Required(field.NewPath("nodes"), "no nodes, so nothing would ever run or roll out"))
	}
	if opts.Start.IsZero() {
		errs = append(errs, field.Required(root.Child("start"), "the virtual clock's start"))
	}
	errs = append(errs, opts.Kubelet.validate(root.Child("kubelet"))...)
	if opts.Horizon < 0 {
		errs = append(errs, field.Invalid(root.Child("horizon"), opts.Horizon.String(), "must not be negative"))
	}
	if opts.Resync < 0 {
		errs = append(errs, field.Invalid(root.Child("resync"), opts.Resync.String(), "must not be negative"))
	}
	if opts.MaxSyncs < 0 {
		errs = append(errs, field.Invalid(root.Child("maxSyncs"), opts.MaxSyncs, "must not be negative"))
	}
	if opts.Workers < 0 {
		errs = append(errs, field.Invalid(root.Child("workers"), opts.Workers, "must not be negative"))
	}
	errs = append(errs, daemonset.Options{Version: opts.Version, FeatureGates: opts.FeatureGates}.CheckFeatureGates(root.Child("featureGates"))...)
	for i, e := range opts.Events {
		p := root.Child("events").Index(i)
		if e.After < 0 {
			errs = append(errs, field.Invalid(p.Child("after"), e.After.String(), "must not be negative"))
		}
		switch e.Type {
		case EventNodeNotReady, EventNodeReady, EventNodeRemoved:
			if e.Node == "" {
				errs = append(errs, field.Required(p.Child("node"), "the node of a "+string(e.Type)+" event"))
			}
		case EventNodeAdded:
			if e.NewNode == nil || e.NewNode.Name == "" {
				errs = append(errs, field.Required(p.Child("newNode"), "a named node"))
			}
		case EventDaemonSetUpdated:
			if e.DaemonSet == nil {
				errs = append(errs, field.Required(p.Child("daemonSet"), "the updated DaemonSet"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("type"), e.Type, []EventType{
				EventNodeNotReady, EventNodeReady, EventNodeAdded, EventNodeRemoved, EventDaemonSetUpdated}))
		}
	}
	return errs
}
