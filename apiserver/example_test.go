package apiserver_test

import (
	"fmt"

	"github.com/daemonsched/daemonsched/apiserver"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// A manifest from git, applied again after `kubectl rollout restart`, changes nothing: the
// restart's annotation lives only in the stored object, and the three-way merge keeps it. A new
// image moves the generation and the template generation; a new selector is refused as the API
// server refuses it.
func ExampleApply() {
	const manifest = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:1}]}
`
	read := func() *appsv1.DaemonSet {
		var ds appsv1.DaemonSet
		if err := yaml.UnmarshalStrict([]byte(manifest), &ds); err != nil {
			panic(err)
		}
		return &ds
	}
	stored, errs := apiserver.Apply(nil, read(), apiserver.Options{})
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	// kubectl rollout restart patches the stored template; the manifest in git does not know.
	restart := stored.DeepCopy()
	restart.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-27T10:00:00Z"}
	stored, _ = apiserver.Update(stored, restart, apiserver.Options{})
	fmt.Println("restarted: generation", stored.Generation, "template generation", stored.Annotations[appsv1.DeprecatedTemplateGeneration])

	again, _ := apiserver.Apply(stored, read(), apiserver.Options{})
	fmt.Println("unchanged manifest: generation", again.Generation, "restartedAt kept:", again.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "")

	newImage := read()
	newImage.Spec.Template.Spec.Containers[0].Image = "agent:2"
	updated, _ := apiserver.Apply(stored, newImage, apiserver.Options{})
	fmt.Println("new image: generation", updated.Generation, "template generation", updated.Annotations[appsv1.DeprecatedTemplateGeneration])

	newSelector := read()
	newSelector.Spec.Selector.MatchLabels = map[string]string{"app": "agent2"}
	newSelector.Spec.Template.Labels = map[string]string{"app": "agent2"}
	_, errs = apiserver.Apply(stored, newSelector, apiserver.Options{})
	for _, err := range errs {
		fmt.Println("new selector:", err.Type, err.Field)
	}
	// Output:
	// restarted: generation 2 template generation 2
	// unchanged manifest: generation 2 restartedAt kept: true
	// new image: generation 3 template generation 3
	// new selector: Invalid value spec.selector
}
