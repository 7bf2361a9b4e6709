package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/golden"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// TestRun runs the example and compares its output with testdata/output.txt byte for byte;
// -update rewrites the file.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden.Check(t, "testdata/output.txt", out.Bytes())
}

// plan decodes the example's cache, lets change edit it, and plans the sync as run does.
func plan(t *testing.T, change func(*daemonset.Snapshot)) (*appsv1.DaemonSet, *daemonset.Result) {
	t.Helper()
	snap, err := decode(clusterYAML)
	require.NoError(t, err)
	if change != nil {
		change(&snap)
	}
	ds := snap.DaemonSets[0]
	p, errs := daemonset.Compile(ds, daemonset.Options{Now: now})
	require.Empty(t, errs)
	return ds, p.Plan(snap)
}

// lines renders each request as "METHOD path  # note", the first line run prints for it.
func lines(reqs []request) []string {
	var got []string
	for _, r := range reqs {
		line := r.method + " " + r.path
		if r.note != "" {
			line += "  # " + r.note
		}
		got = append(got, line)
	}
	return got
}

// body returns the JSON run prints for r.
func body(t *testing.T, r request) string {
	t.Helper()
	b, err := json.Marshal(r.body)
	require.NoError(t, err)
	return string(b)
}

const (
	dsUID   = "2d8e5b0c-7f41-4f3a-9c55-0c6f3b1e9a77"
	pods    = "/api/v1/namespaces/logging/pods"
	revs    = "/apis/apps/v1/namespaces/logging/controllerrevisions"
	dsPath  = "/apis/apps/v1/namespaces/logging/daemonsets/log-agent"
	getNote = "  # adopt only if uid matches and not deleting"
)

// The example's cache needs one write of each pod kind, after the first revision's create, in
// the order of RevisionWrites and D-15; each body is the plan's, byte for byte.
func TestReconcileSendsThePlanInOrder(t *testing.T) {
	ds, res := plan(t, nil)
	reqs := reconcile(ds, res)
	want := []string{
		"GET " + dsPath + getNote,                       // once, before the first adoption
		"PATCH " + pods + "/log-agent-manual  # adopt",  // the orphan (OWN-4)
		"PATCH " + pods + "/log-agent-debug  # release", // the relabelled pod (OWN-3)
		"POST " + revs, // the first revision (UPD-14 step 5)
		"POST " + pods + "  # for node-d: MissingPod",                       // the new node (DIFF-2); creates first
		"DELETE " + pods + "/log-agent-m4q8z  # on node-c: NodeNotEligible", // NoExecute taint (ELIG-4)
		"PUT " + dsPath + "/status",
	}
	if diff := cmp.Diff(want, lines(reqs)); diff != "" {
		t.Fatalf("reconcile() mismatch (-want +got):\n%s", diff)
	}

	require.Len(t, res.Revisions.Create, 1)
	rev := res.Revisions.Create[0]
	require.Equal(t, "log-agent-"+res.RevisionHash, rev.Name)
	require.Equal(t, int64(1), rev.Revision) // the plan sees no other revision
	require.Same(t, rev, reqs[3].body)

	// The owner patches carry the pod's uid from the cache as their precondition (OWN-15) and
	// the DaemonSet's uid in the owner reference.
	require.Equal(t, `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"log-agent","uid":"`+dsUID+
		`","controller":true,"blockOwnerDeletion":true}],"uid":"5a1e0000-0000-4000-8000-000000000003"}}`, body(t, reqs[1]))
	require.Equal(t, string(daemonset.ObjectRef{UID: "5a1e0000-0000-4000-8000-000000000003"}.AdoptPatch(ds)), body(t, reqs[1]))
	require.Equal(t, string(daemonset.ObjectRef{UID: "5a1e0000-0000-4000-8000-000000000002"}.ReleasePatch(ds)), body(t, reqs[2]))
	require.Contains(t, body(t, reqs[2]), `"$patch":"delete","uid":"`+dsUID+`"`)
	for _, r := range reqs[1:3] {
		require.Equal(t, "application/strategic-merge-patch+json", r.contentType)
	}
	require.Nil(t, reqs[0].body)

	require.Equal(t, `{"preconditions":{"uid":"5a1e0000-0000-4000-8000-000000000004"}}`, body(t, reqs[5]))
	require.Same(t, res.Create[0].Pod, reqs[4].body)
	require.Equal(t, "node-d", res.Create[0].Pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0])

	// UpdateStatus sends the DaemonSet with the plan's StatusWrite and nothing else changed.
	sent := reqs[6].body.(*appsv1.DaemonSet)
	require.Equal(t, *res.StatusWrite, sent.Status)
	require.Equal(t, int32(3), sent.Status.DesiredNumberScheduled) // node-a, node-b, node-d
	require.Equal(t, int64(1), sent.Status.ObservedGeneration)
	sent.Status = ds.Status
	require.Empty(t, cmp.Diff(ds, sent))
}

// With ControllerRevisions in the cache, every kind of revision write goes out before the pod
// writes, updates first (D-15), with one fresh read of the DaemonSet before the first adoption
// whether it adopts a revision or a pod.
func TestReconcileSendsRevisionWritesFirst(t *testing.T) {
	var keep *appsv1.ControllerRevision
	ds, res := plan(t, func(s *daemonset.Snapshot) {
		ds := s.DaemonSets[0]
		revision := func(name string, n int64, labels map[string]string, owned bool) *appsv1.ControllerRevision {
			r, err := daemonset.NewRevision(ds, strings.TrimPrefix(name, "log-agent-"), n)
			require.NoError(t, err)
			r.Name, r.UID, r.ResourceVersion = name, types.UID("uid-"+name), "7"
			if labels != nil {
				r.Labels = labels
			}
			if !owned {
				r.OwnerReferences = nil
			}
			return r
		}
		older := ds.DeepCopy()
		older.Spec.Template.Spec.Containers[0].Image = "registry.example.com/log-agent:2.3"
		old, err := daemonset.NewRevision(older, "old", 5)
		require.NoError(t, err)
		old.Name, old.UID, old.OwnerReferences = "log-agent-old", "uid-log-agent-old", nil // an orphan
		keep = revision("log-agent-b", 2, nil, true)
		s.Revisions = []*appsv1.ControllerRevision{
			revision("log-agent-a", 1, nil, true), // a duplicate of the current template
			keep,
			old,
			revision("log-agent-other", 3, map[string]string{"app": "other"}, true), // no longer selected
		}
	})
	reqs := reconcile(ds, res)
	want := []string{
		"PUT " + revs + "/log-agent-b", // the kept current revision, raised above the others
		"GET " + dsPath + getNote,
		"PATCH " + revs + "/log-agent-old  # adopt",
		"PATCH " + revs + "/log-agent-other  # release",
		"PATCH " + pods + "/log-agent-manual  # adopt", // no second GET
		"PATCH " + pods + "/log-agent-debug  # release",
		"PATCH " + pods + "/log-agent-m4q8z  # relabel",
		"PATCH " + pods + "/log-agent-manual  # relabel", // claimed (adopted above), so relabelled too
		"PATCH " + pods + "/log-agent-x7k2p  # relabel",
		"DELETE " + revs + "/log-agent-a",
		"POST " + pods + "  # for node-d: MissingPod",
		"DELETE " + pods + "/log-agent-m4q8z  # on node-c: NodeNotEligible",
		"PUT " + dsPath + "/status",
	}
	if diff := cmp.Diff(want, lines(reqs)); diff != "" {
		t.Fatalf("reconcile() mismatch (-want +got):\n%s", diff)
	}
	require.Equal(t, "b", res.RevisionHash)

	updated := reqs[0].body.(*appsv1.ControllerRevision)
	require.Equal(t, int64(6), updated.Revision)
	require.Equal(t, "7", updated.ResourceVersion) // the cache's, still current when the PUT arrives
	require.Equal(t, int64(2), keep.Revision, "the cache's revision is not modified")
	require.Equal(t, string(daemonset.ObjectRef{UID: "uid-log-agent-old"}.AdoptPatch(ds)), body(t, reqs[2]))
	require.Equal(t, string(daemonset.ObjectRef{UID: "uid-log-agent-other"}.ReleasePatch(ds)), body(t, reqs[3]))
	for _, r := range reqs[6:9] {
		require.Equal(t, "application/merge-patch+json", r.contentType)
		require.Equal(t, `{"metadata":{"labels":{"controller-revision-hash":"b"}}}`, body(t, r))
	}
	require.Equal(t, `{"preconditions":{"uid":"uid-log-agent-a"}}`, body(t, reqs[9]))
}

// A sync that writes nothing sends nothing: a DaemonSet being deleted (SYNC-4) gets no request,
// not even the status.
func TestReconcileSendsNothingForASkippedSync(t *testing.T) {
	ds, res := plan(t, func(s *daemonset.Snapshot) {
		s.DaemonSets[0].DeletionTimestamp = &metav1.Time{Time: now}
	})
	require.Equal(t, daemonset.SkipBeingDeleted, res.Skipped)
	require.Empty(t, reconcile(ds, res))
}

// The cache may come as one kind: List, as `kubectl get -o yaml` prints several kinds: it reads
// as the same objects as the separate documents, and plans the same requests.
func TestDecodeReadsAKubectlList(t *testing.T) {
	want, err := decode(clusterYAML)
	require.NoError(t, err)

	var list bytes.Buffer
	list.WriteString("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(clusterYAML)))
	items := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal(doc, &obj))
		if obj == nil {
			continue // a comment-only document
		}
		y, err := yaml.Marshal(obj)
		require.NoError(t, err)
		for i, line := range strings.SplitAfter(strings.TrimSuffix(string(y), "\n"), "\n") {
			list.WriteString(map[bool]string{true: "- ", false: "  "}[i == 0] + line)
		}
		list.WriteString("\n")
		items++
	}
	require.Equal(t, len(want.DaemonSets)+len(want.Nodes)+len(want.Pods)+len(want.Revisions), items)

	got, err := decode(list.Bytes())
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode(List) mismatch (-documents +List):\n%s", diff)
	}
}
