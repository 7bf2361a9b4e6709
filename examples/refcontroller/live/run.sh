#!/usr/bin/env bash
# The reference controller against real servers: builds etcd v3.6.8, kube-apiserver v1.36.3 and
# kube-controller-manager v1.36.3 from the servers module (binaries cached outside the
# repository, keyed by the module's sources and the Go version), starts etcd and kube-apiserver on
# free 127.0.0.1 ports with throw-away keys and a static token, runs one of three things against
# them, and always stops every process it started.
# In story mode the kubectl plugin's live test (cmd/kubectl-daemonsched, build tag "live")
# runs after the story against the same servers. RBAC is on, so that the plugin's forbidden
# lists are real; the story's user is in system:masters.
#
#   examples/refcontroller/live/run.sh [story] [go test flags...]   the live story (build tag "live")
#   examples/refcontroller/live/run.sh e2e [e2e.test flags...]       upstream's 10 DaemonSet e2e specs,
#                                                                    the reference controller as the
#                                                                    DaemonSet controller
#   examples/refcontroller/live/run.sh e2e-kcm [e2e.test flags...]   the same specs with
#                                                                    kube-controller-manager's own
#
# The e2e modes also start kube-controller-manager with only what the e2e framework needs
# (serviceaccount, namespace, garbagecollector, root-ca-cert-publisher; plus daemonset for
# e2e-kcm) and the e2e suite (module live/e2e; its test binary cached beside the servers, keyed
# by its module's sources, the test kubelet's and the Go version), which registers the nodes and
# runs the test kubelet.
#
# Environment: DAEMONSCHED_LIVE_CACHE (binary cache, default $(go env GOCACHE)/../daemonsched-live),
# DAEMONSCHED_LIVE_KEEP=1 keeps the temp directory (logs) after the run, DAEMONSCHED_LIVE_STORY=0
# runs the plugin's test alone.
set -euo pipefail

mode=story
case ${1:-} in story | e2e | e2e-kcm) mode=$1; shift ;; esac

here=$(cd "$(dirname "$0")" && pwd)
module=$(cd "$here/.." && pwd)
repo=$(cd "$module/../.." && pwd)
servers=$here/servers
t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# 1. Binaries, cached by content.
cache=${DAEMONSCHED_LIVE_CACHE:-$(go env GOCACHE)/../daemonsched-live}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
key=$(
	cd "$servers"
	{ cat go.mod go.sum; find . -name '*.go' -type f | LC_ALL=C sort | xargs cat; go version; } | sha256sum | cut -c1-16
)
bin=$cache/$key
if [ -x "$bin/etcd" ] && [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ]; then
	echo "== servers: cached in $bin"
else
	echo "== servers: building into $bin (minutes on a cold Go build cache)"
	tmpbin=$(mktemp -d "$cache/build.XXXXXX")
	(cd "$servers" && go build -o "$tmpbin/" ./etcd ./kube-apiserver ./kube-controller-manager)
	rm -rf "$bin"
	mv "$tmpbin" "$bin"
fi
if [ "$mode" != story ]; then
	# The e2e suite's test binary links the e2e framework (minutes to compile cold): cached the same
	# way, keyed by everything it is built from outside the module cache.
	e2ekey=$(
		cd "$here"
		{ cat e2e/go.mod e2e/go.sum e2e/*.go; find . -maxdepth 1 -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat; go version; } | sha256sum | cut -c1-16
	)
	e2ebin=$cache/e2e-$e2ekey
	if [ -x "$e2ebin/e2e.test" ]; then
		echo "== e2e suite: cached in $e2ebin"
	else
		echo "== e2e suite: building into $e2ebin (minutes on a cold Go build cache)"
		tmpbin=$(mktemp -d "$cache/build.XXXXXX")
		(cd "$here/e2e" && go test -c -o "$tmpbin/e2e.test" .)
		rm -rf "$e2ebin"
		mv "$tmpbin" "$e2ebin"
	fi
fi
built=$(elapsed)

# 2. Keys, token, ports.
work=$(mktemp -d "${TMPDIR:-/tmp}/daemonsched-live.XXXXXX")
pids=()
# stop PID: SIGTERM, up to 15 s to exit, then SIGKILL. kube-apiserver never finishes its graceful
# shutdown once etcd is gone (it retries etcd forever), so the servers stop in reverse order of
# their start, and no stop waits without bound.
# A PID written -PID is a process group (a test run: go test and the test binary it starts).
stop() {
	local pid=$1 i
	kill -TERM -- "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 30; i++)); do
		kill -0 -- "$pid" 2>/dev/null || break
		sleep 0.5
	done
	kill -KILL -- "$pid" 2>/dev/null || true
	wait "${pid#-}" 2>/dev/null || true
}
cleanup() {
	local rc=$? i
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
	if [ "${DAEMONSCHED_LIVE_KEEP:-}" = 1 ] || [ $rc -ne 0 ]; then
		echo "== logs kept in $work"
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# background CMD...: starts CMD in the background in a process group of its own (job control on
# for that start only), sets bg to the group, and adds it to what cleanup stops.
bg=
background() {
	set -m
	"$@" &
	bg=-$!
	set +m
	pids+=("$bg")
}
# waitfor: waits for the last background group's leader and returns its status. A signal to
# the script (^C, CI's timeout) interrupts the wait, so that the trap runs at once and its
# cleanup stops that group, where a command in the foreground would delay the trap until it
# ended (bash runs traps between commands), and a hang would keep the servers up.
waitfor() {
	local status=0
	wait "${bg#-}" || status=$?
	unset 'pids[-1]'
	return $status
}
# The run's own bound, past go test's -timeout and e2e.test's: DAEMONSCHED_LIVE_TIMEOUT
# seconds (default 1800) after the start, the script stops everything and fails.
limit=${DAEMONSCHED_LIVE_TIMEOUT:-1800}
background sh -c 'sleep "$1" && echo "== live script: over DAEMONSCHED_LIVE_TIMEOUT=$1 s, stopping" && kill -TERM "$2"' - "$limit" $$

openssl genrsa -out "$work/sa.key" 2048 2>/dev/null
openssl rsa -in "$work/sa.key" -pubout -out "$work/sa.pub" 2>/dev/null
token=$(openssl rand -hex 16)
echo "$token,story-admin,story-admin,system:masters" >"$work/tokens.csv"

used() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
taken=" "
port=0
freeport() { # sets port to a free 127.0.0.1 port not handed out before
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		case $taken in *" $p "*) continue ;; esac
		used "$p" && continue
		taken="$taken$p "
		port=$p
		return
	done
}
freeport; etcd_client=$port
freeport; etcd_peer=$port
freeport; etcd_metrics=$port
freeport; apiport=$port

# 3. etcd and kube-apiserver.
"$bin/etcd" --name live --data-dir "$work/etcd" \
	--listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
	--listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
	--initial-cluster "live=http://127.0.0.1:$etcd_peer" --listen-metrics-urls "http://127.0.0.1:$etcd_metrics" \
	>"$work/etcd.log" 2>&1 &
pids+=($!)

# TaintNodesByCondition would keep a not-ready taint on every node (no kubelet reports ready);
# ServiceAccount would wait for a token controller that does not run here.
"$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_client" \
	--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$apiport" \
	--cert-dir "$work/certs" --token-auth-file "$work/tokens.csv" \
	--service-account-key-file "$work/sa.pub" --service-account-signing-key-file "$work/sa.key" \
	--service-account-issuer https://kubernetes.default.svc.cluster.local \
	--service-cluster-ip-range 10.0.0.0/24 --authorization-mode RBAC \
	--disable-admission-plugins TaintNodesByCondition,ServiceAccount \
	>"$work/kube-apiserver.log" 2>&1 &
pids+=($!)

cat >"$work/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: live
  cluster: {server: "https://127.0.0.1:$apiport", insecure-skip-tls-verify: true}
users:
- name: story-admin
  user: {token: "$token"}
contexts:
- name: live
  context: {cluster: live, user: story-admin}
current-context: live
EOF

started=$(date +%s)
until curl -fsk -H "Authorization: Bearer $token" "https://127.0.0.1:$apiport/readyz" >/dev/null 2>&1; do
	for pid in "${pids[@]}"; do
		kill -0 -- "$pid" 2>/dev/null || { echo "a server exited; logs:"; tail -20 "$work"/*.log; exit 1; }
	done
	if [ $(($(date +%s) - started)) -gt 120 ]; then
		echo "kube-apiserver not ready after 120 s"; tail -20 "$work/kube-apiserver.log"; exit 1
	fi
	sleep 0.5
done
ready=$(elapsed)
echo "== kube-apiserver ready on 127.0.0.1:$apiport (${ready}s since start, binaries ready at ${built}s)"

# 4. The story, in-process with the controller, then the kubectl plugin: every command live,
# and offline on what it saved.
if [ "$mode" = story ]; then
	if [ "${DAEMONSCHED_LIVE_STORY:-1}" != 0 ]; then
		background sh -c 'cd "$1" && shift && exec "$@"' - "$module" \
			env KUBECONFIG="$work/kubeconfig" go test -tags live -count=1 -run TestStory -v "$@" ./live/
		waitfor
	fi
	echo "== kubectl-daemonsched against the same servers"
	background sh -c 'cd "$1" && shift && exec "$@"' - "$repo" \
		env KUBECONFIG="$work/kubeconfig" go test -tags live -count=1 -run TestPluginLive -v "$@" ./cmd/kubectl-daemonsched/
	waitfor
	echo "== live script total: $(elapsed)s"
	exit 0
fi
# 5. Upstream's DaemonSet e2e specs, each controller its own process as in a cluster.
controllers=serviceaccount,namespace,garbagecollector,root-ca-cert-publisher
if [ "$mode" = e2e-kcm ]; then
	controllers=$controllers,daemonset
else
	(cd "$module" && go build -o "$work/refcontroller" .)
	# Built from module sources without upstream's version ldflags, kube-apiserver reports
	# v0.0.0-master at /version, which the controller refuses; it is v1.36.3 (servers/go.mod).
	"$work/refcontroller" --kubeconfig "$work/kubeconfig" --kubernetes-version 1.36.3 >"$work/refcontroller.log" 2>&1 &
	pids+=($!)
fi
freeport; kcmport=$port
"$bin/kube-controller-manager" --kubeconfig "$work/kubeconfig" --controllers "$controllers" \
	--leader-elect=false --use-service-account-credentials=false --root-ca-file "$work/certs/apiserver.crt" \
	--bind-address 127.0.0.1 --secure-port "$kcmport" --cert-dir "$work/kcm-certs" \
	>"$work/kube-controller-manager.log" 2>&1 &
pids+=($!)
echo "== $mode: DaemonSet controller $([ "$mode" = e2e ] && echo "refcontroller" || echo "kube-controller-manager's"); specs at $(elapsed)s"
# In the background and waited for, so that a SIGTERM (CI's timeout) reaches the trap at once
# and the cleanup stops the suite too.
background sh -c 'cd "$1" && shift && exec "$@"' - "$work" "$e2ebin/e2e.test" -kubeconfig "$work/kubeconfig" -test.v "$@"
status=0
waitfor || status=$?
for pid in "${pids[@]}"; do
	kill -0 -- "$pid" 2>/dev/null || { echo "a server or controller exited during the specs; logs in $work"; status=1; }
done
echo "== $mode script total: $(elapsed)s"
exit $status
