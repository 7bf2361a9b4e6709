package cli

import (
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
)

// strictFlags are --strict and --lenient, which every command that plans from the input reads
// alike: plan, explain, rollout status, forecast, whatif and node-ready.
type strictFlags struct{ strict, lenient bool }

// addStrictFlags registers --strict and --lenient on fs.
func addStrictFlags(fs *pflag.FlagSet) *strictFlags {
	s := &strictFlags{}
	fs.BoolVar(&s.strict, "strict", false, "treat what API validation would reject, and fields the API types (Kubernetes 1.37's) do not have, as errors in every object")
	fs.BoolVar(&s.lenient, "lenient", false, "report what API validation would reject, and unknown fields, as warnings in hand-written objects too (by default errors there, warnings in objects read from the API server)")
	return s
}

// mode returns the strictness the flags ask for; without either, hand-written objects are read
// strictly and objects read from the API server leniently. Both together are a usage error. A
// command without the flags (nil s) reads leniently.
func (s *strictFlags) mode() (strictness, error) {
	switch {
	case s == nil: // a command without the flags (addJudgeFlags)
		return strictNone, nil
	case s.strict && s.lenient:
		return strictNone, usagef("--strict and --lenient cannot be combined")
	case s.strict:
		return strictAll, nil
	case s.lenient:
		return strictNone, nil
	}
	return strictHandWritten, nil
}

// admit applies the strictness to the DaemonSets of in that keep selects, as kubectl apply would
// answer: what API validation would reject (VAL-*) is an error in every DaemonSet with --strict
// (and so is a node or pod read from the API server that it would now refuse, VAL-24), by
// default only in hand-written ones (a DaemonSet read from the API server is planned as stored),
// and nowhere with --lenient. It returns the error, every problem one line, or the problems to
// print as warnings once the command has answered, each saying what planning such a DaemonSet
// means (D-19).
func (m strictness) admit(in *manifest.Result, keep func(*appsv1.DaemonSet) bool, opts daemonset.Options) (problemList, error) {
	if m == strictAll {
		if problems := validate(in, keep, opts, true, nil); len(problems) > 0 {
			return nil, problems
		}
		return nil, nil
	}
	if m == strictHandWritten {
		refused := validate(in, func(ds *appsv1.DaemonSet) bool { return keep(ds) && manifest.HandWritten(ds) }, opts, false, nil)
		if len(refused) > 0 {
			return nil, refused
		}
	}
	return validate(in, keep, opts, false, plannedAnyway), nil
}

// plannedAnyway ends the warning of a DaemonSet planned although the API server would refuse
// it (D-19): a hand-written one (--lenient) could never be stored, so its plan is of an object
// no controller sees; one read from the API server was stored under an older release's
// validation (or the dump was edited), and the controller syncs it as stored.
func plannedAnyway(ds *appsv1.DaemonSet) string {
	if manifest.HandWritten(ds) {
		return " (the API server refuses this DaemonSet, so no controller ever syncs it; planned as written because of --lenient)"
	}
	return " (the API server would refuse it today: only an older release's API server, or an edited dump, holds it; planned as stored, as the controller syncs it)"
}

// everyDaemonSet is the keep of admit for commands that read every DaemonSet.
func everyDaemonSet(*appsv1.DaemonSet) bool { return true }
