package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/atomicfile"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/daemonsched/daemonsched/manifest"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// newConformanceCommand returns `daemonsched conformance run|serve`. Run writes to run's
// buffer; serve answers each request as it comes, so it writes to e.live, the real stdout.
func newConformanceCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Run the conformance corpus through another implementation, or answer it",
		Long: `conformance run runs the conformance corpus through PROGRAM (one case in, one plan out, as
newline-delimited JSON on its stdin and stdout), prints a summary per profile and writes a YAML
report per profile (placement, diff, rolling, status, what-if); exit 0 when every profile run
conforms. conformance serve answers that protocol with this program's own plans.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown conformance subcommand %q: want run or serve%s", args[0], suggest(cmd, args[0]))
			}
			return usagef("conformance needs a subcommand: run or serve")
		},
	}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Answer the conformance protocol on stdin and stdout with this program's plans",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return serveConformance(e.stdin, e.live) },
	}
	cmd.AddCommand(newConformanceRunCommand(e), serve)
	return cmd
}

// profileList is the repeatable --profile flag.
type profileList []string

func (p *profileList) String() string { return strings.Join(*p, ",") }
func (p *profileList) Type() string   { return "PROFILE" }

func (p *profileList) Set(s string) error {
	if !slices.Contains(conformance.Profiles, s) {
		return fmt.Errorf("unknown profile %q: want one of %s", s, strings.Join(conformance.Profiles, ", "))
	}
	*p = append(*p, s)
	return nil
}

// newConformanceRunCommand drives PROGRAM over the corpus: one request line in, one answer
// line out.
func newConformanceRunCommand(e *env) *cobra.Command {
	var profiles profileList
	cmd := &cobra.Command{
		Use:   "run [flags] -- PROGRAM [ARG]...",
		Short: "Run the conformance corpus through PROGRAM and report per profile",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() < 0 || len(args) == 0 {
				return usagef("conformance run needs -- PROGRAM [ARG]...")
			}
			if cmd.ArgsLenAtDash() > 0 {
				return usagef("unexpected argument %q before --", args[0])
			}
			return nil
		},
	}
	fs := cmd.Flags()
	corpus := fs.String("corpus", "", "read the cases from `DIR` instead of the built-in corpus")
	report := fs.String("report", "conformance-report", "write one YAML report per profile into `DIR` (empty: none)")
	name := fs.String("name", "", "the implementation's `NAME` in the reports (default: PROGRAM's base name)")
	timeout := fs.Duration("timeout", 30*time.Second, "how long PROGRAM may take to answer one case")
	fs.Var(&profiles, "profile", "run only the cases of `PROFILE` (repeatable): "+strings.Join(conformance.Profiles, ", "))
	cmd.RunE = func(_ *cobra.Command, program []string) error {
		return conformanceRun(program, profiles, *corpus, *report, *name, *timeout, e.out, e.stderr)
	}
	return cmd
}

// conformanceRun is conformance run once its flags are read.
func conformanceRun(program []string, profiles profileList, corpus, report, name string, timeout time.Duration, stdout, stderr io.Writer) error {
	if name == "" {
		name = filepath.Base(program[0])
	}
	cases, err := loadCorpus(corpus)
	if err != nil {
		return err
	}
	if len(profiles) > 0 {
		cases = slices.DeleteFunc(cases, func(c conformance.Case) bool { return !slices.Contains(profiles, c.Profile) })
	}
	outcomes, err := drive(program, cases, timeout, stderr)
	if err != nil {
		return err
	}
	reports := conformance.Reports(name, outcomes)
	if report != "" {
		if err := writeReports(report, reports); err != nil {
			return err
		}
	}
	conforms := true
	for _, r := range reports {
		verdict := "conforms"
		if !r.Conforms {
			verdict, conforms = "does not conform", false
		}
		fmt.Fprintf(stdout, "%-9s %d passed, %d failed, %d skipped, %d errors: %s\n", r.Profile, r.Passed, r.Failed, r.Skipped, r.Errors, verdict)
		for _, o := range r.Cases {
			switch o.Result {
			case "pass":
			case "fail":
				for _, m := range o.Mismatches {
					fmt.Fprintf(stdout, "  %s: %s\n", o.Case, printable.Escape(m.String()))
				}
			default:
				fmt.Fprintf(stdout, "  %s: %s: %s\n", o.Case, o.Result, printable.Escape(o.Error))
			}
		}
	}
	if !conforms {
		return errNonconforming
	}
	return nil
}

// corpusFileBytes bounds one case file of --corpus: the largest case of the built-in corpus
// is under 600 KB, and a case is sent to PROGRAM as one line.
const corpusFileBytes = 64 << 20

func loadCorpus(dir string) ([]conformance.Case, error) {
	if dir == "" {
		return conformance.Corpus()
	}
	cases, err := conformance.LoadCases(manifest.DirFS(dir, corpusFileBytes))
	if err == nil && len(cases) == 0 {
		err = fmt.Errorf("%s: no *.yaml case", dir)
	}
	return cases, err
}

// drive starts program once and sends it every case. A program that exits, answers with a
// line that is not a plan, or takes longer than timeout fails the case; after the first exit
// or timeout, the remaining cases fail without being sent.
func drive(program []string, cases []conformance.Case, timeout time.Duration, stderr io.Writer) ([]conformance.Outcome, error) {
	cmd := exec.Command(program[0], program[1:]...)
	cmd.Stderr = stderr
	// A killed program's children may hold its output open: stop waiting for them soon after.
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", program[0], err)
	}
	lines := make(chan []byte)
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	var outcomes []conformance.Outcome
	var broken error
	for _, c := range cases {
		if broken != nil {
			outcomes = append(outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()})
			continue
		}
		req, err := json.Marshal(conformance.NewRequest(c))
		if err != nil {
			return nil, err
		}
		if _, err := in.Write(append(req, '\n')); err != nil {
			broken = fmt.Errorf("%s stopped reading: %w", program[0], err)
			outcomes = append(outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()})
			continue
		}
		select {
		case line, ok := <-lines:
			if !ok {
				broken = fmt.Errorf("%s exited without answering", program[0])
				outcomes = append(outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()})
				continue
			}
			outcomes = append(outcomes, conformance.JudgeResponse(c, line))
		case <-time.After(timeout):
			broken = fmt.Errorf("%s did not answer within %v", program[0], timeout)
			outcomes = append(outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()})
		}
	}
	in.Close()
	if broken != nil && cmd.Process != nil {
		cmd.Process.Kill() //nolint:errcheck // it may have exited already
	}
	go func() {
		for range lines { // drain what is left so that the reader ends
		}
	}()
	if err := cmd.Wait(); err != nil && broken == nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, err
		}
		fmt.Fprintf(stderr, "daemonsched: %s: %v\n", program[0], err)
	}
	return outcomes, nil
}

func writeReports(dir string, reports []conformance.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range reports {
		data, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		header := "# daemonsched conformance report (schema: conformance/testdata/result.schema.json)\n"
		if err := atomicfile.Write(filepath.Join(dir, r.Profile+".yaml"), append([]byte(header), data...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// serveConformance answers protocol requests with the project's own plans: the reference
// implementation of the protocol, for testing a runner.
func serveConformance(stdin io.Reader, stdout io.Writer) error {
	r := bufio.NewReaderSize(stdin, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			answer, aerr := answer(line)
			if aerr != nil {
				return aerr
			}
			if _, werr := stdout.Write(append(answer, '\n')); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func answer(line []byte) ([]byte, error) {
	var req conformance.Request
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	c := conformance.Case{Name: req.Case, Now: req.Now, BurstLimit: req.BurstLimit, Objects: req.Objects}
	s, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	plans, err := daemonset.PlanCluster(s, daemonset.Options{Now: opts.Now, BurstLimit: opts.BurstLimit})
	if err != nil {
		return nil, err
	}
	// The answer is plan -o json's document on one line.
	return json.Marshal(newPlanDocument(plans, opts.Now))
}
