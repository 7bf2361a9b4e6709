// Package upstreamtest holds the differential tests that need k8s.io/kubernetes itself: the
// LimitRanger and RuntimeClass admission plugins of v1.36.3 run on the same pods as package
// fleet's Admission, the defaulting and storage of a DaemonSet's pod template against
// daemonset's Version.WithTemplateDefaults, the ControllerRevision writes of v1.36.3's syncDaemonSet
// against the plan's Result.Revisions, the writes of its sync with unsatisfied expectations
// against Planner.PlanPending, and whole trajectories of syncs of v1.36.3's controller against
// the plan of each sync's snapshot (TestTrajectoriesAgainstUpstream), and kubectl's client-side
// apply through the v1.36.3 DaemonSet strategy against package apiserver's Apply
// (TestApplyAgainstUpstream). It is a module of its own
// so that k8s.io/kubernetes never enters the library's go.mod; .ci/run tests it.
package upstreamtest
