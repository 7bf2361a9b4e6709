#!/usr/bin/env bash
# Builds the release archives of daemonsched and kubectl-daemonsched:
#
#   release/release.sh VERSION [OUTDIR]      # VERSION like v1.2.3; OUTDIR defaults to dist/
#
# For linux, darwin and windows on amd64 and arm64 (PLATFORMS="os/arch ..." builds fewer), one
# archive each (tar.gz; zip for windows) holding both binaries, LICENSE and README.md, built with
# CGO off and -trimpath, VERSION stamped in (`daemonsched version` prints it). Beside them:
# SHA256SUMS (sha256sum -c reads it), one ARCHIVE.sha256 each, and daemonsched.yaml, the krew
# manifest of release/krew.yaml with the version and checksums filled in. The binary of the
# machine's own platform, when built, is run once to check the stamp.
set -euo pipefail

version=${1:?usage: release/release.sh VERSION [OUTDIR]}
case $version in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "release.sh: VERSION must look like v1.2.3, got $version" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$repo/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
platforms=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
ldflags="-s -w -X github.com/daemonsched/daemonsched/internal/cli.stampedVersion=$version"
manifest=$(cat "$repo/release/krew.yaml")
manifest=${manifest//\{\{VERSION\}\}/$version}

cd "$repo"
: >"$out/SHA256SUMS"
for p in $platforms; do
	os=${p%/*} arch=${p#*/}
	exe=""
	[ "$os" = windows ] && exe=.exe
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	for cmd in daemonsched kubectl-daemonsched; do
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$stage/$cmd$exe" "./cmd/$cmd"
	done
	cp LICENSE README.md "$stage/"
	name=daemonsched_${version}_${os}_${arch}
	if [ "$os" = windows ]; then
		archive=$name.zip
		rm -f "$out/$archive"
		(cd "$stage" && zip -q -X "$out/$archive" ./*)
	else
		archive=$name.tar.gz
		# The files by name, not ".": a "./" entry would carry mktemp's mode 0700 onto the
		# directory a user unpacks into.
		(cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -czf "$out/$archive" -- *)
	fi
	if [ "$os/$arch" = "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" ]; then
		"$stage/kubectl-daemonsched$exe" version | grep -q "daemonsched $version\$" ||
			{ echo "release.sh: the $p binary does not say $version" >&2; exit 1; }
	fi
	rm -rf "$stage"
	sum=$(cd "$out" && sha256sum "$archive")
	echo "$sum" >>"$out/SHA256SUMS"
	echo "$sum" >"$out/$archive.sha256"
	manifest=${manifest//\{\{SHA256_${os}_${arch}\}\}/${sum%% *}}
	echo "== $archive"
done
echo "$manifest" >"$out/daemonsched.yaml"
if grep -q '{{SHA256_' "$out/daemonsched.yaml"; then
	echo "== daemonsched.yaml: some platforms were not built (PLATFORMS); its checksums are left as placeholders"
fi
echo "== $out: SHA256SUMS, daemonsched.yaml"
