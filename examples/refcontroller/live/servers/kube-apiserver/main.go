// Command kube-apiserver is the v1.36.3 API server, built from k8s.io/kubernetes's own command
// package so that the reference controller's live test runs against the real thing.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
