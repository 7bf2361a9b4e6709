#!/usr/bin/env bash
# release.sh runs this module's differential tests against the named Kubernetes releases, each
# against its own k8s.io/kubernetes and staging modules (VER-8, docs/rules/versions.md). The
# module as committed links the newest supported release; for another one the script copies the
# test sources into a temporary module, pins every k8s.io/kubernetes staging module to that
# release's v0 tag (the list comes from that release's own go.mod), and runs go test there. The
# tests read the linked release from the build information and set daemonset's Options.Version
# and the hash of every pod to it.
#
#   release.sh 1.34.4 1.35            the named releases (a minor alone is its newest supported patch)
#   release.sh all                    every supported release (daemonset/version.go)
#   release.sh older                  every supported release but the newest
#   release.sh rotate                 one older release recorded green in VER-8, by the day of the year (CI)
#   release.sh --pin 1.37.2           rewrite this module's own go.mod to a release (how the default is set)
#   release.sh 1.33 -- -run Trajectory -count 1    arguments after -- go to go test
#
# Each release's k8s.io/kubernetes is large (about 40 MB of zip, 200 MB unpacked): `all` needs
# about 1 GB of module cache and, on a loaded 2-core machine, several minutes per release.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

# supported prints the supported releases, oldest first, from the one list in daemonset/version.go.
supported() {
	sed -n '/^var supportedReleases = /,/^}/p' "$root/daemonset/version.go" |
		sed -n 's/^[[:space:]]*{\([0-9]*\), \([0-9]*\)},.*/1.\1.\2/p'
}

# resolve turns 1.35 or v1.35.4 into a supported release, 1.35.4, or fails naming the supported ones.
resolve() {
	local want=${1#v} r
	for r in $(supported); do
		if [ "$want" = "$r" ] || [ "$want" = "${r%.*}" ]; then
			echo "$r"; return 0
		fi
	done
	echo "release.sh: $1 is not a supported release (supported: $(supported | tr '\n' ' '))" >&2
	return 1
}

# pin rewrites the go.mod in directory $1 to release $2: k8s.io/kubernetes at v$2, and every
# staging module of that release (its go.mod's replace block) replaced by its v0 tag.
pin() {
	local dir=$1 release=$2 minor_patch staging old m
	minor_patch=${release#1.}
	staging=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@v$release" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	[ -n "$staging" ] || { echo "release.sh: cannot download k8s.io/kubernetes@v$release" >&2; return 1; }
	(
		cd "$dir"
		for old in $(go mod edit -json | sed -n 's/^[[:space:]]*"Path": "\(k8s\.io\/[^"]*\)",$/\1/p' | sort -u); do
			go mod edit -dropreplace "$old" 2>/dev/null || true
		done
		go mod edit -require "k8s.io/kubernetes@v$release"
		{
			printf '\nreplace (\n'
			for m in $(sed -n '/^replace (/,/^)/p' "$staging" | sed -n 's/^[[:space:]]*\(k8s\.io\/[^ ]*\) => \.\/staging.*/\1/p'); do
				printf '\t%s => %s v0.%s\n' "$m" "$m" "$minor_patch"
			done
			# A release whose apimachinery builds on structured-merge-diff v4 (1.33) needs its own
			# kube-openapi and gnostic-models: the later ones, which the library's requirements
			# select, moved to structured-merge-diff v6 and go.yaml.in/yaml.
			if grep -q '^[[:space:]]*sigs\.k8s\.io/structured-merge-diff/v4 ' "$staging"; then
				sed -n 's/^[[:space:]]*\(k8s\.io\/kube-openapi\|github\.com\/google\/gnostic-models\) \(v[^ ]*\).*/\t\1 => \1 \2/p' "$staging"
			fi
			printf ')\n'
		} >>go.mod
		go mod edit -fmt
		sed -i "s/^const pinnedRelease = .*/const pinnedRelease = \"$release\"/" release_test.go
	)
}

# compat writes, into directory $1, a go build -overlay file that lets the library compile against
# the k8s.io/api and k8s.io/apimachinery of release $2 when they lack what the library uses, and
# prints its path (nothing from 1.35 on, which have it all). The library links the newest release's
# (STYLE.md); before 1.35 it meets, at compile time only:
#   - apimachinery's validate/content helpers (IsLabelKey, IsLabelValue, IsDecimalInteger; new in
#     v0.35): the newest apimachinery's own files of that package, as a module of their own
#     (daemonsched.invalid/compatcontent), which the library's files import instead;
#   - the constants TolerationOpLt and TolerationOpGt (v0.35), spelt as their values: a release
#     without them has no Lt or Gt operator (VER-5), so the library refuses them there anyway;
#   - NodeStatus.DeclaredFeatures and the RestartAllContainers action (v0.35), and before 1.34
#     Container.RestartPolicyRules and EnvVarSource.FileKeyRef: no object of that release can hold
#     them, so each read is replaced by the empty value it would read there.
# Each rewrite must change its file, so that a change of the library that moves one fails here
# rather than passing untested.
compat() {
	local dir=$1 release=$2 minor content ov f e before entries=()
	minor=${release#1.}
	minor=${minor%%.*}
	[ "$minor" -lt 35 ] || return 0
	content=$(cd "$here" && go list -m -f '{{.Dir}}' k8s.io/apimachinery)/pkg/api/validate/content
	ov=$dir/overlay
	mkdir -p "$ov" "$dir/content"
	echo "module overlay" >"$ov/go.mod" # keeps the rewritten files out of the test module
	printf 'module daemonsched.invalid/compatcontent\n\ngo 1.24\n\nrequire k8s.io/apimachinery v0.%s\n' "${release#1.}" >"$dir/content/go.mod"
	for f in "$content"/*.go; do
		case $f in *_test.go) continue ;; esac
		cp "$f" "$dir/content/"
	done
	# rewrite FILE SED... overlays the library's FILE with the sed expressions applied.
	rewrite() {
		local file=$1 out=$ov/lib/$1
		shift
		mkdir -p "$(dirname "$out")"
		cp "$root/$file" "$out"
		for e in "$@"; do
			before=$(cksum <"$out")
			sed -i "$e" "$out"
			if [ "$before" = "$(cksum <"$out")" ]; then
				echo "release.sh: compat: '$e' changes nothing in $file" >&2
				return 1
			fi
		done
		entries+=("\"$root/$file\": \"$out\"")
	}
	local imp='s#"k8s.io/apimachinery/pkg/api/validate/content"#content "daemonsched.invalid/compatcontent"#'
	local ops='s/v1\.TolerationOp\([LG]t\)/v1.TolerationOperator("\1")/g'
	for f in $(cd "$root" && grep -rlE --include='*.go' --exclude='*_test.go' 'k8s.io/apimachinery/pkg/api/validate/content"|TolerationOp[LG]t' . |
		grep -v '^\./internal/upstreamtest/' | sed 's#^\./##' | sort); do
		e=()
		grep -q 'validate/content"' "$root/$f" && e+=("$imp")
		grep -q 'TolerationOp[LG]t' "$root/$f" && e+=("$ops")
		rewrite "$f" "${e[@]}" || return 1
	done
	# Lean reading keeps what the scheduler reads of a node and a container (D-16).
	local declared='s/dst\.Status\.Allocatable, dst\.Status\.DeclaredFeatures = src\.Status\.Allocatable, src\.Status\.DeclaredFeatures/dst.Status.Allocatable = src.Status.Allocatable/'
	if [ "$minor" -lt 34 ]; then
		rewrite schedule/features.go 's/node\.Status\.DeclaredFeatures/[]string(nil)/' \
			's/range g\.containers\[i\]\.RestartPolicyRules {/range []struct{ Action string }(nil) {/' \
			's/v1\.ContainerRestartRuleActionRestartAllContainers/"RestartAllContainers"/' || return 1
		rewrite daemonset/templatedefaults.go 's/from\.FileKeyRef/(*struct{ Optional *bool })(nil)/g' || return 1
		rewrite manifest/lean.go "$declared" \
			's/dst\.RestartPolicy, dst\.RestartPolicyRules = src\.RestartPolicy, src\.RestartPolicyRules/dst.RestartPolicy = src.RestartPolicy/' || return 1
	else
		rewrite schedule/features.go 's/node\.Status\.DeclaredFeatures/[]string(nil)/' \
			's/v1\.ContainerRestartRuleActionRestartAllContainers/"RestartAllContainers"/' || return 1
		rewrite manifest/lean.go "$declared" || return 1
	fi
	{
		printf '{"Replace": {\n'
		local IFS=,
		printf '%s\n' "${entries[*]}"
		printf '}}\n'
	} >"$dir/overlay.json"
	echo "$dir/overlay.json"
}

run_release() {
	local release=$1; shift
	local work
	work=$(mktemp -d "${TMPDIR:-/tmp}/upstreamtest-$release.XXXXXX")
	trap 'rm -rf "$work"' RETURN
	# The build tag k8s_1_<minor> selects the shim files for that release's APIs (shim_older_test.go
	# for 1.35 and 1.36, shim_before135_test.go for 1.33 and 1.34; the newest's,
	# shim_newest_test.go, is built without a tag, as CI runs it). The files the tag leaves out
	# are not copied: go mod tidy reads every file whatever its tags, and would look for the
	# packages of a later release's shim in the newest k8s.io/kubernetes.
	local tag=k8s_1_${release#1.} f skip
	tag=${tag%.*}
	skip=" $(cd "$here" && go list -e -tags "$tag" -f '{{join .IgnoredGoFiles " "}}' .) "
	for f in "$here"/*.go; do
		[[ $skip == *" ${f##*/} "* ]] || cp "$f" "$work/"
	done
	cp "$here/go.mod" "$here/go.sum" "$work/"
	(cd "$work" && go mod edit -replace "github.com/daemonsched/daemonsched=$root")
	pin "$work" "$release" || return 1
	local overlay flags=()
	overlay=$(compat "$work/compat" "$release") || return 1
	[ -z "$overlay" ] || flags=(-overlay "$overlay")
	echo "== internal/upstreamtest against k8s.io/kubernetes v$release (-tags $tag${overlay:+, the library through $overlay})"
	# run_release runs as an if's condition, where set -e does not hold: each step stops the next.
	# go mod tidy does not read the overlay: the compat module is required after it.
	(
		cd "$work" &&
			GOFLAGS="${GOFLAGS:-} -mod=mod" go mod tidy &&
			{ [ -z "$overlay" ] || go mod edit -require daemonsched.invalid/compatcontent@v0.0.0 \
				-replace daemonsched.invalid/compatcontent=./compat/content; } &&
			go vet -tags "$tag" "${flags[@]}" . &&
			go test -tags "$tag" "${flags[@]}" "$@" .
	)
}

if [ $# -eq 0 ]; then
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2
fi

if [ "$1" = "--pin" ]; then
	[ $# -eq 2 ] || { echo "usage: release.sh --pin RELEASE" >&2; exit 2; }
	release=$(resolve "$2")
	pin "$here" "$release"
	(cd "$here" && GOFLAGS="${GOFLAGS:-} -mod=mod" go mod tidy)
	exit 0
fi

releases=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	all) mapfile -t -O "${#releases[@]}" releases < <(supported) ;;
	older) mapfile -t -O "${#releases[@]}" releases < <(supported | sed '$d') ;;
	rotate)
		# Only the older releases whose run is recorded green in VER-8 (docs/rules/versions.md)
		# rotate in CI, so that the day a run falls on cannot turn it red; the others are run
		# by name or with all until their harness differences are fixed, then join this list.
		older=(1.33.13 1.34.4 1.35.4 1.36.3)
		day=$(date -u +%j)
		releases+=("${older[$((10#$day % ${#older[@]}))]}")
		;;
	*) releases+=("$(resolve "$1")") ;;
	esac
	shift
done
[ $# -gt 0 ] && shift # the --

failed=()
for r in "${releases[@]}"; do
	if ! run_release "$r" "$@"; then
		failed+=("$r")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "release.sh: the differential tests failed against: ${failed[*]}" >&2
	exit 1
fi
