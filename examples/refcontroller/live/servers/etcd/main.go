// Command etcd is the etcd server version that Kubernetes v1.36.3 pins (v3.6.8), built from its
// Go module for the reference controller's live test.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
