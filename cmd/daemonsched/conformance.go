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
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/jsonlines"
	"github.com/daemonsched/daemonsched/internal/printable"
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
conforms. conformance serve answers that protocol with this program's own plans.

Each request carries an id that its answer repeats (conformance/testdata/protocol.schema.json);
an answer without one is paired by order. PROGRAM runs in a process group of its own, killed
when the run ends; it must read each request and answer it within --timeout, in a line of at
most --max-line-bytes; its stderr is shown escaped, at most 1,000 lines.`,
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
	}
	serveLine := serve.Flags().Int("max-line-bytes", defaultLineBytes, "refuse a request line longer than `N` bytes")
	serve.RunE = func(*cobra.Command, []string) error {
		if *serveLine <= 0 {
			return usagef("--max-line-bytes must be positive, got %d", *serveLine)
		}
		return serveConformance(e.stdin, e.live, *serveLine)
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
	timeout := fs.Duration("timeout", 30*time.Second, "how long PROGRAM may take to read one case and answer it")
	lineBytes := fs.Int("max-line-bytes", defaultLineBytes, "refuse an answer line longer than `N` bytes")
	fs.Var(&profiles, "profile", "run only the cases of `PROFILE` (repeatable): "+strings.Join(conformance.Profiles, ", "))
	cmd.RunE = func(_ *cobra.Command, program []string) error {
		if *timeout <= 0 {
			return usagef("--timeout must be positive, got %v", *timeout)
		}
		if *lineBytes <= 0 {
			return usagef("--max-line-bytes must be positive, got %d", *lineBytes)
		}
		lim := protocolLimits{timeout: *timeout, lineBytes: *lineBytes, stderrLines: defaultStderrLines, stderrLineBytes: defaultStderrLineBytes}
		return conformanceRun(program, profiles, *corpus, *report, *name, lim, e.out, e.stderr)
	}
	return cmd
}

// conformanceRun is conformance run once its flags are read.
func conformanceRun(program []string, profiles profileList, corpus, report, name string, lim protocolLimits, stdout, stderr io.Writer) error {
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
	outcomes, err := drive(program, cases, lim, stderr)
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
				for _, m := range o.Mismatches[:min(len(o.Mismatches), maxListed)] {
					fmt.Fprintf(stdout, "  %s: %s\n", o.Case, cutLine(printable.Escape(m.String())))
				}
				if more := len(o.Mismatches) - maxListed + o.MoreMismatches; more > 0 {
					fmt.Fprintf(stdout, "  %s: ... and %d more\n", o.Case, more)
				}
			default:
				fmt.Fprintf(stdout, "  %s: %s: %s\n", o.Case, o.Result, cutLine(printable.Escape(o.Error)))
			}
		}
	}
	if !conforms {
		return errNonconforming
	}
	return nil
}

func loadCorpus(dir string) ([]conformance.Case, error) {
	if dir == "" {
		return conformance.Corpus()
	}
	cases, err := conformance.LoadCases(os.DirFS(dir))
	if err == nil && len(cases) == 0 {
		err = fmt.Errorf("%s: no *.yaml case", dir)
	}
	return cases, err
}

// protocolLimits bound one run of the conformance protocol.
type protocolLimits struct {
	// timeout bounds one case: writing its request and reading its answer.
	timeout time.Duration
	// lineBytes bounds one answer line (--max-line-bytes).
	lineBytes int
	// stderrLines bounds the lines of PROGRAM's stderr relayed, stderrLineBytes each line.
	stderrLines, stderrLineBytes int
}

// The defaults of protocolLimits that no flag sets.
const (
	defaultStderrLines     = 1000
	defaultStderrLineBytes = 4096
)

// answerLine is one line PROGRAM wrote on its stdout, or why there is none.
type answerLine struct {
	line []byte
	err  error
}

// drive starts program once, in a process group of its own, and sends it every case, the
// request numbered by its place in cases from 1. A program that does not read its request or
// answer it within lim.timeout, exits, closes its stdout, writes a line longer than
// lim.lineBytes or answers another request than the one waiting fails the case, and the
// remaining cases fail without being sent. At the end the whole process group is killed.
// program's stderr reaches stderr escaped (printable.Escape) and cut to lim's bounds.
func drive(program []string, cases []conformance.Case, lim protocolLimits, stderr io.Writer) ([]conformance.Outcome, error) {
	// Pipes of our own rather than exec's: their ends are pollable, so that writes and reads
	// take deadlines, and Wait can be called while the answers are still being read.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	defer closeAll()
	cmd := exec.Command(program[0], program[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", printable.Quote(program[0]), err)
	}
	// The program holds its ends now; ours would keep its reads from ending.
	inR.Close()
	outW.Close()
	errW.Close()
	prog := printable.Quote(program[0])
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	relayed := make(chan struct{})
	go func() {
		relayStderr(errR, stderr, prog, lim)
		close(relayed)
	}()
	done := make(chan struct{})
	answers := make(chan answerLine)
	go func() {
		r := jsonlines.NewReader(outR, lim.lineBytes)
		for {
			line, err := r.Next()
			select {
			case answers <- answerLine{slices.Clone(line), err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var outcomes []conformance.Outcome
	var broken error
	for i, c := range cases {
		if broken == nil {
			broken = exchange(c, int64(i+1), inW, answers, exited, &waitErr, prog, lim, &outcomes)
			continue
		}
		outcomes = append(outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: broken.Error()})
	}
	inW.Close()
	var ending string
	if broken == nil {
		select {
		case <-exited:
			if waitErr != nil {
				ending = fmt.Sprintf("daemonsched: %s: %v\n", prog, waitErr)
			}
		case <-time.After(lim.timeout):
			ending = fmt.Sprintf("daemonsched: %s did not exit within %v of its stdin closing: killed\n", prog, lim.timeout)
		}
	}
	killGroup(cmd)
	<-exited
	close(done)
	// What the group wrote before it died is relayed; a process that left the group may still
	// hold stderr open: stop waiting for it soon.
	select {
	case <-relayed:
	case <-time.After(time.Second):
		errR.Close()
		<-relayed
	}
	io.WriteString(stderr, ending) //nolint:errcheck // as fmt.Fprintf to stderr
	return outcomes, nil
}

// exchange sends c to the program as request id and judges its answer, appending the outcome
// to outcomes. It returns why the protocol cannot go on, the outcome then being an error.
func exchange(c conformance.Case, id int64, in *os.File, answers <-chan answerLine, exited <-chan struct{}, waitErr *error, prog string, lim protocolLimits, outcomes *[]conformance.Outcome) error {
	failed := func(err error) error {
		*outcomes = append(*outcomes, conformance.Outcome{Case: c.Name, Profile: c.Profile, Result: "error", Error: err.Error()})
		return err
	}
	deadline := time.Now().Add(lim.timeout)
	req := conformance.NewRequest(c)
	req.ID = id
	data, err := json.Marshal(req)
	if err != nil {
		return failed(err)
	}
	if err := in.SetWriteDeadline(deadline); err != nil {
		return failed(err)
	}
	if _, err := in.Write(append(data, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return failed(fmt.Errorf("%s did not read its request within %v", prog, lim.timeout))
		}
		if errors.Is(err, syscall.EPIPE) {
			return failed(gone(prog, "stdin", exited, waitErr, lim))
		}
		return failed(fmt.Errorf("%s stopped reading its stdin: %w", prog, err))
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var a answerLine
	select {
	case a = <-answers:
	case <-timer.C:
		return failed(fmt.Errorf("%s did not answer within %v", prog, lim.timeout))
	}
	var tooLong *jsonlines.TooLongError
	switch {
	case errors.As(a.err, &tooLong):
		return failed(fmt.Errorf("%s answered with a line longer than %d bytes (--max-line-bytes)", prog, tooLong.Max))
	case a.err == io.EOF:
		return failed(gone(prog, "stdout", exited, waitErr, lim))
	case a.err != nil:
		return failed(fmt.Errorf("reading the answer of %s: %w", prog, a.err))
	}
	var numbered struct {
		ID *int64 `json:"id"`
	}
	if json.Unmarshal(a.line, &numbered) == nil && numbered.ID != nil && *numbered.ID != id {
		return failed(fmt.Errorf("%s answered request %d while request %d was waiting: its answers are out of step", prog, *numbered.ID, id))
	}
	*outcomes = append(*outcomes, conformance.JudgeResponse(c, a.line))
	return nil
}

// gone says why the program's stream (stdin or stdout) closed: its exit, with its status, or
// the program closing it and running on. An exit closes both, so a moment is given for the
// exit to be seen.
func gone(prog, stream string, exited <-chan struct{}, waitErr *error, lim protocolLimits) error {
	select {
	case <-exited:
		if *waitErr != nil {
			return fmt.Errorf("%s exited without answering (%v)", prog, *waitErr)
		}
		return fmt.Errorf("%s exited without answering", prog)
	case <-time.After(min(time.Second, lim.timeout)):
		return fmt.Errorf("%s closed its %s without answering", prog, stream)
	}
}

// relayStderr copies the program's stderr r to w line by line, each line escaped
// (printable.Escape: no terminal escape reaches the terminal) and cut to lim.stderrLineBytes,
// at most lim.stderrLines lines; it then says how many more there were.
func relayStderr(r io.Reader, w io.Writer, prog string, lim protocolLimits) {
	br := bufio.NewReaderSize(r, lim.stderrLineBytes)
	lines, cut := 0, false
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		ended := err == nil // chunk ends with its newline
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		if room := lim.stderrLineBytes - len(line); len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if ended || len(line) > 0 {
			if lines < lim.stderrLines {
				text := printable.Escape(string(line))
				if cut {
					text += " [cut]"
				}
				fmt.Fprintln(w, text)
			}
			lines++
		}
		line, cut = line[:0], false
		if err != nil {
			break
		}
	}
	if lines > lim.stderrLines {
		fmt.Fprintf(w, "daemonsched: ... and %d more lines of %s's stderr\n", lines-lim.stderrLines, prog)
	}
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
		if err := os.WriteFile(filepath.Join(dir, r.Profile+".yaml"), append([]byte(header), data...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// serveConformance answers protocol requests with the project's own plans: the reference
// implementation of the protocol, for testing a runner. A request line longer than lineBytes
// ends it with an error, having read no more of it.
func serveConformance(stdin io.Reader, stdout io.Writer, lineBytes int) error {
	r := jsonlines.NewReader(stdin, lineBytes)
	for n := 1; ; n++ {
		line, err := r.Next()
		var tooLong *jsonlines.TooLongError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &tooLong):
			return fmt.Errorf("stdin: request %d: a line longer than %d bytes (--max-line-bytes)", n, tooLong.Max)
		case err != nil:
			return fmt.Errorf("stdin: %w", err)
		}
		answer, err := answer(line)
		if err != nil {
			return fmt.Errorf("request %d: %w", n, err)
		}
		if _, err := stdout.Write(append(answer, '\n')); err != nil {
			return err
		}
	}
}

// answerDocument is serve's answer: plan -o json's document, with the id of the request.
type answerDocument struct {
	ID int64 `json:"id,omitempty"`
	planDocument
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
	return json.Marshal(answerDocument{ID: req.ID, planDocument: newPlanDocument(plans, opts.Now)})
}

// defaultLineBytes bounds a line of the conformance protocol (--max-line-bytes): 64 MiB holds
// the plan of a 5,000-node DaemonSet, a daemon pod of a few KB per node, many times over.
const defaultLineBytes = 64 << 20

// maxListed bounds the mismatches listed per case or candidate; the others are counted
// ("... and N more"), so that a candidate wrong in a million ways prints a screenful.
const maxListed = 100

// maxLineBytes bounds a line of a list of problems: a message quoting a huge value is cut.
const maxLineBytes = 1000

// cutLine cuts s to maxLineBytes, saying how much was left out.
func cutLine(s string) string {
	if len(s) <= maxLineBytes {
		return s
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes more)", s[:cut], len(s)-cut)
}
