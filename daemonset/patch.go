package daemonset

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// adoptBody is the JSON shape of ObjectRef.AdoptPatch: metadata.ownerReferences holds the one
// controller reference, metadata.uid the adopted object's uid. Field order is the wire order.
type adoptBody struct {
	Metadata struct {
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
		UID             types.UID               `json:"uid"`
	} `json:"metadata"`
}

// releaseBody is the JSON shape of ObjectRef.ReleasePatch: metadata.uid, then a directive
// deleting the owner reference of the DaemonSet's uid.
type releaseBody struct {
	Metadata struct {
		UID             types.UID         `json:"uid"`
		OwnerReferences []ownerRefRemoval `json:"ownerReferences"`
	} `json:"metadata"`
}

type ownerRefRemoval struct {
	Patch string    `json:"$patch"`
	UID   types.UID `json:"uid"`
}

// AdoptPatch returns the body the controller patches the pod or ControllerRevision r names
// with to adopt it for ds (OWN-4, UPD-19), byte for byte: a strategic merge patch
// ([types.StrategicMergePatchType], to pods and ControllerRevisions alike) that adds a controller owner reference to ds (apiVersion apps/v1, kind
// DaemonSet, ds's name and uid, controller and blockOwnerDeletion true) and carries r.UID, the
// object's metadata.uid. The uid is the precondition: the API server rejects the patch when
// the object of that name now has another uid. API validation rejects it too when the object
// has meanwhile gained another controller.
//
// Before its first adoption of a sync the controller reads the DaemonSet afresh from the API
// server (not from its cache) and adopts nothing in that sync when the read fails, when the
// fresh object has a deletionTimestamp, or when its uid is not ds's (the DaemonSet was deleted
// and re-created under the same name). A controller using this patch should do the same check
// once per sync before sending any adoption.
//
// AdoptPatch panics if ds is nil: that is misuse, not data.
func (r ObjectRef) AdoptPatch(ds *appsv1.DaemonSet) []byte {
	if ds == nil {
		panic("daemonset: ObjectRef.AdoptPatch: nil DaemonSet")
	}
	var body adoptBody
	body.Metadata.UID = r.UID
	body.Metadata.OwnerReferences = []metav1.OwnerReference{{
		APIVersion:         appsv1.SchemeGroupVersion.String(),
		Kind:               "DaemonSet",
		Name:               ds.Name,
		UID:                ds.UID,
		Controller:         new(true),
		BlockOwnerDeletion: new(true),
	}}
	return mustMarshal(&body)
}

// ReleasePatch returns the body the controller patches the pod or ControllerRevision r names
// with to release it from ds (OWN-3, UPD-20), byte for byte: a strategic merge patch
// ([types.StrategicMergePatchType]) that carries r.UID, the object's metadata.uid, as its precondition and
// deletes the owner reference whose uid is ds's. The controller treats a 404 (the object is
// gone) and a 422 (the uid no longer matches, or the reference is already gone) answer as
// success.
//
// ReleasePatch panics if ds is nil: that is misuse, not data.
func (r ObjectRef) ReleasePatch(ds *appsv1.DaemonSet) []byte {
	if ds == nil {
		panic("daemonset: ObjectRef.ReleasePatch: nil DaemonSet")
	}
	var body releaseBody
	body.Metadata.UID = r.UID
	body.Metadata.OwnerReferences = []ownerRefRemoval{{Patch: "delete", UID: ds.UID}}
	return mustMarshal(&body)
}

// mustMarshal encodes v, a value of this file's body types, which always encode.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("daemonset: encoding a patch: " + err.Error())
	}
	return b
}
