package affinity_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/affinity"
)

// sinkBool keeps results alive so the compiler cannot drop the calls being measured.
var sinkBool bool

// realisticNode is a cloud node with 15 labels; cpus varies so that Gt has work to do.
func realisticNode(name, zone, cpus string) *v1.Node {
	n := &v1.Node{}
	n.Name = name
	n.Labels = map[string]string{
		"kubernetes.io/os":                         "linux",
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   name,
		"beta.kubernetes.io/os":                    "linux",
		"beta.kubernetes.io/arch":                  "amd64",
		"topology.kubernetes.io/region":            "us-east-1",
		"topology.kubernetes.io/zone":              zone,
		"failure-domain.beta.kubernetes.io/region": "us-east-1",
		"failure-domain.beta.kubernetes.io/zone":   zone,
		"node.kubernetes.io/instance-type":         "m6i.2xlarge",
		"beta.kubernetes.io/instance-type":         "m6i.2xlarge",
		"node-role.kubernetes.io/worker":           "",
		"karpenter.sh/capacity-type":               "on-demand",
		"example.com/cpus":                         cpus,
		"example.com/pool":                         "general",
	}
	return n
}

// realisticSpec is a daemon pod spec with a node selector and two required terms: label
// expressions (In, NotIn, Exists, Gt) and a metadata.name field.
func realisticSpec() *v1.PodSpec {
	return &v1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				exprs(
					req("topology.kubernetes.io/zone", "In", "us-east-1a", "us-east-1b"),
					req("node.kubernetes.io/instance-type", "NotIn", "t3.micro", "t3.small"),
					req("node-role.kubernetes.io/worker", "Exists"),
					req("example.com/cpus", "Gt", "4"),
				),
				fields(req("metadata.name", "In", "ip-10-0-0-7")),
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
				{Weight: 10, Preference: exprs(req("karpenter.sh/capacity-type", "In", "spot"))},
			},
		}},
	}
}

// TestMatchesAllocatesNothing: the compiled hot path allocates nothing, whichever part
// decides: node selector, a matching term, a failing term, a metadata.name field (upstream
// builds a fields.Set map on every match).
func TestMatchesAllocatesNothing(t *testing.T) {
	r := affinity.Compile(realisticSpec(), nil)
	nodes := map[string]*v1.Node{
		"first term matches":      realisticNode("ip-10-0-0-1", "us-east-1a", "8"),
		"Gt fails, field decides": realisticNode("ip-10-0-0-7", "us-east-1c", "abc"),
		"nothing matches":         realisticNode("ip-10-0-0-2", "us-east-1c", "2"),
	}
	windows := realisticNode("ip-10-0-0-3", "us-east-1a", "8")
	windows.Labels["kubernetes.io/os"] = "windows"
	nodes["node selector fails"] = windows
	for name, n := range nodes {
		if got := testing.AllocsPerRun(100, func() { sinkBool = r.Matches(n) }); got != 0 {
			t.Errorf("Matches (%s) allocates %v times per run, want 0", name, got)
		}
		if got := testing.AllocsPerRun(100, func() { sinkOutcome = r.Evaluate(n) }); got != 0 {
			t.Errorf("Evaluate (%s) allocates %v times per run, want 0", name, got)
		}
	}
}

var sinkOutcome affinity.Outcome

// sinkRequired keeps a compiled value alive in BenchmarkCompile.
var sinkRequired *affinity.Required
