// Package cli is the daemonsched command line, shared by its two binaries: daemonsched, which
// reads what `kubectl get -o yaml|json` prints or hand-written manifests and never contacts an
// API server, and the kubectl plugin kubectl-daemonsched, which reads a live cluster (live.go).
// It prints what the Kubernetes DaemonSet controller would do in one sync of every DaemonSet of
// a snapshot (plan), why a DaemonSet does or does not run on a node (explain), and the rest of
// the commands; it decides nothing itself: the library does.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Run is the daemonsched command: args without the program name; it returns the exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr)
}

// RunPlugin is the kubectl plugin kubectl-daemonsched: the same commands, which read cluster
// (its connection flags are the plugin's) unless -f or --example is given (live.go).
func RunPlugin(args []string, stdin io.Reader, stdout, stderr io.Writer, cluster Cluster) int {
	return runAs(args, stdin, stdout, stderr, &plugin{cluster: cluster})
}

// errUsage marks a command line that cannot be run (unknown command or flag, bad flag value,
// missing input); run prints one "error: ..." line and where to find help, and exits 2. Every
// other error is bad input and exits 1.
var errUsage = errors.New("usage")

// usageMessage is a usage error with its message.
type usageMessage struct{ msg string }

func (u *usageMessage) Error() string        { return u.msg }
func (u *usageMessage) Is(target error) bool { return target == errUsage }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return &usageMessage{msg: fmt.Sprintf(format, args...)}
}

// runError is an error a command returned, told apart from cobra's own (unknown commands,
// flags and arguments), which are all usage errors.
type runError struct{ err error }

func (r runError) Error() string { return r.err.Error() }
func (r runError) Unwrap() error { return r.err }

// env is what the commands read and write. out is a buffer written to stdout, once, only when
// the command answers (success or a finding: exit.go); live is stdout itself, for conformance serve, which answers as it reads.
type env struct {
	stdin  io.Reader
	out    *bytes.Buffer
	live   io.Writer
	stderr io.Writer
	// plugin is the kubectl plugin's live cluster (live.go); nil in daemonsched, which never
	// contacts an API server.
	plugin *plugin
	// readLean records that a command read its input lean, and readEvery, set by a test, has
	// it read every field instead: the test compares the two outputs (lean, D-16).
	readLean, readEvery bool
}

// run is the whole command: it parses args, reads the input and writes the result. It writes
// nothing to stdout unless the command answers (help included, which goes to stdout), and
// returns the exit status (exit.go).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runAs(args, stdin, stdout, stderr, nil)
}

// runAs is run as daemonsched, or as the kubectl plugin when p is not nil.
func runAs(args []string, stdin io.Reader, stdout, stderr io.Writer, p *plugin) int {
	e := &env{stdin: stdin, out: new(bytes.Buffer), live: stdout, stderr: stderr, plugin: p}
	root := newRootCommand(e)
	root.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	cmd, err := root.ExecuteC()
	var re runError
	if errors.As(err, &re) {
		err = re.err
	} else if err != nil {
		err = &usageMessage{msg: err.Error()}
	}
	if cmd == nil {
		cmd = root
	}
	return exit(cmd, err, e.out.Bytes(), stdout, stderr)
}

// newRootCommand returns the daemonsched command and its subcommands, writing to e.
func newRootCommand(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "daemonsched",
		Short: "What the Kubernetes DaemonSet controller (1.33 to 1.37, 1.37 by default) would do, from a snapshot",
		Long:  rootLong,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for %q%s", args[0], cmd.CommandPath(), suggest(cmd, args[0]))
			}
			return usagef("no command given: want one of %s", strings.Join(commandNames(cmd), ", "))
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.out)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "daemonsched explian --node x": cobra found no command explian, so it parsed --node
		// as a flag of the command above, which has none. The mistyped command is the error to
		// report, with its suggestion, as it is without flags. pflag has kept the arguments it
		// read before the bad flag.
		if args := c.Flags().Args(); c.HasAvailableSubCommands() && len(args) > 0 && c.RunE != nil {
			return c.RunE(c, args)
		}
		return usagef("%v", err)
	})
	if e.plugin != nil {
		pluginRoot(root, e)
	}
	root.AddCommand(newPlanCommand(e, false), newPlanCommand(e, true), newExplainCommand(e), newVerifyCommand(e),
		newConformanceCommand(e), newRolloutCommand(e), newForecastCommand(e), newWhatIfCommand(e), newNodeReadyCommand(e), newLintCommand(e), newVersionCommand(e))
	// cobra's completion command (bash, zsh, fish, powershell), with an unknown shell a usage
	// error rather than its help.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown shell %q: want one of %s", args[0], strings.Join(commandNames(cmd), ", "))
			}
			return usagef("completion wants a shell: one of %s", strings.Join(commandNames(cmd), ", "))
		}
	}
	wrapRunE(root)
	addExitHelp(root)
	return root
}

// wrapRunE marks the errors of every command's RunE as runErrors.
func wrapRunE(c *cobra.Command) {
	if f := c.RunE; f != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := f(cmd, args); err != nil {
				return runError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapRunE(sub)
	}
}

// commandNames lists the commands under c that a user can run.
func commandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// suggest returns "; did you mean X?" for a mistyped command, or "".
func suggest(c *cobra.Command, typed string) string {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default, set only when it suggests itself
	}
	if s := c.SuggestionsFor(typed); len(s) > 0 {
		return fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	}
	return ""
}

// noArgs refuses positional arguments.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
