// Package live holds the reference controller's story against a real kube-apiserver and etcd,
// and the test kubelet that the story and the upstream e2e specs (module live/e2e) share. The
// story (build tag "live") is run by run.sh, which builds and starts the servers; plain
// `go test ./...` compiles this package only.
package live
