package cli

// rootLong is the description of the daemonsched command (daemonsched --help).
const rootLong = `daemonsched prints what the Kubernetes DaemonSet controller would do in one sync of every
DaemonSet of a snapshot (plan), and why a DaemonSet does or does not run on a node (explain).
It models the controller of one release: 1.37.2 by default, or the one --kubernetes-version
names, 1.33 to 1.37 (a minor alone, such as 1.35, is its newest patch; the kubectl plugin
takes the cluster's own /version); --feature-gates Name=true,... sets the feature gates that
change a decision over that release's defaults. "daemonsched version" lists the releases.
verify says whether a candidate plan (another implementation's, in the shape of plan -o json) is
one the controller could have produced, accepting each of its random choices; exit 0 when it
conforms, 1 with one line per mismatch (DaemonSet, action, object, rule: message) when not.
conformance run runs the conformance corpus through PROGRAM (one case in, one plan out, as
newline-delimited JSON on its stdin and stdout), prints a summary per profile and writes a YAML
report per profile (placement, diff, rolling, status, what-if); exit 0 when every profile run
conforms. conformance serve answers that protocol with this program's own plans.

Run "daemonsched COMMAND --help" for the input and flags of each command.`

// inputHelp is what every command reading a snapshot says about reading it (--help).
const inputHelp = `Input (-f/--filename, repeatable; "-" reads stdin; a directory reads its .yaml, .yml and
.json files, and with -R/--recursive those of its subdirectories): YAML or JSON, several
documents separated by "---", and lists (kind: List, as "kubectl get nodes,pods,daemonsets,controllerrevisions -A -o yaml"
prints, or NodeList, PodList, ... as the API server returns them). apps/v1 DaemonSet and
ControllerRevision and v1 Node and Pod are read; other kinds are skipped with a warning. Without
-f, stdin is read when it is not a terminal; --example (or daemonsched demo) reads the built-in
example cluster instead. Either way stderr says which input was read. --apply FILE lays the
DaemonSet manifests of FILE over the input as kubectl diff shows what kubectl apply would store
(D-14): the spec replaced, labels and annotations merged, identity and status kept. UTF-8 (a
byte order mark is ignored) or UTF-16 with a byte order mark; Windows line endings, comments,
"..." and empty documents are fine.

Objects are decoded into the API types of Kubernetes 1.37 (k8s.io/api v0.37.2), whatever
release is modelled, as a 1.37 controller decodes them: a field those types do not have (a
typo, or a field of a newer Kubernetes) is dropped with a warning
naming where it was and the field it is a typo of ("did you mean nodeSelector?"). Every command
but verify makes it an error in a hand-written object (one without metadata.resourceVersion and
managedFields, which only the API server sets), as it does a DaemonSet the API server would
refuse (exit 1, nothing on stdout), and keeps both warnings in objects read from the API server,
which are planned as stored; --strict makes them errors everywhere, --lenient warnings
everywhere (verify always reads so). A misspelled kind ("Daemonset") is an error
with the kind meant; a value of the wrong type, a key given twice and a syntax error are always
errors. ControllerRevision data is re-encoded as the controller
stores it (compact JSON, sorted keys, <, > and & escaped), so a revision printed by kubectl as
YAML or indented JSON still matches its template byte for byte.

Hand-written manifests: every DaemonSet gets the API server's DaemonSet defaults (update
strategy, revisionHistoryLimit); objects without metadata.namespace are in "default"; a
DaemonSet without metadata.uid takes the uid of the DaemonSet of its namespace and name that owns
pods in the input, or else one derived from its namespace and name (with a warning).
Pods belong to a DaemonSet only through an ownerReference carrying its uid: an ownerReference
with the right name but no or another uid makes the pod invisible to that DaemonSet, as in a
real cluster (a warning counts such pods when none carries the DaemonSet's uid).

--now is an RFC 3339 time, with or without fractional seconds, in UTC ("Z") or with an offset
("+02:00"). It defaults, for reproducible output, to the latest timestamp in the input
(metadata.creationTimestamp and managedFields[].time of every object, pod status.startTime,
pod, node and DaemonSet condition lastTransitionTime, node condition lastHeartbeatTime, taint
timeAdded), or 1970-01-01T00:00:00Z if the input has none; pass --now to judge readiness
(minReadySeconds) at another instant.

Output: table (default), json (the oracle contract: identical bytes for the same snapshot
whatever the order of documents and files, ending in a newline) or yaml (the same content).

Limits, against damaged and hostile input (each flag changes one): --max-input-bytes (all
inputs together, default 1 GiB), --max-objects (per input, documents and list items, default
250000), --max-object-bytes (per object, default 3 MiB as the API server), --max-quantity-length
(64) and --max-quantity-exponent (100; "1e-999999999" is refused before it is parsed, which
would take hours), --max-warnings (100 distinct, then their count). Only regular files and
stdin are read. Nodes and pods are checked as the API server checks the fields the plan reads
(names, labels, taints, quantities): a problem is an error in a hand-written object, and a
warning in one read from the API server (with metadata.resourceVersion; an error with
--strict); --warn-invalid makes hand-written ones warnings too.

Each error is one line on stderr, "daemonsched: FILE: document N: Kind namespace/name: path:
message" (with "items[I]" after the document inside lists), and nothing is written on stdout.
Names and values holding control or other non-graphic characters are printed quoted or escaped.`
