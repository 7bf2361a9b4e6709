package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// handBuilt is a plan with one of every kind of line the table prints.
func handBuilt() *daemonset.ClusterResult {
	collision := int32(3)
	return &daemonset.ClusterResult{DaemonSets: []*daemonset.Result{
		{
			Namespace: "default", Name: "ssd-monitor", RevisionHash: "6d9f7c8b5",
			Create: []daemonset.Creation{{Node: "worker-2", Reason: daemonset.ReasonMissingPod, Pod: &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "ssd-monitor-", Namespace: "default"},
			}}},
			Delete: []daemonset.Deletion{
				{Namespace: "default", Name: "ssd-monitor-9zt2m", Node: "worker-1", Reason: daemonset.ReasonDuplicatePod},
				{Namespace: "default", Name: "ssd-monitor-old", Node: "worker-3", Reason: daemonset.ReasonUpdateOldCandidate, Interchangeable: true},
			},
			Adopt:         []daemonset.ObjectRef{{Namespace: "default", Name: "ssd-monitor-manual"}},
			Release:       []daemonset.ObjectRef{{Namespace: "default", Name: "ssd-monitor-debug"}},
			Conflicts:     []daemonset.Conflict{{Namespace: "default", Name: "orphan", AdoptedBy: "default/older"}},
			RollingUpdate: &daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxUnavailable: 1},
			Status: &appsv1.DaemonSetStatus{
				DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 3, NumberAvailable: 2,
			},
			Events:  []daemonset.Event{{Type: "Warning", Reason: daemonset.ReasonFailedDaemonPod, Pod: "default/ssd-monitor-kc2vd", Node: "worker-2", Message: "Found failed daemon pod"}},
			Invalid: []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`"},
		},
		{Namespace: "kube-system", Name: "collides", Skipped: daemonset.SkipHashCollision, CollisionCount: &collision},
		{
			Namespace: "kube-system", Name: "quiet", RevisionHash: "abc",
			RollingUpdate: &daemonset.RollingUpdate{Acted: true, MaxUnavailable: 1},
			Status:        &appsv1.DaemonSetStatus{},
		},
	}}
}

func TestRenderTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	renderTable(&b, handBuilt(), newTableView(nil, time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), false))
	want := `NAMESPACE     NAME          DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   MISSCHEDULED   NODE-SELECTOR   AGE
default       ssd-monitor   3         3         2       3            2           0              <none>          <unknown>
kube-system   collides      -         -         -       -            -           -              <none>          <unknown>
kube-system   quiet         0         0         0       0            0           0              <none>          <unknown>

DaemonSet default/ssd-monitor (revision 6d9f7c8b5): 1 create, 2 deletes, 1 adopt, 1 release
  CREATE     pod on node worker-2 (MissingPod)
  DELETE     default/ssd-monitor-9zt2m on node worker-1 (DuplicatePod)
  DELETE     default/ssd-monitor-old on node worker-3 (UpdateOldCandidate, one of equal candidates)
  ADOPT      default/ssd-monitor-manual (orphan matching the selector gets this DaemonSet as controller)
  RELEASE    default/ssd-monitor-debug (labels no longer match the selector)
  CONFLICT   default/orphan (orphan this selector also matches; adopted by the older DaemonSet default/older)
  ROLLOUT    waits: the creates and deletes above come first (UPD-2; then maxUnavailable 1, maxSurge 0)
  EVENT      Warning FailedDaemonPod: Found failed daemon pod
  INVALID    spec.template.metadata.labels: Invalid value: {"app":"x"}: ` + "`selector` does not match template `labels`" + `

DaemonSet kube-system/collides:
  SKIPPED    a ControllerRevision of the current hash holds another template (hash collision); the sync stops (UPD-21)
  COLLISION  status.collisionCount becomes 3

DaemonSet kube-system/quiet (revision abc):
  ROLLOUT    nothing to replace (maxUnavailable 1, maxSurge 0)

Planned at 2026-03-02T10:00:00Z (--now).
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("renderTable() mismatch (-want +got):\n%s", diff)
	}
}

// More than groupOver creates of one reason are one line per reason, with the first nodes,
// unless -o wide asks for every line; the stored status shows beside the planned one.
func TestRenderTableGroupsLongListsAndShowsStoredCounts(t *testing.T) {
	t.Parallel()
	r := &daemonset.Result{Namespace: "kube-system", Name: "agent", RevisionHash: "abc",
		Status: &appsv1.DaemonSetStatus{DesiredNumberScheduled: 12, NumberMisscheduled: 1}}
	for i := range 12 {
		r.Create = append(r.Create, daemonset.Creation{Node: fmt.Sprintf("node-%02d", i), Reason: daemonset.ReasonMissingPod})
	}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent",
		CreationTimestamp: metav1.NewTime(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 10, NumberMisscheduled: 1, ObservedGeneration: 1}}
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd", "a": "b"}
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	renderTable(&b, &daemonset.ClusterResult{DaemonSets: []*daemonset.Result{r}}, newTableView([]*appsv1.DaemonSet{ds}, now, false))
	require.Equal(t, `NAMESPACE     NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   MISSCHEDULED   NODE-SELECTOR   AGE
kube-system   agent   10→12     0         0       0            0           1              a=b,disk=ssd    24h

DaemonSet kube-system/agent (revision abc): 12 creates
  CREATE     12 pods (MissingPod) on nodes node-00, node-01, node-02 and 9 more; -o wide lists each

Planned at 2026-03-02T10:00:00Z (--now).
`, b.String())
	b.Reset()
	renderTable(&b, &daemonset.ClusterResult{DaemonSets: []*daemonset.Result{r}}, newTableView([]*appsv1.DaemonSet{ds}, now, true))
	require.Equal(t, 12, strings.Count(b.String(), "CREATE     pod on node"))
}

func TestRenderTableWithoutDaemonSets(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	renderTable(&b, &daemonset.ClusterResult{}, tableView{})
	require.Equal(t, "No DaemonSets in the input.\n", b.String())
}

// The JSON output is one document, indented by two spaces, with a trailing newline: the
// instant, the versions, then the plans, which decode back into the same ClusterResult but for
// the created pods' apiVersion and kind.
func TestRenderJSONRoundTrips(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 10, 0, 0, 500_000_000, time.FixedZone("CET", 3600))
	var b bytes.Buffer
	require.NoError(t, renderData(&b, formatJSON, newPlanDocument(handBuilt(), now, release1363)))
	head := "{\n  \"now\": \"2026-03-02T09:00:00.5Z\",\n  \"version\": \"" + buildVersion().Version +
		"\",\n  \"kubernetes\": \"v1.36.3\",\n  \"daemonSets\": [\n    {\n"
	require.Equal(t, head, b.String()[:len(head)])
	require.Equal(t, byte('\n'), b.Bytes()[b.Len()-1])
	var got planDocument
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&got))
	require.False(t, dec.More(), "exactly one JSON document")
	want := handBuilt()
	want.DaemonSets[0].Create[0].Pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	if diff := cmp.Diff(want.DaemonSets, got.DaemonSets); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}
}

// The document's created pods carry apiVersion and kind, the library's do not, and the plan
// given is not modified.
func TestPlanDocumentPodsHaveTheirKind(t *testing.T) {
	t.Parallel()
	c := handBuilt()
	doc := newPlanDocument(c, time.Unix(0, 0), release1363)
	require.Equal(t, "1970-01-01T00:00:00Z", doc.Now)
	require.Equal(t, metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, doc.DaemonSets[0].Create[0].Pod.TypeMeta)
	if diff := cmp.Diff(handBuilt(), c); diff != "" {
		t.Errorf("the plan was modified (-want +got):\n%s", diff)
	}
	require.Same(t, c.DaemonSets[1], doc.DaemonSets[1], "a plan without creates is not copied")
}

func TestRenderYAMLIsTheJSONDocument(t *testing.T) {
	t.Parallel()
	now := time.Unix(1e9, 0)
	var j, y bytes.Buffer
	require.NoError(t, renderData(&j, formatJSON, newPlanDocument(handBuilt(), now, release1363)))
	require.NoError(t, renderData(&y, formatYAML, newPlanDocument(handBuilt(), now, release1363)))
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal(j.Bytes(), &fromJSON))
	require.NoError(t, yaml.Unmarshal(y.Bytes(), &fromYAML))
	if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
		t.Errorf("YAML and JSON documents differ (-json +yaml):\n%s", diff)
	}
}

func TestNodeActionsSayTheSkipInWords(t *testing.T) {
	t.Parallel()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "collides"}}
	want := []string{"nothing: a ControllerRevision of the current hash holds another template (hash collision); the sync stops (UPD-21)"}
	if diff := cmp.Diff(want, nodeActions(handBuilt(), ds, "worker-1")); diff != "" {
		t.Errorf("nodeActions() mismatch (-want +got):\n%s", diff)
	}
}

// bareRuleID matches a table or explain line whose text, after the verb column or the label,
// starts with a rule ID instead of words.
var bareRuleID = regexp.MustCompile(`^\s*(?:[A-Z]+\s+|[a-z][a-z ]*:\s+)?(?:[a-z]+:\s+)?[A-Z]{2,}-[0-9]+\b`)

// TestTableOutputSaysWordsFirst checks every golden table and explain output: a rule ID may
// follow the words of a line, never lead it.
func TestTableOutputSaysWordsFirst(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*", "stdout"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if s := strings.TrimSpace(string(data)); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "daemonSets:") || strings.HasPrefix(s, "now:") {
			continue // the JSON contract and its YAML form carry codes as values
		}
		checked++
		for i, l := range strings.Split(string(data), "\n") {
			if bareRuleID.MatchString(l) {
				t.Errorf("%s:%d: the line starts with a rule ID: %q", f, i+1, l)
			}
		}
	}
	require.NotZero(t, checked)
	for _, l := range []string{"  SKIPPED    UPD-21: a hash collision", "  this sync:   nothing: SYNC-4 applies", "UPD-2"} {
		require.True(t, bareRuleID.MatchString(l), "the check must catch %q", l)
	}
}

// release1363 is the release the hand-built plans were made for.
var release1363 = func() daemonset.Version {
	v, err := daemonset.ParseVersion("1.36.3")
	if err != nil {
		panic(err)
	}
	return v
}()
