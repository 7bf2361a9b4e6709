// Package live holds the reference controller's story against a real kube-apiserver and etcd.
// Its test (build tag "live") is run by run.sh, which builds and starts the servers; plain
// `go test ./...` compiles this package only.
package live
