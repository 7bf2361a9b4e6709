package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/lint"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
)

// formatSARIF is lint's -o sarif: SARIF 2.1.0, for code scanning (LINT-10).
const formatSARIF outputFormat = "sarif"

// failOnNever is the --fail-on value under which no finding changes the exit status.
const failOnNever = "never"

func newLintCommand(e *env) *cobra.Command {
	var (
		format = formatTable
		ns     namespaceFlags
		dsName string
		failOn = string(lint.SeverityWarning)
	)
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Find DaemonSet specs whose rollout or pods will stall; exit 1 on findings",
		Long: `lint checks DaemonSet specs for what makes a rollout deadlock, a daemon pod never run where it
is meant to, or two DaemonSets fight over pods. Each finding has a rule ID (LINT-1 ...,
documented in docs/rules/lint.md), a severity (error or warning), the field to change and, with
nodes in the input, the nodes concerned.

Manifests alone (-f agent.yaml) get the rules that read the spec: a host port with maxSurge
(LINT-1), overlapping selectors (LINT-5), revisionHistoryLimit 0 (LINT-8). With a dump of the
cluster (-f cluster.yaml --apply agent.yaml lints the manifest as it would be applied over the
cluster; -f cluster.yaml lints every DaemonSet of the dump) the rules that need nodes run too:
maxUnavailable used up by NotReady, unreachable or cordoned nodes (LINT-2), taints the pod does
not tolerate (LINT-3), placement that matches no node (LINT-4), requests larger than a node's
allocatable (LINT-6) and, without a priorityClassName, larger than what a node has free (LINT-7),
a host port another pod holds on a node (LINT-11) and a node feature a node does not declare
(LINT-12), as the scheduler's filters see them (docs/rules/schedule.md).
With --apply only the DaemonSets of the --apply files are linted.

--fail-on says which findings make the exit status 1: error, warning (the default) or never
(LINT-9); the output is the same. -o json prints a stable document, -o sarif SARIF 2.1.0 for
code scanning in CI (LINT-10).

` + inputHelp,
		Example: `  daemonsched lint -f daemonset.yaml
  kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml > cluster.yaml
  daemonsched lint -f cluster.yaml --apply agent.yaml --fail-on error
  daemonsched lint -f cluster.yaml --apply agent.yaml -o sarif > lint.sarif`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	c := addClusterFlags(fs, inputs{}, "the instant readiness is judged at")
	fs.VarP(outputFlag{format: &format, allowed: []outputFormat{formatTable, formatJSON, formatSARIF}}, "output", "o", "output format: table, json or sarif (SARIF 2.1.0)")
	addNamespaceFlags(fs, &ns, e)
	fs.StringVar(&dsName, "daemonset", "", "only the DaemonSet `NAME` (NAMESPACE/NAME, or NAME in the -n namespace)")
	fs.StringVar(&failOn, "fail-on", failOn, "exit 1 on a finding of this `SEVERITY` or above: error, warning or never")
	cmd.RunE = func(*cobra.Command, []string) error {
		return runLint(e, c, format, ns, dsName, failOn)
	}
	return cmd
}

func runLint(e *env, c *clusterFlags, format outputFormat, ns namespaceFlags, dsName, failOn string) error {
	if err := ns.check(); err != nil {
		return err
	}
	if err := ns.resolve(e, c); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	switch failOn {
	case string(lint.SeverityError), string(lint.SeverityWarning), failOnNever:
	default:
		return usagef("--fail-on wants error, warning or never, got %q", failOn)
	}
	namespace, name, err := ns.daemonSetKey(dsName)
	if err != nil {
		return err
	}
	filter := daemonSetFilter{ns: ns}
	if name != "" {
		filter.key = namespace + "/" + name
	}
	c.question = Question{Namespace: ns.namespace} // a live cluster: the namespace shown
	if name != "" {
		c.question.Namespace = namespace
	}
	l, err := c.read(e, allFields, "")
	if err != nil {
		return err
	}
	// Manifests alone are lint's rules of the spec, not a dump taken without nodes.
	l.specOnly = true
	in := l.in
	picked, err := filter.pick(in.Snapshot.DaemonSets)
	if err != nil {
		return err
	}
	// With --apply, only the applied DaemonSets are linted: the dump is their cluster.
	file := map[string]string{}
	source := map[string]manifest.Source{}
	applied := map[string]bool{}
	for _, f := range c.src.apply {
		applied[sourceName(f)] = true
	}
	for i, ds := range in.Snapshot.DaemonSets {
		file[ds.Namespace+"/"+ds.Name] = in.Sources.DaemonSets[i].File
		source[ds.Namespace+"/"+ds.Name] = in.Sources.DaemonSets[i]
	}
	keys := []string{}
	for _, ds := range picked {
		key := ds.Namespace + "/" + ds.Name
		if len(applied) == 0 || applied[file[key]] {
			keys = append(keys, key)
		}
	}
	keep := func(ds *appsv1.DaemonSet) bool { return slices.Contains(keys, ds.Namespace+"/"+ds.Name) }
	opts := daemonset.Options{Now: l.at, Version: l.version, FeatureGates: l.gates, Workers: runtime.GOMAXPROCS(0)}
	if err := l.admit(keep, opts); err != nil {
		return err
	}
	findings, err := lint.Lint(in.Snapshot, lint.Options{Plan: opts, DaemonSets: keys})
	if err != nil {
		return err
	}
	doc := lintDocument{Findings: make([]lintFinding, len(findings)), Cluster: len(in.Snapshot.Nodes) > 0, FailOn: failOn, Kubernetes: kubernetesName(opts.Version)}
	for i, f := range findings {
		doc.Findings[i] = lintFinding{Finding: f, File: file[f.Namespace+"/"+f.DaemonSet], source: source[f.Namespace+"/"+f.DaemonSet]}
	}
	switch format {
	case formatJSON:
		regions := newRegions()
		for i, f := range doc.Findings {
			if located(f.File) {
				if at := regions.of(f); at != nil {
					doc.Findings[i].Line, doc.Findings[i].Column = at.StartLine, at.StartColumn
				}
			}
		}
		err = renderData(e.out, formatJSON, doc)
	case formatSARIF:
		err = renderData(e.out, formatJSON, newSARIF(doc, newRegions()))
	default:
		renderLint(e.out, doc, len(keys), len(in.Snapshot.Nodes))
	}
	if err != nil {
		return err
	}
	var status error
	if failOn != failOnNever && slices.ContainsFunc(findings, func(f lint.Finding) bool { return f.Severity.AtLeast(lint.Severity(failOn)) }) {
		status = errLintFindings
	}
	return l.done(e, status)
}

// sourceName is the name manifest.Source.File gives the input read from -f or --apply name.
func sourceName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

// lintDocument is lint -o json (LINT-10): a stable shape, documented in docs/rules/lint.md.
type lintDocument struct {
	Findings []lintFinding `json:"findings"`
	// Cluster is true when the input held nodes, so that the rules that need them ran.
	Cluster bool   `json:"cluster"`
	FailOn  string `json:"failOn"`
	// Kubernetes is the release whose rules the findings apply.
	Kubernetes string `json:"kubernetes"`
}

type lintFinding struct {
	lint.Finding
	// File is the input the DaemonSet was read from; absent when unknown.
	File string `json:"file,omitempty"`
	// Line and Column are where in File the finding's field is written (the closest parent
	// written when the field is not), as SARIF's region says it; absent when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// source is where in File the DaemonSet was read, for SARIF's regions.
	source manifest.Source
}

// maxNodesShown is how many nodes a table row names before "+N more" (-o json names them all).
const maxNodesShown = 3

func renderLint(w io.Writer, doc lintDocument, linted, nodes int) {
	if linted == 0 {
		fmt.Fprintln(w, "No DaemonSets in the input.")
		return
	}
	if len(doc.Findings) > 0 {
		tw := newTabWriter(w)
		fmt.Fprintln(tw, "NAMESPACE\tDAEMONSET\tRULE\tSEVERITY\tFIELD\tNODES\tMESSAGE")
		for _, f := range doc.Findings {
			shown := "-"
			if len(f.Nodes) > 0 {
				names := make([]string, 0, maxNodesShown)
				for _, n := range f.Nodes[:min(len(f.Nodes), maxNodesShown)] {
					names = append(names, q(n))
				}
				shown = strings.Join(names, ",")
				if more := len(f.Nodes) - maxNodesShown; more > 0 {
					shown += fmt.Sprintf(" +%d more", more)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q(f.Namespace), q(f.DaemonSet), f.Rule, f.Severity, printable.Escape(f.Field), shown, printable.Escape(f.Message))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	counts := map[lint.Severity]int{}
	for _, f := range doc.Findings {
		counts[f.Severity]++
	}
	cluster := fmt.Sprintf("the cluster rules ran on %s", count(nodes, "node"))
	if !doc.Cluster {
		cluster = "no nodes in the input, so only the rules of the spec ran"
	}
	fmt.Fprintf(w, "%s linted: %s, %s (%s).\n", count(linted, "DaemonSet"), count(counts[lint.SeverityError], "error"), count(counts[lint.SeverityWarning], "warning"), cluster)
}

// The SARIF 2.1.0 log of lint -o sarif (LINT-10): the subset code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		Name                 string        `json:"name"`
		ShortDescription     sarifText     `json:"shortDescription"`
		HelpURI              string        `json:"helpUri"`
		DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
	}
	sarifRuleConf struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID     string          `json:"ruleId"`
		RuleIndex  int             `json:"ruleIndex"`
		Level      string          `json:"level"`
		Message    sarifText       `json:"message"`
		Locations  []sarifLocation `json:"locations,omitempty"`
		Properties sarifProperties `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	// sarifRegion is where in the file the finding's field is written: its key, or, for a
	// field the manifest does not write, the closest parent it writes.
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifProperties struct {
		Namespace string   `json:"namespace"`
		DaemonSet string   `json:"daemonSet"`
		Field     string   `json:"field"`
		Nodes     []string `json:"nodes,omitempty"`
	}
)

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	projectURL   = "https://github.com/daemonsched/daemonsched"
	lintRulesURL = projectURL + "/blob/main/docs/rules/lint.md"
)

// newSARIF returns doc as a SARIF log: one run, every rule in the driver, one result per
// finding, located in its file when the DaemonSet was read from one (not stdin, not the
// built-in example), with the region of the finding's field when regions finds it.
func newSARIF(doc lintDocument, regions *regions) sarifLog {
	rules := lint.Rules()
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "daemonsched", InformationURI: projectURL}}, Results: []sarifResult{}}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: r.ID, Name: r.Name, ShortDescription: sarifText{r.Summary},
			HelpURI: lintRulesURL + "#" + strings.ToLower(r.ID), DefaultConfiguration: sarifRuleConf{string(r.Severity)},
		})
	}
	for _, f := range doc.Findings {
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: string(f.Severity),
			Message:    sarifText{fmt.Sprintf("DaemonSet %s/%s: %s: %s", f.Namespace, f.DaemonSet, f.Field, f.Message)},
			Properties: sarifProperties{Namespace: f.Namespace, DaemonSet: f.DaemonSet, Field: f.Field, Nodes: f.Nodes},
		}
		if located(f.File) {
			res.Locations = []sarifLocation{{sarifPhysical{ArtifactLocation: sarifArtifact{filepath.ToSlash(f.File)}, Region: regions.of(f)}}}
		}
		run.Results = append(run.Results, res)
	}
	return sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}
}

// located reports whether file, a finding's File, names a file lint can point into: not stdin,
// nor the built-in example.
func located(file string) bool {
	return file != "" && file != "stdin" && file != exampleName && file != "/dev/stdin"
}

// maxRegionBytes bounds the files lint -o sarif reads again to find the lines of its findings:
// a larger one (a cluster dump, whose DaemonSets are rarely what is fixed) gets locations
// without regions, rather than a parse of its whole text.
const maxRegionBytes = 8 << 20

// regions finds the lines of lint findings in the files their DaemonSets were read from, each
// file read and split once (manifest.Positions).
type regions struct {
	files map[string]*manifest.Positions // nil when the file cannot be read again
}

func newRegions() *regions { return &regions{files: map[string]*manifest.Positions{}} }

// of returns the region of f's field in f.File, or nil when it is not known: the file cannot
// be read again, has changed, or is larger than maxRegionBytes.
func (r *regions) of(f lintFinding) *sarifRegion {
	if r == nil || f.source.File == "" {
		return nil
	}
	pos, seen := r.files[f.source.File]
	if !seen {
		if data, err := manifest.ReadText(manifest.Input{Path: f.source.File}, maxRegionBytes); err == nil {
			pos = manifest.NewPositions(data)
		}
		r.files[f.source.File] = pos
	}
	if pos == nil {
		return nil
	}
	at, _, ok := pos.Field(f.source, f.Field)
	if !ok {
		return nil
	}
	return &sarifRegion{StartLine: at.Line, StartColumn: at.Column}
}
