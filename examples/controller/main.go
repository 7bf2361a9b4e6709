// Command controller shows the reconcile step of a custom controller that imports the daemonset
// library instead of re-deriving the DaemonSet rules: it plans one sync on its cache and turns
// the plan into the API requests the controller would send. Here they are printed, not sent.
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

// request is one API call of the reconcile step.
type request struct {
	method, path, contentType string
	body                      any
}

func run(w io.Writer) error {
	snap, err := decode(clusterYAML)
	if err != nil {
		return err
	}
	if len(snap.DaemonSets) != 1 {
		return fmt.Errorf("want one DaemonSet, got %d", len(snap.DaemonSets))
	}
	ds := snap.DaemonSets[0]
	// A real controller reads its clock once per sync; the example fixes it.
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	p, errs := daemonset.Compile(ds, daemonset.Options{Now: now, BurstLimit: 250})
	if len(errs) > 0 {
		// The controller acts on objects as stored (VAL-22); it only logs what validation rejects.
		fmt.Fprintf(w, "# warning: %v\n", errs.ToAggregate())
	}
	res := p.Plan(snap)
	reqs, err := reconcile(ds, snap, res)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		body, err := json.Marshal(r.body)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %s\n", r.method, r.path)
		if r.contentType != "" {
			fmt.Fprintf(w, "Content-Type: %s\n", r.contentType)
		}
		if r.body != nil {
			fmt.Fprintf(w, "%s\n", body)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// reconcile turns a plan into requests, in the order the controller sends them (SYNC-2): the
// current ControllerRevision if it does not exist yet, adoptions and releases while it claims
// pods, then deletes and creates, then the status.
func reconcile(ds *appsv1.DaemonSet, snap daemonset.Snapshot, res *daemonset.Result) ([]request, error) {
	podsPath := "/api/v1/namespaces/" + ds.Namespace + "/pods"
	uidOf := func(ref daemonset.PodRef) types.UID {
		for _, p := range snap.Pods {
			if p.Namespace == ref.Namespace && p.Name == ref.Name {
				return p.UID
			}
		}
		return ""
	}
	var reqs []request
	if res.Skipped == "" {
		// Without a revision of the current hash, the controller records the template as the
		// next revision before it touches any pod.
		exists, last := false, int64(0)
		for _, r := range snap.Revisions {
			if r.Namespace == ds.Namespace && r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == res.RevisionHash {
				exists = true
			}
			last = max(last, r.Revision)
		}
		if !exists {
			rev, err := daemonset.NewRevision(ds, res.RevisionHash, last+1)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, request{
				method: "POST", path: "/apis/apps/v1/namespaces/" + ds.Namespace + "/controllerrevisions",
				contentType: "application/json", body: rev,
			})
		}
	}
	for _, ref := range res.Adopt {
		// Adoption adds the controller reference; the pod's uid in the patch makes the API
		// server refuse it if the pod was replaced meanwhile.
		reqs = append(reqs, request{
			method: "PATCH", path: podsPath + "/" + ref.Name, contentType: string(types.StrategicMergePatchType),
			body: map[string]any{"metadata": map[string]any{
				"ownerReferences": []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
				"uid":             uidOf(ref),
			}},
		})
	}
	for _, ref := range res.Release {
		reqs = append(reqs, request{
			method: "PATCH", path: podsPath + "/" + ref.Name, contentType: string(types.StrategicMergePatchType),
			body: map[string]any{"metadata": map[string]any{
				"ownerReferences": []map[string]any{{"$patch": "delete", "uid": ds.UID}},
				"uid":             uidOf(ref),
			}},
		})
	}
	for _, d := range res.Delete {
		reqs = append(reqs, request{method: "DELETE", path: "/api/v1/namespaces/" + d.Namespace + "/pods/" + d.Name + "  # on " + d.Node + ": " + string(d.Reason)})
	}
	for _, c := range res.Create {
		reqs = append(reqs, request{method: "POST", path: podsPath + "  # for " + c.Node + ": " + string(c.Reason), contentType: "application/json", body: c.Pod})
	}
	if res.Status != nil || res.CollisionCount != nil {
		// UpdateStatus sends the whole object; the API server keeps only its status.
		updated := ds.DeepCopy()
		if res.Status != nil {
			updated.Status = *res.Status
		}
		if res.CollisionCount != nil {
			updated.Status.CollisionCount = res.CollisionCount
		}
		reqs = append(reqs, request{
			method: "PUT", path: "/apis/apps/v1/namespaces/" + ds.Namespace + "/daemonsets/" + ds.Name + "/status",
			contentType: "application/json", body: updated,
		})
	}
	return reqs, nil
}
