package cli

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/atomicfile"
	"github.com/daemonsched/daemonsched/internal/printable"
	"github.com/spf13/pflag"
)

// The live read of the kubectl plugin: instead of files, the read step of the skeleton
// (command.go) asks the plugin's Cluster for what the command's question needs, as a
// kubectl-style List (the dump --save keeps), and reads that dump as daemonsched reads any
// dump, so that the live answer and the offline answer on the saved dump are one computation.

// Question is what a command needs read from a live cluster. The zero Question reads every
// DaemonSet, node, pod and ControllerRevision.
type Question struct {
	// Namespace limits DaemonSets, pods and ControllerRevisions to one namespace ("": all).
	// A question about one DaemonSet reads its namespace: a DaemonSet's pods are those of its
	// namespace (OWN-*: adoption, release and the oldest-adopts rule of D-2 need every pod and
	// DaemonSet there, whatever their labels), never those of another.
	Namespace string
	// Node, when set, is the only node read (whatif --node), or every node when it is not
	// found, so that the command can name the node it is a typo of.
	Node string
	// NoPods reads no pods and no ControllerRevisions (whatif decides from the DaemonSets and
	// the nodes alone).
	NoPods bool
	// Admission reads the LimitRanges and RuntimeClasses (whatif).
	Admission bool
}

// Dump is what one live read returned.
type Dump struct {
	// Name names the cluster in messages: its server and context.
	Name string
	// Data is a kubectl-style List of every object read, as manifest reads it.
	Data []byte
	// Version is the release the cluster runs (its /version), a supported one.
	Version daemonset.Version
	// At is the clock, read once when the reading ended.
	At time.Time
}

// Cluster is a live cluster as the kubectl plugin reads it: package internal/livecluster
// implements it with client-go, which daemonsched does not link.
type Cluster interface {
	// AddFlags registers the connection flags on the plugin's root command.
	AddFlags(fs *pflag.FlagSet)
	// Read reads what q needs; its errors are one line and say what went wrong (an unreachable
	// server, refused credentials, a forbidden verb on a resource, an unsupported release).
	Read(ctx context.Context, q Question) (*Dump, error)
	// Role is the read-only RBAC the plugin needs, as YAML; bind, when not "", is the user a
	// binding grants it to.
	Role(bind string) string
	// Namespace is the namespace of the kubeconfig's context (--context's, else the current
	// one), "default" when it names none: the namespace of a command without -n or -A.
	Namespace() (string, error)
	// Watch reads what q needs as Read does, sends it on states, and keeps it up to date from
	// watch events, sending the new state after each burst of changes, without reading the
	// cluster again (a list again only where a watch's resourceVersion expired), until ctx is
	// done (nil) or the read or the watch fails (the error, as Read's).
	Watch(ctx context.Context, q Question, states chan<- *Dump) error
}

// plugin is the kubectl plugin's state: its cluster and --save.
type plugin struct {
	cluster Cluster
	save    string
}

// readLive reads the live cluster into c.src when the command runs in the kubectl plugin
// without -f or --example, writes --save's dump, and returns what it read; nil offline.
func (c *clusterFlags) readLive(e *env) (*Dump, error) {
	if e.plugin == nil {
		return nil, nil
	}
	if !c.live(e) {
		if e.plugin.save != "" {
			return nil, usagef("--save writes what is read from the cluster: it cannot be combined with -f or --example")
		}
		return nil, nil
	}
	live := c.watched
	if live == nil {
		var err error
		if live, err = e.plugin.cluster.Read(context.Background(), c.question); err != nil {
			return nil, err
		}
	}
	if e.plugin.save != "" {
		if err := atomicfile.Write(e.plugin.save, live.Data, 0o644); err != nil {
			return nil, fmt.Errorf("--save: %w", err)
		}
		at := cmp.Or(c.now.t, live.At)
		fmt.Fprintf(e.stderr, "daemonsched: saved what was read to %s: answer it offline with -f %s --now %s\n",
			printable.Escape(e.plugin.save), printable.Escape(e.plugin.save), at.Format(time.RFC3339Nano))
	}
	c.src.live = live
	return live, nil
}

// live says whether the command reads the live cluster: in the kubectl plugin, without -f or
// --example.
func (c *clusterFlags) live(e *env) bool {
	return e.plugin != nil && len(c.src.files) == 0 && !c.src.example
}
