// Command daemonsched prints what the Kubernetes DaemonSet controller would do in one sync of
// every DaemonSet of a snapshot (plan), why a DaemonSet does or does not run on a node
// (explain), and more (internal/cli). It reads what `kubectl get -o yaml|json` prints, or
// hand-written manifests, and never contacts an API server; kubectl-daemonsched, the kubectl
// plugin, asks a live cluster the same questions.
package main

import (
	"os"

	"github.com/daemonsched/daemonsched/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
