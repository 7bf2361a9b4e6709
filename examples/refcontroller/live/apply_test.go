//go:build live

package live

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/daemonsched/daemonsched/apiserver"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kubectlutil "k8s.io/kubectl/pkg/util"
)

// TestStoryKubectlApply applies manifests over DaemonSets the live API server stores, with
// kubectl's client-side apply (its pkg/util configuration code and the three-way strategic
// merge patch pkg/cmd/apply sends) and with server-side apply (an apply patch with a field
// manager), and compares the stored object with apiserver.ApplyJSON's prediction (D-14): the
// spec, metadata.generation, the template generation and, client-side, the last-applied
// configuration. It is named TestStory* so that run.sh's -run TestStory runs it.
func TestStoryKubectlApply(t *testing.T) {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	const ns = "story-apply"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	dss := client.AppsV1().DaemonSets(ns)
	// The story's controller, which runs after this test on the same servers, must find none of
	// these DaemonSets: its writes are compared with the model's, DaemonSet by DaemonSet.
	t.Cleanup(func() {
		if err := dss.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Errorf("deleting the DaemonSets of %s: %v", ns, err)
		}
	})
	manifest := func(name, image string, extra func(spec, podSpec map[string]any)) []byte {
		podSpec := map[string]any{"containers": []any{map[string]any{"name": "agent", "image": image}}}
		spec := map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": podSpec},
		}
		if extra != nil {
			extra(spec, podSpec)
		}
		b, err := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"team": "infra"}}, "spec": spec})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	get := func(name string) *appsv1.DaemonSet {
		ds, err := dss.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		ds.APIVersion, ds.Kind = "apps/v1", "DaemonSet" // a typed GET leaves them empty
		return ds
	}
	// compare checks what the plan reads of got against want: the spec, the generation and the
	// template generation, and the last-applied configuration when lastApplied.
	compare := func(step string, want, got *appsv1.DaemonSet, lastApplied bool) {
		t.Helper()
		if diff := cmp.Diff(want.Spec, got.Spec); diff != "" {
			t.Errorf("%s: spec (-predicted +stored):\n%s", step, diff)
		}
		if want.Generation != got.Generation {
			t.Errorf("%s: generation %d predicted, %d stored", step, want.Generation, got.Generation)
		}
		for _, key := range []string{appsv1.DeprecatedTemplateGeneration, v1.LastAppliedConfigAnnotation} {
			if key == v1.LastAppliedConfigAnnotation && !lastApplied {
				continue
			}
			if w, g := want.Annotations[key], got.Annotations[key]; w != g {
				t.Errorf("%s: annotation %s: %q predicted, %q stored", step, key, w, g)
			}
		}
	}
	// A change another client makes: minReadySeconds and hostNetwork set outside any
	// manifest, and the template annotation of kubectl rollout restart.
	edit := func(name string) {
		t.Helper()
		ds := get(name)
		ds.Spec.MinReadySeconds = 30
		ds.Spec.Template.Spec.HostNetwork = true
		ds.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-27T10:00:00Z"}
		if _, err := dss.Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	zeros := func(spec, podSpec map[string]any) { spec["minReadySeconds"] = 0; podSpec["hostNetwork"] = false }
	steps := []struct {
		name string
		data []byte
		edit bool // another client edits the stored object first
		// What the stored object then holds, so that agreeing with the prediction is not
		// all the step shows.
		wantGeneration int64
		wantMinReady   int32
	}{
		{name: "create", data: manifest("csa", "agent:1", nil), wantGeneration: 1},
		{name: "unchanged", data: manifest("csa", "agent:1", nil), wantGeneration: 1},
		{name: "image after an edit by another client keeps the edit", data: manifest("csa", "agent:2", nil), edit: true, wantGeneration: 3, wantMinReady: 30},
		{name: "spelt-out zeros replace the other client's values", data: manifest("csa", "agent:2", zeros), wantGeneration: 4},
		{name: "a field the last manifest set and this one drops", data: manifest("csa", "agent:2", nil), wantGeneration: 4},
	}
	check := func(step string, got *appsv1.DaemonSet, wantGeneration int64, wantMinReady int32) {
		t.Helper()
		if got.Generation != wantGeneration || got.Spec.MinReadySeconds != wantMinReady {
			t.Errorf("%s: stored generation %d, minReadySeconds %d; want %d, %d", step, got.Generation, got.Spec.MinReadySeconds, wantGeneration, wantMinReady)
		}
	}

	t.Run("client-side", func(t *testing.T) {
		for _, st := range steps {
			if st.edit {
				edit("csa")
			}
			stored := get("csa")
			want, errs := apiserver.ApplyJSON(stored, st.data, apiserver.Options{Version: storyRelease})
			if len(errs) > 0 {
				t.Fatalf("%s: predicted a refusal: %v", st.name, errs)
			}
			kubectlApply(t, ctx, client, ns, stored, st.data)
			got := get("csa")
			compare(st.name, want, got, true)
			check(st.name, got, st.wantGeneration, st.wantMinReady)
		}
	})

	// Server-side apply merges by field ownership (managedFields), which the library does not
	// model. For a manifest only this field manager applies, the fields it owns are those of
	// its previous manifest, so the stored object is ApplyJSON's prediction over the stored
	// object carrying the previous manifest as its last-applied configuration; it sets no
	// last-applied annotation. With another manager's edit in between, the edited fields are
	// that manager's: force takes them back, as the three-way merge does (no conflict is
	// modelled).
	t.Run("server-side", func(t *testing.T) {
		var previous []byte
		for _, st := range steps {
			data := renamed(t, st.data, "ssa")
			if st.edit {
				edit("ssa")
			}
			stored := get("ssa")
			var base *appsv1.DaemonSet
			if stored != nil {
				base = stored.DeepCopy()
				if base.Annotations == nil {
					base.Annotations = map[string]string{}
				}
				base.Annotations[v1.LastAppliedConfigAnnotation] = string(previous)
			}
			want, errs := apiserver.ApplyJSON(base, data, apiserver.Options{Version: storyRelease})
			if len(errs) > 0 {
				t.Fatalf("%s: predicted a refusal: %v", st.name, errs)
			}
			force := true
			if _, err := dss.Patch(ctx, "ssa", types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "story-apply", Force: &force}); err != nil {
				t.Fatalf("%s: server-side apply: %v", st.name, err)
			}
			got := get("ssa")
			compare(st.name, want, got, false)
			check(st.name, got, st.wantGeneration, st.wantMinReady)
			previous = data
		}
	})
}

// renamed returns the manifest data with its name, selector and template label set to name.
func renamed(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	obj.SetName(name)
	if err := unstructured.SetNestedField(obj.Object, name, "spec", "selector", "matchLabels", "app"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(obj.Object, name, "spec", "template", "metadata", "labels", "app"); err != nil {
		t.Fatal(err)
	}
	out, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kubectlApply does what `kubectl apply -f` (client-side) sends for data over stored (nil: none),
// with kubectl's own code: pkg/util's annotation and configurations, and the three-way strategic
// merge patch with the typed patch meta that pkg/cmd/apply's Patcher uses for a built-in type.
func kubectlApply(t *testing.T, ctx context.Context, client kubernetes.Interface, ns string, stored *appsv1.DaemonSet, data []byte) {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	if stored == nil {
		if err := kubectlutil.CreateApplyAnnotation(obj, unstructured.UnstructuredJSONScheme); err != nil {
			t.Fatal(err)
		}
		body, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		// The object as kubectl sends it, not through the typed struct.
		if err := client.AppsV1().RESTClient().Post().Namespace(ns).Resource("daemonsets").
			SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		return
	}
	modified, err := kubectlutil.GetModifiedConfiguration(obj, true, unstructured.UnstructuredJSONScheme)
	if err != nil {
		t.Fatal(err)
	}
	original, err := kubectlutil.GetOriginalConfiguration(stored)
	if err != nil {
		t.Fatal(err)
	}
	current, err := json.Marshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.DaemonSet{})
	if err != nil {
		t.Fatal(err)
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(patch) == "{}" {
		return
	}
	if _, err := client.AppsV1().DaemonSets(ns).Patch(ctx, stored.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}
