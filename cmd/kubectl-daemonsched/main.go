// Command kubectl-daemonsched is daemonsched as a kubectl plugin (`kubectl daemonsched ...`):
// the same commands (internal/cli), which ask the live cluster of kubectl's connection flags
// (internal/livecluster) instead of reading a dump, and can --save what they read for
// daemonsched -f to answer offline.
package main

import (
	"os"

	"github.com/daemonsched/daemonsched/internal/cli"
	"github.com/daemonsched/daemonsched/internal/livecluster"
)

func main() {
	os.Exit(cli.RunPlugin(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, livecluster.New()))
}
