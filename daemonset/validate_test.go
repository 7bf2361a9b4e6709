package daemonset_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/daemonsched/daemonsched/daemonset"
)

// valDS is a valid, defaulted DaemonSet: newDS with RollingUpdate, maxUnavailable 1 and
// maxSurge 0.
func valDS() *appsv1.DaemonSet { return newDS(rolling(ios(1), ios(0))) }

// valWith returns valDS changed by f.
func valWith(f dsMod) *appsv1.DaemonSet { return newDS(rolling(ios(1), ios(0)), f) }

func valRolling(mu, ms *intstr.IntOrString) func(ds *appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: mu, MaxSurge: ms}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tmplSpec := field.NewPath("spec", "template", "spec")
	ru := field.NewPath("spec", "updateStrategy", "rollingUpdate")
	templateLabels := field.NewPath("spec", "template", "metadata", "labels")
	tests := []struct {
		name     string
		ds       *appsv1.DaemonSet
		opts     daemonset.Options
		wantErrs field.ErrorList
	}{
		{name: "a defaulted DaemonSet is valid", ds: valDS()},

		// VAL-1
		{name: "VAL-1 a name that is not a DNS-1123 subdomain is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Name = "Foo_bar" }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "Foo_bar", "")}},
		{name: "VAL-1 a name of 254 characters is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Name = strings.Repeat("a", 254) }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), strings.Repeat("a", 254), "")}},
		{name: "VAL-1 a name of 253 characters is valid",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Name = strings.Repeat("a", 253) })},
		{name: "VAL-1 a missing name is required",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Name = "" }),
			wantErrs: field.ErrorList{field.Required(field.NewPath("metadata", "name"), "")}},
		{name: "VAL-1 a namespace that is not a DNS-1123 label is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Namespace = "kube.system" }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "namespace"), "kube.system", "")}},
		{name: "VAL-1 D-5 an empty namespace is left to the request",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Namespace = "" })},
		{name: "VAL-1 a bad label key on the DaemonSet is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Labels = map[string]string{"bad key": "v"} }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "labels"), "bad key", "")}},
		{name: "VAL-1 a finalizer without a domain must be a standard one",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Finalizers = []string{"orphan", "example.com/keep", "custom"} }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "finalizers").Index(2), "custom", "")}},
		{name: "VAL-1 a negative generation is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Generation = -1 }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "generation"), int64(-1), "")}},

		// VAL-2..VAL-5
		{name: "VAL-2 Surprise 17 a nil selector is reported as not matching the template labels",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }),
			wantErrs: field.ErrorList{field.Invalid(templateLabels, map[string]string{"app": "d"}, "")}},
		{name: "VAL-3 an empty selector is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), &metav1.LabelSelector{}, "")}},
		{name: "VAL-3 a selector with an empty matchLabels map is empty by length",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), &metav1.LabelSelector{MatchLabels: map[string]string{}}, "")}},
		{name: "VAL-4 an unknown selector operator is invalid and the template match is not checked",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Gt", Values: []string{"1"}}}}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "selector", "matchExpressions").Index(0).Child("operator"), metav1.LabelSelectorOperator("Gt"), "")}},
		{name: "VAL-4 In without values is required",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}
			}),
			wantErrs: field.ErrorList{field.Required(field.NewPath("spec", "selector", "matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-4 Exists with values is forbidden",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"d"}}}
			}),
			wantErrs: field.ErrorList{field.Forbidden(field.NewPath("spec", "selector", "matchExpressions").Index(0).Child("values"), "")}},
		{name: "VAL-4 a bad matchLabels key is invalid at matchLabels",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector.MatchLabels["bad key"] = "x"
				ds.Spec.Template.Labels["bad key"] = "x"
			}),
			wantErrs: field.ErrorList{
				field.Invalid(field.NewPath("spec", "selector", "matchLabels"), "bad key", ""),
				field.Invalid(field.NewPath("spec", "template", "labels"), "bad key", ""),
			}},
		{name: "VAL-5 a selector that does not match the template labels is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"app": "x"} }),
			wantErrs: field.ErrorList{field.Invalid(templateLabels, map[string]string{"app": "x"}, "")}},
		{name: "VAL-5 a NotIn-only selector matches a template without labels",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}}}
				ds.Spec.Template.Labels = nil
			})},

		// VAL-6..VAL-8
		{name: "VAL-6 template label syntax is reported at spec.template.labels",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels["tier"] = "not valid!" }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "template", "labels"), "not valid!", "")}},
		{name: "VAL-6 template annotation keys are validated",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Annotations = map[string]string{"bad key": ""} }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "template", "annotations"), "bad key", "")}},
		{name: "VAL-7 DFLT-3 an empty restartPolicy counts as the defaulted Always",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = "" })},
		{name: "VAL-7 restartPolicy OnFailure is unsupported",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyOnFailure }),
			wantErrs: field.ErrorList{field.NotSupported[string](tmplSpec.Child("restartPolicy"), "", nil)}},
		{name: "VAL-7 an unknown restartPolicy is unsupported by pod and DaemonSet validation",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = "Sometimes" }),
			wantErrs: field.ErrorList{
				field.NotSupported[string](tmplSpec.Child("restartPolicy"), "", nil),
				field.NotSupported[string](tmplSpec.Child("restartPolicy"), "", nil),
			}},
		{name: "VAL-8 activeDeadlineSeconds is forbidden",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }),
			wantErrs: field.ErrorList{field.Forbidden(tmplSpec.Child("activeDeadlineSeconds"), "")}},
		{name: "VAL-8 an activeDeadlineSeconds of 0 is also out of range",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) }),
			wantErrs: field.ErrorList{
				field.Invalid(tmplSpec.Child("activeDeadlineSeconds"), int64(0), ""),
				field.Forbidden(tmplSpec.Child("activeDeadlineSeconds"), ""),
			}},

		// VAL-9, VAL-10, template generation
		{name: "VAL-9 a negative minReadySeconds is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = -1 }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "minReadySeconds"), int64(-1), "")}},
		{name: "VAL-10 a negative revisionHistoryLimit is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](-1) }),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "revisionHistoryLimit"), int64(-1), "")}},
		{name: "VAL-10 a revisionHistoryLimit of 0 is valid",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = ptr.To[int32](0) })},
		{name: "VAL-10 a nil revisionHistoryLimit is not validated",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = nil })},
		{name: "DFLT-4 a negative template generation annotation is invalid at spec.templateGeneration",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "-1"}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("spec", "templateGeneration"), int64(-1), "")}},
		{name: "DFLT-4 a template generation annotation that is not an integer is invalid",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "abc"}
			}),
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration), "abc", "")}},

		// VAL-11..VAL-15
		{name: "VAL-11 an unknown strategy type is unsupported at updateStrategy",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: "Recreate"}
			}),
			wantErrs: field.ErrorList{field.NotSupported[string](field.NewPath("spec", "updateStrategy"), "", nil)}},
		{name: "VAL-11 D-4 an empty strategy type is unsupported when not defaulted",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{}
			}),
			wantErrs: field.ErrorList{field.NotSupported[string](field.NewPath("spec", "updateStrategy"), "", nil)}},
		{name: "VAL-12 RollingUpdate without rollingUpdate is required",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate = nil }),
			wantErrs: field.ErrorList{field.Required(ru, "")}},
		{name: "VAL-13 a negative maxUnavailable is invalid",
			ds:       valWith(valRolling(ios(-1), ios(0))),
			wantErrs: field.ErrorList{field.Invalid(ru.Child("maxUnavailable"), int64(-1), "")}},
		{name: "VAL-13 a maxUnavailable string without percent is invalid but counts as its number",
			ds:       valWith(valRolling(iostr("5"), ios(0))),
			wantErrs: field.ErrorList{field.Invalid(ru.Child("maxUnavailable"), intstr.FromString("5"), "")}},
		{name: "VAL-13 VAL-14 a fractional percentage is invalid and counts as zero",
			ds: valWith(valRolling(iostr("5.5%"), ios(0))),
			wantErrs: field.ErrorList{
				field.Invalid(ru.Child("maxUnavailable"), intstr.FromString("5.5%"), ""),
				field.Required(ru.Child("maxUnavailable"), ""),
			}},
		{name: "VAL-13 VAL-14 a negative percentage is invalid and counts as zero",
			ds: valWith(valRolling(ios(0), iostr("-1%"))),
			wantErrs: field.ErrorList{
				field.Invalid(ru.Child("maxSurge"), intstr.FromString("-1%"), ""),
				field.Required(ru.Child("maxUnavailable"), ""),
			}},
		{name: "VAL-13 a percentage above 100 is invalid",
			ds:       valWith(valRolling(iostr("101%"), ios(0))),
			wantErrs: field.ErrorList{field.Invalid(ru.Child("maxUnavailable"), intstr.FromString("101%"), "")}},
		{name: "VAL-13 100 percent of surge is valid",
			ds: valWith(valRolling(ios(0), iostr("100%")))},
		{name: "VAL-14 both non-zero is invalid at maxSurge",
			ds:       valWith(valRolling(ios(1), ios(1))),
			wantErrs: field.ErrorList{field.Invalid(ru.Child("maxSurge"), intstr.FromInt32(1), "")}},
		{name: "VAL-14 both zero requires maxUnavailable",
			ds:       valWith(valRolling(ios(0), ios(0))),
			wantErrs: field.ErrorList{field.Required(ru.Child("maxUnavailable"), "")}},
		{name: "VAL-14 zero maxUnavailable and a nil maxSurge requires maxUnavailable",
			ds:       valWith(valRolling(ios(0), nil)),
			wantErrs: field.ErrorList{field.Required(ru.Child("maxUnavailable"), "")}},
		{name: "VAL-14 both nil read as zero requires maxUnavailable",
			ds:       valWith(valRolling(nil, nil)),
			wantErrs: field.ErrorList{field.Required(ru.Child("maxUnavailable"), "")}},
		{name: "VAL-14 zero percent and ten percent of surge is valid",
			ds: valWith(valRolling(iostr("0%"), iostr("10%")))},
		{name: "VAL-14 a maxUnavailable with a nil maxSurge is valid",
			ds: valWith(valRolling(iostr("10%"), nil))},
		{name: "VAL-15 OnDelete does not look at rollingUpdate",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{
					Type:          appsv1.OnDeleteDaemonSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ios(-5), MaxSurge: iostr("x")},
				}
			})},

		// VAL-17..VAL-20
		{name: "VAL-17 an empty key with Equal is invalid at operator",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}, {Operator: v1.TolerationOpEqual, Value: "v"}}
			}),
			wantErrs: field.ErrorList{field.Invalid(tmplSpec.Child("tolerations").Index(1).Child("operator"), v1.TolerationOpEqual, "")}},
		{name: "VAL-17 D-7 Gt is unsupported with the gate off",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpGt, Value: "5"}}
			}),
			wantErrs: field.ErrorList{field.NotSupported[v1.TolerationOperator](tmplSpec.Child("tolerations").Index(0).Child("operator"), v1.TolerationOpGt, nil)}},
		{name: "VAL-17 D-7 Gt is valid with the gate on",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpGt, Value: "5"}}
			}),
			opts: daemonset.Options{Version: v1363, FeatureGates: daemonset.FeatureGates{daemonset.GateTaintTolerationComparisonOperators: true}}},
		{name: "VAL-17 tolerationSeconds without NoExecute is invalid at effect",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](5)}}
			}),
			wantErrs: field.ErrorList{field.Invalid(tmplSpec.Child("tolerations").Index(0).Child("effect"), v1.TaintEffectNoSchedule, "")}},
		{name: "VAL-18 a required node selector without terms is required",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{},
				}}
			}),
			wantErrs: field.ErrorList{field.Required(tmplSpec.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"), "")}},
		{name: "VAL-18 Surprise 13 Gt with a word passes validation",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Spec.Template.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
						MatchExpressions: []v1.NodeSelectorRequirement{{Key: "cpus", Operator: v1.NodeSelectorOpGt, Values: []string{"abc"}}},
					}}},
				}}
			})},
		{name: "VAL-19 a bad nodeSelector key is invalid at nodeSelector",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"bad key": "x"} }),
			wantErrs: field.ErrorList{field.Invalid(tmplSpec.Child("nodeSelector"), "bad key", "")}},
		{name: "VAL-20 a nodeName is allowed",
			ds: valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "node-1.example.com" })},
		{name: "VAL-20 a nodeName that is not a DNS-1123 subdomain is invalid",
			ds:       valWith(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "Node_1" }),
			wantErrs: field.ErrorList{field.Invalid(tmplSpec.Child("nodeName"), "Node_1", "")}},

		// VAL-23
		{name: "VAL-23 every problem is reported at once",
			ds: valWith(func(ds *appsv1.DaemonSet) {
				ds.Name = "Bad"
				ds.Spec.Selector = nil
				ds.Spec.MinReadySeconds = -5
				ds.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever
				ds.Spec.Template.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: "Foo"}}
				ds.Spec.UpdateStrategy.RollingUpdate = nil
			}),
			wantErrs: field.ErrorList{
				field.Invalid(field.NewPath("metadata", "name"), "Bad", ""),
				field.Invalid(templateLabels, map[string]string{"app": "d"}, ""),
				field.NotSupported[string](tmplSpec.Child("restartPolicy"), "", nil),
				field.NotSupported[v1.TolerationOperator](tmplSpec.Child("tolerations").Index(0).Child("operator"), v1.TolerationOperator("Foo"), nil),
				field.Invalid(field.NewPath("spec", "minReadySeconds"), int64(-5), ""),
				field.Required(ru, ""),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.ds.DeepCopy()
			errs := daemonset.Validate(tt.ds, tt.opts)
			matcher := field.ErrorMatcher{}.ByType().ByField().ByValue()
			want := valFillValues(tt.wantErrs, tt.ds)
			matcher.Test(t, want, errs)
			if diff := cmp.Diff(before, tt.ds); diff != "" {
				t.Errorf("Validate mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

// valFillValues fills in the values the table cannot spell out briefly: for NotSupported
// restartPolicy and updateStrategy errors, the value upstream reports (the policy, and the
// whole strategy).
func valFillValues(errs field.ErrorList, ds *appsv1.DaemonSet) field.ErrorList {
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		c := *e
		if c.Type == field.ErrorTypeNotSupported {
			switch {
			case strings.HasSuffix(c.Field, "restartPolicy"):
				c.BadValue = ds.Spec.Template.Spec.RestartPolicy
			case c.Field == "spec.updateStrategy":
				c.BadValue = ds.Spec.UpdateStrategy.DeepCopy()
			}
		}
		out = append(out, &c)
	}
	return out
}

func TestValidatePanicsOnNil(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "daemonset: Validate: nil DaemonSet", func() { daemonset.Validate(nil, daemonset.Options{Version: v1363}) })
}

// TestValidateDefaultsMakeValid checks D-4 and DFLT-1: a hand-written DaemonSet with no
// strategy is reported until WithDefaults is applied.
func TestValidateDefaultsMakeValid(t *testing.T) {
	t.Parallel()
	ds := valWith(func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{}
		ds.Spec.RevisionHistoryLimit = nil
	})
	require.NotEmpty(t, daemonset.Validate(ds, daemonset.Options{Version: v1363}))
	require.Empty(t, daemonset.Validate(daemonset.WithDefaults(ds), daemonset.Options{Version: v1363}))
}

func ExampleValidate() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "fluentd", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "fluentd"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logging"}},
				Spec: v1.PodSpec{Tolerations: []v1.Toleration{
					{Key: "node-role.kubernetes.io/control-plane", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
					{Key: "dedicated", Operator: v1.TolerationOpGt, Value: "3"},
				}},
			},
		},
	}
	// A hand-written manifest gets the API defaults first (D-4), as the CLI does.
	for _, err := range daemonset.Validate(daemonset.WithDefaults(ds), daemonset.Options{Version: v1363}) {
		fmt.Println(err.Field, err.Type)
	}
	// Output:
	// spec.template.metadata.labels Invalid value
	// spec.template.spec.tolerations[1].operator Unsupported value
}

// VAL-23: a DaemonSet with 4 bad annotation keys and 3 bad label keys once gave 9 different
// orders of Result.Invalid in 20 plans (map order); the list is sorted by path, then message.
func TestValidateOrderIsTheSameOnEveryCall(t *testing.T) {
	t.Parallel()
	ds := valWith(func(ds *appsv1.DaemonSet) {
		ds.Annotations = map[string]string{"-a": "1", "-b": "2", "-c": "3", "-d": "4"}
		ds.Labels = map[string]string{"-x": "1", "-y": "2", "-z": "3"}
		ds.Spec.Template.Annotations = map[string]string{"-t": "1", "-u": "2"}
	})
	first, err := daemonset.Plan(ds, nil, nil, daemonset.Options{Version: v1363, Now: time.Unix(0, 0)})
	require.NoError(t, err)
	require.Len(t, first.Invalid, 9)
	require.True(t, slices.IsSorted(first.Invalid[:4]), "metadata.annotations, in order: %q", first.Invalid)
	for range 50 {
		again, err := daemonset.Plan(ds, nil, nil, daemonset.Options{Version: v1363, Now: time.Unix(0, 0)})
		require.NoError(t, err)
		require.Equal(t, first.Invalid, again.Invalid)
	}
}
