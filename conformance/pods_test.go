package conformance

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func daemonPod(t *testing.T) *v1.Pod {
	t.Helper()
	ds := handDS(func(ds *appsv1.DaemonSet) {
		c := &ds.Spec.Template.Spec.Containers[0]
		c.Ports = []v1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 443}}
		c.Env = []v1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "$(A)2"},
			{Name: "NODE", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}}
		ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, v1.Container{Name: "side", Image: "side:1"})
		ds.Spec.Template.Spec.InitContainers = []v1.Container{
			{Name: "setup", Image: "setup:1", Env: []v1.EnvVar{{Name: "X", Value: "1"}, {Name: "Y", Value: "$(X)"}}},
			{Name: "proxy", Image: "proxy:1", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
		}
	})
	p, errs := daemonset.Compile(ds, daemonset.Options{Version: v1363, Now: epoch})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return p.NewPod("n1")
}

// TestComparePods checks what POD-* fixes and what the API server may add (POD-7).
func TestComparePods(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*v1.Pod)
		rule   string // "" when the pods agree
	}{
		{"identical", func(*v1.Pod) {}, ""},
		{"POD-7: server-filled metadata and status", func(p *v1.Pod) {
			p.Name, p.UID, p.ResourceVersion = "ds-x7k2q", "uid-1", "42"
			p.CreationTimestamp = metav1.NewTime(epoch)
			p.Status.Phase = v1.PodPending
		}, ""},
		{"POD-7: API defaults", func(p *v1.Pod) {
			p.Spec.RestartPolicy, p.Spec.DNSPolicy, p.Spec.SchedulerName = v1.RestartPolicyAlways, v1.DNSClusterFirst, v1.DefaultSchedulerName
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](30)
			p.Spec.SecurityContext = &v1.PodSecurityContext{}
			p.Spec.EnableServiceLinks, p.Spec.Priority = ptr.To(true), ptr.To[int32](0)
			c := &p.Spec.Containers[0]
			c.TerminationMessagePath, c.TerminationMessagePolicy, c.ImagePullPolicy = "/dev/termination-log", v1.TerminationMessageReadFile, v1.PullIfNotPresent
			c.Ports[0].Protocol = v1.ProtocolTCP
		}, ""},
		{"keyed lists in another order", func(p *v1.Pod) {
			c := p.Spec.Containers
			c[0], c[1] = c[1], c[0]
			pt := p.Spec.Containers[1].Ports
			pt[0], pt[1] = pt[1], pt[0]
		}, ""},
		{"POD-6: env in another order: $(VAR) expands only earlier vars", func(p *v1.Pod) {
			e := p.Spec.Containers[0].Env
			e[0], e[1] = e[1], e[0]
		}, "POD-6"},
		{"POD-6: init containers in another order: they start in order", func(p *v1.Pod) {
			ic := p.Spec.InitContainers
			ic[0], ic[1] = ic[1], ic[0]
		}, "POD-6"},
		{"POD-6: an init container's env in another order", func(p *v1.Pod) {
			e := p.Spec.InitContainers[0].Env
			e[0], e[1] = e[1], e[0]
		}, "POD-6"},
		{"POD-7: the API server's fieldRef apiVersion", func(p *v1.Pod) {
			p.Spec.Containers[0].Env[2].ValueFrom.FieldRef.APIVersion = "v1"
		}, ""},
		{"POD-6: another fieldRef apiVersion", func(p *v1.Pod) {
			p.Spec.Containers[0].Env[2].ValueFrom.FieldRef.APIVersion = "v2"
		}, "POD-6"},
		{"an empty map or list equals a missing one", func(p *v1.Pod) {
			p.Spec.NodeSelector, p.Spec.Volumes, p.Finalizers = map[string]string{}, []v1.Volume{}, []string{}
		}, ""},
		{"POD-1: a name instead of generateName", func(p *v1.Pod) { p.GenerateName = "" }, "POD-1"},
		{"POD-2: another namespace", func(p *v1.Pod) { p.Namespace = "other" }, "POD-2"},
		{"POD-2: no namespace, as upstream's object", func(p *v1.Pod) { p.Namespace = ""; p.APIVersion, p.Kind = "v1", "Pod" }, ""},
		{"POD-3: the hash label", func(p *v1.Pod) { p.Labels["controller-revision-hash"] = "x" }, "POD-3"},
		{"POD-4: an annotation", func(p *v1.Pod) { p.Annotations = map[string]string{"a": "b"} }, "POD-4"},
		{"POD-5: not blocking owner deletion", func(p *v1.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = nil }, "POD-5"},
		{"POD-6: tolerations are atomic: order counts", func(p *v1.Pod) {
			tl := p.Spec.Tolerations
			tl[0], tl[1] = tl[1], tl[0]
		}, "POD-6"},
		{"POD-6: another image", func(p *v1.Pod) { p.Spec.Containers[0].Image = "img:3" }, "POD-6"},
		{"POD-6: a non-default restart policy", func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyNever }, "POD-6"},
		{"POD-6: the node affinity left out", func(p *v1.Pod) { p.Spec.Affinity = nil }, "POD-6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := daemonPod(t)
			got := want.DeepCopy()
			tt.mutate(got)
			gotBefore := got.DeepCopy()
			diff := ComparePods(want, got)
			switch {
			case tt.rule == "" && diff != "":
				t.Fatalf("pods should agree:\n%s", diff)
			case tt.rule != "" && diff == "":
				t.Fatal("pods should differ")
			case tt.rule != "" && podRule(want, got) != tt.rule:
				t.Fatalf("rule %s, want %s", podRule(want, got), tt.rule)
			}
			if w := daemonPod(t); ComparePods(w, want) != "" {
				t.Fatal("ComparePods changed its input")
			}
			_ = podRule(want, got)
			// Exactly, not semantically: normalizing sorts and clears copies of the candidate's
			// lists, never the lists themselves.
			if !reflect.DeepEqual(gotBefore, got) {
				t.Fatalf("ComparePods or podRule changed the candidate's pod:\n%s", cmp.Diff(gotBefore, got))
			}
		})
	}
}

// podsEqual agrees with equality.Semantic.DeepEqual, which it answers faster: pods equal
// field for field, equal only semantically (a quantity written another way, nil against empty
// deep inside, a time in another zone), and different.
func TestPodsEqualIsSemanticEquality(t *testing.T) {
	base := func() *v1.Pod {
		p := daemonPod(t)
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}
		return p
	}
	at := metav1.NewTime(epoch)
	tests := []struct {
		name   string
		change func(*v1.Pod)
		want   bool
	}{
		{"a copy", func(*v1.Pod) {}, true},
		{"a quantity written another way", func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("0.1")
		}, true},
		{"an empty list where none is", func(p *v1.Pod) { p.Spec.Containers[1].Args = []string{} }, true},
		{"an empty map where none is", func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{} }, true},
		{"the same instant in another zone", func(p *v1.Pod) {
			p.DeletionTimestamp = &metav1.Time{Time: at.In(time.FixedZone("X", 3600))}
		}, true},
		{"another quantity", func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("200m")
		}, false},
		{"another image", func(p *v1.Pod) { p.Spec.Containers[1].Image = "side:2" }, false},
		{"an argument more", func(p *v1.Pod) { p.Spec.Containers[1].Args = []string{"-v"} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, g := base(), base()
			w.DeletionTimestamp = &at
			g.DeletionTimestamp = &metav1.Time{Time: at.Time}
			tt.change(g)
			require.Equal(t, equality.Semantic.DeepEqual(w, g), tt.want, "the semantic comparison")
			require.Equal(t, tt.want, podsEqual(w, g))
			require.Equal(t, tt.want, ComparePods(w, g) == "")
		})
	}
}
