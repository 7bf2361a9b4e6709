// Command kube-controller-manager is the v1.36.3 controller manager, built from k8s.io/kubernetes's
// own command package: the e2e run starts it with only the controllers the e2e framework needs
// beside the reference controller, and once with its own DaemonSet controller for comparison.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }
