// Command controller shows the reconcile step of a custom controller that imports the daemonset
// library instead of re-deriving the DaemonSet rules: it plans one sync on its cache and sends
// the writes the plan gives, as they are. Here they are printed, not sent.
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/manifest"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

//go:embed testdata/cluster.yaml
var clusterYAML []byte

// decode reads the cache from manifests: YAML or JSON, one object per document or a kind: List
// as kubectl prints it.
func decode(data []byte) (daemonset.Snapshot, error) {
	res, err := manifest.Read("cluster.yaml", bytes.NewReader(data), manifest.Options{})
	if err != nil {
		return daemonset.Snapshot{}, err
	}
	return res.Snapshot, nil
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

// request is one API call of the reconcile step; note is printed as a comment after the path.
type request struct {
	method, path, note, contentType string
	body                            any
}

// now is the sync's clock: a real controller reads it once per sync, the example fixes it.
var now = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func run(w io.Writer) error {
	snap, err := decode(clusterYAML)
	if err != nil {
		return err
	}
	if len(snap.DaemonSets) != 1 {
		return fmt.Errorf("want one DaemonSet, got %d", len(snap.DaemonSets))
	}
	ds := snap.DaemonSets[0]
	// A controller that runs many syncs keeps the failed-pod back-off between them: it passes
	// it as Options.Backoff and carries res.Backoff into it with daemonset.UpdateBackoff.
	p, errs := daemonset.Compile(ds, daemonset.Options{Now: now, BurstLimit: 250})
	if len(errs) > 0 {
		// The controller acts on objects as stored (VAL-22); it only logs what validation rejects.
		fmt.Fprintf(w, "# warning: %v\n", errs.ToAggregate())
	}
	res := p.Plan(snap)
	for _, r := range reconcile(ds, res) {
		fmt.Fprintf(w, "%s %s", r.method, r.path)
		if r.note != "" {
			fmt.Fprintf(w, "  # %s", r.note)
		}
		fmt.Fprintln(w)
		if r.body != nil {
			body, err := json.Marshal(r.body)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "Content-Type: %s\n%s\n", r.contentType, body)
		}
		fmt.Fprintln(w)
	}
	// Before it plans this DaemonSet again, the controller waits until its cache shows these
	// writes (SYNC-9), lowering the expectations for each write the API server refused.
	exp := res.Expectations(snap, now)
	fmt.Fprintf(w, "# expect %d created and %d deleted pods before the next sync\n", exp.Creates, len(exp.Deletes))
	if d := res.RequeueAfter.Duration; d > 0 {
		fmt.Fprintf(w, "# requeue after %v\n", d) // SYNC-8
	}
	return nil
}

const (
	jsonType  = "application/json"
	ownerType = string(types.StrategicMergePatchType)
	mergeType = string(types.MergePatchType)
)

// reconcile turns a plan into requests in the order the plan documents (RevisionWrites, D-15):
// the revision updates, labels, adoptions and releases, the pod adoptions and releases, the pod
// relabels, the duplicate revisions' deletes and the revision's create, the pod creates and
// deletes, the history clean-up, then the status (daemonset.RevisionWrites says why this order).
// Every body is the plan's.
func reconcile(ds *appsv1.DaemonSet, res *daemonset.Result) []request {
	dsPath := "/apis/apps/v1/namespaces/" + ds.Namespace + "/daemonsets/" + ds.Name
	revs := "/apis/apps/v1/namespaces/" + ds.Namespace + "/controllerrevisions"
	pods := "/api/v1/namespaces/" + ds.Namespace + "/pods"
	var reqs []request
	add := func(method, path, note, contentType string, body any) {
		reqs = append(reqs, request{method, path, note, contentType, body})
	}
	checked := false
	adopt := func(path string, r daemonset.ObjectRef) {
		if !checked {
			// Before the first adoption, read the DaemonSet from the API server, not the cache,
			// and adopt nothing if it is being deleted or has another uid (see ObjectRef.AdoptPatch).
			add("GET", dsPath, "adopt only if uid matches and not deleting", "", nil)
			checked = true
		}
		add("PATCH", path, "adopt", ownerType, json.RawMessage(r.AdoptPatch(ds)))
	}
	release := func(path string, r daemonset.ObjectRef) {
		add("PATCH", path, "release", ownerType, json.RawMessage(r.ReleasePatch(ds)))
	}
	w := res.Revisions
	if w == nil {
		w = &daemonset.RevisionWrites{}
	}
	for _, r := range w.Update {
		add("PUT", revs+"/"+r.Name, "", jsonType, r)
	}
	for _, r := range w.Relabel {
		add("PATCH", revs+"/"+r.Name, "label", mergeType, json.RawMessage(r.Patch()))
	}
	for _, r := range w.Adopt {
		adopt(revs+"/"+r.Name, r)
	}
	for _, r := range w.Release {
		release(revs+"/"+r.Name, r)
	}
	for _, r := range res.Adopt {
		adopt(pods+"/"+r.Name, r)
	}
	for _, r := range res.Release {
		release(pods+"/"+r.Name, r)
	}
	for _, r := range w.RelabelPods {
		add("PATCH", pods+"/"+r.Name, "relabel", mergeType, json.RawMessage(r.Patch()))
	}
	for _, r := range w.Delete {
		add("DELETE", revs+"/"+r.Name, "", jsonType, deleteOptions(r.UID))
	}
	for _, r := range w.Create {
		add("POST", revs, "", jsonType, r)
	}
	// Creates first, in slow-start batches of 1, 2, 4, ... (a failed batch ends the series),
	// then deletes, as syncNodes sends them.
	for _, c := range res.Create {
		add("POST", pods, "for "+c.Node+": "+string(c.Reason), jsonType, c.Pod)
	}
	for _, d := range res.Delete {
		add("DELETE", pods+"/"+d.Name, "on "+d.Node+": "+string(d.Reason), jsonType, deleteOptions(d.UID))
	}
	// History clean-up only when every pod write above succeeded (UPD-22).
	for _, r := range w.Cleanup {
		add("DELETE", revs+"/"+r.Name, "history", jsonType, deleteOptions(r.UID))
	}
	if res.StatusWrite != nil {
		// UpdateStatus sends the whole object; the API server keeps only its status.
		updated := ds.DeepCopy()
		updated.Status = *res.StatusWrite
		add("PUT", dsPath+"/status", "", jsonType, updated)
	}
	return reqs
}

// deleteOptions makes a delete conditional on the uid the plan saw, so that it never removes an
// object re-created under the same name (OWN-15); upstream deletes by name alone. Without a uid
// there is no body.
func deleteOptions(uid types.UID) any {
	if uid == "" {
		return nil
	}
	return &metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(uid))}
}
