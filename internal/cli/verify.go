package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/conformance"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/spf13/cobra"
)

// newVerifyCommand returns `daemonsched verify`: does a candidate plan conform to the snapshot?
func newVerifyCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Say whether a candidate plan is one the controller could have produced",
		Long: `verify says whether a candidate plan (another implementation's, in the shape of plan -o json)
is one the controller could have produced, accepting each of its random choices; exit 0 when it
conforms, 1 with one line per mismatch (DaemonSet, action, object, rule: message) when not.
The sync is judged at --now, else at the now the candidate records (plan -o json prints it),
else at the latest time the input records; and at --kubernetes-version, else at the release the
candidate names (plan -o json's kubernetes), else at the newest. The keys plan -o json has and other implementations
may leave out (now, version, kubernetes; a created pod's apiVersion and kind; the budgets of a
rolling update that did not act) may be present or not.

` + inputHelp,
		Args: noArgs,
	}
	fs := cmd.Flags()
	c := addJudgeFlags(fs, "the instant of the sync (`RFC3339`)")
	planFile := fs.String("plan", "", "the candidate plan, in the shape of plan -o json (`FILE`; - reads stdin)")
	burst := fs.Int("burst", daemonset.DefaultBurstLimit, "the burst cap the candidate was made with (`N`; 0: the controller's 250; negative: no cap)")
	reasons := fs.Bool("reasons", false, "compare the reasons of creates and deletes too")
	revisions := fs.Bool("revisions", false, "require the candidate's ControllerRevision writes (revisions); without it they are compared only when given")
	diffs := fs.Bool("diff", false, "print the go-cmp diff under a mismatch of a pod or the status")
	maxPlan := fs.Int64("max-plan-bytes", defaultPlanBytes, "refuse a candidate plan larger than `N` bytes (verify's time grows with it: about 10 s of one core per 100 MB)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		// The skeleton (command.go): check, read, filter, render, exit.
		if err := c.check(); err != nil {
			return usagef("%v", err)
		}
		if *planFile == "" {
			return usagef("verify needs --plan FILE")
		}
		if *maxPlan <= 0 {
			return usagef("--max-plan-bytes must be positive, got %d", *maxPlan)
		}
		var (
			data []byte
			err  error
		)
		if *planFile == "-" {
			if (len(c.src.files) == 0 && !c.src.example) || slices.Contains(c.src.files, "-") {
				return errors.New("--plan -: stdin can be read only once, and the snapshot then needs -f FILE")
			}
		}
		data, err = readPlanFile(*planFile, e.stdin, c.reading.limits.InputBytes, *maxPlan)
		if err != nil {
			return err
		}
		// ReadPlan streams: the candidate is held once as text (readSideFile's) and once
		// decoded, never as the copies a whole-document decoding makes. Its quantities are
		// bounded as the inputs' are, by --max-quantity-*, and a refusal names the flag.
		lim := c.reading.limits
		candidate, err := limitFlagged(conformance.ReadPlan(bytes.NewReader(data), conformance.PlanLimits{Bytes: lim.InputBytes, QuantityLength: lim.QuantityLength, QuantityExponent: lim.QuantityExponent}))
		if err != nil {
			return fmt.Errorf("%s: %w", *planFile, err)
		}
		data = nil
		recorded, err := planNow(candidate.Now)
		if err != nil {
			return fmt.Errorf("%s: %w", *planFile, err)
		}
		if err := c.candidateRelease(e, *planFile, candidate.Kubernetes); err != nil {
			return err
		}
		l, err := c.read(e, allFields, "")
		if err != nil {
			return err
		}
		// The instant: --now, else the candidate's, else the input's latest (read's).
		opts := conformance.Options{Now: c.now.t, Version: l.version, FeatureGates: l.gates, BurstLimit: *burst, Reasons: *reasons, Revisions: *revisions}
		if opts.Now.IsZero() {
			opts.Now = recorded
		}
		if opts.Now.IsZero() {
			opts.Now = l.at
		}
		mismatches, err := conformance.Check(l.in.Snapshot, candidate.DaemonSets, opts)
		if err != nil {
			return fmt.Errorf("inconsistent snapshot: %w", err)
		}
		// Every DaemonSet is judged; what validation would reject is a warning (addJudgeFlags).
		if err := l.admit(everyDaemonSet, daemonset.Options{Now: opts.Now, Version: opts.Version, FeatureGates: opts.FeatureGates}); err != nil {
			return err
		}
		stdout := e.out // run's buffer
		listMismatches(stdout, "", mismatches, 0, *diffs)
		if len(mismatches) > 0 {
			// stdout keeps one line per mismatch; what was judged, and at which release, goes beside.
			fmt.Fprintf(e.stderr, "daemonsched: does not conform: %s in %s at %s, Kubernetes %s\n", strconv.Itoa(len(mismatches))+agree(len(mismatches), " mismatch", " mismatches"), count(len(candidate.DaemonSets), "DaemonSet"), formatNow(opts.Now), opts.Version)
			return l.done(e, errNonconforming)
		}
		fmt.Fprintf(stdout, "conforms: %s at %s, Kubernetes %s\n", count(len(candidate.DaemonSets), "DaemonSet"), formatNow(opts.Now), opts.Version)
		return l.done(e, nil)
	}
	return cmd
}

// defaultPlanBytes bounds the candidate plan of verify (--max-plan-bytes): 32 MiB, the plan of
// about 30,000 creates of a small daemon pod, read and checked in about 4 s of one core
// (BenchmarkVerifyLarge: 103 MB, 100,000 creates, 6.6 s to read and 5.0 s to check on a
// loaded machine). A larger candidate is refused at once, before it is read, unless the flag
// allows it.
const defaultPlanBytes = 32 << 20

// readPlanFile reads verify's --plan FILE (- for stdin) under the inputs' limit, and refuses
// a candidate larger than maxPlan with a message that names the flag: a regular file by its
// size before it is opened, stdin having read one byte past the limit.
func readPlanFile(name string, stdin io.Reader, inputLimit, maxPlan int64) ([]byte, error) {
	tooLarge := func() error {
		return fmt.Errorf("%s: a candidate plan larger than %s (--max-plan-bytes): verify's time grows with the plan, about 10 s of one core per 100 MB; raise the limit to verify it", name, planSize(maxPlan))
	}
	if name == "-" {
		stdin = io.LimitReader(stdin, maxPlan+1)
	} else if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() && st.Size() > maxPlan {
		return nil, tooLarge()
	}
	data, err := readSideFile("--plan", name, stdin, inputLimit)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxPlan { // stdin, or a file that grew
		return nil, tooLarge()
	}
	return data, nil
}

// planSize writes n as "48 MiB" when it is a whole number of MiB, else in bytes.
func planSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// planNow returns the instant a candidate plan records in its top-level now (plan -o json
// prints it; other implementations may not), zero when it has none (nil: ReadPlan's
// Candidate.Now).
func planNow(now json.RawMessage) (time.Time, error) {
	if len(now) == 0 {
		return time.Time{}, nil
	}
	var s string
	if err := json.Unmarshal(now, &s); err != nil {
		return time.Time{}, fmt.Errorf("candidate: now: want an RFC 3339 time as a string, got %s", printable.Quote(cutLine(string(now))))
	}
	t, err := parseRFC3339(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("candidate: now: not an RFC 3339 time (like 2026-03-02T10:00:00Z): %s", printable.Quote(s))
	}
	return t.UTC(), nil
}

// maxDiffLines bounds the lines of one --diff.
const maxDiffLines = 200

// indent puts two spaces before every line of s, at most maxDiffLines lines, each cut as a
// line of a list.
func indent(s string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for _, line := range lines[:min(len(lines), maxDiffLines)] {
		b.WriteString("  " + cutLine(line) + "\n")
	}
	if more := len(lines) - maxDiffLines; more > 0 {
		fmt.Fprintf(&b, "  ... and %d more lines\n", more)
	}
	return b.String()
}

// candidateRelease makes the release the candidate names (its kubernetes string) the one
// judged when --kubernetes-version is not given, as the candidate's now is: a candidate made
// for 1.33 judged by 1.37's rules would fail on every hash. With the flag given, a candidate
// naming another release is judged at the flag's, with a warning that says so.
func (c *clusterFlags) candidateRelease(e *env, file, named string) error {
	if named == "" {
		return nil
	}
	v, err := daemonset.ParseVersion(named)
	if err != nil {
		return fmt.Errorf("%s: kubernetes: %w", q(file), err)
	}
	switch {
	case c.version.v.IsZero():
		c.version.v = v
		return c.gates.check(v)
	case v != c.version.v:
		fmt.Fprintf(e.stderr, "daemonsched: warning: %s: the candidate names Kubernetes %s; it is judged at %s (--kubernetes-version)\n", q(file), v, c.version.v)
	}
	return nil
}
