#!/bin/sh
# ref.sh fills every release's column of ../releasehash.json with the hash that release's own
# k8s.io/api gives (ref.go.txt, built in a throwaway module per release). Run it from anywhere
# after `go test ./daemonset -run TestReleaseHashCorpus -update-release-hashes` rewrote the
# templates; TestReleaseHashCorpus then checks ComputeHashFor against every column.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../releasehash.json"
for pair in 1.33:v0.33.13 1.34:v0.34.4 1.35:v0.35.4 1.36:v0.36.3 1.37:v0.37.2; do
	release=${pair%%:*} version=${pair#*:}
	tmp=$(mktemp -d)
	cp "$here/ref.go.txt" "$tmp/main.go"
	(
		cd "$tmp"
		go mod init example.com/ref >/dev/null 2>&1
		go get "k8s.io/api@$version" "k8s.io/apimachinery@$version" >/dev/null 2>&1
		go mod tidy >/dev/null 2>&1
		GOFLAGS=-mod=mod go run . "$release" "$corpus"
	)
	rm -rf "$tmp"
	echo "release $release: k8s.io/api $version"
done
