package rollout

import (
	"slices"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// applyRevisions writes the plan's revision writes (res.Revisions, ROLL-4) into w in the order
// daemonset.RevisionWrites documents: updates replace the stored revision, relabels set its
// hash label, adoptions add the
// DaemonSet as controller, releases drop its reference, relabelled pods get the kept hash,
// deletions and the history clean-up remove the revision and the created one is added as it is. w's revision list is
// replaced, never changed in place: snapshots given out share it. The error names a write
// whose revision or pod w does not hold.
func (w *world) applyRevisions(res *daemonset.Result) error {
	rw := res.Revisions
	if rw == nil {
		return nil
	}
	ds := w.ds()
	root := resultPath{}.Child("revisions")
	revs := slices.Clone(w.revisions)
	at := func(path *field.Path, ns, name string) (int, error) {
		i := slices.IndexFunc(revs, func(r *appsv1.ControllerRevision) bool { return r.Namespace == ns && r.Name == name })
		if i < 0 {
			return 0, field.NotFound(path, ns+"/"+name)
		}
		return i, nil
	}
	for k, u := range rw.Update {
		i, err := at(root.Child("update").Index(k), u.Namespace, u.Name)
		if err != nil {
			return err
		}
		revs[i] = u.DeepCopy()
	}
	for k, l := range rw.Relabel {
		i, err := at(root.Child("relabel").Index(k), l.Namespace, l.Name)
		if err != nil {
			return err
		}
		c := revs[i].DeepCopy()
		c.Labels = withHash(c.Labels, l.Hash)
		revs[i] = c
	}
	for k, a := range rw.Adopt {
		i, err := at(root.Child("adopt").Index(k), a.Namespace, a.Name)
		if err != nil {
			return err
		}
		c := *revs[i]
		c.OwnerReferences = append(slices.Clip(c.OwnerReferences), *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")))
		revs[i] = &c
	}
	for k, r := range rw.Release {
		i, err := at(root.Child("release").Index(k), r.Namespace, r.Name)
		if err != nil {
			return err
		}
		c := *revs[i]
		c.OwnerReferences = slices.DeleteFunc(slices.Clone(c.OwnerReferences), func(o metav1.OwnerReference) bool { return o.UID == ds.UID })
		revs[i] = &c
	}
	for k, r := range rw.RelabelPods {
		pod, ok := w.pod(podKey{r.Namespace, r.Name})
		if !ok {
			return field.NotFound(root.Child("relabelPods").Index(k), r.Namespace+"/"+r.Name)
		}
		c := pod.DeepCopy()
		c.Labels = withHash(c.Labels, r.Hash)
		w.setPod(c)
	}
	// The history clean-up goes after the pod writes, which in this world never fail, so it
	// removes revisions as the de-duplication's deletes do.
	for _, list := range []struct {
		key  string
		refs []daemonset.ObjectRef
	}{{"delete", rw.Delete}, {"cleanup", rw.Cleanup}} {
		for k, d := range list.refs {
			i, err := at(root.Child(list.key).Index(k), d.Namespace, d.Name)
			if err != nil {
				return err
			}
			revs = slices.Delete(revs, i, i+1)
		}
	}
	for k, c := range rw.Create {
		if _, err := at(nil, c.Namespace, c.Name); err == nil {
			return field.Duplicate(root.Child("create").Index(k), c.Namespace+"/"+c.Name)
		}
		revs = append(revs, c.DeepCopy())
	}
	w.revisions = revs
	return nil
}

// withHash sets the controller-revision-hash label in labels, a copy's own map, making one if
// there is none.
func withHash(labels map[string]string, hash string) map[string]string {
	if labels == nil {
		labels = map[string]string{}
	}
	labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	return labels
}
